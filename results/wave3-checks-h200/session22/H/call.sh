#!/usr/bin/env bash
# session22 call H: branch exp-zfold (this tree) against main (.carry/main):
# the z slabs' points of the interior's x-y extent run the plain build with
# the z memory variable (a block is one z plane: no divergence), launched
# on the interior's stream before and after the interior; the shell keeps
# the y and x boxes, now through all z. zs5: that build at 5 blocks of 256
# an SM (48 registers, 36 B spilled in float's velocity kernel), zs4: at 4
# (64, no spill). The FDTD GPU tests on zs5 (bit for bit), then
# bench-cpml-trees main / zs5 / zs4, two rounds at 480^3 and 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session22/H; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
( make -C /tmp/main -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
( rm -rf /tmp/zs4; mkdir -p /tmp/zs4; tar --exclude=./build --exclude=./bin --exclude=./.carry --exclude=./results -cf - . | tar -xf - -C /tmp/zs4
  sed -i 's/^#define TL_ZS_BLOCKS 5$/#define TL_ZS_BLOCKS 4/' /tmp/zs4/stencil/fdtd_vec.cu; grep -c "^#define TL_ZS_BLOCKS 4$" /tmp/zs4/stencil/fdtd_vec.cu > $O/build-zs4.log
  make -C /tmp/zs4 -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench >> $O/build-zs4.log 2>&1; echo "zs4 build exit $?" >> $O/build-zs4.log ) &
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-zs5.log 2>&1; echo "[$SECONDS s] zs5 build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-zs4.log; head -n1 $O/build-zs4.log; echo "[$SECONDS s] builds"
timeout 60 bin/trilap-fdtd run --backend cuda --grid 480 --steps 20 --cpml 20 > $O/first-run.txt 2>&1; echo "[$SECONDS s] first run exit $?"; tail -n 1 $O/first-run.txt
TL_BIN=bin timeout 200 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-zs5.log 2>&1; echo "tests exit $?"
grep "^not ok" $O/test-zs5.log | head -5; tail -n 1 $O/test-zs5.log; echo "[$SECONDS s] tests"
timeout 240 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin zs5=bin zs4=/tmp/zs4/bin --rounds 2 2> $O/cpml-progress.log | tail -n 7
echo "[$SECONDS s] done"
cd $OUT && tar czf session22-H.tgz session22 && rm -rf session22
