#!/usr/bin/env bash
# The trilap demo (`make demo`): the three-stream microbenchmark traced on
# every visible GPU, analysed, and rendered into one folder with a short
# report of what overlapped, what did not and why. It prints the report,
# then names it and what to open next (the pictures, or the tables without
# gnuplot, and a Perfetto trace).
#   scripts/demo.sh [--out DIR] [--from RUNS] [--gpus N] [--solver-n N]
# With a GPU: runs bin/trilap-bench tristream for two-stream, three-naive and
# three-split with --trace. Without one (or with --from RUNS): analyses the
# recorded traces RUNS/<variant>/trace.rank*.csv[.gz], by default the H200 run
# committed under results/tristream-h200x2, and says so in the report.
# The solver part (scripts/demo-solver.sh) solves gen:poisson7:N, N = 128
# with a GPU, 64 without; --solver-n N picks another N (a smaller one, 16,
# for a quicker demo: without a GPU its times show that the schedules
# run, not how they overlap, whatever the size).
# Without gnuplot the report and the CSV files are still written (it says
# so at the start and in the report); TL_GNUPLOT names another gnuplot,
# TL_BIN the folder of the programs [bin].
# A failing step is named on stderr ("demo.sh: failed while ...") with the
# command and its exit status, and DIR is left as it was: the run writes
# into a folder of its own inside it and moves its files in at the end
# (the solver part, DIR/solver, is written in place).
set -Eeuo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

out=demo-out
from=""
gpus=""
solver_n=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out | --from)
            # before: bash's '$2: unbound variable', exit 1
            [[ $# -ge 2 && -n $2 ]] || { echo "demo.sh: $1 needs a value (try --help)" >&2; exit 2; } ;;
    esac
    case "$1" in
        --out) out=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        --gpus)
            gpus=${2-}
            [[ $gpus =~ ^[1-9][0-9]*$ ]] || { echo "demo.sh: invalid --gpus '$gpus': a number of GPUs, 1 or more" >&2; exit 2; }
            shift 2 ;;
        --solver-n)
            solver_n=${2-}
            [[ $solver_n =~ ^[1-9][0-9]*$ ]] || { echo "demo.sh: invalid --solver-n '$solver_n': a grid size, 1 or more" >&2; exit 2; }
            shift 2 ;;
        # the whole header (lines 2-13 cut its last sentence short)
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        # a word with no option (before: taken for --out, undocumented, the
        # last of several winning, and the demo ran into it)
        *) echo "demo.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${TL_BIN:-$here/bin}
[[ $bin == /* ]] || bin=$here/$bin
analyze=$bin/trilap-analyze
variants=(two-stream three-naive three-split)
[[ -x $analyze ]] || { echo "demo.sh: $analyze not built (run make)" >&2; exit 1; }
start=$(date +%s)

# Which step is running, for the one line a failure prints.
step="reading the arguments"
# The run writes into a folder of its own inside --out (stage) and moves
# what it made into --out only when every step has passed: a failed or
# interrupted run leaves --out as it was (a failed analysis had left a
# 0-byte table over the last good one, beside the last run's pictures).
stage=""
# the highest folder of --out this run makes, removed with the stage when
# the run fails while it holds nothing (the solver part, --out/solver, keeps
# it): else a failed run left an empty --out where there had been none
made_from=""
# gnuplot through the render scripts' step: waited for in the background,
# so that a Ctrl-C ends it (its own SIGINT handler can hang in cairo)
. "$here/scripts/render-gp.sh"
trap 'render_gp_end; [[ -z $stage ]] || rm -rf "$stage"
      [[ -z $made_from ]] || find "$made_from" -depth -type d -empty -delete 2>/dev/null; true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'echo "demo.sh: failed while $step (exit $?: $BASH_COMMAND)" >&2' ERR

gnuplot=${TL_GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null 2>&1; then
    gnuplot=""
    echo "demo.sh: gnuplot not found: the report and CSV files will be written, no pictures" \
        "(scripts/install-deps.sh installs it, or: apt-get install gnuplot-nox)" >&2
fi

visible_gpus() {
    command -v nvidia-smi >/dev/null 2>&1 || { echo 0; return 0; }
    # a failing nvidia-smi (no driver) counts as no GPU, not as a failed demo
    { nvidia-smi -L 2>/dev/null || true; } | awk '/^GPU/ { n++ } END { print n + 0 }'
}

final=$out
[[ ! -e $final || -d $final ]] || { echo "demo.sh: --out $final: a file, not a folder" >&2; exit 2; }
d=$final
while [[ ! -e $d ]]; do made_from=$d; d=$(dirname "$d"); done
step="making $final"
mkdir -p "$final"
# before: mktemp's line, then this step's failure twice (the command
# substitution and the assignment each ran the ERR trap)
[[ -w $final ]] || { echo "demo.sh: cannot write in --out $final" >&2; exit 1; }
stage=$(mktemp -d "$final/.demo-partial.XXXXXX")
out=$stage
report=$out/report.txt

if [[ -z $from ]]; then
    step="counting the visible GPUs"
    n=$(visible_gpus)
    if [[ $n -gt 0 && -x $bin/trilap-bench ]]; then
        gpus=${gpus:-$n}
        from=$out/run
        source_line="live run: bin/trilap-bench tristream on $gpus GPU(s) of $(hostname) (traces in $final/run)"
        echo "demo.sh: $source_line"
        step="preparing $from"
        mkdir -p "$from"
        step="running the microbenchmark (bin/trilap-bench tristream --gpus $gpus)"
        "$bin/trilap-bench" tristream --variants "$(IFS=,; echo "${variants[*]}")" --gpus "$gpus" \
            --trace "$from" --results "$from/results.csv" | tee "$out/bench.txt"
    else
        from=$here/results/tristream-h200x2
        why="no GPU visible"
        [[ $n -gt 0 ]] && why="bin/trilap-bench not built"
        source_line="recorded trace: $why, so this analyses the 2 x H200 run committed under results/tristream-h200x2"
    fi
else
    source_line="recorded trace: $from (given with --from)"
fi
for v in "${variants[@]}"; do
    # committed runs keep their traces gzipped (results/README.md); trilap-analyze reads either
    [[ -f $from/$v/trace.rank0.csv || -f $from/$v/trace.rank0.csv.gz ]] || {
        echo "demo.sh: no trace $from/$v/trace.rank0.csv[.gz]; record one with" >&2
        echo "  bin/trilap-bench tristream --variants two-stream,three-naive,three-split --trace $from" >&2
        exit 1
    }
done
echo "demo.sh: analysing $from into $final"

files="" titles=""
for v in "${variants[@]}"; do
    step="analysing $v: trilap-analyze overlap $from/$v"
    "$analyze" overlap "$from/$v" --csv "$out/overlap-$v.csv" > "$out/overlap-$v.txt"
    step="analysing $v: trilap-analyze diagnose $from/$v"
    "$analyze" diagnose "$from/$v" --csv "$out/diagnose-$v.csv" > "$out/diagnose-$v.txt"
    step="analysing $v: trilap-analyze timeline $from/$v"
    "$analyze" timeline "$from/$v" -o "$out/timeline-$v.csv" > /dev/null
    step="analysing $v: trilap-analyze perfetto $from/$v"
    "$analyze" perfetto "$from/$v" -o "$out/perfetto-$v.json" > /dev/null
    files+="\"$out/timeline-$v.csv\" " titles+="$v "
done
step="analysing: trilap-analyze breakdown of the three variants"
"$analyze" breakdown "${variants[@]/#/$from/}" --csv "$out/breakdown.csv" --stack-csv "$out/breakdown-stack.csv" \
    > "$out/breakdown.txt"
step="analysing: trilap-analyze compare"
"$analyze" compare "$from/two-stream" "$from/three-split" > "$out/compare-two-stream-vs-three-split.txt"
"$analyze" compare "$from/three-naive" "$from/three-split" > "$out/compare-three-naive-vs-three-split.txt"
# the untraced timing of the same run (tracing slows every iteration down)
timed=""
for f in "$from/results.csv" "$from/tristream.csv" "$from/../tristream.csv"; do
    [[ -f $f ]] && { timed=$f; break; }
done
if [[ -n $timed ]]; then
    step="analysing: trilap-analyze compare $timed (untraced timing)"
    "$analyze" compare "$timed" --baseline two-stream --csv "$out/timed-speedup.csv" > "$out/timed-speedup.txt"
fi
# breakdown bars get the untraced median as a second marker where there is one
has_timed=0
if [[ -n $timed ]]; then
    step="adding the untraced medians to breakdown-stack.csv"
    has_timed=1
    awk -F, -f "$here/scripts/timed-column.awk" "$out/timed-speedup.csv" "$out/breakdown-stack.csv" \
        > "$out/breakdown-stack.tmp"
    mv "$out/breakdown-stack.tmp" "$out/breakdown-stack.csv"
fi

plots=""
if [[ -n $gnuplot ]]; then
    step="rendering timeline.png/.pdf (gnuplot plots/timeline.gp)"
    render_gp demo.sh "$gnuplot" "$here/plots/timeline.gp" "$out/timeline" "files='${files% }'; titles='${titles% }'"
    step="rendering breakdown.png/.pdf (gnuplot plots/breakdown.gp)"
    render_gp demo.sh "$gnuplot" "$here/plots/breakdown.gp" "$out/breakdown" \
        "file='$out/breakdown-stack.csv'; timed=$has_timed"
    plots="timeline.png/.pdf (lanes per rank, a few iterations of each variant side by side), breakdown.png/.pdf"
else
    plots="none: gnuplot not found (scripts/install-deps.sh, or apt-get install gnuplot-nox; then make demo);"
    plots+=" the CSV files are there to plot later"
fi

# metric of the max row (or rank 0 with one rank) from an overlap CSV; "-"
# where it has no denominator (comm-comm on one GPU: no collective kernel)
metric() {
    awk -F, -v col="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == col) k = i; next}
        {v[$1] = $k} END {x = ("max" in v) ? v["max"] : v["0"]; print (tolower(x) ~ /nan/) ? "-" : x}' "$1"
}
# the median iteration of the slowest rank, as the table says ("max over
# ranks") and compare's iteration_time is (before: rank 0's)
itime() {
    awk '/iteration time:/ {for (i = 1; i <= NF; i++) if ($i == "median" && (m == "" || $(i + 1) + 0 > m + 0)) m = $(i + 1)}
        END {print m}' "$1"
}

# Lines a command may or may not print (one rank has no peer waits): sed
# -n prints what matches and succeeds on no match, where grep | sed would
# stop the script under pipefail.
# the solver part: Pipe-PCG two-stream vs three-split (GPU, or the host
# backend with the committed GPU traces)
# (into --out itself: its report and trilap-solve's manifest name the
# folder they were written in)
step="the solver part: scripts/demo-solver.sh $final/solver"
SOLVE=$bin/trilap-solve ANALYZE=$analyze GNUPLOT=$([[ -n $gnuplot ]] && echo 1 || echo 0) \
    "$here/scripts/demo-solver.sh" ${solver_n:+--n "$solver_n"} "$final/solver" > "$out/solver.log" 2>&1

step="writing $report"
{
    echo "trilap demo report ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo "source: $source_line"
    echo
    printf '%-12s %12s %9s %10s %9s %14s %10s\n' variant "traced it(us)" "hidden %" "comm-comm %" "triple %" "derived (us)" "idle (us)"
    for v in "${variants[@]}"; do
        c=$out/overlap-$v.csv
        printf '%-12s %12s %9s %10s %9s %14s %10s\n' "$v" "$(itime "$out/overlap-$v.txt")" "$(metric "$c" hidden_pct)" \
            "$(metric "$c" comm_comm_pct)" "$(metric "$c" triple_pct)" "$(metric "$c" derived_comm_us)" "$(metric "$c" idle_us)"
    done
    echo "(traced median iteration; max over ranks; metrics defined in analysis/README.md; derived and idle over the whole traced window)"
    echo
    sed -n 's/^# \(speedup\)/traced: three-split vs two-stream, \1/p' "$out/compare-two-stream-vs-three-split.txt"
    sed -n 's/^# \(speedup\)/traced: three-split vs three-naive, \1/p' "$out/compare-three-naive-vs-three-split.txt"
    if [[ -n $timed ]]; then
        echo
        echo "untraced timing of the same run (${timed/#"$stage"/$final}; median us per iteration, speedup over two-stream):"
        sed -n -e 's/^# \(variant\)/    \1/p; t' -e 's/^  /    /p' "$out/timed-speedup.txt"
        echo "(the traced iterations are slower: the tracer adds work to every launch; compare variants"
        echo " with the untraced table, read the traces for where the time goes)"
    fi
    echo
    for v in "${variants[@]}"; do
        echo "== $v"
        sed -n 's/^overlap \(rank\)/  overlapped: \1/p' "$out/diagnose-$v.txt"
        sed -n 's/^peer wait \(rank\)/  waiting:    \1/p' "$out/diagnose-$v.txt"
        if grep -q '^FINDING' "$out/diagnose-$v.txt"; then
            awk '/^FINDING/ {p = 1} /^ok \[/ {p = 0} /^$/ {p = 0} p' "$out/diagnose-$v.txt" | sed 's/^/  /'
        else
            echo "  no lost overlap found (every rule of diagnose passed)"
        fi
    done
    echo
    cat "$final/solver/report.md"
    echo
    echo "files: $plots; overlap-*.txt, diagnose-*.txt, breakdown.txt, compare-*.txt (tables, CSV beside them);"
    echo "       perfetto-*.json (open in https://ui.perfetto.dev)"
    echo "took $(( $(date +%s) - start )) s"
} > "$report"
# every step passed: what this run made replaces the same names in --out
step="moving the results into $final"
for f in "$stage"/*; do
    rm -rf "${final:?}/${f##*/}"
    mv "$f" "$final/"
done
rmdir "$stage"
stage="" made_from=""
cat "$final/report.txt"
# what to open next, the last lines a user sees (before, "took N s", the
# report's own name nowhere)
echo
echo "demo.sh: the report above is $final/report.txt (the solver part's: $final/solver/report.md)"
if [[ -n $gnuplot ]]; then
    echo "next: open $final/timeline.png and $final/breakdown.png; load $final/perfetto-three-split.json in https://ui.perfetto.dev"
else
    echo "next: read $final/breakdown.txt; load $final/perfetto-three-split.json in https://ui.perfetto.dev"
fi
