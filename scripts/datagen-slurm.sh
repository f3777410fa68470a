#!/usr/bin/env bash
#SBATCH --job-name=amalgam-datagen
#SBATCH --array=1-8
#SBATCH --cpus-per-task=4
#SBATCH --output=amalgam-datagen-%A-%a.log
# Training data as a Slurm array job: each array task runs one
# `amalgam datagen` with its own seed into its own file.
#
# Usage: sbatch [--array=1-N] [--cpus-per-task=C] scripts/datagen-slurm.sh OUTDIR VARIANT DATAGEN-OPTIONS...
#
#   --array=1-N  N parts (default 1-8, above); task K runs with --seed
#                SEED+K-1 (SEED: 1 unless set in the environment), where K
#                counts from the array's first index
#   OUTDIR       a folder every node can write (a shared disk); task K
#                writes OUTDIR/part-K.txt (anew: an old one is removed)
#   VARIANT      the variant
#   DATAGEN-OPTIONS  those of one part: --games (per part), --nodes or
#                --depth, --openings; --threads is the task's cores
#
# Parts with different seeds play different games (see
# scripts/datagen-parallel.sh). AMALGAM names the amalgam binary (default:
# amalgam on PATH). When every task is done, fit the weights to all parts:
#
#   jobid=$(sbatch --parsable --array=1-32 scripts/datagen-slurm.sh data chess --games 20000 --nodes 5000)
#   sbatch --dependency=afterok:"$jobid" --cpus-per-task=8 --output=data/tune.log \
#       --wrap "amalgam tune chess data/part-*.txt --out chess.params"
set -euo pipefail

if [ $# -lt 2 ] || [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # Under sbatch the script runs from a copy, so the usage is written out.
    echo "usage: sbatch --array=1-N scripts/datagen-slurm.sh OUTDIR VARIANT DATAGEN-OPTIONS..." >&2
    exit 2
fi
out=$1 variant=$2
shift 2
part=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
seed=$((${SEED:-1} + part - 1))
mkdir -p "$out"
rm -f -- "$out/part-$part.txt"
exec "${AMALGAM:-amalgam}" datagen "$variant" "$@" --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --seed "$seed" --out "$out/part-$part.txt"
