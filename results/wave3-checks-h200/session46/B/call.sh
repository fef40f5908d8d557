#!/usr/bin/env bash
# session46 call B (the same warm H200, right after A, the build of A kept):
# the two runs A's time limit cut, whole: bench-trace-overhead.sh on
# Pipe-PCG 256^3 (300 iterations, three rounds) and bench-cg.sh at 256^3
# (300 iterations, two rounds); run from the repository root as one command
set -u; export NCCL_NVLS_ENABLE=0; O=$OUT/session46/B; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
ls bin/trilap-solve >/dev/null 2>&1 || make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench > $O/build.log 2>&1; echo "[$SECONDS s] ready"
OUT=$O/trace-256/raw timeout 200 scripts/bench-trace-overhead.sh solver gen:poisson7:256 300 > $O/trace-256.txt 2>&1; echo "[$SECONDS s] trace 256 exit $?"
tail -n 5 $O/trace-256.txt; (cd $OUT && tar czf session46-B.tgz session46)
ROUNDS=2 OUT=$O/cg-256/raw timeout $((560 - SECONDS)) scripts/bench-cg.sh 256 300 > $O/cg-256.txt 2>&1; echo "[$SECONDS s] cg 256 exit $?"
tail -n 9 $O/cg-256.txt; (cd $OUT && tar czf session46-B.tgz session46 && rm -rf session46)
