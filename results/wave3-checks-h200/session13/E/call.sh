#!/usr/bin/env bash
# session13 call E: this tree (main: the shell table's first[] no longer
# filled past n, host code only): the FDTD GPU tests
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session13/E; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test.log 2>&1
grep -E "^(ok|not ok)" $O/test.log; tail -n1 $O/test.log
grep -c "relative difference" $O/test.log
echo "[$SECONDS s] done"
cd $OUT && tar czf session13-E.tgz session13 && rm -rf session13
