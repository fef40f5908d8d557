#!/usr/bin/env bash
# session46 call A: on the tree at .trilap-commit (this session's final
# code), the build, the FDTD GPU tests (trilap-fdtd verify split into files
# of one concept; decomposed runs bit for bit) and issue 29's four rows
# measured again as session31/B measured them: point 1 (bench-cpml.sh 480,
# 640, 1024^3, three repetitions), point 2 (bench-op-timer.sh pipecg cg pcg
# at 128^3, two rounds alternated), point 3 (bench-trace-overhead.sh solver
# at 128^3 and 256^3, the one-GPU tristream three times), point 4
# (bench-cg.sh 128^3 1,000 iterations, 256^3 300, two rounds).
# Run as "T=560 bash call.sh A".
set -u
T=${T:-560}
export NCCL_NVLS_ENABLE=0
C=${1:-A}; O=$OUT/session46/$C; mkdir -p $O
pack() { (cd $OUT && tar czf session46-$C.tgz session46); }
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
timeout 150 make -j16 CUDA_ARCH=90 all tests gpu-tests > $O/build.log 2>&1; echo "build rc $? [$SECONDS s]"
TL_TEST_FILTER='^test_gpu_fdtd(_ranks)?:' timeout 120 make CUDA_ARCH=90 TL_DATA=.carry/data check-gpu > $O/check-gpu.log 2>&1
echo "check-gpu (FDTD) rc $? [$SECONDS s]"; tail -n 1 $O/check-gpu.log; grep "^not ok" $O/check-gpu.log | head
cp build/test-logs/*.log $O/ 2>/dev/null; (cd $O && cat test_*.log 2>/dev/null | gzip -9 > test-logs.txt.gz; rm -f test_gpu_*.log)
pack
timeout 120 scripts/bench-cpml.sh $O/cpml --sizes "480 640 1024" --reps 3 > /dev/null 2> $O/cpml.err; echo "[$SECONDS s] bench-cpml exit $?"
cat $O/cpml/table.txt; pack
SOLVERS="pipecg cg pcg" ROUNDS=2 OUT=$O/optimer/raw timeout 120 scripts/bench-op-timer.sh gen:poisson7:128 1000 > $O/optimer.txt 2>&1; echo "[$SECONDS s] op-timer exit $?"
tail -n 14 $O/optimer.txt; pack
OUT=$O/trace-128/raw timeout 60 scripts/bench-trace-overhead.sh solver gen:poisson7:128 1000 > $O/trace-128.txt 2>&1; echo "[$SECONDS s] trace 128 exit $?"
tail -n 5 $O/trace-128.txt; pack
left=$((T - SECONDS - 150))
if [ $left -gt 60 ]; then
  OUT=$O/trace-256/raw timeout $((left < 110 ? left : 110)) scripts/bench-trace-overhead.sh solver gen:poisson7:256 300 > $O/trace-256.txt 2>&1; echo "[$SECONDS s] trace 256 exit $?"
  tail -n 5 $O/trace-256.txt; pack
else echo "trace 256 left out: $left s left"; fi
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
rm -rf $OUT/session46
