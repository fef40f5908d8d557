#!/usr/bin/env bash
# Scratch prototype: flow.cu's four Pipe-PCG kernels plain / programmatic / dataflow, and "mega": one
# persistent kernel for all iterations taking the tiles of the four kernels from a counter in dependency order
set -u
t0=$(date +%s)
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/mega .carry/cmd/mega.cu || { echo "build failed"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for a in "128 300 1024" "128 300 2048" "256 150 2048" "256 150 1024"; do
  timeout 90 /tmp/mega $a 2>&1 | tee -a $OUT/mega.txt
  echo "$a done $(( $(date +%s) - t0 )) s"
done
