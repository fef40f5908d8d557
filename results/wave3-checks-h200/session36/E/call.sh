#!/usr/bin/env bash
# 
# session36 call E: make check-gpu part 2 on the tree at .trilap-commit (run as "bash call.sh E")
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-A}; O=$OUT/session36/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session36-$C.tgz session36); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=260 scripts/device-session.sh $O/check-gpu-2 340 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
pack
rm -rf $OUT/session36
