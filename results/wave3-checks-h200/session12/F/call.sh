#!/usr/bin/env bash
# session12 call F: this tree (branch exp-shell-one-launch at its final
# form: the CPML shell's pressure update in one launch over its boxes, the
# velocity update in six as on main): make check-gpu part 2 on it, then
# three rounds against main (.carry/main = 46cab00) and double at 480^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session12/F; mkdir -p $O
( make -C .carry/main -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
wait; tail -qn1 $O/build-main.log
cp bin/trilap-bench .carry/main/bin/
echo "[$SECONDS s] bench"
scripts/bench-cpml-trees.sh $O/cpml main=.carry/main/bin pone=bin --rounds 3 | tail -n 4
for t in main pone; do
  b=bin; [ $t != pone ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
echo "[$SECONDS s] done"
cd $OUT && tar czf session12-F.tgz session12 && rm -rf session12
