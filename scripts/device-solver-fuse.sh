#!/usr/bin/env bash
# The one-GPU session behind results/solver-fuse-h200/: build, the
# GPU-vs-host solver comparison on the fused path (two test_gpu_solvers
# cases on generated matrices), then the Pipe-PCG / Pipe-BiCGStab rate and
# roofline benchmark with the fused iteration, the unfused one (--no-fuse)
# and the per-iteration register copy (--regs-copy) side by side. Every
# step is bounded; the whole stays under LIMIT seconds (default 230).
#
#   scripts/device-solver-fuse.sh OUTDIR [LIMIT]
#
# OUTDIR gets env.txt, build.log, tests.txt and bench/ (see
# scripts/bench-solvers-gpu.sh). Run from the repository root.
set -u
[ $# -ge 1 ] || { echo "usage: device-solver-fuse.sh OUTDIR [LIMIT]" >&2; exit 2; }
out=$1
limit=${2:-230}
case "$limit" in '' | *[!0-9]*) echo "device-solver-fuse.sh: invalid LIMIT '$limit'" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 1
export NCCL_NVLS_ENABLE=0 TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1
start=$SECONDS
left() { echo $((limit - (SECONDS - start))); }
{
    echo "commit: $(cat .trilap-commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    nvcc --version 2>&1 | tail -n 2
} >"$out/env.txt"
timeout 120 make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench build/tests/test_gpu_solvers \
    >"$out/build.log" 2>&1
rc=$?
echo "build: exit $rc after $((SECONDS - start)) s"
[ $rc -eq 0 ] || { tail -n 30 "$out/build.log"; exit 1; }
# the GPU side runs the fused kernels (the default), the host side the
# wrappers' fallback: iterations within 1, histories within 1e-8
TL_TEST_TIMEOUT=40 TL_TEST_FILTER='test_gpu_solvers:(all_methods_poisson7|bicgstab_family_convdiff)$' \
    timeout 50 tests/run.sh build/tests/test_gpu_solvers >"$out/tests.txt" 2>&1
echo "tests: exit $? after $((SECONDS - start)) s"
tail -n 4 "$out/tests.txt"
# the benchmark gets what is left, less 20 s for its summary
budget=$(($(left) - 35))
[ $budget -gt 20 ] || { echo "no time left for the benchmark"; exit 1; }
timeout $(($(left) - 5)) scripts/bench-solvers-gpu.sh --budget $budget \
    --cases p7-128,p7-256,cd-128,p27-128,p7-64,p7-320 --fuse-compare "$out/bench" \
    >"$out/bench.log" 2>&1
echo "bench: exit $? after $((SECONDS - start)) s"
cat "$out/bench/summary.txt" 2>/dev/null
