#!/usr/bin/env bash
# flow2 variants at 128^3: dots a block per tile (A), + update at 4/SM (B); each with the separate
# kernels, --fuse-tail and --fuse; nsys kernel trace (200 iterations) and marginal us/iter (1200 and 300 iterations, median of 3)
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
mkdir -p /tmp/dw && for f in .carry/dw/*.deb; do dpkg -x "$f" /tmp/dw; done
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
for v in A B; do
  mkdir -p /tmp/$v && tar xzf .carry/flow2src.tgz -C /tmp/$v
  sed -i "s/TL_CU_DOT_BLOCKS = 1056/TL_CU_DOT_BLOCKS = 2048/" /tmp/$v/solvers/backends/cuda/kernels.h
done
perl -0pi -e 's/__launch_bounds__\(BLOCK, 3\)\n    tl_pipecg_update_kernel/__launch_bounds__(BLOCK, 4)\n    tl_pipecg_update_kernel/' /tmp/B/solvers/backends/cuda/kernels.cu
grep -c "__launch_bounds__(BLOCK, 4)" /tmp/A/solvers/backends/cuda/kernels.cu /tmp/B/solvers/backends/cuda/kernels.cu
for v in A B; do (cd /tmp/$v && make -j8 CUDA_ARCH=90 bin/trilap-solve >$OUT/build-$v.log 2>&1; echo "$v rc $?") & done
wait
echo "build $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/k $OUT/t
S="--launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --schedule sync --rtol 0 --atol 0 --no-op-timer gen:poisson7:128"
for c in A: A:--fuse-tail A:--fuse B: B:--fuse-tail; do
  v=${c%%:*} o=${c#*:}; name=$v${o//-/}
  timeout 60 $NSYS profile -t cuda -o /tmp/$name /tmp/$v/bin/trilap-solve $S --max-iterations 200 --warmup 0 --repeat 1 $o > $OUT/k/$name.txt 2>&1
  timeout 60 $NSYS stats --report cuda_gpu_trace --format csv -o /tmp/$name /tmp/$name.nsys-rep > /dev/null 2>&1 && gzip -c /tmp/${name}_cuda_gpu_trace.csv > $OUT/k/$name-trace.csv.gz || echo "stats $name failed"
  for k in 1200 300; do
    timeout 60 /tmp/$v/bin/trilap-solve $S --max-iterations $k --warmup 1 --repeat 3 $o --results $OUT/t/$name-$k.csv > $OUT/t/$name-$k.txt 2>&1 || echo "$name $k failed"
  done
  awk -F, 'FNR>1{u[FILENAME]=u[FILENAME]" "$NF} END{for(f in u) print f, u[f]}' $OUT/t/$name-1200.csv $OUT/t/$name-300.csv
  echo "$name done $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz k t build-*.log && rm -rf k t)
