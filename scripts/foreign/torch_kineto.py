#!/usr/bin/env python3
"""One PyTorch training-like step, run under torch.profiler (Kineto) or
plain (for trilap's injection library), so the two traces of the same steps
can be compared (issue 27, point 5; scripts/foreign/device-kineto.sh).

Each step: on stream A two GEMMs (float32, bfloat16) and a ReLU; on stream B
a pinned host-to-device copy, a device-to-device copy and elementwise
kernels, started after an event of stream A; then, on the default stream
after both, an all-reduce (SUM) and an all-reduce (AVG) over a one-rank NCCL
process group; the step ends with torch.cuda.synchronize().

  python3 torch_kineto.py --profile OUT.json [--steps N]   torch.profiler, active for N steps
  python3 torch_kineto.py --window OUT.json [--steps N]    plain; writes the CLOCK_MONOTONIC
                                                           window of the same N steps
Both run WARMUP (5) untraced steps and 2 profiler-warm-up steps first, so
the N compared steps are the same in both runs. Prints one line
`torch_kineto: mode=... steps=N us_per_step=U torch=V`; exit 77 without a GPU.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist

WARMUP = 5
PROFILER_WARMUP = 2


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--profile", metavar="OUT.json", help="torch.profiler trace of the steps (export_chrome_trace)")
    g.add_argument("--window", metavar="OUT.json", help="plain run; the monotonic window of the steps")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--n", type=int, default=2048, help="GEMM size")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no GPU")
        return 77
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=dev)
    n = a.n
    s_a, s_b = torch.cuda.Stream(), torch.cuda.Stream()
    x, w = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
    xb, wb = x.bfloat16(), w.bfloat16()
    host = torch.randn(1 << 22, pin_memory=True)
    buf, buf2 = torch.empty(1 << 22, device=dev), torch.empty(1 << 22, device=dev)
    grad, avg = torch.ones(1 << 22, device=dev), torch.ones(1 << 20, device=dev)
    torch.cuda.synchronize()

    def step():
        with torch.cuda.stream(s_a):
            y = torch.mm(x, w)
            yb = torch.mm(xb, wb)
            y.relu_()
            a_done = torch.cuda.Event()
            a_done.record(s_a)
        with torch.cuda.stream(s_b):
            buf.copy_(host, non_blocking=True)
            s_b.wait_event(a_done)
            buf2.copy_(buf)
            buf2.mul_(0.5).add_(1.0)
        torch.cuda.current_stream().wait_stream(s_a)
        torch.cuda.current_stream().wait_stream(s_b)
        dist.all_reduce(grad)
        dist.all_reduce(avg, op=dist.ReduceOp.AVG)
        torch.cuda.synchronize()
        return y, yb

    for _ in range(WARMUP):
        step()
    t0 = time.perf_counter()
    if a.profile:
        from torch.profiler import ProfilerActivity, profile, schedule

        def ready(p):
            p.export_chrome_trace(a.profile)

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     schedule=schedule(wait=0, warmup=PROFILER_WARMUP, active=a.steps),
                     on_trace_ready=ready, record_shapes=True) as prof:
            for _ in range(PROFILER_WARMUP + a.steps):
                step()
                prof.step()
        mode = "profile"
    else:
        for _ in range(PROFILER_WARMUP):
            step()
        torch.cuda.synchronize()
        m0 = time.monotonic_ns()
        for _ in range(a.steps):
            step()
        torch.cuda.synchronize()
        m1 = time.monotonic_ns()
        with open(a.window + ".tmp", "w") as f:
            json.dump({"start_ns": m0, "end_ns": m1, "steps": a.steps, "clock": "CLOCK_MONOTONIC"}, f)
        os.replace(a.window + ".tmp", a.window)
        mode = "window"
    dt = time.perf_counter() - t0
    print("torch_kineto: mode=%s steps=%d us_per_step=%.2f torch=%s nccl=%s" %
          (mode, a.steps, 1e6 * dt / (a.steps + PROFILER_WARMUP), torch.__version__,
           ".".join(map(str, torch.cuda.nccl.version()))))
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
