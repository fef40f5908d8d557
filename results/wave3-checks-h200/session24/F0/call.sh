#!/usr/bin/env bash
# session24 call F: make check-gpu part 2 on main's tree
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session24/F; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=360 scripts/device-session.sh $O/check-gpu-2 450 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-2"
cd $OUT && tar czf session24-F.tgz session24 && rm -rf session24
