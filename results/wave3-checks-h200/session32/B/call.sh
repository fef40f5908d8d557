#!/usr/bin/env bash
# session32 call B: after the QA merges (scripts, analysis, docs) and the
# commit moved to build/commit.h: make check-gpu part 2 (build included),
# then the GPU benchmarks whose scripts changed (bench-op-timer.sh,
# bench-cg.sh: argument checks, bench-out.sh's folders), small and short
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session32/B; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
pack() { (cd $OUT && tar czf session32-B.tgz session32); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=270 scripts/device-session.sh $O/check-gpu-2 340 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
grep -h "TL_GIT_COMMIT" build/commit.h | tee $O/commit-h.txt
echo "[$SECONDS s] check-gpu-2"
pack
OUT=$O/optimer ROUNDS=1 timeout 120 scripts/bench-op-timer.sh gen:poisson7:64 300 > $O/optimer.txt 2>&1; echo "optimer rc $?"; tail -n 6 $O/optimer.txt
OUT=$O/cg ROUNDS=1 REPEAT=2 timeout 120 scripts/bench-cg.sh 64 300 > $O/cg.txt 2>&1; echo "cg rc $?"; tail -n 8 $O/cg.txt
scripts/bench-cg.sh --bogus > $O/cg-bad.txt 2>&1; echo "cg --bogus rc $? $(cat $O/cg-bad.txt)"
echo "[$SECONDS s] done"
pack
rm -rf $OUT/session32
