#!/usr/bin/env bash
# session6 call W: this tree (b93da13: in float the CPML interior is the
# rows in no y or z slab, whole along x, in the x rows' build; no x shell
# boxes) against the tree before (.carry/prev = bfec348): the FDTD GPU
# tests first (the cut and the decompositions bit for bit); if they pass,
# CPML float 480/1024 side by side, two rounds alternated; then ncu of one
# step of the new cut at 480^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session6/W; mkdir -p $O/cpml
( make -C .carry/prev -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/cpml/prev-build.log 2>&1; echo "prev build exit $?" >> $O/cpml/prev-build.log ) &
TL_DATA=.carry/data scripts/device-session.sh $O/fdtd-tests 200 build-fdtd,fdtd-tests > /dev/null 2>&1
wait; tail -n1 $O/cpml/prev-build.log; cat $O/fdtd-tests/session.log
grep -h "^not ok" $O/fdtd-tests/*.log 2>/dev/null | head
if ! grep -q " 0 failed" $O/fdtd-tests/session.log; then echo "FDTD tests failed: no benchmark"; cd $OUT && tar czf session6-W.tgz session6; exit 0; fi
for r in 1 2; do
  timeout 70 scripts/bench-cpml.sh $O/cpml/new-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "new r$r"; tail -n2 $O/cpml/new-r$r/table.txt
  TL_BIN=.carry/prev/bin timeout 70 scripts/bench-cpml.sh $O/cpml/prev-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "prev r$r"; tail -n2 $O/cpml/prev-r$r/table.txt
done
timeout 130 scripts/bench-cpml.sh $O/cpml/ncu --sizes 480 --reps 1 --ncu > $O/cpml/ncu.log 2>&1; echo "ncu exit $?"
cat $O/cpml/ncu/ncu-480-cpml20.txt 2>/dev/null | tail -14
gzip -9 $O/cpml/ncu/*.csv 2>/dev/null
cd $OUT && tar czf session6-W.tgz session6 && rm -rf session6
