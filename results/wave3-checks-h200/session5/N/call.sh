#!/usr/bin/env bash
# session5 call N: build this tree (cg_async: x += alpha p moved into the
# update of p; no z copy without a preconditioner) fully and the tree before
# (.carry/prevN = 472b621: trilap-solve); cg and pcg on poisson7 128^3 (1,000
# iterations, --repeat 3) alternated new/prev, three rounds, and 256^3 (300
# iterations) one round; then check-gpu part 1 (the five long solver
# comparisons) on this tree
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session5/N; mkdir -p $O/cg
( make -C .carry/prevN -j6 CUDA_ARCH=90 bin/trilap-solve > $O/cg/prev-build.log 2>&1; echo "prev build exit $?" >> $O/cg/prev-build.log ) &
scripts/device-session.sh $O/build 200 build > /dev/null 2>&1
wait; tail -1 $O/cg/prev-build.log; head -2 $O/build/session.log
P=.carry/prevN/bin
for r in 1 2 3; do for t in new prev; do for s in cg pcg; do
  b=bin/trilap-solve; [ $t = prev ] && b=$P/trilap-solve
  timeout 40 $b --backend cuda --solver $s --rtol 0 --atol 0 --max-iterations 1000 --repeat 3 --results $O/cg/p7-128-$s-$t.csv gen:poisson7:128 > $O/cg/p7-128-$s-$t.$r.txt 2>&1 || echo "$s $t r$r failed"
done; done; done
for r in 1; do for t in new prev; do for s in cg pcg; do
  b=bin/trilap-solve; [ $t = prev ] && b=$P/trilap-solve
  timeout 60 $b --backend cuda --solver $s --rtol 0 --atol 0 --max-iterations 300 --repeat 3 --results $O/cg/p7-256-$s-$t.csv gen:poisson7:256 > $O/cg/p7-256-$s-$t.$r.txt 2>&1 || echo "256 $s $t failed"
done; done; done
for n in 128 256; do for s in cg pcg; do for t in new prev; do
  echo "$n $s $t $(awk -F, -f scripts/median-us-per-iter.awk $O/cg/p7-$n-$s-$t.csv)"; done; done; done | tee $O/cg/summary.txt
TL_TEST_TIMEOUT=200 CHECK_GPU_LIMIT=200 timeout 230 scripts/device-session.sh $O/check-gpu-1 220 check-gpu-1 > /dev/null 2>&1
grep -h "^not ok\|passed," $O/check-gpu-1/check-gpu.log | tail -8
cd $OUT && tar czf session5-N.tgz session5 && rm -rf session5
