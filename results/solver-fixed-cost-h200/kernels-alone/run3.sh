#!/usr/bin/env bash
set -u
make -j16 CUDA_ARCH=90 build/obj/runtime/error.o >$OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
/usr/local/cuda/bin/nvcc -Ibuild -I. -D_GNU_SOURCE -O2 -lineinfo -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/kb .carry/cmd/kbench.cu build/obj/runtime/error.o -lcuda || exit 1
for g in 128 256; do echo "== $g"; KB_ONLY_FUSED=1 /tmp/kb $g 60 2>&1; done | tee $OUT/kb-fused.txt
