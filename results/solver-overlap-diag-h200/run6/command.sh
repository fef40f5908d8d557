#!/usr/bin/env bash
# Scratch (not landed): g5's dots on the COLL stream, now with --stream-priorities (COLL above compute),
# so that the dots' blocks are scheduled ahead of the SpMV's remaining ones; marginal at 128^3 and 256^3; nsys at 128^3
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/dw && for f in .carry/dw/*.deb; do dpkg -x "$f" /tmp/dw; done
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
mkdir -p /tmp/d && tar xzf .carry/dotsrc.tgz -C /tmp/d
(cd /tmp/d && make -j12 CUDA_ARCH=90 bin/trilap-solve >$OUT/build-d.log 2>&1; echo "d rc $?")
echo "build $(( $(date +%s) - t0 )) s"
mkdir -p $OUT/t $OUT/k
S="--launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --rtol 0 --atol 0 --no-op-timer --warmup 1 --repeat 3"
for n in 128 256; do
  if [ $n = 128 ]; then ks="1200 300"; else ks="160 40"; fi
  for c in sync:--schedule,sync prio:--schedule,three-naive,--stream-priorities naive:--schedule,three-naive; do
    o=${c#*:}; o=${o//,/ }
    for k in $ks; do
      timeout 60 /tmp/d/bin/trilap-solve $S $o --max-iterations $k --results $OUT/t/$n-${c%%:*}-$k.csv gen:poisson7:$n > $OUT/t/$n-${c%%:*}-$k.txt 2>&1 || echo "$n $c $k failed"
    done
  done
  echo "size $n done $(( $(date +%s) - t0 )) s"
done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
timeout 60 $NSYS profile -t cuda -o /tmp/dp /tmp/d/bin/trilap-solve ${S/--repeat 3/--repeat 1} --schedule three-naive --stream-priorities --max-iterations 200 gen:poisson7:128 > $OUT/k/dp.txt 2>&1
timeout 60 $NSYS stats --report cuda_gpu_trace --format csv -o /tmp/dp /tmp/dp.nsys-rep > /dev/null 2>&1 && gzip -c /tmp/dp_cuda_gpu_trace.csv > $OUT/k/dp-trace.csv.gz || echo "stats failed"
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz t k build-*.log && rm -rf t k)
