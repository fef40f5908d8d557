#!/usr/bin/env bash
# session11 call F: main with the y and z slabs' memory variables aligned
# (the tree of call E): make check-gpu part 1, the five long solver
# comparisons (part 2 passed on this tree in call E)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/F; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-1 420 build,check-gpu-1 > /dev/null 2>&1
cat $O/check-gpu-1/session.log
grep -h "^not ok" $O/check-gpu-1/test-logs/*.log 2>/dev/null | head
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-F.tgz session11 && rm -rf session11
