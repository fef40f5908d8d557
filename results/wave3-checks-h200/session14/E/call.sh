#!/usr/bin/env bash
# session14 call E: main (this tree, 4f2e639) against branch
# exp-shell-psi-host (.carry/ph: a shell box's memory variable address
# made on the host, its quads' read waiting for no slab test): the FDTD
# GPU tests on ph, then three rounds of the
# two builds at 480^3 and 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/E; mkdir -p $O
( make -C .carry/ph -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-ph.log 2>&1; echo "ph build exit $?" >> $O/build-ph.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-ph.log; echo "[$SECONDS s] builds"
( cd .carry/ph && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-ph.log 2>&1
grep -E "^(ok|not ok)" $O/test-ph.log; tail -n1 $O/test-ph.log; echo "[$SECONDS s] tests"
cp bin/trilap-bench .carry/ph/bin/
scripts/bench-cpml-trees.sh $O/cpml main=bin ph=.carry/ph/bin --rounds 3 2> $O/cpml-progress.log | tail -n 5
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-E.tgz session14 && rm -rf session14
