#!/usr/bin/env bash
# session15 call A: main (this tree, b0d2fa2 = e8f4153 plus results; 9f3c42c
# read_own in the plain build): make check-gpu part 2 (scripts/device-session.sh step
# check-gpu-2: the FDTD, probe, runtime, tristream and analysis GPU tests)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session15/A; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] done"
cd $OUT && tar czf session15-A.tgz session15 && rm -rf session15
