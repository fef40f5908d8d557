#!/usr/bin/env bash
# session14 call B: main (this tree) against branch exp-shell-row0
# (.carry/r0: the shell's builds take row0 and the banded walk's
# quotients from the host, no 64-bit division a thread): the FDTD GPU tests on r0, then three rounds of the
# two builds at 480^3 and 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/B; mkdir -p $O
( make -C .carry/r0 -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-r0.log 2>&1; echo "r0 build exit $?" >> $O/build-r0.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-r0.log; echo "[$SECONDS s] builds"
( cd .carry/r0 && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-r0.log 2>&1
grep -E "^(ok|not ok)" $O/test-r0.log; tail -n1 $O/test-r0.log; echo "[$SECONDS s] tests"
cp bin/trilap-bench .carry/r0/bin/
scripts/bench-cpml-trees.sh $O/cpml main=bin r0=.carry/r0/bin --rounds 3 2> $O/cpml-progress.log | tail -n 5
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-B.tgz session14 && rm -rf session14
