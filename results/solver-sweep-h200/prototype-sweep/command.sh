#!/usr/bin/env bash
set -u
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/flowr .carry/cmd/flow_rev.cu || exit 1
for cfg in "128 300 1024" "256 100 2048" "160 200 2048" "96 400 2048" "192 150 2048" "128 300 2048"; do
  timeout 100 /tmp/flowr $cfg 4394 || echo "exit $? for $cfg"
done 2>&1 | tee $OUT/rev1.txt
