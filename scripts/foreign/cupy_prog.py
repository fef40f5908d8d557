#!/usr/bin/env python3
"""A CuPy program trilap did not write: each iteration runs a cuBLAS GEMM
on one stream, a host-to-device copy, an ElementwiseKernel, an extern "C"
RawKernel and a reduction on a second, random numbers on the default
stream, and a cupy.cuda.nccl allreduce (one rank) when NCCL is there.

  python3 cupy_prog.py [--iters N] [--n SIZE]
prints one line: cupy_prog: iters=N loop_s=S us_per_iter=U
"""
import argparse
import sys
import time

import cupy as cp
import numpy as np

SCALE = cp.RawKernel(r'''
extern "C" __global__ void scale_add(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
''', "scale_add")

SQUARE_DIFF = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)",
                                   "squared_diff")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--n", type=int, default=2048)
    a = ap.parse_args()
    try:
        cp.cuda.runtime.getDeviceCount()
    except cp.cuda.runtime.CUDARuntimeError:
        print("SKIP: no GPU")
        return 77
    comm = None
    try:
        from cupy.cuda import nccl
        comm = nccl.NcclCommunicator(1, nccl.get_unique_id(), 0)
    except Exception as e:  # NCCL missing from this CuPy: run without the allreduce
        print("cupy_prog: no NCCL (%s)" % e, file=sys.stderr)
    n = a.n
    s_gemm = cp.cuda.Stream(non_blocking=True)
    s_copy = cp.cuda.Stream(non_blocking=True)
    x = cp.random.random((n, n), dtype=cp.float32)
    w = cp.random.random((n, n), dtype=cp.float32)
    host = np.random.random(1 << 22).astype(np.float32)
    host_p = cp.cuda.alloc_pinned_memory(host.nbytes)
    host_pinned = np.frombuffer(host_p, np.float32, host.size)
    host_pinned[:] = host
    buf = cp.empty(1 << 22, dtype=cp.float32)
    other = cp.ones(1 << 22, dtype=cp.float32)
    grad = cp.ones(1 << 20, dtype=cp.float32)
    m = 1 << 22

    def step():
        with s_gemm:
            y = x @ w
        with s_copy:
            buf.set(host_pinned, stream=s_copy)
            SCALE(((m + 255) // 256,), (256,), (buf, other, cp.float32(0.5), cp.int32(m)))
            d = SQUARE_DIFF(buf, other)
            t = d.sum()
        r = cp.random.standard_normal(1 << 20, dtype=cp.float32)
        if comm is not None:
            comm.allReduce(grad.data.ptr, grad.data.ptr, grad.size, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                           cp.cuda.Stream.null.ptr)
        cp.cuda.Device().synchronize()
        return y, t, r

    for _ in range(a.warmup):
        step()
    t0 = time.perf_counter()
    for _ in range(a.iters):
        step()
    dt = time.perf_counter() - t0
    print("cupy_prog: iters=%d loop_s=%.6f us_per_iter=%.2f cupy=%s nccl=%s" %
          (a.iters, dt, 1e6 * dt / a.iters, cp.__version__, "yes" if comm else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
