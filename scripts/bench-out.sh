# Sourced by the benchmark scripts (no `set` of its own): the run's folder,
# made here, and removed again when the script fails before a CSV in it
# holds a row below its header. A failed run then leaves no folder of logs
# and half files to be taken for results (without a GPU, bench-knobs.sh
# left base.csv and base.err, bench-size-sweeps.sh a log, bench-gpu-sweep.sh
# an empty folder); the failing command's error is on stderr.
#
#   . "$root/scripts/bench-out.sh"
#   bench_out_begin "$out" [made]           # made: 1 when the caller made it (mktemp -d)
#   bench_out_begin_results NAME            # OUT, else a new results/NAME-<host>-<date>
#   bench_out_begin_staged FINAL [TAG]      # FINAL (OUT/task-3), written elsewhere first
#   bench_out_log FILE                      # a log appended to (tee -a) beside an appended CSV
#   bench_out_fresh                         # refuse an OUT holding an earlier run's CSV
#   bench_out_manifest VARS ARGS...         # OUT/manifest.txt: the script, ARGS, VARS, host, commit
#   bench_out_gzip DIR                      # every CSV under DIR gzipped (traces)
#   bench_out_unused OUT NAME...            # refuse an OUT holding NAME (logs, raw) of an earlier run
#   # the folder is $bench_out_dir
#   bench_out_say_where=1                   # a finished run's last line names the folder
#   bench_out_why=FUNCTION                  # prints ": REASON" for an interrupted run's line
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

# An OUT that is a file, or a folder it cannot make or write in, is one
# line naming it and exit 1 before anything runs (before, mkdir's "cannot
# create directory ...: File exists", or the program's own error after the
# folder's log had been begun).
bench_out_begin() {
    local err
    bench_out_dir=$1
    bench_out_made=${2:-0}
    bench_out_final=""
    [ -e "$bench_out_dir" ] || bench_out_made=1
    bench_out_before=()
    [ "$bench_out_made" = 1 ] || bench_out_snapshot
    if ! err=$(mkdir -p -- "$bench_out_dir" 2>&1) || [ ! -d "$bench_out_dir" ] || [ ! -w "$bench_out_dir" ]; then
        [ -n "$err" ] || err="not a folder it can write in"
        [ ! -e "$bench_out_dir" ] || [ -d "$bench_out_dir" ] || err="a file is there, not a folder"
        echo "${bench_out_name:-$0}: cannot write the results into $bench_out_dir: ${err##*: }" >&2
        exit 1
    fi
    bench_out_signal=""
    trap bench_out_end EXIT
    trap 'bench_out_stop INT 130' INT
    trap 'bench_out_stop TERM 143' TERM
    trap 'bench_out_stop HUP 129' HUP
}

# The caller's OUT, else a new folder in the checkout's results/,
# results/NAME-<host>-<date> (untracked until committed), named by the
# run's last line: under TMPDIR, where bench-op-timer.sh, bench-cg.sh and
# bench-trace-overhead.sh wrote before, the raw files a claim rests on went
# with the next clean-up.
bench_out_begin_results() {
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    bench_out_begin "${OUT:-$root/results/$1-$(hostname -s)-$(date +%Y%m%d-%H%M%S)}"
    bench_out_say_where=1
}

# FINAL (OUT/task-<index> of a Slurm job array, OUT shared with the other
# tasks) written as .OUT.task-<index>.TAG.XXXXXX/task-<index> beside OUT
# (TAG: the task's job id and cluster, by which slurm/job.sh tells a dead task's
# folder) and renamed into place once the run keeps it (finished, or a row
# written): the first task that keeps one renames its whole folder to OUT,
# the others theirs into it. So OUT is never made empty nor removed, and
# holds no half-written task folder: when every task fails before a row
# there is none, whatever the order (before, the task that made OUT removed
# it only if the others had gone first, and an empty OUT stayed). A run
# killed outright (SIGKILL, the node lost) leaves its .OUT.task-* folder,
# never OUT, until a later job removes it (slurm_job_sweep); OUT's missing
# parents are made at the start. A FINAL already there is written in
# place, as before, and kept.
bench_out_begin_staged() {
    local final=$1 tag=${2:-} name up above stage
    name=$(basename "$final") up=$(dirname "$final")
    if [ -e "$final" ]; then
        bench_out_begin "$final"
        return
    fi
    # a FINAL the rename cannot reach fails now, not after the job's run
    [ ! -e "$up" ] || { [ -d "$up" ] && [ -w "$up" ]; } || {
        echo "${bench_out_name:-$0}: $up is not a folder this job can write in" >&2
        exit 1
    }
    above=$(dirname "$up")
    mkdir -p "$above"
    stage=$(mktemp -d "$above/.$(basename "$up").$name.${tag:+$tag.}XXXXXX")
    # mktemp's 0700 would become OUT's own mode
    chmod "$(umask -S)" "$stage"
    mkdir "$stage/$name"
    bench_out_begin "$stage/$name" 1
    bench_out_final=$final bench_out_stage=$stage bench_out_up=$up
}

# The program wrote where it ran: its manifest's command: line (and any
# file naming its --results) named the staged folder FROM, gone once
# placed. Each text file under the placed folder TO (the run's folder)
# that names FROM names TO instead, rewritten under a temporary name beside
# it and renamed.
bench_out_repath() {
    local from=$1 to=${2:-$bench_out_dir} f tmp
    while IFS= read -r -d '' f; do
        tmp=$(mktemp "$f.XXXXXX") || return 1
        if from=$from to=$to awk '{
                out = ""
                while ((i = index($0, ENVIRON["from"])) > 0) {
                    out = out substr($0, 1, i - 1) ENVIRON["to"]
                    $0 = substr($0, i + length(ENVIRON["from"]))
                }
                print out $0 }' "$f" >"$tmp" && chmod --reference="$f" "$tmp" && mv -f -- "$tmp" "$f"; then
            continue
        fi
        rm -f -- "$tmp"
        return 1
    done < <(grep -rlIZF -- "$from" "$to")
}

# The staged folder into place: the whole of it as OUT where OUT is
# missing (rename(2) is atomic: of two tasks racing, one wins and the
# other's rename fails on the winner's non-empty OUT), else its task folder
# into OUT; then its files name it (bench_out_repath). Says why when it
# cannot, the folder left where it is.
bench_out_place() {
    local err staged=$bench_out_dir
    if [ ! -e "$bench_out_up" ] && mv -T "$bench_out_stage" "$bench_out_up" 2>/dev/null; then
        bench_out_dir=$bench_out_final
    elif err=$(mv -T "$bench_out_dir" "$bench_out_final" 2>&1); then
        rmdir "$bench_out_stage"
        bench_out_dir=$bench_out_final
    else
        echo "${bench_out_name:-$0}: cannot move $bench_out_dir to $bench_out_final (${err#mv: }); the results stay there" >&2
        return 1
    fi
    bench_out_repath "$staged" ||
        echo "${bench_out_name:-$0}: $bench_out_dir: its files still name $staged, where it was written" >&2
    return 0
}

# FILE, a log of this run beside a CSV that the program's --results
# appends to: where an earlier run into the same OUT (OUT given again, a
# requeued job) left it, a line naming this run goes below the earlier
# run's lines, and the caller appends (tee -a, >>) after it, so that the
# log holds the runs the CSV holds, in the same order (before, tee
# overwrote the log: the CSV held both runs' rows, the log the last run).
bench_out_log() {
    [ -s "$1" ] || return 0
    printf '# ==== another run into %s: %s, %s; the CSV beside this log holds its rows after the earlier ones\n' \
        "$bench_out_dir" "${bench_out_name:-${0##*/}}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$1"
}

# The benchmarks that take medians over their results CSVs (each
# trilap-solve run appends its rows): an OUT holding a CSV of an earlier
# run would mix both runs into one median, so such an OUT is one line
# naming it and exit 1, before anything runs (before, the medians took in
# the earlier run's rows without a word, its per-round logs overwritten).
bench_out_fresh() {
    local old
    old=$(find "$bench_out_dir" -maxdepth 1 -name '*.csv' -type f -print -quit 2>/dev/null)
    [ -z "$old" ] || {
        echo "${bench_out_name:-${0##*/}}: $old is an earlier run's, and this one's medians would take in its rows; choose another OUT or remove it" >&2
        exit 1
    }
}

# What a reader of the run's folder needs to check a claim made from it:
# the command (the script's name as bench_out_name or $0 has it, and ARGS),
# the values of the variables it read (VARS, "NAME=value ..."), when, where
# and at which commit.
bench_out_manifest() {
    local root vars=$1
    shift
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    {
        echo "script: scripts/${bench_out_name:-${0##*/}}${*:+ $*}"
        echo "variables: $vars"
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host: $(hostname)"
        echo "git: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
        echo "raw/: every run's --results CSV and the program's manifest.txt beside them, each run's output (NAME.ROUND.txt), the traces gzipped"
        echo "summary.txt: the table printed, from raw/"
    } >"$bench_out_dir/manifest.txt"
}

# Traces are the large files of a run (a trace.rank0.csv of a 1,000-iteration
# solve is megabytes); trilap-analyze reads them gzipped.
bench_out_gzip() {
    [ ! -d "$1" ] || find "$1" -type f -name '*.csv' -exec gzip -f -- {} +
}

# bench-solver-roof.sh's and bench-solvers-gpu.sh's summaries read every
# file of logs/ and raw/: an OUT given again mixed the earlier run's rows
# into this one's (render-roof-summary.sh reads each logs/p7-*.txt).
bench_out_unused() {
    local dir=$1 name
    shift
    for name; do
        [ ! -e "$dir/$name" ] || {
            echo "${bench_out_name:-${0##*/}}: $dir/$name is an earlier run's, and this run's summary would take it in; choose another OUT or remove it" >&2
            exit 1
        }
    done
}

# An OUT given again holds an earlier run, often a committed one
# (results/tristream-h200x2): the size of each of its files and its CSVs'
# row count, so that a run failing before a row of its own leaves it as it
# was (before, without a GPU, `OUT=results/tristream-h200x2
# scripts/run-tristream.sh 2` left a '# ==== another run' line and the
# program's error in its log, and bench-knobs.sh a line in each knob's CSV).
# Its subfolders too: a TRACE=1 run's trace.rank<R>.csv went into
# OUT/<variant>/, where a failed run left it (looking at the top alone, it
# said the folder was left as the earlier run left it).
bench_out_snapshot() {
    local f
    [ -d "$bench_out_dir" ] || return 0
    declare -gA bench_out_sizes=()
    while IFS= read -r -d '' f; do
        if [ -d "$f" ]; then bench_out_sizes[$f]=dir; else bench_out_sizes[$f]=$(stat -c %s -- "$f"); fi
        [ -d "$f" ] || bench_out_before+=("$f")
    done < <(find "$bench_out_dir" -mindepth 1 \( -type f -o -type d \) -print0)
    bench_out_rows=$(bench_out_count_rows)
}

# The rows below the header of the folder's top-level CSVs ('#' lines aside)
bench_out_count_rows() {
    find "$bench_out_dir" -maxdepth 1 -name '*.csv' -type f -exec awk '/^#/ { next } n++ { r++ } END { print r + 0 }' {} \; |
        awk '{ s += $1 } END { print s + 0 }'
}

# The earlier run's folder back as it was: the lines appended cut off, the
# files this run made removed; true when there was something to undo.
bench_out_restore() {
    local f undone=1
    while IFS= read -r -d '' f; do
        if [ -z "${bench_out_sizes[$f]+set}" ]; then
            rm -rf -- "$f"
        elif [ -d "$f" ] || [ "$(stat -c %s -- "$f")" -le "${bench_out_sizes[$f]}" ]; then
            continue
        else
            truncate -s "${bench_out_sizes[$f]}" -- "$f"
        fi
        undone=0
    done < <(find "$bench_out_dir" -mindepth 1 -depth \( -type f -o -type d \) -print0)
    return "$undone"
}

# What the caller knows of why the signal came (a Slurm job: its time
# limit, slurm_job_why_signal), as ": REASON", or nothing
bench_out_why_signal() {
    [ -z "${bench_out_why:-}" ] || "$bench_out_why"
}

bench_out_stop() {
    bench_out_signal=$1
    exit "$2"
}

# A CSV under the folder (or DIR) with a row below its header ('#' lines aside)
bench_out_has_rows() {
    find "${1:-$bench_out_dir}" -name '*.csv' -type f \
        -exec awk '/^#/ { next } n++ { found = 1; exit } END { exit !found }' {} \; -print -quit 2>/dev/null | grep -q .
}

bench_out_end() {
    local rc=$? what
    what="failed (exit $rc)"
    [ -z "$bench_out_signal" ] || what="interrupted (SIG$bench_out_signal)$(bench_out_why_signal)"
    if [ "$rc" = 0 ]; then
        [ -z "$bench_out_final" ] || bench_out_place || exit 1
        # a Slurm job's output file ended with the program's last line, its folder unnamed
        [ -z "${bench_out_say_where:-}" ] || echo "${bench_out_name:-$0}: finished; the results are in $bench_out_dir"
        return 0
    fi
    if [ "$rc" -ne 0 ] && [ "$bench_out_made" != 1 ] && [ "${#bench_out_before[@]}" -gt 0 ] &&
        [ "$(bench_out_count_rows)" = "$bench_out_rows" ]; then
        if bench_out_restore || [ -n "$bench_out_signal" ]; then
            echo "${bench_out_name:-$0}: $what; no row, $bench_out_dir left as the earlier run left it" >&2
        fi
        return 0
    fi
    [ "$rc" -ne 0 ] && [ "$bench_out_made" = 1 ] && [ -d "$bench_out_dir" ] || {
        [ -z "$bench_out_signal" ] || echo "${bench_out_name:-$0}: $what" >&2
        return 0
    }
    if bench_out_has_rows; then
        [ -z "$bench_out_final" ] || bench_out_place || return 0
        echo "${bench_out_name:-$0}: $what; the rows written before it are in $bench_out_dir" >&2
    elif [ -n "$bench_out_final" ]; then
        rm -rf "$bench_out_stage"
        echo "${bench_out_name:-$0}: $what; no row, $bench_out_final not made" >&2
    else
        rm -rf "$bench_out_dir"
        echo "${bench_out_name:-$0}: $what; $bench_out_dir removed" >&2
    fi
}
