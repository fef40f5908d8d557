#!/usr/bin/env bash
# mega.cu: the best lags again, their neighbours, and 192^3
set -u
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/mega .carry/cmd/mega.cu || { echo "build failed"; exit 1; }
for a in "128 300 1024 0 0 1024 0 256" "128 300 1024 0 0 1024 0 512" "128 300 1024 0 0 1536 0 256" "192 200 2048 0 0 0 0 256" "256 150 1024 0 0 4096 0 512"; do
  echo "== $a"; timeout 60 /tmp/mega $a 2>&1 | tee -a $OUT/mega.txt | grep -E "^N=|mega|flow"
done
