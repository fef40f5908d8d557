#!/usr/bin/env bash
# session33 call D: make check-gpu part 2 (every GPU test but the five
# longest solver comparisons, which call B ran after the last change to the
# solvers' methods) on the final tree at .trilap-commit: the FDTD QA's
# periodic material fill and preamble, the PETSc QA's driver checks
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session33/D; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session33-D.tgz session33); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=330 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
rm -rf $OUT/session33
