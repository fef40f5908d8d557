#!/usr/bin/env bash
# flow2 (the dataflow, as on its branch): does the host's enqueue or the check interval gate the update's start?
# nsys -t cuda with the API trace at 128^3; marginal iterations at --check-every 4, 16, 31
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/dw && for f in .carry/dw/*.deb; do dpkg -x "$f" /tmp/dw; done
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
mkdir -p /tmp/f && tar xzf .carry/flow2src.tgz -C /tmp/f
(cd /tmp/f && make -j8 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench >$OUT/build-f.log 2>&1; echo "f rc $?")
echo "build $(( $(date +%s) - t0 )) s"
cd /tmp/f
S="bin/trilap-solve --launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --schedule sync --rtol 0 --atol 0 --max-iterations 200 --warmup 0 --repeat 1 --no-op-timer"
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/k
for v in ce4 ce31; do
  timeout 60 $NSYS profile -t cuda -o /tmp/be-$v $S --check-every ${v#ce} gen:poisson7:128 > $OUT/k/be-$v.txt 2>&1
  for r in cuda_gpu_trace cuda_api_trace; do
    timeout 60 $NSYS stats --report $r --format csv -o /tmp/be-$v /tmp/be-$v.nsys-rep > /dev/null 2>&1 && gzip -c /tmp/be-${v}_$r.csv > $OUT/k/be-$v-$r.csv.gz || echo "stats $v $r failed"
  done
done
echo "nsys $(( $(date +%s) - t0 )) s"
VARIANTS="base= ce16=--check-every,16 ce31=--check-every,31 noflow=--no-flow" timeout 120 scripts/bench-solver-roof.sh --budget 100 --marginal --sizes 128 $OUT/ce > $OUT/ce-console.txt 2>&1; echo "roof rc $?"
awk '/^# marginal/{m=1} m' $OUT/ce/summary.txt | grep -v cusparse
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz ce ce-console.txt k build-f.log && rm -rf ce)
