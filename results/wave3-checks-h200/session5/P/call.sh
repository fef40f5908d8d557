#!/usr/bin/env bash
# session5 call P: this tree (b94f18f: the CPML shell cut into faces with a
# build per axis, the edges and corners in one launch) against the tree
# before (.carry/prevN = 472b621: trilap-fdtd, trilap-bench): the FDTD GPU
# tests first (bit-for-bit cut and decompositions); if they pass, CPML float
# 480/1024 side by side, two rounds alternated, double 480 one round each,
# ncu of one step of the new shell at 480^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session5/P; mkdir -p $O/cpml
( make -C .carry/prevN -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/cpml/prev-build.log 2>&1; echo "prev build exit $?" >> $O/cpml/prev-build.log ) &
TL_DATA=.carry/data scripts/device-session.sh $O/fdtd-tests 200 build-fdtd,fdtd-tests > /dev/null 2>&1
wait; tail -1 $O/cpml/prev-build.log; cat $O/fdtd-tests/session.log
grep -h "^not ok" $O/fdtd-tests/*.log 2>/dev/null | head
if ! grep -q " 0 failed" $O/fdtd-tests/session.log; then echo "FDTD tests failed: no benchmark"; cd $OUT && tar czf session5-P.tgz session5; exit 0; fi
P=.carry/prevN/bin
for r in 1 2; do
  timeout 70 scripts/bench-cpml.sh $O/cpml/new-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "new r$r"; tail -2 $O/cpml/new-r$r/table.txt
  TL_BIN=$P timeout 70 scripts/bench-cpml.sh $O/cpml/prev-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "prev r$r"; tail -2 $O/cpml/prev-r$r/table.txt
done
for t in new prev; do
  b=bin/trilap-fdtd; [ $t = prev ] && b=$P/trilap-fdtd
  timeout 40 $b run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double.csv >> $O/cpml/double.log 2>&1 || echo "dbl $t failed"
done
cut -d, -f1,9,14,17 $O/cpml/double.csv
timeout 100 scripts/bench-cpml.sh $O/cpml/ncu --sizes 480 --reps 1 --ncu > $O/cpml/ncu.log 2>&1; echo "ncu exit $?"
cat $O/cpml/ncu/ncu-480-cpml20.txt 2>/dev/null
gzip -9 $O/cpml/ncu/*.csv 2>/dev/null
cd $OUT && tar czf session5-P.tgz session5 && rm -rf session5
