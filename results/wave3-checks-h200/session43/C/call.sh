#!/usr/bin/env bash
# session43 call A: make check-gpu whole on the tree at .trilap-commit, both parts in one call
# (build,check-gpu-2 then check-gpu-1 on the same build), run as "bash call.sh A"
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-A}; O=$OUT/session43/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session43-$C.tgz session43); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 380 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
left=$((${TOTAL:-570} - SECONDS))
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((left - 15)) scripts/device-session.sh $O/check-gpu-1 $left check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session43
