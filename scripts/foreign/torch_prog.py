#!/usr/bin/env python3
"""A PyTorch program trilap did not write, for tracing it by injection or
with Nsight Systems: each iteration runs GEMMs (float32, bfloat16) on one
stream, a host-to-device copy plus elementwise kernels, a reduction and a
softmax on a second stream, random numbers on the default stream, and
torch.distributed NCCL allreduces (SUM in place, AVG, which on one rank
NCCL runs as its one-rank reduce kernel). World size 1 by default
(MASTER_ADDR/PORT from the environment, else 127.0.0.1:29512).

  python3 torch_prog.py [--iters N] [--n SIZE] [--nvtx]
prints one line: torch_prog: iters=N loop_s=S us_per_iter=U
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--n", type=int, default=2048, help="GEMM size")
    ap.add_argument("--nvtx", action="store_true", help="mark iterations with torch.cuda.nvtx ranges")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no GPU")
        return 77
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    n = a.n
    s_gemm = torch.cuda.Stream()
    s_copy = torch.cuda.Stream()
    x = torch.randn(n, n, device=dev)
    w = torch.randn(n, n, device=dev)
    xb, wb = x.bfloat16(), w.bfloat16()
    host = torch.randn(1 << 22, pin_memory=True)
    buf = torch.empty(1 << 22, device=dev)
    grad = torch.ones(1 << 22, device=dev)
    avg = torch.ones(1 << 20, device=dev)
    logits = torch.randn(4096, 1024, device=dev)

    def step(i):
        if a.nvtx:
            torch.cuda.nvtx.range_push("step %d" % i)
        with torch.cuda.stream(s_gemm):
            y = torch.mm(x, w)
            yb = torch.mm(xb, wb)
            y.relu_()
        with torch.cuda.stream(s_copy):
            buf.copy_(host, non_blocking=True)
            buf.mul_(0.5).add_(1.0)
            total = buf.sum()
            p = torch.softmax(logits, dim=1)
        r = torch.randn(1 << 20, device=dev)
        dist.all_reduce(grad)
        dist.all_reduce(avg, op=dist.ReduceOp.AVG)
        torch.cuda.synchronize()
        if a.nvtx:
            torch.cuda.nvtx.range_pop()
        return y, yb, total, p, r

    for i in range(a.warmup):
        step(i)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(a.iters):
        step(i)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print("torch_prog: iters=%d loop_s=%.6f us_per_iter=%.2f torch=%s" %
          (a.iters, dt, 1e6 * dt / a.iters, torch.__version__))
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
