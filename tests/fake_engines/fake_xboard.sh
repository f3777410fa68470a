#!/usr/bin/env bash
# A scripted XBoard engine for the match tests. Its first argument:
#   claim    claims "1-0 {White mates}" whenever it should move
#   orthodox offers only the variant "normal"
#   picky    offers the options Style (a combo) and Level (a spin), answers
#            `Error` to any Style but "solid", and claims as `claim`
mode=$1
while read -r cmd arg _; do
    case "$cmd" in
        protover)
            echo "feature myname=\"fake-$mode\" ping=1 usermove=1 setboard=1 variants=\"normal\""
            if [ "$mode" = picky ]; then
                echo "feature option=\"Style -combo solid /// wild\""
                echo "feature option=\"Level -spin 5 1 10\""
            fi
            echo "feature done=1"
            ;;
        option)
            case "$arg" in
                Style=solid | Level=*) ;;
                *) echo "Error (bad value): option $arg" ;;
            esac
            ;;
        ping) echo "pong $arg" ;;
        go) [ "$mode" = claim ] || [ "$mode" = picky ] && echo "1-0 {White mates}" ;;
        quit) exit 0 ;;
    esac
done
