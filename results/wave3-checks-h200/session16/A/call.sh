#!/usr/bin/env bash
# session16 call A: branch exp-deep-y (this tree) against main (.carry/main):
# the y slabs' deep rows' pressure update in the velocity shell's launch.
# A guarded first run (a hang would be a wait that never ends), the FDTD
# GPU tests on the branch, then three rounds of both builds at 480^3 and
# 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session16/A; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
( make -C /tmp/main -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-deep.log 2>&1; echo "[$SECONDS s] deep build exit $?"
wait; tail -n1 $O/build-main.log; echo "[$SECONDS s] builds"
timeout 120 bin/trilap-fdtd run --backend cuda --grid 480 --steps 20 --cpml 20 > $O/first-run.txt 2>&1; echo "[$SECONDS s] first run exit $?"; tail -n 4 $O/first-run.txt
TL_BIN=bin timeout 360 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-deep.log 2>&1; echo "tests exit $?"
grep "^not ok" $O/test-deep.log | head -5; grep "deep\|passed" $O/test-deep.log | tail -n 4; echo "[$SECONDS s] tests"
cp bin/trilap-bench /tmp/main/bin/
timeout 200 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin deep=bin --rounds 3 2> $O/cpml-progress.log | tail -n 5
echo "[$SECONDS s] done"
cd $OUT && tar czf session16-A.tgz session16 && rm -rf session16
