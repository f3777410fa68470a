#!/usr/bin/env bash
# Generate training data on several machines with GNU parallel: one
# `amalgam datagen` a part, each with its own seed and its own file.
#
# Usage: scripts/datagen-parallel.sh MACHINES PARTS OUTDIR VARIANT -- DATAGEN-OPTIONS...
#
#   MACHINES  GNU parallel's --sshloginfile: a line per machine, e.g.
#             "2/user@host" (2 parts at once there) or ":" (this machine)
#   PARTS     N parts; part K runs with --seed SEED+K-1 (SEED: 1 unless set
#             in the environment)
#   OUTDIR    made if missing; gets NAME-part-K.txt per part (NAME: the
#             folder's own name), datagen.log and jobs.log
#   VARIANT   the variant
#   DATAGEN-OPTIONS  those of one part: --games (per part), --nodes or
#             --depth, --threads, --openings; no --out, no --seed
#
# Each game's seed is the run's seed times 0x9E3779B9 plus the game's
# number, so parts with different seeds play different games (below about
# 2.6 billion games a part). AMALGAM names the amalgam binary, the same
# path on every machine (default: amalgam on PATH). A part on another
# machine writes its file in the login folder there; the file comes back
# to OUTDIR and is removed there. Old part files in OUTDIR are removed
# first (datagen appends).
#
# Example, then fitting the weights to every part at once:
#   scripts/datagen-parallel.sh machines.txt 32 data chess -- --games 20000 --nodes 5000 --threads 4
#   amalgam tune chess data/data-part-*.txt --out chess.params
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=parallel-parts.sh
. "$(dirname "$(realpath "$0")")/parallel-parts.sh"

if [ $# -lt 5 ] || [ "$5" != "--" ]; then usage; fi
seed=${SEED:-1}
case $seed in '' | *[!0-9]*) echo "SEED: a whole number, not '$seed'" >&2; exit 2 ;; esac
variant=$4
parts_setup "$1" "$2" "$3"
shift 5
# {= ... =} is the part's seed, computed by parallel.
parts_run txt datagen.log "$amalgam" datagen "$variant" "$@" \
    --seed "{= \$_ += $seed - 1 =}" --out "$base-{}.txt"
[ "$failed" -eq 0 ] || exit "$failed"
echo "data in $PWD/$base-*.txt; e.g. amalgam tune $variant $PWD/$base-*.txt --out PARAMS"
