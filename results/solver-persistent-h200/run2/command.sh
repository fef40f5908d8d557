#!/usr/bin/env bash
# mega.cu: how far the dots-and-Jacobi items run behind the update's (A) and the SpMV's behind them (L)
set -u
t0=$(date +%s)
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/mega .carry/cmd/mega.cu || { echo "build failed"; exit 1; }
for a in "128 300 1024 0 0 0 0 16" "128 300 1024 0 0 0 0 64" "128 300 1024 0 0 0 0 256" "128 300 1024 0 0 1024 0 256" "128 300 512 0 0 0 0 128" "256 150 2048 0 0 0 0 64" "256 150 2048 0 0 0 0 256"; do
  echo "== $a"; timeout 60 /tmp/mega $a 2>&1 | tee -a $OUT/mega.txt | grep -E "^N=|mega|flow"
done
echo "total $(( $(date +%s) - t0 )) s"
