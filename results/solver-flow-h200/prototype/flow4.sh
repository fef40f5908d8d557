#!/usr/bin/env bash
# the prototype with the update held to 3 blocks per SM (the backend's occupancy), tile 1024
set -u
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/flow .carry/cmd/flow.cu || exit 1
T=$(timeout 60 /tmp/flow 64 10 2048 0 | sed -n 's/.*triad=\([0-9]*\) GB.*/\1/p')
echo "triad $T (the prototype's own triad kernel)"
for cfg in "128 300 1024 $T 0" "128 300 1024 $T 65536" "256 100 1024 $T 0" "256 100 1024 $T 65536" "192 150 1024 $T 65536"; do
  echo "== $cfg"; timeout 90 /tmp/flow $cfg || echo "exit $? for $cfg"
done 2>&1 | tee $OUT/flow4.txt
