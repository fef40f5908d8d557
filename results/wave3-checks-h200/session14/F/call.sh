#!/usr/bin/env bash
# session14 call F: main (this tree) against branch exp-shell-regs: the
# fields, memory variables and profiles read through the read-only path,
# the velocity CPML correction before the fields' loads, and the velocity
# shell's launch bounds at 14, 16, 18 blocks an SM (.carry/v14: 72
# registers, no spill; v16: 64, 8 B; v18: 56, 16-24 B): the FDTD GPU
# tests on v16 and v14, then three rounds of the four builds at 480^3 and
# 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/F; mkdir -p $O
( make -C .carry/v16 -j5 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-v16.log 2>&1; echo "v16 build exit $?" >> $O/build-v16.log ) &
( make -C .carry/v14 -j4 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-v14.log 2>&1; echo "v14 build exit $?" >> $O/build-v14.log ) &
( make -C .carry/v18 -j3 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-v18.log 2>&1; echo "v18 build exit $?" >> $O/build-v18.log ) &
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-v16.log $O/build-v14.log $O/build-v18.log; echo "[$SECONDS s] builds"
for t in v16 v14; do
  ( cd .carry/$t && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-$t.log 2>&1
  echo "$t: $(grep -c '^not ok' $O/test-$t.log) not ok; $(tail -n1 $O/test-$t.log)"
done
echo "[$SECONDS s] tests"
for t in v14 v16 v18; do cp bin/trilap-bench .carry/$t/bin/; done
scripts/bench-cpml-trees.sh $O/cpml main=bin v14=.carry/v14/bin v16=.carry/v16/bin v18=.carry/v18/bin --rounds 3 2> $O/cpml-progress.log | tail -n 9
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-F.tgz session14 && rm -rf session14
