#!/usr/bin/env bash
# session45 call B: the build and the GPU tests that go through the run-time
# loaders' lookup as changed after call A (runtime/dl.c's tl_dl_fill):
# test_gpu_solvers' cuSPARSE cases (fixed_iterations_and_spmv_choices,
# all_methods_poisson27) and the host test of the cuSPARSE table, on the tree
# at .trilap-commit; run as "TOTAL=200 bash call.sh B"
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-B}; O=$OUT/session45/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
timeout 120 make -j16 CUDA_ARCH=90 all tests gpu-tests > $O/build.log 2>&1; echo "build rc $? [$SECONDS s]"
TL_TEST_FILTER='^test_gpu_solvers:(fixed_iterations_and_spmv_choices|all_methods_poisson27)$' \
    timeout $((${TOTAL:-200} - SECONDS)) make CUDA_ARCH=90 TL_DATA=.carry/data check-gpu > $O/check-gpu.log 2>&1
echo "check-gpu rc $? [$SECONDS s]"; tail -n 1 $O/check-gpu.log; grep "^not ok" $O/check-gpu.log | head
TL_BUILD=build TL_BIN=bin tests/run.sh build/tests/test_cusparse_lib > $O/test_cusparse_lib.log 2>&1
echo "test_cusparse_lib rc $? [$SECONDS s]"; tail -n 1 $O/test_cusparse_lib.log
cp build/test-logs/*.log $O/ 2>/dev/null; (cd $O && cat test_*.log 2>/dev/null | gzip -9 > test-logs.txt.gz; rm -f test_gpu_*.log)
