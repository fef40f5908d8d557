#!/usr/bin/env bash
# session14 call D: main (this tree, 4f2e639: the CPML shell's row0 from
# the host): make check-gpu part 2 (scripts/device-session.sh step
# check-gpu-2: the FDTD, probe, runtime, tristream and analysis GPU tests)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/D; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-D.tgz session14 && rm -rf session14
