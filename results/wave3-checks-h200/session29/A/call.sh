#!/usr/bin/env bash
# session29+ call: make check-gpu
# part 2 then part 1 on the tree at .trilap-commit (session29 left dedf1c9
# untested on a GPU), on whichever card comes (gpu.txt names it)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session29/A; mkdir -p $O
pack() { (cd $OUT && tar czf session29-A.tgz session29); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=270 scripts/device-session.sh $O/check-gpu-2 340 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((455 - SECONDS)) scripts/device-session.sh $O/check-gpu-1 $((460 - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session29
