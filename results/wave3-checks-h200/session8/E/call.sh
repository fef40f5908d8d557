#!/usr/bin/env bash
# session8 call E: this tree (6805996, main) as the reference; against it
# branch exp-cpml-shell-stride (8648596): the CPML build's blocks walk the
# box in one dimension, striding, and TL_FDTD_SHELL_PER_SM=k bounds the
# shell's grid to k blocks per SM so that the interior keeps the rest of
# each SM while the shell runs (k = 0: a block per tile, the walk alone):
#   .carry/st72: 72 registers (float's velocity shell kernel spills 64 B)
#   .carry/st80: 80 registers (16 B)
# CPML float 480/1024, two rounds alternated; then for the best where it
# beats main by 0.005: the FDTD GPU tests with its k, double 480, and a
# trace of 12 steps (the shell beside the interior)
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session8/E; mkdir -p $O/cpml
for t in st72 st80; do
  ( make -C .carry/$t -j6 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?"
wait; tail -qn1 $O/build-*.log
for t in st72 st80; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
C="main st80:0 st80:3 st80:4 st80:6 st80:8 st72:0 st72:4"
run() { # config round
  local t=${1%%:*} k=${1#*:} b=bin
  [ $t = main ] && k=0 || b=.carry/$t/bin
  TL_FDTD_SHELL_PER_SM=$k TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/${1/:/-k}-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '{ printf " %s", $6 }' $O/cpml/${1/:/-k}-r$2/table.txt | tail -c 30)"
}
for r in 1 2; do for c in $C; do run $c $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { if (n) printf "%.4f", s / n; else print 0 }' $O/cpml/$1-r*/table.txt; }
best=main; bv=$(ratio main)
for c in $C; do v=$(ratio ${c/:/-k}); echo "$c 480 mean $v"; awk -v a=$v -v b=$bv 'BEGIN { exit !(a > b + 0.005) }' && best=$c && bv=$v; done
echo "[$SECONDS s] best $best $bv"
if [ $best != main ]; then
  t=${best%%:*}; k=${best#*:}
  ( cd .carry/$t && TL_FDTD_SHELL_PER_SM=$k TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 120 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/$t-k$k-tests.log 2>&1
  echo "[$SECONDS s] $best tests: $(tail -n1 $O/$t-k$k-tests.log)"; grep -h "^not ok" $O/$t-k$k-tests.log | head
  for c in main $best; do
    tt=${c%%:*}; kk=${c#*:}; b=bin; [ $tt = main ] && kk=0 || b=.carry/$tt/bin
    TL_FDTD_SHELL_PER_SM=$kk timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-${c/:/-k} --results $O/cpml/double-${c/:/-k}.csv > $O/cpml/double-${c/:/-k}.log 2>&1 || echo "double $c failed"
    echo "double $c: $(cut -d, -f1,9,14,17 $O/cpml/double-${c/:/-k}.csv | tail -n +2 | tr '\n' ' ')"
  done
  TL_FDTD_SHELL_PER_SM=$k timeout 60 .carry/$t/bin/trilap-fdtd run --backend cuda --grid 480 --steps 12 --warmup 3 --cpml 20 --trace $O/trace-$t-k$k > $O/trace-$t-k$k.log 2>&1; echo "trace exit $?"
  gzip -9 $O/trace-*/*.csv
fi
echo "[$SECONDS s] done"
cd $OUT && tar czf session8-E.tgz session8 && rm -rf session8
