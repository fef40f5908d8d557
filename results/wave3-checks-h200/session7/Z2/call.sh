#!/usr/bin/env bash
# session7 call Z2: the CPML shell without spills. Call Z's leaner shell
# (fewer instructions) ran slower: with 64 registers ptxas spilled the
# freshly loaded velocities, and each spill store waited for its load.
# Three copies of this tree (a816671) against it, CPML float 480/1024,
# three rounds alternated, then double at 480^3 once each:
#   .carry/m3:  the float CPML build at 3 blocks of 256 (80 registers, no spill)
#   .carry/h16: the shell's boxes in blocks of 8 x 16 threads, float CPML at
#               7 blocks of 128 per SM (72 registers, no spill)
#   .carry/h8:  the same in blocks of 8 x 8, 14 blocks of 64 (72, no spill)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session7/Z2; mkdir -p $O/cpml
for t in m3 h16 h8; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log
wait; tail -qn1 $O/build-*.log
for t in m3 h16 h8; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
for r in 1 2 3; do
  for t in main m3 h16 h8; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
for t in main m3 h16 h8; do
  b=bin; [ $t != main ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
echo "[$SECONDS s]"
if [ $SECONDS -lt 330 ]; then
  TL_BIN=.carry/h16/bin timeout 120 scripts/bench-cpml.sh $O/cpml/ncu-h16 --sizes 480 --reps 1 --ncu > $O/cpml/ncu-h16.log 2>&1; echo "ncu h16 exit $?"
  tail -n 16 $O/cpml/ncu-h16/ncu-480-cpml20.txt 2>/dev/null
  gzip -9 $O/cpml/ncu-h16/*.csv 2>/dev/null
fi
echo "[$SECONDS s] done"
cd $OUT && tar czf session7-Z2.tgz session7 && rm -rf session7
