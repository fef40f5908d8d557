#!/usr/bin/env bash
# The CUDA solver backend on one GPU: triad bandwidth (trilap-bench
# stream), then pipelined PCG / BiCGStab in fixed-iteration mode on the
# generated and shared matrices, with trilap's SpMV and cuSPARSE's in the
# same process, per-operation rates from the event timer, iteration times
# without it, and the byte roofline; traces of two-stream vs three-split
# for the Sec. IV-C breakdown. Everything is bounded in time.
#
#   scripts/bench-solvers-gpu.sh [--quick | --paper] [--budget S] [--cases NAMES]
#                                [--fuse-compare] OUTDIR
#
# An OUTDIR holding an earlier run's logs/ or raw/ is refused (exit 1): the
# summary would take them in. Exit 1 when a run failed (failed.txt names it).
# OUTDIR gets stream.csv, raw/*.csv (trilap-solve --results, one row per
# timed solve), logs/*.txt (complete output), traces/, results.csv (per
# timed solve: solver, schedule, matrix, backend, nranks, rep, iterations,
# time_s, us_per_iter), summary.csv and summary.txt (rates, fractions of
# triad, roofline ratios), breakdown.txt (Sec. IV-C: two-stream vs
# three-split, small and large input, per operation event timer vs CUPTI
# and the derived communication), manifest.txt. Iterations: a few hundred per
# input by default (bounded time); --paper: the paper's protocol, 10,000
# Pipe-PCG and 1,000 Pipe-BiCGStab iterations (benchmark mode runs past
# rounding level); --quick: small sizes only (a smoke test of the
# pipeline). 1 warm-up solve (of the same length) and 3 timed solves.
# --budget: stop starting runs after S seconds (default 170; --paper
# needs about 1500). --cases: only these inputs of the list (comma
# separated names: p7-256,p7-128,...; the sweeps and the scalars runs are
# left out, one traced breakdown at the large size stays). --fuse-compare:
# each input's iteration time also with --fuse (the update pass also
# applies Jacobi and computes the next dots; off by default) and, for pipecg, with
# --regs-copy (a register copy on the stream every iteration).
# Roofline: the bytes every kernel of one iteration must move (the
# statistics' bytes per call times the calls per iteration, setup calls
# left out), over the triad. Environment: SOLVE, BENCH, ANALYZE (binaries;
# default the checkout's bin/, from whatever folder it runs), TL_DATA
# (matrices: its matrices/; default ../shared/data beside the checkout).

# not -e / pipefail: a failed run is recorded and the rest goes on
set -u
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
quick=0
paper=0
budget=170
only=
compare=0
while [ $# -gt 0 ]; do
    # an option without its value: one line (before: bash's '$2: unbound variable', exit 1)
    case "$1" in --budget | --cases) [ $# -ge 2 ] || { echo "bench-solvers-gpu.sh: $1 needs a value (try --help)" >&2; exit 2; } ;; esac
    case "$1" in
    --quick) quick=1; shift ;;
    --paper) paper=1; shift ;;
    --budget) budget=$2; shift 2 ;;
    --cases) only=$2; shift 2 ;;
    --fuse-compare) compare=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "bench-solvers-gpu.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "usage: bench-solvers-gpu.sh [--quick | --paper] [--budget S] [--cases NAMES] [--fuse-compare] OUTDIR" >&2; exit 2; }
case "$only" in *[!a-z0-9_,-]*) echo "bench-solvers-gpu.sh: invalid --cases '$only'" >&2; exit 2 ;; esac
case "$budget" in '' | *[!0-9]*) echo "bench-solvers-gpu.sh: invalid --budget '$budget'" >&2; exit 2 ;; esac
out=$1
# the checkout's programs and data, from whatever folder it runs (they
# were the current folder's bin/ and ../shared/data)
here=$(cd "$(dirname "$0")/.." && pwd)
SOLVE=${SOLVE:-$here/bin/trilap-solve}
BENCH=${BENCH:-$here/bin/trilap-bench}
ANALYZE=${ANALYZE:-$here/bin/trilap-analyze}
data=${TL_DATA:-$here/../shared/data}/matrices
for b in "$SOLVE" "$BENCH"; do
    [ -x "$b" ] || { echo "bench-solvers-gpu.sh: $b not built (make all)" >&2; exit 1; }
done
. "$here/scripts/bench-out.sh"
bench_out_unused "$out" logs raw
mkdir -p "$out/raw" "$out/logs" "$out/traces" || exit 1
start=$SECONDS
log() { printf '[%4ds] %s\n' $((SECONDS - start)) "$*" | tee -a "$out/console.log" >&2; }

# ---- triad -----------------------------------------------------------------
. "$(dirname "$0")/bench-run.sh"
bench_triad

# ---- solver runs ---------------------------------------------------------------
# run NAME TIMEOUT trilap-solve-args...   (one GPU, NCCL, block partition,
# fixed iterations, 1 warm-up solve and 3 timed solves)
run() {
    local name=$1 t=$2
    shift 2
    bench_run "$name" "$t" "$SOLVE" "$@"
}

# name matrix solver iterations timeout; the data folder is @data, put
# back after the words are read: its path may hold a space
if [ $quick -eq 1 ]; then
    cases="p7-32 gen:poisson7:32 pipecg 60 40 trilap,trilap:1,cusparse
p27-24 gen:poisson27:24 pipecg 30 40 trilap,cusparse
cd-32 gen:convdiff:32 pipebicgstab 40 40 trilap,cusparse
ani4 @data/ani4.mtx pipecg 100 40 trilap,trilap:-1,cusparse"
    small=gen:poisson7:32 large=gen:poisson7:48
else
    # iterations: a few hundred (b = ones reaches rounding level after
    # about 3.4 n pipecg iterations on poisson7, 2 n on poisson27; the
    # benchmark mode runs on past it, as the paper's 10,000 do)
    # (most important first: the budget may end the list); the sixth
    # field: SpMV variants of the -ops run (threads-per-row sweep)
    # (default trilap: 1 thread per row up to 12 per row, 8 lanes on 27;
    # trilap:4 is the former default on 7-point rows)
    sweep=trilap,trilap:2,trilap:4,trilap:8,cusparse,cusparse:csr2
    cases="p7-256 gen:poisson7:256 pipecg 300 60 $sweep
p7-128 gen:poisson7:128 pipecg 300 40 $sweep
p7-64 gen:poisson7:64 pipecg 150 30 trilap,cusparse
p27-128 gen:poisson27:128 pipecg 200 60 trilap,trilap:1,trilap:4,trilap:16,cusparse,cusparse:csr2
cd-128 gen:convdiff:128 pipebicgstab 150 60 trilap,cusparse
1138_bus @data/1138_bus.mtx pipecg 200 30 trilap,trilap:1,trilap:-1,cusparse
ani4 @data/ani4.mtx pipecg 200 30 trilap,trilap:1,trilap:-1,cusparse
ani1_nonsymm @data/ani1_nonsymm.mtx pipebicgstab 100 30 trilap,cusparse
p27-64 gen:poisson27:64 pipecg 100 30 trilap,cusparse
cd-64 gen:convdiff:64 pipebicgstab 150 30 trilap,cusparse
p7-320 gen:poisson7:320 pipecg 300 90 trilap,cusparse"
    small=gen:poisson7:64 large=gen:poisson7:128
fi
if [ -n "$only" ]; then
    cases=$(awk -v only=",$only," 'index(only, "," $1 ",") { $6 = "trilap"; print }' <<<"$cases")
    [ -n "$cases" ] || { echo "bench-solvers-gpu.sh: --cases '$only': none of the list" >&2; exit 2; }
fi
# Sec. IV-C first (small runs): two-stream vs three-split, traced (CUPTI
# kernels + event timer); with --cases only the large size, two-stream
pairs=("small $small" "large $large")
scheds="two-stream three-split"
[ -n "$only" ] && pairs=("large $large") && scheds=two-stream
for pair in "${pairs[@]}"; do
    set -- $pair
    for sched in $scheds; do
        run "breakdown-$1-$sched" 60 --solver pipecg --max-iterations 50 --schedule "$sched" \
            --trace "$out/traces/$1-$sched" --cupti "$2"
    done
done
if [ $paper -eq 1 ]; then
    cases=$(awk '{ $4 = ($3 == "pipecg") ? 10000 : 1000; $5 = $5 * 40; print }' <<<"$cases")
fi
# the price of reading every reduction on the host (method_*.c on the
# CUDA backend's generic operations) against the scalar programs
if [ $quick -eq 0 ] && [ -z "$only" ]; then
    run scalars-host-p7-128 60 --solver pipecg,pipebicgstab --max-iterations 300 --schedule sync \
        --no-op-timer --scalars host gen:poisson7:128
    run scalars-program-p7-128 60 --solver pipecg,pipebicgstab --max-iterations 300 --schedule sync \
        --no-op-timer --scalars program gen:poisson7:128
fi
# per input: the iteration time (no event timer: the fastest loop), then
# the per-operation rates with the event timer, trilap and cuSPARSE alike
while read -r name mat solver k t variants; do
    mat=${mat/#@data/$data}
    run "$name-iter" "$t" --solver "$solver" --max-iterations "$k" --schedule sync \
        --spmv trilap,cusparse --no-op-timer "$mat"
    if [ $compare -eq 1 ]; then
        run "$name-iter-fused" "$t" --solver "$solver" --max-iterations "$k" --schedule sync \
            --spmv trilap --no-op-timer --fuse "$mat"
        [ "$solver" = pipecg ] &&
            run "$name-iter-regscopy" "$t" --solver "$solver" --max-iterations "$k" --schedule sync \
                --spmv trilap --no-op-timer --regs-copy "$mat"
    fi
    run "$name-ops" "$t" --solver "$solver" --max-iterations "$k" --schedule sync \
        --spmv "$variants" "$mat"
done <<<"$cases"

# ---- results -----------------------------------------------------------------
# per timed solve, the columns the issue asks for; the rows' cells through
# csv.awk (trilap-solve quotes the matrix, whose path may hold a comma)
awk "$(cat "$(dirname "$0")/csv.awk")"'
FNR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) c[h[i]] = i
           if (!hdr++) print "solver,schedule,matrix,backend,nranks,rep,iterations,time_s,us_per_iter"
           next }
{ csv_split($0, r); it = r[c["iterations"]] + 0; t = r[c["solver_time_s"]]
  m = csv_field(r[c["matrix"]])
  us = (it > 0) ? t / it * 1e6 : 0
  printf "%s,%s,%s,%s,%s,%s,%s,%s,%.3f\n", r[c["solver"]], r[c["schedule"]], m, r[c["backend"]], r[c["nranks"]], r[c["rep"]], it, t, us }' \
    "$out"/raw/*.csv >"$out/results.csv" 2>/dev/null

# per block of output: rates (event timer), bytes per iteration, iteration
# time, roofline (bytes over triad) and fractions
cols=run,solver,schedule,matrix,backend,op_timer,iterations,us_per_iter,rows,spmv_gbs,update_gbs,dot_gbs,precond_gbs,bytes_per_iter,roofline_us,roofline_ratio,spmv_frac_triad,update_frac_triad,fused,registers
{
    echo "$cols"
    for f in "$out"/logs/*-iter*.txt "$out"/logs/*-ops.txt "$out"/logs/scalars-*.txt; do
        [ -f "$f" ] || continue
        awk -v triad="$triad" -v run="$(basename "$f" .txt)" -v cols="$cols" -f "$(dirname "$0")/csv.awk" \
            -f "$(dirname "$0")/solver-log.awk" "$f"
    done
} >"$out/summary.csv"
{
    echo "# triad: $triad GB/s (trilap-bench stream, same command)"
    echo "# iteration times: --no-op-timer runs; rates: event timer (-ops runs); roofline = bytes of all kernels of one iteration / triad"
    printf '%-22s %-13s %-14s %5s %6s %6s %10s %10s %9s %9s %8s %8s\n' run solver spmv fused regs iters us/iter roof_us ratio spmv_GBs spmv/tri upd/tri
    awk "$(cat "$(dirname "$0")/csv.awk")"'NR > 1 { csv_split($0, f)
        printf "%-22s %-13s %-14s %5s %6s %6d %10.2f %10.2f %9.3f %9.1f %8.3f %8.3f\n", f[1], f[2], substr(f[5], 6), f[19], f[20], f[7], f[8], f[15], f[16], f[10], f[17], f[18] }' "$out/summary.csv"
} >"$out/summary.txt"
cat "$out/summary.txt" >&2
# Sec. IV-C: CUPTI kernel breakdown of the traced runs (host-side
# analysis), and the table event timer vs CUPTI per operation
# (scripts/render-solver-breakdown.sh: OUT/breakdown.txt)
if [ -x "$ANALYZE" ]; then
    mkdir -p "$out/breakdown"
    for d in "$out"/traces/*; do
        [ -d "$d" ] || continue
        run=$(basename "$d")
        bounded 60 "$ANALYZE" breakdown "$d" --csv "$out/breakdown/$run.csv" >"$d.breakdown.txt" 2>&1 ||
            log "breakdown of $d failed"
        bounded 60 "$ANALYZE" overlap "$d" --csv "$out/breakdown/$run-overlap.csv" >"$out/breakdown/$run-overlap.txt" 2>&1 ||
            log "overlap of $d failed"
    done
    if "$(dirname "$0")/render-solver-breakdown.sh" "$out" >"$out/breakdown.txt" 2>&1; then
        log "Sec. IV-C breakdown (event timer vs CUPTI, per operation): $out/breakdown.txt"
        cat "$out/breakdown.txt" >&2
    else
        log "no Sec. IV-C table (breakdown.txt says why)"
    fi
fi
# manifest.txt: trilap-bench's block (stream.csv), then one of what this
# script ran; trilap-solve's blocks stay in raw/manifest.txt, beside their rows
{
    echo
    echo "script: scripts/bench-solvers-gpu.sh $([ $quick -eq 1 ] && echo --quick)$([ $paper -eq 1 ] && echo --paper) --budget $budget${only:+ --cases $only}$([ $compare -eq 1 ] && echo ' --fuse-compare')"
    echo "triad_gbs: $triad"
    echo "elapsed_s: $((SECONDS - start))"
    echo "trilap-solve: raw/manifest.txt (a block per run, naming the lines of its rows)"
} >>"$out/manifest.txt"
log "done in $((SECONDS - start)) s"
[ ! -s "$out/failed.txt" ] || { log "runs failed: $out/failed.txt"; exit 1; }
