#!/usr/bin/env bash
# A scripted UCI engine for the match tests. Its first argument says how it
# misbehaves when asked to move:
#   illegal  answers with a1a8, which is never legal in the start position
#   crash    exits
#   hang     never answers (not even `stop`)
#   variant-path  lists `compound` among its UCI_Variant values only on a
#            `uci` after `setoption name VariantPath` (as Fairy-Stockfish
#            does after loading a variant file), and then moves as `illegal`
#   string-variant  lists UCI_Variant as a string option (no values) and
#            answers `info string error` to any variant but chess; moves as
#            `illegal`
mode=$1
loaded=
while read -r cmd rest; do
    case "$cmd" in
        uci)
            echo "id name fake-$mode"
            if [ "$mode" = variant-path ]; then
                echo "option name VariantPath type string default <empty>"
                if [ -n "$loaded" ]; then
                    echo "option name UCI_Variant type combo default chess var chess var compound"
                else
                    echo "option name UCI_Variant type combo default chess var chess"
                fi
            fi
            if [ "$mode" = string-variant ]; then
                echo "option name UCI_Variant type string default chess"
            fi
            echo "uciok"
            ;;
        setoption)
            case "$rest" in
                "name VariantPath value "*) loaded=1 ;;
                "name UCI_Variant value chess") ;;
                "name UCI_Variant value "*)
                    [ "$mode" = string-variant ] && echo "info string error: unknown variant ${rest##* }"
                    ;;
            esac
            ;;
        isready) echo "readyok" ;;
        go)
            case "$mode" in
                illegal | variant-path | string-variant) echo "info depth 1 score cp 0"; echo "bestmove a1a8" ;;
                crash) exit 3 ;;
                hang) ;;
            esac
            ;;
        quit) exit 0 ;;
    esac
done
