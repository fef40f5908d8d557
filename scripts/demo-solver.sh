#!/usr/bin/env bash
# The solver part of `make demo`: Pipe-PCG under two-stream and
# three-split on a generated Poisson matrix, traced, with the timeline,
# the kernel breakdown and the speedup in OUT/report.md.
#
#   scripts/demo-solver.sh [--n N] [--iterations K] OUT
#
# Both schedules run in one trilap-solve invocation (--schedule
# two-stream,three-split: the same matrix, ranks and partition, one after
# the other), on two ranks, so that there is a halo exchange and an
# allreduce to overlap. With a GPU: --backend cuda, two ranks over NCCL
# with two GPUs, host-staged and sharing the GPU (--device-comm host) when
# there is one; gen:poisson7:N (default 128), K = 200 fixed iterations, 1
# warm-up and 3 timed solves per schedule without tracing (the speedup,
# quoted as a difference only when the two schedules' min..max ranges do
# not overlap), then per schedule 1 timed solve traced with CUPTI kernel
# records (timeline, breakdown; the tracer slows every launch, so its
# times are not the speedup's). Without one: the host backend with two
# thread ranks on gen:poisson7:64, K = 20, to show that both schedules run
# and give the same residuals; its times are reported as such, no speedup
# is quoted from them (the schedules are GPU stream layouts: on the host
# they differ by noise).
# The timeline and breakdown are then the committed GPU traces of
# results/device-session-b2d4186/solver-bench (read gzipped, as they are),
# and the report says they come from that other run (its matrix and
# command, from the traces' metadata). The
# GPU probe's output is in OUT/gpu-probe.txt (the report quotes it when
# nvidia-smi sees a GPU that trilap-solve could not use).
# Environment: SOLVE, ANALYZE (binaries), GNUPLOT=0 (no figures).

# not -e / pipefail: each step checks its own outcome
set -u
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/bounded.sh"
n=""
k=""
while [ $# -gt 0 ]; do
    case "$1" in
    --n | --iterations)
        # a positive integer (before: no value was bash's '$2: unbound
        # variable', and --n 0 ran trilap-solve into its own refusal)
        case ${2-} in
        '' | *[!0-9]* | 0*) echo "demo-solver.sh: invalid $1 '${2-}': a positive integer (try --help)" >&2; exit 2 ;;
        esac ;;
    esac
    case "$1" in
    --n) n=$2; shift 2 ;;
    --iterations) k=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "demo-solver.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || {
    echo "demo-solver.sh: expected one OUT folder, got $# argument(s) (usage: demo-solver.sh [--n N] [--iterations K] OUT; try --help)" >&2
    exit 2
}
out=$1
SOLVE=${SOLVE:-$here/bin/trilap-solve}
ANALYZE=${ANALYZE:-$here/bin/trilap-analyze}
for b in "$SOLVE" "$ANALYZE"; do
    [ -x "$b" ] || { echo "demo-solver.sh: $b not built (make all)" >&2; exit 1; }
done
mkdir -p "$out" || exit 1
# this script's own outputs: a results CSV of an older run (or an older
# column set) would make trilap-solve refuse to append
rm -f "$out/results.csv" "$out/results-traced.csv"

# a GPU if trilap-solve's CUDA backend finds one: two fixed iterations (exit
# 0; a run to a tolerance in 2 iterations ends "not converged", exit 3, which
# made the live one-H200 demo fall back to the host)
gpu=0
if bounded 60 "$SOLVE" --backend cuda --launcher threads --gpus 1 --no-stats --repeat 1 --warmup 0 \
    --rtol 0 --atol 0 --max-iterations 2 gen:poisson7:4 >"$out/gpu-probe.txt" 2>&1; then
    gpu=1
fi
probe_note=""
if [ $gpu -eq 0 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    probe_note="nvidia-smi lists a GPU, but trilap-solve --backend cuda failed there: $(grep -m1 -iE 'error|fail|cuda|nccl' "$out/gpu-probe.txt" || head -n1 "$out/gpu-probe.txt")"
fi
if [ $gpu -eq 1 ]; then
    n=${n:-128}
    k=${k:-200}
    # two ranks over NCCL need two GPUs; on one, the ranks share it and
    # exchange through pinned host memory
    comm=nccl comm_text="two ranks over NCCL, one GPU each"
    if ! bounded 60 "$SOLVE" --backend cuda --launcher threads --ranks 2 --no-stats --repeat 1 --warmup 0 \
        --rtol 0 --atol 0 --max-iterations 2 gen:poisson7:4 >"$out/gpu-probe-2ranks.txt" 2>&1; then
        comm=host comm_text="two ranks sharing one GPU, host-staged (--device-comm host: halo and allreduce through pinned host memory)"
    fi
    launch=(--backend cuda --launcher threads --ranks 2 --device-comm "$comm")
    where="GPU: trilap-solve --backend cuda, $comm_text; the speedup from untraced runs, timeline and breakdown from a traced one per schedule (CUPTI kernel records)"
    traces=$out/traces
else
    n=${n:-64}
    k=${k:-20}
    launch=(--backend host --launcher threads --ranks 2 --no-gpu)
    where="no GPU here: both schedules run on the host backend (2 thread ranks) to show they run and agree; the timeline and breakdown below come from another run, the committed GPU traces"
    traces=$here/results/device-session-b2d4186/solver-bench/traces
    [ -f "$traces/large-two-stream/trace.rank0.csv.gz" ] || {
        echo "demo-solver.sh: no committed GPU traces $traces/large-two-stream/trace.rank0.csv.gz" >&2
        exit 1
    }
    traced_args=$(gzip -dc "$traces/large-two-stream/trace.rank0.csv.gz" | sed -n 's/^# args=//p' | head -n1)
    where="$where (${traces#"$here"/}, traced there as: ${traced_args:-unknown})"
fi
[ -n "$probe_note" ] && where="$where; $probe_note"
matrix=gen:poisson7:$n

echo "demo-solver.sh: pipecg on $matrix, two-stream then three-split, $k iterations, 1 warm-up and 3 timed solves each ..." >&2
bounded 600 "$SOLVE" "${launch[@]}" --solver pipecg --rtol 0 --atol 0 --max-iterations "$k" \
    --warmup 1 --repeat 3 --schedule two-stream,three-split --partition block --results "$out/results.csv" \
    --progress "$matrix" >"$out/solve.txt" 2>"$out/solve.err" || {
    echo "demo-solver.sh: trilap-solve failed (exit $?), output in $out/solve.txt and $out/solve.err" >&2
    exit 1
}
for s in two-stream three-split; do
    [ $gpu -eq 1 ] || continue
    bounded 300 "$SOLVE" "${launch[@]}" --solver pipecg --rtol 0 --atol 0 --max-iterations "$k" \
        --warmup 1 --warmup-iterations 10 --repeat 1 --schedule "$s" --partition block \
        --results "$out/results-traced.csv" --trace "$traces/$s" --cupti \
        "$matrix" >"$out/solve-$s-traced.txt" 2>&1 || {
        echo "demo-solver.sh: traced trilap-solve failed (schedule $s, exit $?), output in $out/solve-$s-traced.txt" >&2
        exit 1
    }
done
# KEY of schedule $1's block of the one invocation's output
field() { awk -v s="$1" -v key="$2" '/^schedule: / { cur = $2 } index($0, key ": ") == 1 && cur == s { v = substr($0, length(key) + 3); sub(/ .*/, "", v); print v; exit }' "$out/solve.txt"; }
t2=$(field two-stream "solver time median") t3=$(field three-split "solver time median")
lo2=$(field two-stream "solver time min") hi2=$(field two-stream "solver time max")
lo3=$(field three-split "solver time min") hi3=$(field three-split "solver time max")
r2=$(field two-stream "true residual") r3=$(field three-split "true residual")
[ -n "$t2" ] && [ -n "$t3" ] || { echo "demo-solver.sh: no solver times for both schedules in $out/solve.txt" >&2; exit 1; }
agree="the two schedules' true residuals: $r2 and $r3 ($([ "$r2" = "$r3" ] && echo "the same" || echo "DIFFERENT"))"
if [ $gpu -eq 1 ]; then
    speedup=$(awk -v a="$t2" -v b="$t3" -v l2="$lo2" -v h2="$hi2" -v l3="$lo3" -v h3="$hi3" 'BEGIN {
        if (b <= 0) { print "n/a"; exit }
        printf "%.3f", a / b
        if (l2 <= h3 && l3 <= h2) printf " (within the spread of the timed solves: two-stream %s..%s s, three-split %s..%s s; not a measured difference)", l2, h2, l3, h3 }')
else
    speedup="not measured here (no GPU: the host times show the schedules run, not how they overlap)"
fi

# timeline and breakdown of the traces (GPU: this run; else: the committed ones)
if [ $gpu -eq 1 ]; then
    dirs=("$traces/two-stream" "$traces/three-split")
    names=(two-stream three-split)
else
    dirs=("$traces"/large-two-stream "$traces"/large-three-split)
    names=(large-two-stream large-three-split)
fi
files="" titles=""
for i in 0 1; do
    "$ANALYZE" breakdown "${dirs[$i]}" >"$out/breakdown-${names[$i]}.txt" 2>&1
    "$ANALYZE" timeline "${dirs[$i]}" -o "$out/timeline-${names[$i]}.csv" >/dev/null 2>&1
    files+="\"$out/timeline-${names[$i]}.csv\" " titles+="${names[$i]} "
done
figure="none (gnuplot not found or GNUPLOT=0)"
if [ "${GNUPLOT:-1}" != 0 ] && command -v gnuplot >/dev/null; then
    gnuplot -e "files='${files% }'; titles='${titles% }'; out='$out/solver-timeline.png'" \
        "$here/plots/timeline.gp" 2>"$out/gnuplot.log" && figure="$out/solver-timeline.png"
fi
{
    echo "## Pipelined CG: two-stream vs three-split"
    echo
    echo "- $where"
    echo "- matrix $matrix, pipecg (Jacobi), 2 ranks, $k fixed iterations, 1 warm-up and 3 timed solves per schedule, both schedules in one invocation$([ $gpu -eq 1 ] && echo "; traced: 1 warm-up of 10 iterations and 1 timed solve per schedule")"
    echo "- solver time, median: two-stream $t2 s, three-split $t3 s; speedup of three-split: $speedup"
    echo "- $agree"
    echo "- timeline: $figure (rows: $(for n in "${names[@]}"; do printf '%s ' "$out/timeline-$n.csv"; done))"
    [ $gpu -eq 1 ] || echo "- the timeline and kernel breakdowns are the committed GPU run's, not the host timing's above; on the host one run's schedules differ only by noise"
    echo
    for i in 0 1; do
        echo "### kernel breakdown, ${names[$i]}"
        echo
        echo '```'
        # the names and units rows, then one row per category
        awk '$1 == "#" && ($2 == "run" || $2 == "-") || $1 != "#" && $3 == "category"' \
            "$out/breakdown-${names[$i]}.txt" | head -14
        echo '```'
        echo
    done
} >"$out/report.md"
echo "demo-solver.sh: report in $out/report.md (speedup $speedup)"
