#!/usr/bin/env bash
# session4 call H: build this tree (CPML psi read hoisted, y slabs in 32x8
# blocks) and the tree before (9c8f6e9, .carry/base9c: trilap-fdtd, trilap-bench);
# CPML float 480/1024 side by side and double 480; ncu of the new shell;
# check-gpu part 1 (the long solver tests; solver code unchanged); pcg options
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session4; mkdir -p $O/cpml $O/pcg
( make -C .carry/base9c -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/cpml/base-build.log 2>&1; echo "base build exit $?" >> $O/cpml/base-build.log ) &
scripts/device-session.sh $O/build 200 build > /dev/null 2>&1
wait; tail -1 $O/cpml/base-build.log; cat $O/build/session.log | head -2
B=.carry/base9c/bin
# float: new, base, new, base (480 and 1024, one rep each)
for r in 1 2; do
  timeout 70 scripts/bench-cpml.sh $O/cpml/new-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "new r$r"; cat $O/cpml/new-r$r/table.txt
  TL_BIN=$B timeout 70 scripts/bench-cpml.sh $O/cpml/base-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "base r$r"; cat $O/cpml/base-r$r/table.txt
done
# double, 480^3, 40 steps
for r in 1 2; do for t in new base; do
  b=bin/trilap-fdtd; [ $t = base ] && b=$B/trilap-fdtd
  timeout 40 $b run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t-r$r --results $O/cpml/double.csv >> $O/cpml/double.log 2>&1 || echo "dbl $t r$r failed"
done; done
cut -d, -f1,9,14,17 $O/cpml/double.csv
# ncu: the new shell per launch
timeout 90 scripts/bench-cpml.sh $O/cpml/ncu --sizes 480 --reps 1 --ncu > /dev/null 2>&1; echo "ncu exit $?"; ls $O/cpml/ncu
TL_TEST_TIMEOUT=200 CHECK_GPU_LIMIT=200 timeout 230 scripts/device-session.sh $O/check-gpu-1 220 check-gpu-1 > /dev/null 2>&1
grep -h "passed," $O/check-gpu-1/check-gpu.log | tail -1
# pcg at 128^3 with the solver's kernel options, two rounds
for r in 1 2; do for v in base prefetch nopdl tpr1 tpr2 tpr4; do
  o=; case $v in prefetch) o=--prefetch ;; nopdl) o=--no-pdl ;; tpr*) o="--spmv-threads-per-row ${v#tpr}" ;; esac
  timeout 30 bin/trilap-solve --backend cuda --solver pcg $o --rtol 0 --atol 0 --max-iterations 1000 --repeat 3 --results $O/pcg/p7-128-$v.csv gen:poisson7:128 > $O/pcg/p7-128-$v.$r.txt 2>&1 || echo "pcg $v r$r failed"
done; done
for v in base prefetch nopdl tpr1 tpr2 tpr4; do echo "pcg 128 $v $(awk -F, -f scripts/median-us-per-iter.awk $O/pcg/p7-128-$v.csv)"; done | tee $O/pcg/summary.txt
cd $OUT && tar czf session4-H.tgz session4 && rm -rf session4
