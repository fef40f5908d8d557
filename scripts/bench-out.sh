# Sourced by the benchmark scripts (no `set` of its own): the run's folder,
# made here, and removed again when the script fails before a CSV in it
# holds a row below its header. A failed run then leaves no folder of logs
# and half files to be taken for results (without a GPU, bench-knobs.sh
# left base.csv and base.err, bench-size-sweeps.sh a log, bench-gpu-sweep.sh
# an empty folder); the failing command's error is on stderr.
#
#   . "$root/scripts/bench-out.sh"
#   bench_out_begin "$out" [made [parent]]  # made: 1 when the caller made it (mktemp -d);
#                                           # parent: a folder shared with other runs (a Slurm
#                                           # job array's OUT), removed with $out when then empty
#   bench_out_begin_temp NAME               # OUT, else a new TMPDIR/trilap-NAME-XXXXXX;
#                                           # the folder is $bench_out_dir
#
# The lines it prints name the script by $0, or by bench_out_name where the
# caller sets it (a Slurm batch script runs as slurmd's copy, slurm_script).
#
# An interrupted run (^C, SIGTERM from scancel or Slurm's time limit,
# SIGHUP) is a failed one: it exits 128 + the signal's number, and the
# folder goes as above. Bash runs the EXIT trap of a shell a signal ends,
# but with $? 0 there, so without these traps an interrupted run was taken
# for a finished one: its folder, a CSV holding a header alone, stayed,
# without a word, and the script exited as if killed with nothing said.

bench_out_begin() {
    bench_out_dir=$1
    bench_out_made=${2:-0}
    bench_out_parent=${3:-}
    [ -e "$bench_out_dir" ] || bench_out_made=1
    mkdir -p "$bench_out_dir"
    bench_out_signal=""
    trap bench_out_end EXIT
    trap 'bench_out_stop INT 130' INT
    trap 'bench_out_stop TERM 143' TERM
    trap 'bench_out_stop HUP 129' HUP
}

# The caller's OUT, or a folder of its own under TMPDIR made here (and so
# removed with the rest when the run fails before a row).
bench_out_begin_temp() {
    local dir
    if [ -n "${OUT:-}" ]; then
        bench_out_begin "$OUT"
        return
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/trilap-$1-XXXXXX")
    bench_out_begin "$dir" 1
}

bench_out_stop() {
    bench_out_signal=$1
    exit "$2"
}

# A CSV under the folder with a row below its header ('#' lines aside)
bench_out_has_rows() {
    find "$bench_out_dir" -name '*.csv' -type f \
        -exec awk '/^#/ { next } n++ { found = 1; exit } END { exit !found }' {} \; -print -quit 2>/dev/null | grep -q .
}

bench_out_end() {
    local rc=$? what
    what="failed (exit $rc)"
    [ -z "$bench_out_signal" ] || what="interrupted (SIG$bench_out_signal)"
    [ "$rc" -ne 0 ] && [ "$bench_out_made" = 1 ] && [ -d "$bench_out_dir" ] || {
        [ -z "$bench_out_signal" ] || echo "${bench_out_name:-$0}: $what" >&2
        return 0
    }
    if bench_out_has_rows; then
        echo "${bench_out_name:-$0}: $what; the rows written before it are in $bench_out_dir" >&2
    else
        rm -rf "$bench_out_dir"
        # rmdir: a sibling's folder in it keeps it
        [ -z "$bench_out_parent" ] || rmdir "$bench_out_parent" 2>/dev/null || true
        echo "${bench_out_name:-$0}: $what; $bench_out_dir removed" >&2
    fi
}
