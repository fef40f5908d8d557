#!/usr/bin/env bash
# session45 call B: make check-gpu part 2 on the tree at .trilap-commit, then the
# multi-rank traces again (scripts/run-multirank-h200.sh, with the halo peers and
# the owner fix), then part 1 in what time is left; run as "TOTAL=560 bash call.sh B"
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-B}; O=$OUT/session45/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session45-$C.tgz session45); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 380 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
scripts/run-multirank-h200.sh $O/multirank 300 > $O/multirank.log 2>&1
tail -n 3 $O/multirank.log
echo "[$SECONDS s] multirank"
pack
left=$((${TOTAL:-570} - SECONDS))
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((left - 15)) scripts/device-session.sh $O/check-gpu-1 $left check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session45
