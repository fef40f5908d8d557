#!/usr/bin/env bash
set -u
t0=$(date +%s)
make -j16 CUDA_ARCH=90 build/obj/runtime/error.o >/dev/null 2>&1 || make -j16 CUDA_ARCH=90 all > /dev/null 2>&1
/usr/local/cuda/bin/nvcc -Ibuild -I. -D_GNU_SOURCE -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/kb2 .carry/cmd/kb2.cu build/obj/runtime/error.o -lcuda || exit 1
echo "build $(( $(date +%s) - t0 )) s"
/tmp/kb2 128 60 4394 | tee $OUT/kb2-128.txt
/tmp/kb2 256 20 4394 | tee $OUT/kb2-256.txt
echo "total $(( $(date +%s) - t0 )) s"
