#!/usr/bin/env bash
# A scripted UCI engine for the match tests. Its first argument says how it
# misbehaves when asked to move:
#   illegal  answers with a1a8, which is never legal in the start position
#   crash    exits
#   hang     never answers (not even `stop`)
mode=$1
while read -r cmd _; do
    case "$cmd" in
        uci) echo "id name fake-$mode"; echo "uciok" ;;
        isready) echo "readyok" ;;
        go)
            case "$mode" in
                illegal) echo "info depth 1 score cp 0"; echo "bestmove a1a8" ;;
                crash) exit 3 ;;
                hang) ;;
            esac
            ;;
        quit) exit 0 ;;
    esac
done
