#!/usr/bin/env bash
# ptxas's register and spill report of stencil/fdtd_vec.cu for sm_90, on the
# host (no GPU), with exp-pyfold's early (948573e) or late (ae0b448) kernels:
#   git checkout 948573e   # or ae0b448
#   make build/version.h
nvcc -Ibuild -I. -D_GNU_SOURCE -I/usr/local/cuda/include -O2 -lineinfo -std=c++17 \
    -gencode arch=compute_90,code=sm_90 -Xptxas -v -c stencil/fdtd_vec.cu -o /tmp/v.o 2> ptxas.txt
# tl_fdtd_p_vec_zslab_kernel<float, 4, 4, 8, 32, true> (the y slabs too):
# early 64 registers, 8 bytes spilled; late 64 registers, none; the z-only
# builds (<..., false> and the velocity one) 64 registers, none, as on main
