#!/usr/bin/env bash
# A scripted XBoard engine for the match tests. Its first argument:
#   claim    claims "1-0 {White mates}" whenever it should move
#   orthodox offers only the variant "normal"
mode=$1
while read -r cmd arg _; do
    case "$cmd" in
        protover)
            echo "feature myname=\"fake-$mode\" ping=1 usermove=1 setboard=1 variants=\"normal\" done=1"
            ;;
        ping) echo "pong $arg" ;;
        go) [ "$mode" = claim ] && echo "1-0 {White mates}" ;;
        quit) exit 0 ;;
    esac
done
