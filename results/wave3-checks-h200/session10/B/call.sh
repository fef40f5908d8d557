#!/usr/bin/env bash
# session10 call B: this tree (branch exp-cpml-xstrip: the CPML cut's x
# shell boxes hold the x slabs only, in whole quads, and the strips between
# them and the interior's 32-element edges run the plain build on the shell
# stream, each narrow box in blocks of its quads by as many rows as 64
# threads hold) against main (.carry/main = 5b1f80b, main's kernels): the
# FDTD GPU tests of this tree (bit for bit), CPML float 480/1024 three
# rounds alternated, double 480 once each, and a trace of a step of each
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session10/B; mkdir -p $O/cpml
( make -C .carry/main -j6 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
make -j10 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench bin/trilap-analyze build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-xs.log 2>&1; echo "xs build exit $?"
wait; tail -qn1 $O/build-*.log
cp bin/trilap-bench .carry/main/bin/
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/xs-tests.log 2>&1
echo "[$SECONDS s] xs tests: $(tail -n1 $O/xs-tests.log)"; grep -h "^not ok" $O/xs-tests.log | head
run() { # tree round
  local b=bin; [ $1 = xs ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2 3; do for t in main xs; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main xs; do echo "$t 480 mean $(ratio $t)"; done
for t in main xs; do
  b=bin; [ $t != xs ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
for t in main xs; do
  b=bin; [ $t != xs ] && b=.carry/$t/bin
  timeout 60 $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 12 --warmup 3 --cpml 20 --trace $O/trace-$t > $O/trace-$t.log 2>&1 || echo "trace $t failed"
  bin/trilap-analyze timeline $O/trace-$t --iter-range 7:7 -o $O/timeline-$t-iter7.csv > /dev/null 2>&1 || echo "timeline $t failed"
  echo "timeline $t:"; cut -d, -f8-10 $O/timeline-$t-iter7.csv | tail -n +2 | tr '\n' ' '; echo
done
rm -rf $O/trace-*/
echo "[$SECONDS s] done"
cd $OUT && tar czf session10-B.tgz session10 && rm -rf session10
