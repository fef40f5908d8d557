#!/usr/bin/env bash
# Scratch (not landed): the dot kernel on the COLL stream (three-naive row's DOT role), after an event
# recorded on the compute stream, so the dots run beside Jacobi and the SpMV; against sync in the same
# build and main's build; marginal us/iter at 128^3 and 256^3; 1138_bus histories; nsys at 128^3
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/dw && for f in .carry/dw/*.deb; do dpkg -x "$f" /tmp/dw; done
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
mkdir -p /tmp/d && tar xzf .carry/dotsrc.tgz -C /tmp/d
(cd /tmp/d && make -j8 CUDA_ARCH=90 bin/trilap-solve >$OUT/build-d.log 2>&1; echo "d rc $?") &
(make -j8 CUDA_ARCH=90 bin/trilap-solve >$OUT/build-main.log 2>&1; echo "main rc $?") &
wait
echo "build $(( $(date +%s) - t0 )) s"
mkdir -p $OUT/t $OUT/k
S="--launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --rtol 0 --atol 0 --no-op-timer --warmup 1 --repeat 3"
for n in 128 256; do
  if [ $n = 128 ]; then ks="1200 300"; else ks="160 40"; fi
  for c in main:sync d:sync d:three-naive main:three-naive; do
    b=bin; [ ${c%%:*} = d ] && b=/tmp/d/bin
    for k in $ks; do
      timeout 60 $b/trilap-solve $S --schedule ${c#*:} --max-iterations $k --results $OUT/t/$n-${c/:/-}-$k.csv gen:poisson7:$n > $OUT/t/$n-${c/:/-}-$k.txt 2>&1 || echo "$n $c $k failed"
    done
  done
  echo "size $n done $(( $(date +%s) - t0 )) s"
done
for c in main:sync d:sync d:three-naive; do
  b=bin; [ ${c%%:*} = d ] && b=/tmp/d/bin
  timeout 30 $b/trilap-solve --launcher threads --gpus 1 --backend cuda --solver pipecg --rtol 1e-6 --warmup 0 --repeat 1 --schedule ${c#*:} --history $OUT/t/bits-${c/:/-}.csv .carry/data/matrices/1138_bus.mtx > $OUT/t/bits-${c/:/-}.txt 2>&1
done
for c in d-sync d-three-naive; do cmp -s $OUT/t/bits-main-sync.csv $OUT/t/bits-$c.csv && echo "1138_bus pipecg $c: history identical to main sync" || echo "1138_bus pipecg $c: history DIFFERENT"; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
timeout 60 $NSYS profile -t cuda -o /tmp/dn /tmp/d/bin/trilap-solve ${S/--repeat 3/--repeat 1} --schedule three-naive --max-iterations 200 gen:poisson7:128 > $OUT/k/dn.txt 2>&1
timeout 60 $NSYS stats --report cuda_gpu_trace --format csv -o /tmp/dn /tmp/dn.nsys-rep > /dev/null 2>&1 && gzip -c /tmp/dn_cuda_gpu_trace.csv > $OUT/k/dn-trace.csv.gz || echo "stats failed"
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz t k build-*.log && rm -rf t k)
