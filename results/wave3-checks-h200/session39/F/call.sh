#!/usr/bin/env bash
# session39 call F: make check-gpu part 1 (the long solver cases) on call C's build of the same tree
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session39/F; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=170 scripts/device-session.sh $O/check-gpu-1 180 check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
(cd $OUT && tar czf session39-F.tgz session39)
