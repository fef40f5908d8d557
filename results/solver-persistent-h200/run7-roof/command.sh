#!/usr/bin/env bash
# main at the persistent loop's merge: bench-solver-roof.sh, the default against --persistent,
# marginal iterations at 128^3, 192^3, 256^3, CUPTI traces of both at 128^3
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
make -j16 CUDA_ARCH=90 all > $OUT/build.log 2>&1; echo "build rc $? $(( $(date +%s) - t0 )) s"
VARIANTS="base= loop=--persistent" TRACE_VARIANTS="base loop" timeout 420 scripts/bench-solver-roof.sh \
    --budget 380 --marginal --trace --sizes "128 192 256" $OUT/roof > $OUT/roof.log 2>&1; echo "roof rc $?"
tail -30 $OUT/roof.log
for v in base loop; do timeout 60 bin/trilap-analyze breakdown $OUT/roof/traces/p7-128-$v > $OUT/roof/breakdown-p7-128-$v.txt 2>&1; head -20 $OUT/roof/breakdown-p7-128-$v.txt; done
(cd $OUT && tar czf roof.tgz roof && rm -rf roof)
echo "total $(( $(date +%s) - t0 )) s"
