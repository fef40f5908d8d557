#!/usr/bin/env bash
# One bounded device session for stencil/'s per-rank CUDA path (strategy
# devcomm) on a lent H200 (limits add up to 285 s):
#   scripts/device-fdtd-ranks.sh OUT
# builds trilap-fdtd and tests/gpu/test_gpu_fdtd_ranks, runs those GPU tests
# (4 thread ranks and 4 MPI ranks sharing the GPU over --device-comm host,
# bit for bit the single domain; NCCL between ranks where there are 2 GPUs),
# then one pencil-yz 320^3 row per path on the one GPU (4 ranks host-staged,
# and one process with the host and peer strategies: the cost of the
# staging, nothing about multi-GPU speed), and packs everything into
# OUT/fdtd-ranks-h200.tgz (folder fdtd-ranks-h200/).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: scripts/device-fdtd-ranks.sh OUT" >&2; exit 2; }
out=$1
r=$out/fdtd-ranks-h200
mkdir -p "$r"
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
step() { local lim=$1 log=$2; shift 2; echo "\$ $* (limit ${lim}s)" >> "$r/$log"; timeout "$lim" "$@" >> "$r/$log" 2>&1 || echo "exit $? (limit ${lim}s)" >> "$r/$log"; }
t0=$(date +%s)
git_commit=$(cat .trilap-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
{ echo "commit: $git_commit"; echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"; nvidia-smi -L || true; } > "$r/manifest.txt"
step 90 build.log make -j16 CUDA_ARCH=90 WERROR=0 bin/trilap-fdtd build/tests/test_gpu_fdtd_ranks
echo "build: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
step 150 gpu-tests.log env TL_BIN=bin TL_HAVE_MPI=1 TL_MPIRUN="$(command -v mpirun || true)" TL_TEST_TIMEOUT=60 \
  tests/run.sh build/tests/test_gpu_fdtd_ranks
echo "gpu tests: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
bench="--backend cuda --grid 320 --cpml 20 --decomp pencil-yz --steps 50 --warmup 5 --results $r/pencil.csv"
step 15 bench.log bin/trilap-fdtd run $bench --label ranks4-host --launcher threads --ranks 4 --device-comm host
step 10 bench.log bin/trilap-fdtd run $bench --label process-host --strategy host
step 10 bench.log bin/trilap-fdtd run $bench --label process-peer --strategy peer
echo "total: $(( $(date +%s) - t0 )) s" >> "$r/manifest.txt"
tar czf "$out/fdtd-ranks-h200.tgz" -C "$out" fdtd-ranks-h200
