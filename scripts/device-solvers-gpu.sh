#!/usr/bin/env bash
# One bounded session on a lent GPU machine for the CUDA solver backend:
# build what is needed, the GPU correctness tests (tests/gpu/test_gpu_solvers,
# its cases in parallel), then scripts/bench-solvers-gpu.sh with what is
# left of the time. Everything lands in DEST (logs, bench folder, one
# tarball).
#
#   scripts/device-solvers-gpu.sh DEST [TOTAL_SECONDS] [--no-tests|--no-bench]
# not -e / pipefail: a failed run is recorded and the rest goes on
set -u
dest=${1:?usage: device-solvers-gpu.sh DEST [TOTAL_SECONDS] [--no-tests|--no-bench]}
total=${2:-280}
what=${3:-all}
mkdir -p "$dest" || exit 1
start=$SECONDS
left() { echo $((total - (SECONDS - start))); }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TL_BUILD=build TL_BIN=bin TL_DATA=${TL_DATA:-$PWD/../shared/data} TL_HAVE_CUDA=1
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN=$mpirun_path
[ -d "$TL_DATA/matrices" ] || export TL_DATA=$PWD/shared/data
{
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    echo "TL_DATA=$TL_DATA"
    ls "$TL_DATA/matrices"
} >"$dest/env.txt" 2>&1
timeout 120 make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench bin/trilap-analyze \
    build/tests/test_gpu_solvers >"$dest/build.log" 2>&1
echo "build: exit $? after $((SECONDS - start)) s" | tee -a "$dest/session.log"
if [ "$what" != --no-tests ] && [ -x build/tests/test_gpu_solvers ]; then
    mkdir -p "$dest/tests"
    # five cases at a time (their 4-rank runs spin on 4 threads each)
    t=${TEST_TIMEOUT:-110}
    build/tests/test_gpu_solvers --list | xargs -P 5 -I{} sh -c \
        "timeout $t build/tests/test_gpu_solvers {} >'$dest/tests/{}.out' 2>'$dest/tests/{}.err'; echo \"{} exit \$?\" >>'$dest/tests/status.txt'"
    echo "tests done after $((SECONDS - start)) s" | tee -a "$dest/session.log"
    cat "$dest/tests/status.txt" >>"$dest/session.log"
    grep -h "^FAIL\|comparisons" "$dest"/tests/*.err >>"$dest/session.log" 2>/dev/null
fi
if [ "$what" != --no-bench ] && [ -x bin/trilap-solve ]; then
    b=$(($(left) - 25))
    [ $b -gt 30 ] && timeout $((b + 15)) scripts/bench-solvers-gpu.sh --budget "$b" "$dest/bench" \
        >"$dest/bench.log" 2>&1
    echo "bench: exit $? after $((SECONDS - start)) s" | tee -a "$dest/session.log"
fi
