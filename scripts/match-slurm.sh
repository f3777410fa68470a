#!/usr/bin/env bash
#SBATCH --job-name=amalgam-match
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --output=amalgam-match-%A-%a.log
# One match as a Slurm array job: each array task plays one part of it.
#
# Usage: sbatch [--array=1-N] [--cpus-per-task=C] scripts/match-slurm.sh OUTDIR MATCH-OPTIONS...
#
#   --array=1-N  N parts (default 1-8, above); task K plays --shard K/N,
#                where K counts from the array's first index and N is
#                $SLURM_ARRAY_TASK_COUNT: give a plain range, no steps
#   OUTDIR       a folder every node can write (a shared disk); task K
#                writes OUTDIR/part-K.pgn
#   MATCH-OPTIONS  those of the whole match: engines, variant, --games (of
#                the whole match), limits, openings, --seed; no --pgn,
#                --shard or --sprt. --concurrency C/2 uses a task's C cores
#                (each game runs two engines)
#
# AMALGAM names the amalgam binary (default: amalgam on PATH). When every
# task is done, merge the parts, e.g. as a job that waits for the array:
#
#   jobid=$(sbatch --parsable --array=1-16 scripts/match-slurm.sh out \
#       --engine name=new "cmd=/shared/new/amalgam --uci" proto=uci \
#       --engine name=old "cmd=/shared/old/amalgam --uci" proto=uci \
#       --variant chess --tc 10+0.1 --games 4000 --random-plies 6 --seed 7)
#   sbatch --dependency=afterany:"$jobid" --output=out/stats.txt \
#       --wrap "amalgam pgn stats out/part-*.pgn --sprt elo0=0 elo1=5"
set -euo pipefail

if [ $# -lt 2 ] || [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # Under sbatch the script runs from a copy, so the usage is written out.
    echo "usage: sbatch --array=1-N scripts/match-slurm.sh OUTDIR MATCH-OPTIONS..." >&2
    exit 2
fi
out=$1
shift
part=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
parts=$SLURM_ARRAY_TASK_COUNT
mkdir -p "$out"
exec "${AMALGAM:-amalgam}" match "$@" --shard "$part/$parts" --pgn "$out/part-$part.pgn"
