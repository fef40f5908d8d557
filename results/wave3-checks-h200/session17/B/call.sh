#!/usr/bin/env bash
# session17 call B: main at dd16bf1 (this tree): make check-gpu part 2
# (scripts/device-session.sh steps build,check-gpu-2: the FDTD, probe,
# runtime, tristream and analysis GPU tests)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session17/B; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=330 scripts/device-session.sh $O/check-gpu-2 460 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] done"
cd $OUT && tar czf session17-B.tgz session17 && rm -rf session17
