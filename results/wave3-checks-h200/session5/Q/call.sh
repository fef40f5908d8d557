#!/usr/bin/env bash
# session5 call Q: make check-gpu part 2 (every GPU test but the five long
# solver comparisons, which call N ran) on this tree (e190f59: cg_async's x
# update in the update of p, z = r without a preconditioner)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session5/Q; mkdir -p $O
scripts/device-session.sh $O/build 200 build > /dev/null 2>&1; head -1 $O/build/session.log
TL_DATA=.carry/data TL_TEST_TIMEOUT=200 CHECK_GPU_LIMIT=320 scripts/device-session.sh $O/check-gpu-2 330 check-gpu-2 > /dev/null 2>&1
grep -h "^not ok\|passed," $O/check-gpu-2/check-gpu.log | tail -12
cd $OUT && tar czf session5-Q.tgz session5 && rm -rf session5
