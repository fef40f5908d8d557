#!/usr/bin/env bash
# session7 call Z3: this tree (991bcee, main: the CPML shell in blocks of
# 64 threads, call Z2's h8) built whole and make check-gpu part 2 (every
# GPU test but the five long solver comparisons, which call Y passed on
# a816671, whose solver code this tree keeps); then against it, CPML float
# 480/1024, two rounds alternated, and double 480 once:
#   .carry/h4:     the shell in blocks of 32 threads (28 per SM, 72 registers)
#   .carry/h8lean: this tree with call Z's leaner shell (fd13be4: no vote in
#                  the shell's boxes, the slab tests packed; 72 registers, 8 B spill)
# and the FDTD GPU tests of the better one where it beats this tree by 0.005
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session7/Z3; mkdir -p $O/cpml
for t in h4 h8lean; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
cat $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head
wait; tail -qn1 $O/build-*.log
for t in h4 h8lean; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
for r in 1 2; do
  for t in main h4 h8lean; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
for t in main h4 h8lean; do
  b=bin; [ $t != main ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
ratio() { awk '$1 == 480 { s += $6; n++ } END { if (n) printf "%.4f", s / n; else print 0 }' $O/cpml/$1-r*/table.txt; }
m=$(ratio main); best=main; bv=$m
for t in h4 h8lean; do v=$(ratio $t); awk -v a=$v -v b=$bv 'BEGIN { exit !(a > b + 0.005) }' && best=$t && bv=$v; done
echo "[$SECONDS s] 480 mean ratios: main $m h4 $(ratio h4) h8lean $(ratio h8lean); best $best"
if [ $best != main ] && [ $SECONDS -lt 500 ]; then
  ( cd .carry/$best && TL_TEST_TIMEOUT=60 timeout 90 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/$best-tests.log 2>&1
  echo "$best tests: $(tail -n1 $O/$best-tests.log)"; grep -h "^not ok" $O/$best-tests.log | head
fi
gzip -9 $O/check-gpu-2/test-logs.txt 2>/dev/null
echo "[$SECONDS s] done"
cd $OUT && tar czf session7-Z3.tgz session7 && rm -rf session7
