#!/usr/bin/env bash
# per-kernel durations (nsys): the prototype's plain/pdl/flow kernels against the backend's, 128^3
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/dw && for f in .carry/dw/*.deb; do dpkg -x "$f" /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
(make -j12 CUDA_ARCH=90 all >$OUT/build-main.log 2>&1; echo "main rc $?") &
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/flowp .carry/cmd/flow.cu || exit 1
wait
echo "build $(( $(date +%s) - t0 )) s"
mkdir -p $OUT/k
timeout 120 /tmp/flowp 128 300 1024 4394 | tee $OUT/k/proto-plain.txt
timeout 120 $NSYS profile -t cuda -o /tmp/proto /tmp/flowp 128 300 1024 4394 > $OUT/k/proto-nsys.txt 2>&1
S="bin/trilap-solve --launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --rtol 0 --atol 0 --max-iterations 300 --warmup 1 --repeat 2 --no-op-timer"
for v in pdl nopdl tail; do
  o=""; [ $v = nopdl ] && o="--no-pdl"; [ $v = tail ] && o="--fuse-tail"
  timeout 120 $NSYS profile -t cuda -o /tmp/be-$v $S $o gen:poisson7:128 > $OUT/k/be-$v.txt 2>&1
done
for r in proto be-pdl be-nopdl be-tail; do
  timeout 120 $NSYS stats --report cuda_gpu_kern_sum --format csv -o $OUT/k/$r /tmp/$r.nsys-rep > /dev/null 2>&1 || echo "stats $r failed"
  timeout 120 $NSYS stats --report cuda_gpu_trace --format csv -o /tmp/$r-trace /tmp/$r.nsys-rep > /dev/null 2>&1 && gzip -c /tmp/$r-trace_cuda_gpu_trace.csv > $OUT/k/$r-trace.csv.gz
done
ls $OUT/k
for f in $OUT/k/*kern_sum*.csv; do echo "== $f"; cut -d, -f1-9 $f | head -14; done
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf k.tgz k && rm -rf k)
