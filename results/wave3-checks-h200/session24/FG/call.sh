#!/usr/bin/env bash
# session24 call FG: make check-gpu part 2 then part 1 in one call on the
# tree at .trilap-commit (the build made once, by the first session)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session24/FG; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1
TL_DATA=.carry/data CHECK_GPU_LIMIT=290 scripts/device-session.sh $O/check-gpu-2 380 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((575 - SECONDS)) scripts/device-session.sh $O/check-gpu-1 $((580 - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
cd $OUT && tar czf session24-FG.tgz session24 && rm -rf session24
