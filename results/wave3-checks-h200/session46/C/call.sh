#!/usr/bin/env bash
# session46 call C (the same warm H200): make check-gpu part 2 on the tree at .trilap-commit
set -u; export NCCL_NVLS_ENABLE=0; O=$OUT/session46/C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=330 scripts/device-session.sh $O/check-gpu-2 400 build,check-gpu-2 > /dev/null 2>&1; echo "[$SECONDS s] check-gpu-2 rc $?"
tail -n 2 $O/check-gpu-2/session.log; zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
(cd $OUT && tar czf session46-C.tgz session46 && rm -rf session46)
