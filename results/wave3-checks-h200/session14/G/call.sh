#!/usr/bin/env bash
# session14 call G: main (this tree, a693e32) against branch
# exp-plain-ro (.carry/pro: the plain build reads the fields it updates,
# its own elements, through the read-only path; the CPML build as main):
# the FDTD GPU tests on pro, then three rounds of the
# two builds at 480^3 and 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/G; mkdir -p $O
( make -C .carry/pro -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-pro.log 2>&1; echo "pro build exit $?" >> $O/build-pro.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-pro.log; echo "[$SECONDS s] builds"
( cd .carry/pro && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-pro.log 2>&1
grep -E "^(ok|not ok)" $O/test-pro.log; tail -n1 $O/test-pro.log; echo "[$SECONDS s] tests"
cp bin/trilap-bench .carry/pro/bin/
scripts/bench-cpml-trees.sh $O/cpml main=bin pro=.carry/pro/bin --rounds 3 2> $O/cpml-progress.log | tail -n 5
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-G.tgz session14 && rm -rf session14
