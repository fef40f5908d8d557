#!/usr/bin/env bash
# session8 call B: this tree (6805996, main) as the reference, built for
# the FDTD steps; against it, CPML float 480/1024, three rounds
# alternated, and double 480 once:
#   .carry/xa:   branch exp-cpml-xalign: the CPML cut's interior x edges
#                rounded to whole quads instead of 32 elements, every box's
#                first quad on a 128-byte line (the x shell boxes 20 + 24
#                columns wide instead of 64 at 480^3)
#   .carry/xa32: the same with the shell in blocks of 32 threads
# then the FDTD GPU tests of xa (decomposed runs equal to the single
# domain bit for bit), and of xa32 where it beats xa by 0.005
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session8/B; mkdir -p $O/cpml
V="xa xa32"
for t in $V; do
  ( make -C .carry/$t -j6 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?"
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
for r in 1 2 3; do
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
echo "[$SECONDS s] 480 mean ratios: main $(ratio main)$(for t in $V; do printf ' %s %s' $t $(ratio $t); done)"
T="xa"; awk -v a=$(ratio xa32) -v b=$(ratio xa) 'BEGIN { exit !(a > b + 0.005) }' && T="xa xa32"
for t in $T; do
  ( cd .carry/$t && TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 120 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/$t-tests.log 2>&1
  echo "[$SECONDS s] $t tests: $(tail -n1 $O/$t-tests.log)"; grep -h "^not ok" $O/$t-tests.log | head
done
echo "[$SECONDS s] done"
cd $OUT && tar czf session8-B.tgz session8 && rm -rf session8
