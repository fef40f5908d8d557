#!/usr/bin/env bash
# session34 call D: make check-gpu part 2 on the final tree (.trilap-commit): the analysis, trilap-bench and
# trilap-solve argument checks and tl_results_unfit changed after call B; the five solver comparisons of part 1 did not
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-D}; O=$OUT/session34/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 380 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
(cd $OUT && tar czf session34-$C.tgz session34)
rm -rf $OUT/session34
