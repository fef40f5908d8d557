#!/usr/bin/env bash
# ring events once per check_every posts: main (ce1 = the old behaviour) and flow-wip 5a85138 + the same change
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/flow && tar xzf .carry/flowsrc.tgz -C /tmp/flow
(make -j8 CUDA_ARCH=90 all >$OUT/build-main.log 2>&1; echo "main rc $?") &
(cd /tmp/flow && make -j8 CUDA_ARCH=90 all >$OUT/build-flow.log 2>&1; echo "flow rc $?") &
wait
echo "build $(( $(date +%s) - t0 )) s"
S="bin/trilap-solve --launcher threads --gpus 1 --backend cuda --partition block --solver pipecg"
for ce in 1 4 9; do echo "== check-every $ce"; timeout 60 $S --rtol 1e-8 --check-every $ce gen:poisson7:64 2>&1 | grep -iE "iterations|true resid|error|stop" | head -6; done > $OUT/sanity.txt 2>&1
for ce in 1 4; do echo "== flow check-every $ce"; timeout 60 /tmp/flow/$S --rtol 1e-8 --check-every $ce gen:poisson7:64 2>&1 | grep -iE "iterations|true resid|error|stop" | head -6; done >> $OUT/sanity.txt 2>&1
cat $OUT/sanity.txt
echo "sanity $(( $(date +%s) - t0 )) s"
VARIANTS="ce4= ce1=--check-every,1 ce16=--check-every,16" timeout 200 scripts/bench-solver-roof.sh --budget 170 --marginal --sizes "128 256" $OUT/main > $OUT/main-console.txt 2>&1; echo "main roof rc $?"
tail -12 $OUT/main/summary.txt
echo "main roof $(( $(date +%s) - t0 )) s"
SOLVE=/tmp/flow/bin/trilap-solve BENCH=/tmp/flow/bin/trilap-bench VARIANTS="flow= noflow=--no-flow flow1=--check-every,1" timeout 200 scripts/bench-solver-roof.sh --budget 170 --marginal --sizes "128 256" $OUT/flow > $OUT/flow-console.txt 2>&1; echo "flow roof rc $?"
tail -12 $OUT/flow/summary.txt
echo "total $(( $(date +%s) - t0 )) s"
for d in main flow; do (cd $OUT/$d && tar czf logs.tgz logs raw 2>/dev/null && rm -rf logs raw traces); done
