#!/usr/bin/env bash
# session12 call C: make check-gpu part 1 (the five long solver
# comparisons) on main (039bec7); then, against main in three alternated
# rounds, two shell variants: ey, the y boxes in blocks of 16 quads x 4
# rows (y-lo's 20 rows five whole block rows instead of three with half of
# one idle); ez, the same six boxes launched x first. Then main's CPML
# ratio over sizes (320-1024^3, 20 cells) and over thickness at 480^3
# (10 and 40 cells).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session12/C; mkdir -p $O
for t in ey ez; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
TL_DATA=.carry/data CHECK_GPU_LIMIT=260 scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
tail -n 4 $O/check-gpu-1/session.log
wait; tail -qn1 $O/build-ey.log $O/build-ez.log
for t in ey ez; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
scripts/bench-cpml-trees.sh $O/cpml main=bin ey=.carry/ey/bin ez=.carry/ez/bin --rounds 3 | tail -n 6
echo "[$SECONDS s] sweep"
timeout 100 scripts/bench-cpml.sh $O/sizes --sizes "320 480 640 800 1024" --reps 1 2>/dev/null | tail -n 5
for c in 10 40; do timeout 40 scripts/bench-cpml.sh $O/cpml$c --sizes 480 --cpml $c --reps 1 2>/dev/null | tail -n 1; done
echo "[$SECONDS s] done"
cd $OUT && tar czf session12-C.tgz session12 && rm -rf session12
