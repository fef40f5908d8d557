#!/usr/bin/env bash
# Issue 14 in one bounded command on a machine with two GPUs (nvidia-h200-x2):
# build, make check-gpu, the three-stream microbenchmark with the program's
# defaults and its tracing overhead, the GPU solvers under the four
# schedules on 1 and 2 GPUs with the paper's protocol, and the FDTD
# strategies, ghost widths, decompositions and strong scaling. Each step is
# bounded; a failed step is recorded and the rest goes on. Everything lands
# in DEST (one folder per study, each with its manifest) and DEST.tgz.
#
#   scripts/device-two-gpu-session.sh DEST [TOTAL_SECONDS] [STEPS]
#   STEPS: comma list of build,check,tristream,solvers,fdtd [all]
#   PROTOCOL=quick: 1,000 / 100 solver iterations instead of 10,000 / 1,000
# not -e / pipefail: every step is bounded and its outcome logged; a failed
# step must not cost the lent session the steps after it
set -u
dest=${1:?usage: device-two-gpu-session.sh DEST [TOTAL_SECONDS] [STEPS]}
total=${2:-1500}
steps=${3:-build,check,tristream,solvers,fdtd}
mkdir -p "$dest" || exit 1
start=$SECONDS
left() { echo $((total - (SECONDS - start))); }
want() { [[ ",$steps," == *",$1,"* ]]; }
log() { echo "[$((SECONDS - start)) s] $*" | tee -a "$dest/session.log"; }
step() { # step LIMIT LOGFILE CMD...: bounded by LIMIT and by what is left
    local lim=$1 f=$2 l
    shift 2
    l=$(left)
    [ "$lim" -gt "$l" ] && lim=$l
    if [ "$lim" -le 5 ]; then log "skipped (no time left): $*"; return 0; fi
    echo "\$ $* (limit ${lim}s)" >>"$dest/$f"
    timeout "$lim" "$@" >>"$dest/$f" 2>&1
    log "exit $?: $* (limit ${lim}s)"
}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f .trilap-commit ] && export TRILAP_COMMIT=$(head -n1 .trilap-commit)
export TL_DATA=${TL_DATA:-$PWD/../shared/data}
[ -d "$TL_DATA/matrices" ] || export TL_DATA=$PWD/.carry/data
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{
    echo "commit: ${TRILAP_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null)}"
    echo "date: $(date -u +%FT%TZ)"
    nvidia-smi -L
    nvidia-smi topo -m
} >"$dest/manifest.txt" 2>&1
if [ "$ngpu" -lt 2 ]; then
    log "needs 2 GPUs, $ngpu visible"
    exit 2
fi
if [ "${PROTOCOL:-paper}" = quick ]; then pcg_it=1000 bicg_it=100; else pcg_it=10000 bicg_it=1000; fi

want build && step 300 build.log make -j32 CUDA_ARCH=90 all gpu-tests
want check && step 600 check-gpu.log make CUDA_ARCH=90 check-gpu

if want tristream; then
    # the program's defaults: no knob set by hand
    step 300 tristream.log env OUT="$dest/tristream" TRACE=1 scripts/run-tristream.sh 2
    step 200 overhead.log env OUT="$dest/trace-overhead" scripts/bench-trace-overhead.sh 2 three-split -- \
        --iters 2000 --repeat 5
fi

if want solvers; then
    s=$dest/solvers
    mkdir -p "$s"
    proto="--rtol 0 --atol 0 --warmup 10 --repeat 3 --schedule all --backend cuda"
    for g in 1 2; do
        for m in gen:poisson7:64 gen:poisson7:128 gen:poisson7:256 gen:poisson27:128 \
            "$TL_DATA/matrices/1138_bus.mtx" "$TL_DATA/matrices/ani4.mtx"; do
            step 240 solvers.log bin/trilap-solve --gpus $g $proto --solver pipecg --max-iterations $pcg_it \
                --results "$s/results.csv" "$m"
        done
        for m in gen:convdiff:128 "$TL_DATA/matrices/ani1_nonsymm.mtx"; do
            step 240 solvers.log bin/trilap-solve --gpus $g $proto --solver pipebicgstab --max-iterations $bicg_it \
                --results "$s/results.csv" "$m"
        done
    done
    # traces for the Sec. IV-C breakdown and diagnose: a small and a large input
    for m in gen:poisson7:64 gen:poisson7:256; do
        for sc in two-stream three-naive three-split; do
            step 120 solvers.log bin/trilap-solve --gpus 2 --backend cuda --solver pipecg --schedule $sc --rtol 0 \
                --atol 0 --max-iterations 200 --warmup 10 --repeat 1 --cupti --trace "$s/trace-${m##*:}-$sc" "$m"
            step 30 solvers.log bin/trilap-analyze diagnose "$s/trace-${m##*:}-$sc"
        done
    done
fi

if want fdtd; then
    f=$dest/fdtd
    mkdir -p "$f"
    run() { step 120 fdtd.log bin/trilap-fdtd run --backend cuda --results "$f/results.csv" "$@"; }
    for n in 320 480 640 800 1024; do
        run --grid $n --steps 100 --gpus 1 --label "1gpu-$n"
        for st in host peer nccl; do run --grid $n --steps 100 --gpus 2 --decomp 1x1x2 --strategy $st --label "$st-$n"; done
    done
    for sv in 1 2 4 8; do run --grid 480 --steps 96 --gpus 2 --decomp 1x1x2 --strategy peer --s $sv --label "s$sv-480"; done
    for d in 1x1x2 1x2x1 2x1x1; do run --grid 480 --steps 100 --gpus 2 --decomp $d --strategy peer --label "decomp-$d"; done
    run --grid 480 --steps 20 --gpus 2 --decomp 1x1x2 --strategy host --trace "$f/trace-host-480" --label trace-host
    run --grid 480 --steps 20 --gpus 2 --decomp 1x1x2 --strategy peer --trace "$f/trace-peer-480" --label trace-peer
    step 120 fdtd-verify-decomp.csv bin/trilap-fdtd verify decomp --backend cuda --gpus 2 --n 128 \
        --decomps 1x1x2,1x2x1,2x1x1 --ss 1,2,4,8
fi
log "session done"
tar czf "$dest.tgz" -C "$(dirname "$dest")" "$(basename "$dest")"
