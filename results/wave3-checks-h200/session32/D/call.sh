#!/usr/bin/env bash
# session32 call D: make check-gpu whole on the final tree, with .carry/pyfold-$1.patch applied first ($1 = none: the tree as it is)
# part 2 then part 1 on the tree at .trilap-commit (session32: after the qa32-cli merge and runtime/error's context names)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session32/D; mkdir -p $O
v=${1:-none}
if [ "$v" != none ]; then { git apply .carry/pyfold-$v.patch 2>/dev/null || patch -p1 -s < .carry/pyfold-$v.patch; } || { echo "patch $v failed"; exit 1; }; fi
echo "tree: .trilap-commit $(cat .trilap-commit) + $v" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session32-D.tgz session32); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 400 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((555 - SECONDS)) scripts/device-session.sh $O/check-gpu-1 $((560 - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session32
