#!/usr/bin/env bash
# session22 call G: make check-gpu part 1
# (build,check-gpu-1)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session22/G; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
grep -h "^not ok" $O/check-gpu-1/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-1"
cd $OUT && tar czf session22-G.tgz session22 && rm -rf session22
