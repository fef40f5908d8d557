#!/usr/bin/env bash
# main at the persistent loop's merge: make check-gpu
set -u
CHECK_GPU_LIMIT=440 scripts/device-session.sh $OUT/cg 555 build,check-gpu
cat $OUT/cg/session.log
grep -E "^not ok|passed, " $OUT/cg/check-gpu.log | tail -20
rm -rf $OUT/cg
