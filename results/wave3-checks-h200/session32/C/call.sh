#!/usr/bin/env bash
# session32 call C: the GPU tests call B's check-gpu-2 had no time left for
# (its build took 94 s, not 48): test_gpu_fdtd_ranks whole, on the same tree
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session32/C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_TEST_FILTER='^test_gpu_fdtd_ranks:' TL_DATA=.carry/data CHECK_GPU_LIMIT=200 scripts/device-session.sh $O/check-gpu-fdtd-ranks 380 build,check-gpu > /dev/null 2>&1
cat $O/check-gpu-fdtd-ranks/session.log
grep "^ok\|^not ok" $O/check-gpu-fdtd-ranks/check-gpu.log
echo "[$SECONDS s] done"
(cd $OUT && tar czf session32-C.tgz session32 && rm -rf session32)
