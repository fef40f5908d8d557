#!/usr/bin/env bash
# main at the loop's statistics row: the solver GPU tests that run every method and schedule (the event timer's new row)
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
make -j16 CUDA_ARCH=90 all gpu-tests > $OUT/build.log 2>&1; echo "build rc $? $(( $(date +%s) - t0 )) s"
TL_TEST_TIMEOUT=150 TL_TEST_FILTER='test_gpu_solvers:(cg_family_1138_bus|all_methods_poisson7|all_methods_poisson27|fixed_iterations_and_spmv_choices)$' timeout 160 make CUDA_ARCH=90 TL_DATA=$TL_DATA check-gpu > $OUT/check-gpu.log 2>&1
grep -E "^(ok|not ok)|passed" $OUT/check-gpu.log | tail -6
echo "total $(( $(date +%s) - t0 )) s"
