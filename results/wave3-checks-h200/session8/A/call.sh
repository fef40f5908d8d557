#!/usr/bin/env bash
# session8 call A: this tree (6805996, main: session7's last, whose sm_90
# code is d878512's) built whole and make check-gpu part 2; then against
# it, CPML float 480/1024, two rounds alternated, and double 480 once:
#   .carry/zcol:  the shell's boxes by the z-column kernel with CPML
#                 (branch exp-cpml-shell-zcol: zcol32-y4, 80/68 registers)
#   .carry/zcolz: the same for the two z boxes only, the others as main
#   .carry/s32:   the shell in blocks of 32 threads (exp-cpml-shell32:
#                 28 per SM, 72 registers)
# and the FDTD GPU tests of the best one where it beats this tree by 0.005
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session8/A; mkdir -p $O/cpml
V="zcol zcolz s32"
for t in $V; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
cat $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
for r in 1 2; do
  for t in main $V; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
for t in main $V; do
  b=bin; [ $t != main ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
ratio() { awk '$1 == 480 { s += $6; n++ } END { if (n) printf "%.4f", s / n; else print 0 }' $O/cpml/$1-r*/table.txt; }
m=$(ratio main); best=main; bv=$m
for t in $V; do v=$(ratio $t); awk -v a=$v -v b=$bv 'BEGIN { exit !(a > b + 0.005) }' && best=$t && bv=$v; done
echo "[$SECONDS s] 480 mean ratios: main $m$(for t in $V; do printf ' %s %s' $t $(ratio $t); done); best $best"
if [ $best != main ] && [ $SECONDS -lt 500 ]; then
  ( cd .carry/$best && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=60 timeout 90 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/$best-tests.log 2>&1
  echo "$best tests: $(tail -n1 $O/$best-tests.log)"; grep -h "^not ok" $O/$best-tests.log | head
fi
gzip -9 $O/check-gpu-2/test-logs.txt 2>/dev/null
echo "[$SECONDS s] done"
cd $OUT && tar czf session8-A.tgz session8 && rm -rf session8
