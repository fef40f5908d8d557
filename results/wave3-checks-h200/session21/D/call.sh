#!/usr/bin/env bash
# session21 call D: main at a2e8016: make check-gpu part 1
# (build,check-gpu-1), then trilap-solve's trace per run on the GPU (a
# CUPTI session per run since 181db88) read back by trilap-analyze.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session21/D; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
grep -h "^not ok" $O/check-gpu-1/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-1"
cd $OUT && tar czf session21-D.tgz session21 && rm -rf session21
