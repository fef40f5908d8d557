#!/usr/bin/env bash
# session21 call C: make check-gpu part 2 (build,check-gpu-2; about 260 s
# of tests after the build)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session21/C; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=360 scripts/device-session.sh $O/check-gpu-2 450 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-2"
cd $OUT && tar czf session21-C.tgz session21 && rm -rf session21
