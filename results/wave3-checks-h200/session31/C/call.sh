#!/usr/bin/env bash
# session31 call C: make check-gpu part 2 (every GPU test but the five longest solver comparisons)
# on the tree at .trilap-commit (session31's host changes: runtime's manifest / out / launch context,
# probes' rank file names, gzin's folder refusal, trilap-analyze's output names and table header),
# on whichever card comes (gpu.txt names it)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session31/C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session31-C.tgz session31); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 380 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
rm -rf $OUT/session31
