#!/usr/bin/env bash
# session42 call C: after qa-rp7's probes change (host waits' API records kept, guesses to the lowest rank):
# build, the multi-rank and probes GPU tests, then Pipe-PCG's tracing overhead at 128^3 (issue 29 row 3);
# run as "bash call.sh C"
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-C}; O=$OUT/session42/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
timeout 200 make -j16 CUDA_ARCH=90 all gpu-tests > $O/build.log 2>&1; echo "[$SECONDS s] build rc $?"
export TL_BUILD=build TL_BIN=bin TL_DATA=.carry/data TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
timeout 120 tests/run.sh build/tests/test_gpu_multirank build/tests/test_gpu_probes > $O/gpu-tests.txt 2>&1
grep -E "^(not )?ok|passed," $O/gpu-tests.txt | tail -n 14; echo "[$SECONDS s] gpu tests"
left=$((${TOTAL:-380} - SECONDS - 10))
OUT=$O/trace-overhead-solver ROUNDS=3 timeout $left scripts/bench-trace-overhead.sh solver gen:poisson7:128 1000 > $O/trace-overhead.txt 2>&1
echo "[$SECONDS s] trace overhead rc $?"; tail -n 8 $O/trace-overhead.txt
(cd $OUT && tar czf session42-$C.tgz session42) && rm -rf $OUT/session42
