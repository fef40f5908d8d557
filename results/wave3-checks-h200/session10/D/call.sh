#!/usr/bin/env bash
# session10 call D: this tree (branch exp-cpml-psipf, d1: the CPML shell
# velocity fields read and written one by one after L2 prefetches of them,
# the pressure shell's field prefetched likewise, 16 shell blocks per SM
# at 64 registers, 0 / 8 B spilled; the memory variable loaded early as on
# main) and copies (d2: no prefetch of p, pressure 14 blocks; d3: pressure
# 14 blocks; d4: main with the prefetch of p alone, 14 blocks) against
# main (.carry/main = 5b1f80b): the FDTD
# GPU tests of this tree, then CPML float 480/1024, three rounds alternated
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session10/D; mkdir -p $O/cpml
V="main d2 d3 d4"
for t in $V; do
  ( make -C .carry/$t -j3 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-d1.log 2>&1; echo "d1 build exit $?"
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/d1-tests.log 2>&1
echo "[$SECONDS s] d1 tests: $(tail -n1 $O/d1-tests.log)"; grep -h "^not ok" $O/d1-tests.log | head
run() { # tree round
  local b=bin; [ $1 = d1 ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2 3; do for t in main d1 d2 d3 d4; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main d1 d2 d3 d4; do echo "$t 480 mean $(ratio $t)"; done
echo "[$SECONDS s] done"
cd $OUT && tar czf session10-D.tgz session10 && rm -rf session10
