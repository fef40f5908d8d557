#!/usr/bin/env bash
# One bounded session on a lent GPU machine for everything that needs a GPU:
# build, the GPU tests (runtime, probes, microbenchmark, NCCL; FDTD; the
# solver comparisons, five cases at a time), then the FDTD and solver
# benchmarks with what is left of the time. Each step is bounded; a failed
# step is recorded and the rest goes on. Everything lands in DEST, and
# DEST.tgz holds it in one file.
#
#   scripts/device-session.sh DEST [TOTAL_SECONDS] [STEPS]
#   STEPS: comma list of build,tests,fdtd,solver-tests,solver-protocol,solver-bench,demo
#   [build,tests,fdtd,solver-tests,solver-bench,demo]
# Matrices: TL_DATA (default ../shared/data, else .carry/data).
set -u
dest=${1:?usage: device-session.sh DEST [TOTAL_SECONDS] [STEPS]}
total=${2:-450}
steps=${3:-build,tests,fdtd,solver-tests,solver-bench,demo}
mkdir -p "$dest" || exit 1
start=$SECONDS
left() { echo $((total - (SECONDS - start))); }
want() { [[ ",$steps," == *",$1,"* ]]; }
log() { echo "[$((SECONDS - start)) s] $*" | tee -a "$dest/session.log"; }
# step LIMIT LOGFILE CMD...: bounded by LIMIT and by what is left
step() {
    local lim=$1 f=$2
    shift 2
    local l
    l=$(left)
    [ "$lim" -gt "$l" ] && lim=$l
    if [ "$lim" -le 5 ]; then
        log "skipped (no time left): $*"
        return 0
    fi
    echo "\$ $* (limit ${lim}s)" >>"$dest/$f"
    timeout "$lim" "$@" >>"$dest/$f" 2>&1
    local rc=$?
    log "exit $rc: $* (limit ${lim}s)"
    return 0
}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
[ -f .trilap-commit ] && export TRILAP_COMMIT=$(head -n1 .trilap-commit)
export TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=${TL_DATA:-$PWD/../shared/data}
[ -d "$TL_DATA/matrices" ] || export TL_DATA=$PWD/.carry/data
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN="$mpirun_path"
{
    echo "commit: $(cat .trilap-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    echo "TL_DATA=$TL_DATA"
} >"$dest/manifest.txt" 2>&1

want build && step 150 build.log make -j16 CUDA_ARCH=90 all gpu-tests
if want tests; then
    others=()
    for t in build/tests/test_gpu_*; do
        case $t in *test_gpu_solvers | *test_gpu_fdtd) ;; *) others+=("$t") ;; esac
    done
    step 150 check-gpu.log env TL_TEST_TIMEOUT=100 tests/run.sh "${others[@]}"
fi
if want fdtd; then
    step 80 fdtd-tests.log env TL_TEST_TIMEOUT=75 tests/run.sh build/tests/test_gpu_fdtd
    step 120 fdtd-bench.log scripts/bench-fdtd.sh "$dest/fdtd-bench" --sizes "320 480 640" --more ""
    scripts/bench-fdtd.sh --summary "$dest/fdtd-bench" >>"$dest/fdtd-bench.log" 2>&1
    step 15 fdtd-verify-convergence-gpu.csv bin/trilap-fdtd verify convergence --backend cuda --sizes 8,16,32
    step 20 fdtd-verify-decomp-gpu.csv bin/trilap-fdtd verify decomp --backend cuda --n 64 --steps 12 \
        --decomps slab-z,block-xy,pencil-yz --ss 1,2,4
fi
if want solver-tests && [ -x build/tests/test_gpu_solvers ]; then
    # as make check-gpu runs them: 4 cases at a time, their GPU runs taking
    # turns (tests/gpu/test_gpu_solvers.c), logs in build/test-logs
    step 290 solver-tests.log env TL_TEST_TIMEOUT=280 TL_TEST_JOBS=4 TL_TEST_PARALLEL='^test_gpu_solvers:' \
        tests/run.sh build/tests/test_gpu_solvers
    mkdir -p "$dest/solver-tests"
    cp build/test-logs/test_gpu_solvers.*.log "$dest/solver-tests/" 2>/dev/null
    grep -h '^gpu run:\|^host references:\|comparisons' build/test-logs/test_gpu_solvers.*.log >"$dest/solver-tests/times.txt" 2>/dev/null
fi
if want solver-protocol; then
    b=$(($(left) - 30))
    if [ $b -gt 60 ]; then
        step $((b + 25)) solver-protocol.log scripts/bench-solvers-protocol.sh --breakdown "$dest/solver-protocol" "$b"
    else
        log "solver protocol skipped (no time left)"
    fi
fi
# the live demo first when asked with the bench: its solver part is short
if want demo; then
    step 120 demo.log env TRILAP_NO_INSTALL=1 make CUDA_ARCH=90 demo DEMO_OUT="$dest/demo"
fi
if want solver-bench; then
    b=$(($(left) - 20))
    if [ $b -gt 30 ]; then
        step $((b + 15)) solver-bench.log scripts/bench-solvers-gpu.sh --budget "$b" "$dest/solver-bench"
    else
        log "solver bench skipped (no time left)"
    fi
fi
log "session done"
tar czf "$dest.tgz" -C "$(dirname "$dest")" "$(basename "$dest")"
