#!/usr/bin/env bash
# session4 call K: build this tree (slab tests in 32-bit local coordinates, the
# hoisted psi's address kept, the hoisted read in float only) fully and the one
# before (.carry/prev: trilap-fdtd, trilap-bench); CPML float 480/1024 and
# double 480 side by side; then check-gpu part 2 (every GPU test but the five
# long solver comparisons) on this tree
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session4; mkdir -p $O/cpml-K
( make -C .carry/prev -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/cpml-K/prev-build.log 2>&1; echo "prev build exit $?" >> $O/cpml-K/prev-build.log ) &
scripts/device-session.sh $O/build-K 200 build > /dev/null 2>&1
wait; tail -1 $O/cpml-K/prev-build.log; head -1 $O/build-K/session.log
P=.carry/prev/bin
for r in 1 2; do
  timeout 70 scripts/bench-cpml.sh $O/cpml-K/new-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "new r$r"; tail -2 $O/cpml-K/new-r$r/table.txt
  TL_BIN=$P timeout 70 scripts/bench-cpml.sh $O/cpml-K/prev-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "prev r$r"; tail -2 $O/cpml-K/prev-r$r/table.txt
done
for t in new prev; do
  b=bin/trilap-fdtd; [ $t = prev ] && b=$P/trilap-fdtd
  timeout 40 $b run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml-K/double.csv >> $O/cpml-K/double.log 2>&1 || echo "dbl $t failed"
done
cut -d, -f1,9,14,17 $O/cpml-K/double.csv
TL_TEST_TIMEOUT=200 CHECK_GPU_LIMIT=320 scripts/device-session.sh $O/check-gpu-2 330 check-gpu-2 > /dev/null 2>&1
grep -h "^not ok\|passed," $O/check-gpu-2/check-gpu.log | tail -12
cd $OUT && tar czf session4-K.tgz session4 && rm -rf session4
