#!/usr/bin/env bash
# session22 call F: make check-gpu part 2 on the final tree of session21
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session22/F; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=360 scripts/device-session.sh $O/check-gpu-2 450 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-2"
cd $OUT && tar czf session22-F.tgz session22 && rm -rf session22
