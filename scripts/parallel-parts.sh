# shellcheck shell=bash
# Shared by match-parallel.sh and datagen-parallel.sh, which source it:
# their arguments MACHINES PARTS OUTDIR, and the parts run with GNU
# parallel. Not a command of its own.

# The calling script's header comment, as its usage; exit status 2.
usage() {
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

# parts_setup MACHINES PARTS OUTDIR: check them; set machines (the file's
# full path), parts, amalgam (AMALGAM, else amalgam on PATH) and base, the
# parts' file names before "-K.EXT" (named after OUTDIR, so that two runs do
# not share files on a machine); enter OUTDIR, made if missing.
parts_setup() {
    machines=$1 parts=$2
    case $parts in '' | *[!0-9]* | 0) echo "PARTS: a whole number from 1, not '$parts'" >&2; exit 2 ;; esac
    [ -r "$machines" ] || { echo "$machines: no such file" >&2; exit 2; }
    machines=$(realpath "$machines")
    # shellcheck disable=SC2034 # for the calling script
    amalgam=${AMALGAM:-amalgam}
    mkdir -p "$3"
    cd "$3" || exit 2
    base="$(basename "$PWD")-part"
}

# parts_run EXT LOG COMMAND...: run COMMAND once a part on the machines,
# {} in its words standing for the part (1 to N), and bring its file
# base-K.EXT back here (old ones are removed first); a part on another
# machine runs in the login folder there, where its file is removed once
# back. -q passes every word as it is, through ssh too. The output, tagged
# with the part, goes to LOG too; failed is set to the failed parts' count.
parts_run() {
    local ext=$1 log=$2
    shift 2
    rm -f -- "$base"-*."$ext"
    set +e
    seq 1 "$parts" | parallel --will-cite --sshloginfile "$machines" \
        --return "$base-{}.$ext" --cleanup --joblog jobs.log --tagstring 'part {}' --line-buffer \
        -q "$@" 2>&1 | tee "$log"
    failed=${PIPESTATUS[1]}
    set -e
    if [ "$failed" -ne 0 ]; then
        echo "$failed part(s) failed: see $PWD/jobs.log and $PWD/$log" >&2
    fi
}
