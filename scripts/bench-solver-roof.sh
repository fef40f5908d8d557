#!/usr/bin/env bash
# A Pipe-PCG iteration on one GPU against its byte roofline, side by
# side, and CG's and PCG's against theirs (the cg and pcg variants: a later
# --solver wins): this build's kernel variants (VARIANTS, below: the separate
# update, Jacobi and dot kernels; the persistent loop, --persistent; the
# fused pass, --fuse; the update then the tail kernel, --fuse-tail; each
# with --prefetch, --pdl) and, with
# --old BIN, another build's trilap-solve (the kernels before), in one
# bounded command.
# gen:poisson7:N, Jacobi, one rank over NCCL, sync schedule, fixed
# iterations (--rtol 0 --atol 0), 1 warm-up and 3 timed solves, the
# median; iteration times without the event timer (-iter runs), per-kernel
# rates with it (-ops runs), cuSPARSE's SpMV in the same process as
# trilap's (the unfused -iter runs).
#
#   scripts/bench-solver-roof.sh [--old BIN] [--budget S] [--sizes "64 128 256"]
#                                [--trace] [--marginal] OUTDIR
#
# An OUTDIR holding an earlier run's logs/ or raw/ is refused (exit 1): the
# summary would take them in. Exit 1 when a run failed (failed.txt names it).
# OUTDIR gets stream.csv (the triad), logs/*.txt (complete output of each
# run), raw/*.csv (trilap-solve --results), summary.csv and summary.txt
# (per run: us/iter, bytes per iteration, roofline, ratio, per-operation
# rates as fractions of triad; with three sizes or more, roof-fit.awk's
# fixed and proportional part of each variant's iteration), traces/ with
# --trace (CUPTI, 50 iterations at 128^3 of each of TRACE_VARIANTS;
# trilap-analyze breakdown reads them), bits.txt with --old (this build's
# default and --fuse against the old build's default on 1138_bus to rtol
# 1e-6, pipecg, pcg and pipebicgstab: residual histories compared byte
# for byte; the histories and outputs in bits/), console.log. --marginal:
# each -iter run (the old build's too) also at a quarter of its
# iterations (-iterq), so that roof-fit.awk takes the marginal iteration,
# without the solve's setup spread over it. Roofline: the bytes every
# kernel of one iteration must move (the statistics' bytes per call times
# the calls per iteration, setup calls left out) over the triad.
# --budget: stop starting runs after S seconds (default 200).
# Environment: SOLVE,
# BENCH (binaries; default the checkout's bin/, from whatever folder it
# runs), TL_DATA (matrices: TL_DATA/matrices; default ../shared/data
# beside the checkout),
# VARIANTS (space-separated NAME=OPTIONS, the options comma-separated;
# "base=" is this build's default; the most telling first, the budget may
# end the list), TRACE_VARIANTS (the names traced; default base nopdl
# tail).

# not -e: a failed run is recorded and the rest goes on
set -u
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
. "$(dirname "$0")/bounded.sh"
old=
budget=200
sizes="64 128 256"
trace=0
marginal=0
while [ $# -gt 0 ]; do
    # an option without its value: one line (before: bash's '$2: unbound variable', exit 1)
    case "$1" in --old | --budget | --sizes) [ $# -ge 2 ] || { echo "bench-solver-roof.sh: $1 needs a value (try --help)" >&2; exit 2; } ;; esac
    case "$1" in
    --old) old=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --trace) trace=1; shift ;;
    --marginal) marginal=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "bench-solver-roof.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "usage: bench-solver-roof.sh [--old BIN] [--budget S] [--sizes LIST] [--trace] [--marginal] OUTDIR" >&2; exit 2; }
case "$budget" in '' | *[!0-9]*) echo "bench-solver-roof.sh: invalid --budget '$budget'" >&2; exit 2 ;; esac
for n in $sizes; do
    case "$n" in '' | *[!0-9]*) echo "bench-solver-roof.sh: invalid --sizes '$sizes'" >&2; exit 2 ;; esac
done
variants=${VARIANTS:-base= loop=--persistent nopdl=--no-pdl tail=--fuse-tail tail-nopdl=--fuse-tail,--no-pdl fused=--fuse fused-nopdl=--fuse,--no-pdl prefetch=--prefetch tail-prefetch=--fuse-tail,--prefetch cg=--solver,cg,--precond,none pcg=--solver,pcg}
traced=${TRACE_VARIANTS:-base nopdl tail}
for v in $variants; do
    case "$v" in
    [a-z0-9]*=*) ;;
    *) echo "bench-solver-roof.sh: invalid VARIANTS entry '$v' (NAME=OPTIONS, options comma-separated)" >&2; exit 2 ;;
    esac
    case "${v%%=*}" in *[!a-z0-9-]*) echo "bench-solver-roof.sh: invalid VARIANTS name '${v%%=*}' (a-z, 0-9, -)" >&2; exit 2 ;; esac
done
out=$1
# the checkout's programs and data, from whatever folder it runs (they
# were the current folder's bin/ and ../shared/data)
here=$(cd "$(dirname "$0")/.." && pwd)
SOLVE=${SOLVE:-$here/bin/trilap-solve}
BENCH=${BENCH:-$here/bin/trilap-bench}
# a program missing is the machine's (exit 1); an --old that is none, the command line's (2)
for b in "$SOLVE" "$BENCH"; do
    [ -x "$b" ] || { echo "bench-solver-roof.sh: $b not built (make all)" >&2; exit 1; }
done
[ -z "$old" ] || [ -x "$old" ] || { echo "bench-solver-roof.sh: invalid --old '$old': not an executable trilap-solve" >&2; exit 2; }
. "$here/scripts/bench-out.sh"
bench_out_unused "$out" logs raw
mkdir -p "$out/raw" "$out/logs" "$out/traces" || exit 1
start=$SECONDS
log() { printf '[%4ds] %s\n' $((SECONDS - start)) "$*" | tee -a "$out/console.log" >&2; }

# bit for bit: the kernels' results against the old build's
data=${TL_DATA:-$here/../shared/data}/matrices
if [ -n "$old" ] && [ -f "$data/1138_bus.mtx" ]; then
    mkdir -p "$out/bits"
    for sv in pipecg pcg pipebicgstab; do
        for v in old new new-fuse; do
            bin=$SOLVE opt=
            [ $v = old ] && bin=$old
            [ $v = new-fuse ] && opt=--fuse
            bounded 30 "$bin" --launcher threads --gpus 1 --backend cuda --solver $sv --rtol 1e-6 \
                --warmup 0 --repeat 1 --history "$out/bits/$sv.$v.csv" $opt "$data/1138_bus.mtx" \
                >"$out/bits/$sv.$v.txt" 2>&1
        done
        for v in new new-fuse; do
            if cmp -s "$out/bits/$sv.old.csv" "$out/bits/$sv.$v.csv"; then r=identical; else r=DIFFERENT; fi
            echo "1138_bus $sv: $v against old: history $r ($(grep -m1 '^iterations:' "$out/bits/$sv.$v.txt"); old $(grep -m1 '^iterations:' "$out/bits/$sv.old.txt"))"
        done
    done | tee "$out/bits.txt" >&2
fi

. "$(dirname "$0")/bench-run.sh"
bench_triad

# run NAME TIMEOUT BIN trilap-solve-args...: pipecg, sync schedule (bench-run.sh)
run() {
    local name=$1 t=$2 bin=$3
    shift 3
    bench_run "$name" "$t" "$bin" --solver pipecg --schedule sync "$@"
}

opts_of() { local o=${1#*=}; echo "${o//,/ }"; }
# about 1.3e9 row-iterations per solve (0.3-0.6 s), 100 to 2000
iters() {
    case $1 in 64) echo 2000 ;; 128) echo 600 ;; 256) echo 150 ;; *)
        awk -v n="$1" 'BEGIN { k = int(1.3e9 / (n * n * n)); print (k < 100 ? 100 : (k > 2000 ? 2000 : k)) }' ;;
    esac
}
has() { case " $sizes " in *" $1 "*) return 0 ;; esac; return 1; }
# the most telling first (the budget may end the list): iteration times,
# then the per-kernel rates at 128^3, the traces, the rates at the other
# sizes. Run names: p7-N-VARIANT-iter|iterq|ops; -old- for the other build.
for n in $sizes; do
    k=$(iters "$n") m=gen:poisson7:$n
    for v in $variants; do
        name=${v%%=*} spmv=
        [ "$name" = base ] && spmv="--spmv trilap,cusparse"
        # shellcheck disable=SC2046
        run "p7-$n-$name-iter" 60 "$SOLVE" --max-iterations "$k" --no-op-timer $spmv $(opts_of "$v") "$m"
        # shellcheck disable=SC2046
        [ $marginal -eq 1 ] && run "p7-$n-$name-iterq" 60 "$SOLVE" --max-iterations $((k / 4)) \
            --no-op-timer $spmv $(opts_of "$v") "$m"
    done
    [ -n "$old" ] && run "p7-$n-old-iter" 60 "$old" --max-iterations "$k" --no-op-timer "$m"
    [ -n "$old" ] && [ $marginal -eq 1 ] && run "p7-$n-old-iterq" 60 "$old" \
        --max-iterations $((k / 4)) --no-op-timer "$m"
done
ops() {
    local n=$1 k m v
    k=$(iters "$n") m=gen:poisson7:$n
    for v in $variants; do
        # shellcheck disable=SC2046
        run "p7-$n-${v%%=*}-ops" 60 "$SOLVE" --max-iterations "$k" $(opts_of "$v") "$m"
    done
    [ -n "$old" ] && run "p7-$n-old-ops" 60 "$old" --max-iterations "$k" "$m"
}
has 128 && ops 128
if [ $trace -eq 1 ]; then
    for v in $variants; do
        case " $traced " in *" ${v%%=*} "*) ;; *) continue ;; esac
        # shellcheck disable=SC2046
        run "trace-p7-128-${v%%=*}" 60 "$SOLVE" --max-iterations 50 $(opts_of "$v") \
            --trace "$out/traces/p7-128-${v%%=*}" --cupti gen:poisson7:128
    done
fi
for n in $sizes; do
    [ "$n" = 128 ] || ops "$n"
done

"$(dirname "$0")/render-roof-summary.sh" "$out" "$triad" || log "no summary"
cat "$out/summary.txt" >&2
log "done in $((SECONDS - start)) s"
# a run that failed (out of memory, say) is the benchmark's failure: exit 1
# (before, 0 with every run failed)
[ ! -s "$out/failed.txt" ] || { log "runs failed: $out/failed.txt"; exit 1; }
