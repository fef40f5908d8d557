#!/usr/bin/env bash
# build; the marginal roof sweep, flow against no flow, 4 sizes
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=.carry/data
t0=$(date +%s)
make -j16 CUDA_ARCH=90 all >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
VARIANTS="base= noflow=--no-flow" timeout 220 scripts/bench-solver-roof.sh --budget 200 --marginal --sizes "128 256 96 192" $OUT/roof > $OUT/roof-console.txt 2>&1; echo "roof rc $?"
tail -22 $OUT/roof/summary.txt
grep -E "ops" $OUT/roof/summary.txt
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT/roof && tar czf logs.tgz logs raw 2>/dev/null && rm -rf logs raw)
