#!/usr/bin/env bash
# session4 call L: double keeps the 64-bit slab test of a quad; this tree's
# FDTD build and GPU tests; CPML double (2 rounds) and float 480/1024 against
# the tree before (.carry/prevK, 919e50c) side by side
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session4; mkdir -p $O/cpml-L
( make -C .carry/prevK -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/cpml-L/prev-build.log 2>&1; echo "prev build exit $?" >> $O/cpml-L/prev-build.log ) &
TL_TEST_TIMEOUT=120 scripts/device-session.sh $O/fdtd-tests 200 build-fdtd,fdtd-tests > /dev/null 2>&1
wait; tail -1 $O/cpml-L/prev-build.log; cat $O/fdtd-tests/session.log; grep -h "^not ok\|passed," $O/fdtd-tests/*.log | tail -4
P=.carry/prevK/bin
for r in 1 2; do for t in new prev; do
  b=bin/trilap-fdtd; [ $t = prev ] && b=$P/trilap-fdtd
  timeout 40 $b run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t-r$r --results $O/cpml-L/double.csv >> $O/cpml-L/double.log 2>&1 || echo "dbl $t failed"
done; done
cut -d, -f1,9,14,17 $O/cpml-L/double.csv
timeout 70 scripts/bench-cpml.sh $O/cpml-L/new --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "new"; tail -2 $O/cpml-L/new/table.txt
TL_BIN=$P timeout 70 scripts/bench-cpml.sh $O/cpml-L/prev --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "prev"; tail -2 $O/cpml-L/prev/table.txt
cd $OUT && tar czf session4-L.tgz session4 && rm -rf session4
