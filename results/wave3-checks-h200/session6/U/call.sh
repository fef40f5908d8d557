#!/usr/bin/env bash
# session6 call U: does the CPML shell gain from running beside the
# interior? CPML float 480/1024, three trees alternated over two rounds:
# this tree (7427db5, main: interior then shell on one stream) and two
# copies with the shell's six launches on a second stream forked from and
# joined to the update's: .carry/side1 (interior first, the shell's stream
# at the greatest priority, so freed block slots go to the shell) and
# .carry/side2 (the shell first, same priority, then the interior)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session6/U; mkdir -p $O/cpml
for t in side1 side2; do
  ( make -C .carry/$t -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "exit $?" >> $O/build-$t.log ) &
done
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "exit $?" >> $O/build-main.log
wait
tail -n1 $O/build-*.log
for t in side1 side2; do cp bin/trilap-bench .carry/$t/bin/; done
for r in 1 2; do
  for t in main side1 side2; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 70 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1
    echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
cd $OUT && tar czf session6-U.tgz session6 && rm -rf session6
