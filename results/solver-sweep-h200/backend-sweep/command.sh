#!/usr/bin/env bash
# alternating sweeps + dots before Jacobi (this tree) against HEAD's build, side by side
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/old && tar xzf .carry/oldsrc.tgz -C /tmp/old
(make -j8 CUDA_ARCH=90 all >$OUT/build-new.log 2>&1; echo "new rc $?") &
(cd /tmp/old && make -j8 CUDA_ARCH=90 all >$OUT/build-old.log 2>&1; echo "old rc $?") &
wait
echo "build $(( $(date +%s) - t0 )) s"
VARIANTS="base= noalt=--no-alternate tail=--fuse-tail" timeout 330 scripts/bench-solver-roof.sh --old /tmp/old/bin/trilap-solve --budget 300 --marginal --sizes "128 256" $OUT/ab > $OUT/ab-console.txt 2>&1; echo "roof rc $?"
grep -E "p7-|1138" $OUT/ab-console.txt | grep -v exit
cat $OUT/ab/bits.txt 2>/dev/null
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf ab.tgz ab ab-console.txt build-new.log && rm -rf ab ab-console.txt build-new.log build-old.log)
