#!/usr/bin/env bash
# session31 call B (meant for one H200; on another card it runs too and gpu.txt says which):
# issue 29's four rows on one tree, the tree at .trilap-commit (session31: 74a0f12 + results),
# in one command: point 1 (bench-cpml.sh 480, 640, 1024^3, three repetitions), point 2
# (bench-op-timer.sh pipecg cg pcg at 128^3, two rounds alternated), point 3 (bench-trace-overhead.sh
# solver at 128^3 and 256^3, the one-GPU tristream three times), point 4 (bench-cg.sh 128^3 1,000
# iterations, 256^3 300, two rounds). T: seconds this call may take (default 560).
set -u
T=${T:-560}
export NCCL_NVLS_ENABLE=0
O=$OUT/session31/B; mkdir -p $O
pack() { (cd $OUT && tar czf session31-B.tgz session31); }
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "build exit $?" >> $O/build.log
tail -n1 $O/build.log; echo "[$SECONDS s] built"
timeout 120 scripts/bench-cpml.sh $O/cpml --sizes "480 640 1024" --reps 3 > /dev/null 2> $O/cpml.err; echo "[$SECONDS s] bench-cpml exit $?"
cat $O/cpml/table.txt; pack
SOLVERS="pipecg cg pcg" ROUNDS=2 OUT=$O/optimer/raw timeout 120 scripts/bench-op-timer.sh gen:poisson7:128 1000 > $O/optimer.txt 2>&1; echo "[$SECONDS s] op-timer exit $?"
tail -n 14 $O/optimer.txt; pack
OUT=$O/trace-128/raw timeout 60 scripts/bench-trace-overhead.sh solver gen:poisson7:128 1000 > $O/trace-128.txt 2>&1; echo "[$SECONDS s] trace 128 exit $?"
tail -n 5 $O/trace-128.txt; pack
OUT=$O/trace-256/raw timeout 110 scripts/bench-trace-overhead.sh solver gen:poisson7:256 300 > $O/trace-256.txt 2>&1; echo "[$SECONDS s] trace 256 exit $?"
tail -n 5 $O/trace-256.txt; pack
for k in 1 2 3; do
  OUT=$O/trace-tri-$k/raw timeout 40 scripts/bench-trace-overhead.sh 1 three-split > $O/trace-tri-$k.txt 2>&1; echo "[$SECONDS s] trace tristream $k exit $?"
  tail -n 4 $O/trace-tri-$k.txt
done; pack
ROUNDS=2 OUT=$O/cg-128/raw timeout 60 scripts/bench-cg.sh 128 1000 > $O/cg-128.txt 2>&1; echo "[$SECONDS s] cg 128 exit $?"
tail -n 9 $O/cg-128.txt; pack
left=$((T - SECONDS - 10))
if [ $left -gt 60 ]; then
  ROUNDS=2 OUT=$O/cg-256/raw timeout $left scripts/bench-cg.sh 256 300 > $O/cg-256.txt 2>&1; echo "[$SECONDS s] cg 256 exit $?"
  tail -n 9 $O/cg-256.txt
else echo "cg 256 left out: $left s left"; fi
pack
rm -rf $OUT/session31
