#!/usr/bin/env bash
# The registers for the host without an event on the stream (polled in mapped memory):
# main before (old) and after (this tree), flow2 before (f) and after (fr), side by side; nsys traces at 128^3
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/dw && for f in .carry/dw/*.deb; do dpkg -x "$f" /tmp/dw; done
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
for v in old:mainsrc f:flow2src fr:flow2regs; do
  d=/tmp/${v%%:*}; mkdir -p $d && tar xzf .carry/${v#*:}.tgz -C $d
  (cd $d && make -j4 CUDA_ARCH=90 bin/trilap-solve >$OUT/build-${v%%:*}.log 2>&1; echo "${v%%:*} rc $?") &
done
(make -j4 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench >$OUT/build-new.log 2>&1; echo "new rc $?") &
wait
echo "build $(( $(date +%s) - t0 )) s"
VARIANTS="base= ce1=--check-every,1" timeout 130 scripts/bench-solver-roof.sh --old /tmp/old/bin/trilap-solve --budget 110 --marginal --sizes "128 256" $OUT/new > $OUT/new-console.txt 2>&1; echo "roof new rc $?"
awk '/^# marginal/{m=1} m' $OUT/new/summary.txt | grep -v cusparse; cat $OUT/new/bits.txt
SOLVE=/tmp/fr/bin/trilap-solve VARIANTS="base=" timeout 100 scripts/bench-solver-roof.sh --old /tmp/f/bin/trilap-solve --budget 80 --marginal --sizes "128 256" $OUT/fr > $OUT/fr-console.txt 2>&1; echo "roof fr rc $?"
awk '/^# marginal/{m=1} m' $OUT/fr/summary.txt | grep -v cusparse; cat $OUT/fr/bits.txt
echo "roof done $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/k
S="--launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --schedule sync --rtol 0 --atol 0 --no-op-timer --max-iterations 200 --warmup 0 --repeat 1 gen:poisson7:128"
for v in new:bin fr:/tmp/fr/bin; do
  timeout 60 $NSYS profile -t cuda -o /tmp/${v%%:*} ${v#*:}/trilap-solve $S > $OUT/k/${v%%:*}.txt 2>&1
  timeout 60 $NSYS stats --report cuda_gpu_trace --format csv -o /tmp/${v%%:*} /tmp/${v%%:*}.nsys-rep > /dev/null 2>&1 && gzip -c /tmp/${v%%:*}_cuda_gpu_trace.csv > $OUT/k/${v%%:*}-trace.csv.gz || echo "stats $v failed"
done
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz new fr *-console.txt k build-*.log && rm -rf new fr k)
