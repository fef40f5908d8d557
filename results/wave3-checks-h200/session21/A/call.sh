#!/usr/bin/env bash
# session21 call A: main at its last tree (after the review): make check-gpu part 1
# (build,check-gpu-1), then trilap-solve's trace per run on the GPU (a
# CUPTI session per run since 181db88) read back by trilap-analyze.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session21/A; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
grep -h "^not ok" $O/check-gpu-1/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-1"
timeout 120 bin/trilap-solve --backend cuda --solver pipecg --schedule two-stream,three-split --rtol 0 --atol 0 \
  --max-iterations 200 --warmup 1 --repeat 2 --cupti --trace $O/tr gen:poisson7:64 > $O/solve-traced.txt 2>&1
echo "[$SECONDS s] traced solve exit $?"; grep -E '^(schedule|trace|time per iteration|us per iteration)' $O/solve-traced.txt | head
ls $O/tr
for d in $O/tr/*/; do timeout 60 bin/trilap-analyze overlap "$d" > "$d/overlap.txt" 2>&1; echo "$(basename $d): exit $? $(grep -E '^  0 ' $d/overlap.txt | head -1)"; done
timeout 120 bin/trilap-solve --backend cuda --device-comm host --ranks 2 --solver pipecg --schedule three-split --rtol 0 --atol 0 \
  --max-iterations 200 --repeat 1 --cupti --trace $O/tr2 gen:poisson7:64 > $O/solve-2ranks.txt 2>&1
echo "[$SECONDS s] two-rank traced solve exit $?"
timeout 60 bin/trilap-analyze diagnose $O/tr2 > $O/tr2-diagnose.txt 2>&1; echo "diagnose exit $?"; grep -E '^# rank|^FINDING' $O/tr2-diagnose.txt | head
rm -f $O/tr/*/trace.rank*.csv $O/tr2/trace.rank*.csv
cd $OUT && tar czf session21-A.tgz session21 && rm -rf session21
