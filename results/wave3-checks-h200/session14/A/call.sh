#!/usr/bin/env bash
# session14 call A: main (this tree) against branch exp-vshell-pdl
# (.carry/pdl: the velocity shell's six launches chained by programmatic
# dependent launch): the FDTD GPU tests on pdl, then three rounds of the
# two builds at 480^3 and 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/A; mkdir -p $O
( make -C .carry/pdl -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-pdl.log 2>&1; echo "pdl build exit $?" >> $O/build-pdl.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-pdl.log; echo "[$SECONDS s] builds"
( cd .carry/pdl && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-pdl.log 2>&1
grep -E "^(ok|not ok)" $O/test-pdl.log; tail -n1 $O/test-pdl.log; echo "[$SECONDS s] tests"
cp bin/trilap-bench .carry/pdl/bin/
scripts/bench-cpml-trees.sh $O/cpml main=bin pdl=.carry/pdl/bin --rounds 3 2> $O/cpml-progress.log | tail -n 5
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-A.tgz session14 && rm -rf session14
