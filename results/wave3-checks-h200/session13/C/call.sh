#!/usr/bin/env bash
# session13 call C: main (this tree) against branch exp-vshell-split
# (the shell's velocity update in float a thread a component: blocks of 8
# quads x 4 rows x 3 components; vs12: launch bounds 12 blocks a SM, 56
# registers; vs8: 8, 62 registers): the FDTD GPU tests on vs12, then
# three rounds of the three builds at 480^3 and 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session13/C; mkdir -p $O
( make -C .carry/vs12 -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-vs12.log 2>&1; echo "vs12 build exit $?" >> $O/build-vs12.log ) &
( make -C .carry/vs8 -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-vs8.log 2>&1; echo "vs8 build exit $?" >> $O/build-vs8.log ) &
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-vs12.log $O/build-vs8.log; echo "[$SECONDS s] builds"
( cd .carry/vs12 && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-vs12.log 2>&1
grep -E "^(ok|not ok)" $O/test-vs12.log; tail -n1 $O/test-vs12.log; echo "[$SECONDS s] tests"
cp bin/trilap-bench .carry/vs12/bin/; cp bin/trilap-bench .carry/vs8/bin/
scripts/bench-cpml-trees.sh $O/cpml main=bin vs12=.carry/vs12/bin vs8=.carry/vs8/bin --rounds 3 2> $O/cpml-progress.log | tail -n 7
echo "[$SECONDS s] done"
cd $OUT && tar czf session13-C.tgz session13 && rm -rf session13
