#!/usr/bin/env bash
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/flow .carry/cmd/flow.cu || exit 1
T=$(timeout 60 /tmp/flow 64 10 2048 0 | sed -n 's/.*triad=\([0-9]*\) GB.*/\1/p')
echo "triad $T"
for cfg in "128 300 2048" "128 300 1024" "128 300 4096" "96 400 2048" "160 200 2048" "192 150 2048" "256 100 2048" "256 100 4096" "64 1000 1024" "112 300 2048"; do
  timeout 90 /tmp/flow $cfg $T || echo "exit $? for $cfg"
done 2>&1 | tee $OUT/flow1.txt
