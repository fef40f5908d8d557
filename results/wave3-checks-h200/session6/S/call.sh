#!/usr/bin/env bash
# session6 call S: this tree (no device communicator on one rank, op timer
# one call in 32) on issue 29 point 2: bench-op-timer.sh for pipecg, cg and
# pcg at 128^3 (default, every call timed, no timer, no timer + sync), two
# rounds alternated; then CPML float 480/1024 for three trees alternated
# over two rounds: this tree (main), .carry/fastdiv (75ba750: the banded
# walk and row0 by multiply and shift) and .carry/facesfd (909fa8b: the
# face builds with it)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session6/S; mkdir -p $O/optimer $O/cpml
( make -j8 CUDA_ARCH=90 bin/trilap-solve bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "exit $?" >> $O/build-main.log ) &
for t in fastdiv facesfd; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-$t.log 2>&1; echo "exit $?" >> $O/build-$t.log ) &
done
wait
tail -n1 $O/build-*.log
SOLVERS="pipecg cg pcg" ROUNDS=2 OUT=$O/optimer/raw timeout 200 scripts/bench-op-timer.sh gen:poisson7:128 1000 > $O/optimer/table.txt 2>&1
cat $O/optimer/table.txt
grep -h "op timer\|device comm" $O/optimer/raw/cg-default.1.txt | head -3
for r in 1 2; do
  for t in main fastdiv facesfd; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 70 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1
    echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
cd $OUT && tar czf session6-S.tgz session6 && rm -rf session6
