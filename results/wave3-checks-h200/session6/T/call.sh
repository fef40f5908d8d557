#!/usr/bin/env bash
# session6 call T: this tree (7427db5: call S's solver changes, the plain
# FDTD build's block walk by multiply and shift) built whole; make check-gpu
# part 1 (the five long solver comparisons); then CPML float 480/1024 for
# three trees alternated over two rounds: this tree (main) and two copies
# whose CPML cut rounds the interior's x edges to 8 (.carry/align8) and 4
# (.carry/align4) elements instead of 32
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session6/T; mkdir -p $O/cpml
for t in align8 align4; do
  ( make -C .carry/$t -j3 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-$t.log 2>&1; echo "exit $?" >> $O/build-$t.log ) &
done
TL_DATA=.carry/data scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
wait
tail -n1 $O/build-*.log
cat $O/check-gpu-1/session.log
for r in 1 2; do
  for t in main align8 align4; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 70 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1
    echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
cd $OUT && tar czf session6-T.tgz session6 && rm -rf session6
