#!/usr/bin/env bash
# session24 call A (run from a checkout of main at 5eb0c1a or later, the
# CPML cut in cpml_cut.c): main against cpml-zfold (.carry/zfold: the z
# slabs in the interior's launch; one H100: 0.878 against 0.868 at 480^3)
# and cpml-yzfold (.carry/yzfold: the y slabs in that launch too, the shell
# the x boxes alone; built, never run). The FDTD GPU tests on both branches
# (bit for bit, with the 1x1x6 case), then bench-cpml-trees main / zfold /
# yzfold, three rounds at 480^3 and 1024^3. About 350 s on a fresh machine.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session24/A; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1
for t in zfold yzfold; do
    ( rm -rf /tmp/$t; cp -r .carry/$t /tmp/$t
      make -C /tmp/$t -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks \
          > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-zfold.log $O/build-yzfold.log; echo "[$SECONDS s] builds"
for t in zfold yzfold; do
    ( cd /tmp/$t && TL_BIN=bin TL_DATA=$OLDPWD/.carry/data timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-$t.log 2>&1
    echo "$t tests exit $?"; grep "^not ok" $O/test-$t.log | head -5; tail -n 1 $O/test-$t.log
done
echo "[$SECONDS s] tests"
timeout 330 scripts/bench-cpml-trees.sh $O/cpml main=bin zfold=/tmp/zfold/bin yzfold=/tmp/yzfold/bin --rounds 3 2> $O/cpml-progress.log | tail -n 7
echo "[$SECONDS s] done"
cd $OUT && tar czf session24-A.tgz session24 && rm -rf session24
