#!/usr/bin/env bash
# Play one match on several machines with GNU parallel, then merge it.
#
# Usage: scripts/match-parallel.sh MACHINES PARTS OUTDIR -- MATCH-OPTIONS...
#
#   MACHINES  GNU parallel's --sshloginfile: a line per machine, e.g.
#             "8/user@host" (8 parts at once there) or ":" (this machine)
#   PARTS     N: the match is cut into N parts (--shard 1/N ... N/N), each
#             a job; give more parts than machines to share them out
#   OUTDIR    made if missing; gets NAME-part-K.pgn per part (NAME: the
#             folder's own name), match.log (the parts' output), jobs.log
#             and stats.txt (the merged results)
#   MATCH-OPTIONS  those of the whole match: engines, variant, --games (of
#             the whole match), limits, openings, --seed; no --pgn, no
#             --shard, no --sprt (set SPRT instead)
#
# Environment: AMALGAM, the amalgam binary, the same path on every machine
# (default: amalgam on PATH); SPRT, e.g. "elo0=0 elo1=5", adds the test to
# the merged results. Engines and files the options name must be at the
# same paths on every machine (a shared disk does it). A job on another
# machine writes its PGN in the login folder there; the PGN comes back to
# OUTDIR and is removed there.
#
# Example:
#   SPRT="elo0=0 elo1=5" scripts/match-parallel.sh machines.txt 16 out -- \
#       --engine name=new "cmd=/shared/new/amalgam --uci" proto=uci \
#       --engine name=old "cmd=/shared/old/amalgam --uci" proto=uci \
#       --variant chess --tc 10+0.1 --games 4000 --random-plies 6 --seed 7
#
# The merge alone, again: amalgam pgn stats OUTDIR/*-part-*.pgn [--sprt ...]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=parallel-parts.sh
. "$(dirname "$(realpath "$0")")/parallel-parts.sh"

if [ $# -lt 4 ] || [ "$4" != "--" ]; then usage; fi
parts_setup "$1" "$2" "$3"
shift 4
parts_run pgn match.log "$amalgam" match "$@" --shard "{}/$parts" --pgn "$base-{}.pgn"

stats=("$amalgam" pgn stats)
for k in $(seq 1 "$parts"); do stats+=("$base-$k.pgn"); done
if [ -n "${SPRT:-}" ]; then
    read -ra words <<<"$SPRT"
    stats+=(--sprt "${words[@]}")
fi
"${stats[@]}" | tee stats.txt
exit "$failed"
