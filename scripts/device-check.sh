#!/usr/bin/env bash
# One call on a lent GPU machine: build, GPU tests, and a short benchmark
# smoke run; everything written under $DEV_OUT (or ./device-out).
#   scripts/device-check.sh [NGPUS]
set -uo pipefail
n=${1:-$(nvidia-smi -L 2>/dev/null | wc -l)}
out=${DEV_OUT:-device-out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nvidia-smi -L; nvidia-smi topo -m; nproc; } > "$out/machine.txt" 2>&1
if ! make -j"$(nproc)" CUDA_ARCH=90 all gpu-tests > "$out/build.log" 2>&1; then
  tail -n 60 "$out/build.log"; exit 1
fi
grep -A12 'configuration:' "$out/build.log" | head -n 12
TL_BIN=bin TL_BUILD=build TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_TEST_TIMEOUT=${TL_TEST_TIMEOUT:-180} \
  tests/run.sh build/tests/test_gpu_* > "$out/gpu-tests.log" 2>&1
grep -E '^(not ok|ok|[0-9]+ passed)' "$out/gpu-tests.log" | grep -v '^ok' ; tail -n 1 "$out/gpu-tests.log"
mkdir -p "$out/logs" && cp build/test-logs/*.log "$out/logs/" 2>/dev/null
