#!/usr/bin/env bash
# session32's host figures, each with the command that gives it; run from
# the repository root of a built tree (gnuplot and curl installed), the
# machine otherwise idle. Prints to out.txt beside this file.
set -u
D=results/wave3-host/session32-checks
{
echo "# commit: $(git rev-parse --short=12 HEAD); date: $(date -u +%FT%TZ); host: $(hostname); cores: $(nproc)"
echo "## 1. download-matrices.sh with a mirror that cannot be reached"
t0=$(date +%s.%N)
scripts/download-matrices.sh --no-verify --mirror https://trilap-test.invalid/MM --dest /tmp/tl-s32-dl Serena 2>&1
echo "exit $?; $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f s", b - a }'); dest made: $(test -e /tmp/tl-s32-dl && echo yes || echo no)"
echo "## 2. breakdown and overlap of a traced solve of three (trilap-solve --repeat 3)"
r=results/device-session-b2d4186/solver-bench/traces/large-two-stream
bin/trilap-analyze breakdown "$r" 2>&1 | grep -E "^# |spmv" | head -n 12
bin/trilap-analyze overlap "$r" 2>&1 | grep -E "iters|iteration time" | head -n 4
echo "## 2b. who came last: overlap's table and diagnose's count, one rank of four"
r=results/multirank-h200/pcg-threads-r4
bin/trilap-analyze overlap "$r" 2>&1 | sed -n '/# table: communication waiting and transfer/,/# [0-9]* rows/p'
bin/trilap-analyze diagnose "$r" 2>&1 | grep "another rank came last" | head -n 4
echo "## 2c. make demo's report from the committed two-H200 tristream run, and compare's iteration time"
TL_GNUPLOT=/nonexistent/gnuplot scripts/demo.sh --from results/tristream-h200x2 --out /tmp/tl-s32-demo > /dev/null 2>&1
grep -E "^(variant|two-stream|three-naive|three-split) " /tmp/tl-s32-demo/report.txt
grep -h "iteration time:" /tmp/tl-s32-demo/overlap-three-split.txt
rm -rf /tmp/tl-s32-demo
echo "## 3. the first make after a commit (here: TRILAP_COMMIT changed), what it recompiles"
t0=$(date +%s.%N)
TRILAP_COMMIT=session32-check make -j2 all tests > /tmp/tl-s32-make.log 2>&1
echo "exit $?; $(grep -c '^  CC ' /tmp/tl-s32-make.log) C files compiled, $(grep -c '^  NVCC ' /tmp/tl-s32-make.log) CUDA files; $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')"
grep '^  CC ' /tmp/tl-s32-make.log | sort
make -j2 all tests > /dev/null 2>&1 # back to this commit's build
echo "## 4. make plots (the check runs left out), into a scratch folder"
rm -rf /tmp/tl-s32-plots
t0=$(date +%s.%N)
scripts/render-plots.sh --results results --out /tmp/tl-s32-plots > /tmp/tl-s32-plots.log 2>&1
echo "exit $?; $(find /tmp/tl-s32-plots -type f | wc -l) files; $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f s", b - a }')"
grep "check runs left out" /tmp/tl-s32-plots.log
rm -rf /tmp/tl-s32-plots /tmp/tl-s32-dl
} > $D/out.txt
