#!/usr/bin/env bash
# session32 call A: make check-gpu, with .carry/pyfold-$1.patch applied first ($1 = none: the tree as it is)
# part 2 then part 1 on the tree at .trilap-commit (session32: HEAD ab02bab, three host commits after the last GPU-tested tree)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session32/A; mkdir -p $O
v=${1:-none}
if [ "$v" != none ]; then { git apply .carry/pyfold-$v.patch 2>/dev/null || patch -p1 -s < .carry/pyfold-$v.patch; } || { echo "patch $v failed"; exit 1; }; fi
echo "tree: .trilap-commit $(cat .trilap-commit) + $v" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session32-A.tgz session32); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=270 scripts/device-session.sh $O/check-gpu-2 340 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((455 - SECONDS)) scripts/device-session.sh $O/check-gpu-1 $((460 - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session32
