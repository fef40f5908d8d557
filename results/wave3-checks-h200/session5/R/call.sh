#!/usr/bin/env bash
# session5 call R: what separates bench-cg.sh's pcg (148.43 us, defaults:
# three-split schedule, 1 call in 8 timed) from bench-solver-roof.sh's
# (141.84 us: --schedule sync --no-op-timer) at 128^3, this tree (e190f59):
# pcg and cg with the defaults, --no-op-timer, --schedule sync and both,
# 1,000 iterations, --repeat 3, two rounds alternated
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session5/R; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-solve > $O/build.log 2>&1; echo "build exit $?"
for r in 1 2; do for s in pcg cg; do for v in default notimer sync sync-notimer; do
  o=; case $v in notimer) o=--no-op-timer ;; sync) o="--schedule sync" ;; sync-notimer) o="--schedule sync --no-op-timer" ;; esac
  timeout 30 bin/trilap-solve --backend cuda --solver $s $o --rtol 0 --atol 0 --max-iterations 1000 --repeat 3 --results $O/p7-128-$s-$v.csv gen:poisson7:128 > $O/p7-128-$s-$v.$r.txt 2>&1 || echo "$s $v r$r failed"
done; done; done
for s in pcg cg; do for v in default notimer sync sync-notimer; do echo "128 $s $v $(awk -F, -f scripts/median-us-per-iter.awk $O/p7-128-$s-$v.csv)"; done; done | tee $O/summary.txt
cd $OUT && tar czf session5-R.tgz session5 && rm -rf session5
