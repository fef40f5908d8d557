#!/usr/bin/env bash
# session46 call D (the same warm H200): make check-gpu part 1 on the tree at .trilap-commit
set -u; export NCCL_NVLS_ENABLE=0; O=$OUT/session46/D; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=200 scripts/device-session.sh $O/check-gpu-1 230 check-gpu-1 > /dev/null 2>&1; echo "[$SECONDS s] check-gpu-1 rc $?"
tail -n 2 $O/check-gpu-1/session.log; zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
(cd $OUT && tar czf session46-D.tgz session46 && rm -rf session46)
