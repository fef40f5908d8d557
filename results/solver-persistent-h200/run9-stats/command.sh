#!/usr/bin/env bash
# main with the loop's statistics row: its GPU tests, then bench-solver-roof.sh at 128^3 (default and --persistent, with -ops)
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
make -j16 CUDA_ARCH=90 all gpu-tests > $OUT/build.log 2>&1; echo "build rc $? $(( $(date +%s) - t0 )) s"
TL_TEST_TIMEOUT=120 TL_TEST_FILTER='test_gpu_solvers:(persistent_loop|fixed_iterations_past_suspect_steps|fixed_iterations_and_spmv_choices)$' timeout 170 make CUDA_ARCH=90 TL_DATA=$TL_DATA check-gpu > $OUT/check-gpu.log 2>&1
grep -E "^(ok|not ok)|passed" $OUT/check-gpu.log | tail -6
VARIANTS="base= loop=--persistent" timeout 150 scripts/bench-solver-roof.sh --budget 120 --marginal --sizes 128 $OUT/roof > $OUT/roof.log 2>&1; echo "roof rc $?"
sed -n '3,20p' $OUT/roof/summary.txt
grep -A9 "^operation" $OUT/roof/logs/p7-128-loop-ops.txt
(cd $OUT && tar czf roof.tgz roof && rm -rf roof)
echo "total $(( $(date +%s) - t0 )) s"
