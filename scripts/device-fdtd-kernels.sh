#!/usr/bin/env bash
# The FDTD kernel session of issue 12 on one GPU, every step bounded in time:
#   scripts/device-fdtd-kernels.sh DEST
# build (bin/trilap-fdtd, bin/trilap-bench, the GPU test), tests/gpu/test_gpu_fdtd
# (every kernel against the CPU, decomposed = single domain), then
# scripts/bench-fdtd-kernels.sh DEST/bench (triad, every kernel at 480^3 with and
# without CPML, double, breakdowns, 640^3). DEST/manifest.txt: commit,
# date, GPU, and each step's exit status and end time. About 110 s on one H200 at
# 01e56df (results/fdtd-kernels-h200); more since the -pf kernels (build and tests).
set -uo pipefail

dest=${1:?usage: scripts/device-fdtd-kernels.sh DEST}
mkdir -p "$dest"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export NCCL_NVLS_ENABLE=0
man=$dest/manifest.txt
t0=$(date +%s)
{
    echo "commit: $(cat .trilap-commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -n 4
} > "$man"
step() { # step LIMIT_S LOG COMMAND...
    local lim=$1 log=$2; shift 2
    timeout "$lim" "$@" > "$dest/$log" 2>&1
    local rc=$?
    echo "[$(( $(date +%s) - t0 )) s] exit $rc: $* (limit ${lim}s)" >> "$man"
}
step 110 build.log make -j16 CUDA_ARCH=90 WERROR=0 TRILAP_COMMIT="$(cat .trilap-commit 2>/dev/null || echo unknown)" \
    bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd
step 50 gpu-tests.log env TL_TEST_TIMEOUT=45 tests/run.sh build/tests/test_gpu_fdtd
step 75 bench-driver.log scripts/bench-fdtd-kernels.sh "$dest/bench" --sizes "480 640" --steps 200
tail -n 1 "$dest/gpu-tests.log" >> "$man"
echo "[$(( $(date +%s) - t0 )) s] session done" >> "$man"
