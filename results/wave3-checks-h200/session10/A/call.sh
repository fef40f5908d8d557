#!/usr/bin/env bash
# session10 call A: this tree (branch exp-cpml-prefetch: the CPML shell's
# blocks bulk-prefetch into L2 the rows of the fields they write and of
# the z stencil's leading plane before any load; TL_FDTD_PF=1) and two
# copies (.carry/pf2: the written fields only; .carry/pf3: both builds,
# the interior too) against main (.carry/main = 5b1f80b, main's kernels):
# the FDTD GPU tests of this tree (bit for bit), then CPML float 480/1024,
# three rounds alternated
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session10/A; mkdir -p $O/cpml
V="main pf2 pf3"
for t in $V; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-pf1.log 2>&1; echo "pf1 build exit $?"
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/pf1-tests.log 2>&1
echo "[$SECONDS s] pf1 tests: $(tail -n1 $O/pf1-tests.log)"; grep -h "^not ok" $O/pf1-tests.log | head
run() { # tree round
  local b=bin; [ $1 = pf1 ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2 3; do for t in main pf1 pf2 pf3; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main pf1 pf2 pf3; do echo "$t 480 mean $(ratio $t)"; done
echo "[$SECONDS s] done"
cd $OUT && tar czf session10-A.tgz session10 && rm -rf session10
