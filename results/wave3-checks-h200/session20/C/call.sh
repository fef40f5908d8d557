#!/usr/bin/env bash
# session20 call C: issue 29s rows again on this tree (host code changed since 5bdb7a1), part 1:
# point 1 (scripts/bench-cpml.sh --sizes "480 1024" --reps 2) and point 2
# (bench-op-timer.sh, pipecg cg pcg at 128^3, two rounds alternated), then
# point 3's first row (bench-trace-overhead.sh solver at 128^3).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session20/C; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "build exit $?" >> $O/build.log
tail -n1 $O/build.log; echo "[$SECONDS s] built"
timeout 150 scripts/bench-cpml.sh $O/cpml --sizes "480 1024" --reps 2 > /dev/null 2> $O/cpml.err; echo "[$SECONDS s] bench-cpml exit $?"
cat $O/cpml/table.txt
SOLVERS="pipecg cg pcg" ROUNDS=2 OUT=$O/optimer/raw timeout 200 scripts/bench-op-timer.sh gen:poisson7:128 1000 > $O/optimer.txt 2>&1; echo "[$SECONDS s] op-timer exit $?"
tail -n 16 $O/optimer.txt
OUT=$O/trace-128/raw timeout 150 scripts/bench-trace-overhead.sh solver gen:poisson7:128 1000 > $O/trace-128.txt 2>&1; echo "[$SECONDS s] trace 128 exit $?"
tail -n 6 $O/trace-128.txt
cd $OUT && tar czf session20-C.tgz session20 && rm -rf session20
