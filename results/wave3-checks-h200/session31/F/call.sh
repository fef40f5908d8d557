#!/usr/bin/env bash
# session31 call F (what 315 s of device time allow): on the final tree at .trilap-commit, a build of
# trilap-solve and the GPU tests, then the GPU solver comparisons that run trilap-solve's matrix load
# (tl_csr_zero_diagonal's caller) on quick inputs, and test_gpu_multirank; each bounded
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session31/F; mkdir -p $O
pack() { (cd $OUT && tar czf session31-F.tgz session31); }
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
timeout 110 make -j16 CUDA_ARCH=90 all gpu-tests > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?" | tee -a $O/build.log
export TL_BUILD=build TL_BIN=bin TL_DATA=.carry/data TL_HAVE_CUDA=1 TL_HAVE_ZLIB=1 TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TL_TEST_FILTER='test_gpu_solvers:(comparison_catches_differences|all_methods_poisson7|bicgstab_family_convdiff|device_memory_refused)' \
  TL_TEST_TIMEOUT=90 timeout 100 tests/run.sh build/tests/test_gpu_solvers > $O/solvers.log 2>&1; tail -n 1 $O/solvers.log; pack
TL_TEST_TIMEOUT=60 timeout $((250 - SECONDS > 10 ? 250 - SECONDS : 10)) tests/run.sh build/tests/test_gpu_multirank > $O/multirank.log 2>&1; tail -n 1 $O/multirank.log
echo "[$SECONDS s] done"; pack; rm -rf $OUT/session31
