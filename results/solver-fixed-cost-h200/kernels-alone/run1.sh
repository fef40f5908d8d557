#!/usr/bin/env bash
set -u
export NCCL_NVLS_ENABLE=0
make -j16 CUDA_ARCH=90 build/obj/runtime/error.o >$OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
/usr/local/cuda/bin/nvcc -Ibuild -I. -D_GNU_SOURCE -O2 -lineinfo -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/kb .carry/cmd/kbench.cu build/obj/runtime/error.o -lcuda || exit 1
/tmp/kb 128 60 2>&1 | tee $OUT/kb128.txt
/tmp/kb 256 20 2>&1 | tee $OUT/kb256.txt
