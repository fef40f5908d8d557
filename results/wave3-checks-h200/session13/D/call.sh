#!/usr/bin/env bash
# session13 call D: this tree (main, test_gpu_fdtd's fields_of returning
# its buffer): the FDTD GPU tests
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session13/D; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test.log 2>&1
grep -E "^(ok|not ok)" $O/test.log; tail -n1 $O/test.log
grep -c "relative difference" $O/test.log
echo "[$SECONDS s] done"
cd $OUT && tar czf session13-D.tgz session13 && rm -rf session13
