#!/usr/bin/env bash
# session22 call I: branch exp-zfold with TL_ZFOLD_ONE against main
# (.carry/main): the interior through all z in one launch of the plain
# build with the z memory variable (block-uniform slab test), the shell's y
# and x boxes through all z. one5: at 5 blocks of 256 an SM (48
# registers, float's velocity kernel spills 36 B), one4: at 4 (64, no
# spill). The FDTD GPU tests on one5 (bit for bit), then bench-cpml-trees
# main / one5 / one4, two rounds at 480^3 and 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session22/I; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
( make -C /tmp/main -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
( rm -rf /tmp/one4; mkdir -p /tmp/one4; tar --exclude=./build --exclude=./bin --exclude=./.carry --exclude=./results -cf - . | tar -xf - -C /tmp/one4
  sed -i 's/^#define TL_ZS_BLOCKS 5$/#define TL_ZS_BLOCKS 4/' /tmp/one4/stencil/fdtd_vec.cu; grep -c "^#define TL_ZS_BLOCKS 4$" /tmp/one4/stencil/fdtd_vec.cu > $O/build-one4.log
  make -C /tmp/one4 -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench >> $O/build-one4.log 2>&1; echo "one4 build exit $?" >> $O/build-one4.log ) &
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-one5.log 2>&1; echo "[$SECONDS s] one5 build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-one4.log; head -n1 $O/build-one4.log; echo "[$SECONDS s] builds"
timeout 60 bin/trilap-fdtd run --backend cuda --grid 480 --steps 20 --cpml 20 > $O/first-run.txt 2>&1; echo "[$SECONDS s] first run exit $?"; tail -n 1 $O/first-run.txt
TL_BIN=bin timeout 200 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-one5.log 2>&1; echo "tests exit $?"
grep "^not ok" $O/test-one5.log | head -5; tail -n 1 $O/test-one5.log; echo "[$SECONDS s] tests"
timeout 240 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin one5=bin one4=/tmp/one4/bin --rounds 2 2> $O/cpml-progress.log | tail -n 7
echo "[$SECONDS s] done"
cd $OUT && tar czf session22-I.tgz session22 && rm -rf session22
