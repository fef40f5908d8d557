#!/usr/bin/env bash
# session10 call C: this tree (branch exp-cpml-psipf, q16: the CPML shell's
# memory variable by an L2 prefetch and read after the stencil, its velocity
# fields read and written one by one after L2 prefetches, 16 shell blocks
# per SM at 64 registers, 4 B spilled) and copies (q16n: no prefetch of the
# velocity fields; q14: 14 blocks, 72 registers, no spill; p14: the
# memory variable's prefetch alone, 14 blocks; v18: velocity 18 blocks at
# 56 registers, pressure 16) against main (.carry/main = 5b1f80b): the FDTD
# GPU tests of this tree, then CPML float 480/1024, two rounds alternated
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session10/C; mkdir -p $O/cpml
V="main q16n q14 p14 v18"
for t in $V; do
  ( make -C .carry/$t -j3 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-q16.log 2>&1; echo "q16 build exit $?"
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/q16-tests.log 2>&1
echo "[$SECONDS s] q16 tests: $(tail -n1 $O/q16-tests.log)"; grep -h "^not ok" $O/q16-tests.log | head
run() { # tree round
  local b=bin; [ $1 = q16 ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2; do for t in main q16 q16n q14 p14 v18; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main q16 q16n q14 p14 v18; do echo "$t 480 mean $(ratio $t)"; done
echo "[$SECONDS s] done"
cd $OUT && tar czf session10-C.tgz session10 && rm -rf session10
