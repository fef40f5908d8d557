#!/usr/bin/env bash
# One bounded device session for stencil/ on a lent H200 (limits add up to 285 s;
# about 110 s on H200):
#   scripts/device-fdtd.sh OUT
# builds trilap-fdtd, trilap-bench and the GPU test, runs the GPU tests,
# scripts/bench-fdtd.sh, the verification tables on the GPU, and packs
# everything into OUT/fdtd-h200.tgz (folder fdtd-h200/).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: scripts/device-fdtd.sh OUT" >&2; exit 2; }
out=$1
r=$out/fdtd-h200
mkdir -p "$r"
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
step() { local lim=$1 log=$2; shift 2; echo "\$ $* (limit ${lim}s)" >> "$r/$log"; timeout "$lim" "$@" >> "$r/$log" 2>&1 || echo "exit $? (limit ${lim}s)" >> "$r/$log"; }
t0=$(date +%s)
git_commit=$(cat .trilap-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
{ echo "commit: $git_commit"; echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"; nvidia-smi -L || true; } > "$r/manifest.txt"
step 60 build.log make -j16 CUDA_ARCH=90 WERROR=0 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd
echo "build: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
step 80 gpu-tests.log env TL_BIN=bin TL_TEST_TIMEOUT=75 tests/run.sh build/tests/test_gpu_fdtd
echo "gpu tests: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
step 120 bench-driver.log scripts/bench-fdtd.sh "$r/bench"
scripts/bench-fdtd.sh --summary "$r/bench" >> "$r/bench-driver.log" 2>&1 || true
echo "bench: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
step 10 verify-convergence-gpu.csv bin/trilap-fdtd verify convergence --backend cuda --sizes 8,16,32
step 15 verify-decomp-gpu.csv bin/trilap-fdtd verify decomp --backend cuda --n 64 --steps 12 --decomps slab-z,block-xy,pencil-yz --ss 1,2
echo "total: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
tar czf "$out/fdtd-h200.tgz" -C "$out" fdtd-h200
