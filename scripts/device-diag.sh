#!/usr/bin/env bash
# Backtraces for two open problems (a hang and a crash); output under $1.
set -u
case ${1:-} in -*) echo "usage: $0 [DIR]   (DIR holds check-gpu.log of scripts/device-acceptance.sh; default /tmp/acc)" >&2; exit 2 ;; esac
d=${1:-/tmp/acc}; mkdir -p "$d"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if grep -q 'not ok.*mpi_watchdog' "$d/check-gpu.log" 2>/dev/null; then
  stdbuf -oL -eL mpirun -np 2 build/tests/helper_gpu_nccl --nccl-timeout 5 mismatch > "$d/mismatch.out" 2>&1 &
  mp=$!
  sleep 20
  for pid in $(pgrep -f 'helper_gpu_nccl --nccl-timeout'); do
    [ "$pid" = "$mp" ] && continue
    timeout 40 cuda-gdb -p "$pid" -batch -ex 'thread apply all bt 12' > "$d/mismatch-bt.$pid.txt" 2>&1
  done
  kill -9 $mp 2>/dev/null; pkill -9 -f helper_gpu_nccl
  tail -n 30 "$d/mismatch.out"; grep -h -E '^#|^Thread' "$d"/mismatch-bt.*.txt | grep -v -E 'poll|nanosleep|epoll|pthread_cond|futex' | head -n 60
fi
TRILAP_CUPTI_KINDS=kernel timeout 60 cuda-gdb -batch -ex run -ex bt -ex 'info threads' --args bin/trilap-bench tristream --gpus 2 \
  --variants three-split --trace-mode cupti --trace /tmp/kern --iters 300 --repeat 1 --warmup 10 > "$d/kernel-only.txt" 2>&1
grep -A25 'SIGSEGV' "$d/kernel-only.txt" | head -n 30
