#!/usr/bin/env bash
# The acceptance runs of the microbenchmark, probes and runtime issues on
# one lent 2-GPU machine, in one call: build, make check-gpu, then the
# benchmarks, each bounded so one stuck step cannot eat the others. Raw
# results land in results/<run>/ (commit them); logs in $DEV_OUT.
#   scripts/device-acceptance.sh [NGPUS] [BUDGET_SECONDS]     (defaults: 2, 560)
# DEV_OUT [device-out]; TL_TEST_TIMEOUT: check-gpu's limit a test [90];
# SKIP_KNOBS=1 leaves out bench-knobs.sh.

# not -e: each step is bounded and logged, and a failed one must not stop the others
set -uo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
n=${1:-2}
budget=${2:-560}
[ $# -le 2 ] || { echo "${0##*/}: invalid argument '$3': at most NGPUS and BUDGET_SECONDS (try --help)" >&2; exit 2; }
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: invalid NGPUS '$n': a positive integer (try --help)" >&2; exit 2; }
[[ $budget =~ ^[1-9][0-9]*$ ]] ||
  { echo "${0##*/}: invalid BUDGET_SECONDS '$budget': a positive integer (try --help)" >&2; exit 2; }
start=$(date +%s)
log=${DEV_OUT:-device-out}
# not -e: a DEV_OUT that is a file, or one it cannot write in, had every
# step run with its log lost (mkdir's line, then a dozen 'Not a directory')
mkdir -p -- "$log" 2>/dev/null && [ -d "$log" ] && [ -w "$log" ] ||
  { echo "${0##*/}: cannot write the logs into DEV_OUT $log: $([ -e "$log" ] && [ ! -d "$log" ] && echo "a file is there, not a folder" || echo "not a folder it can make or write in")" >&2; exit 1; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
left() { echo $((budget - ($(date +%s) - start))); }
step() { # step NAME SECONDS command...
  local name=$1 want=$2; shift 2
  if [ "$(left)" -lt "$want" ]; then echo "== $name: skipped ($(left)s left)"; return; fi
  local t0=$(date +%s)
  timeout -k 5 "$want" "$@" > "$log/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc in $(( $(date +%s) - t0 ))s"
}
{ nvidia-smi -L; nvidia-smi topo -m; nproc; } > "$log/machine.txt" 2>&1
step build 240 make -j"$(nproc)" all gpu-tests
grep -A11 'configuration:' "$log/build.log" | head -n 11
step check-gpu 200 make check-gpu TL_TEST_TIMEOUT=${TL_TEST_TIMEOUT:-90}
grep -E '^(not ok|[0-9]+ passed)' "$log/check-gpu.log"
cp -r build/test-logs "$log/test-logs" 2>/dev/null
R=results
step tristream 120 env OUT=$R/tristream-h200x$n TRACE=1 scripts/run-tristream.sh "$n"
grep -vE '^# opt:' "$log/tristream.log" | tail -n 12
step stream 60 bash -c "mkdir -p $R/stream-h200 && bin/trilap-bench stream --gpus 1 --results $R/stream-h200/stream.csv | tee $R/stream-h200/stream.log"
tail -n 7 "$log/stream.log"
step comm 90 bash -c "mkdir -p $R/comm-h200x$n && bin/trilap-bench comm --gpus $n -b 8 -e 128M -f 2 -w 5 -n 20 --results $R/comm-h200x$n/comm.csv | tee $R/comm-h200x$n/comm.log"
grep -vE '^# opt:' "$log/comm.log" | tail -n 40 | cut -c1-150
step overhead 90 env OUT=$R/trace-overhead-h200x$n scripts/bench-trace-overhead.sh "$n" three-split -- --iters 2000 --repeat 5
tail -n 5 "$log/overhead.log"
for kinds in kernel kernel,sync; do
  step overhead-$kinds 60 env TRILAP_CUPTI_KINDS=$kinds OUT=$R/trace-overhead-$kinds-h200x$n scripts/bench-trace-overhead.sh "$n" three-split -- --iters 2000 --repeat 5
  tail -n 1 "$log/overhead-$kinds.log"
done
step demo 90 make demo DEMO_OUT=$log/demo
tail -n 20 "$log/demo.log"
step tristream-maxconn32 60 env CUDA_DEVICE_MAX_CONNECTIONS=32 OUT=$R/tristream-maxconn32-h200x$n TRACE=1 scripts/run-tristream.sh "$n"
grep -vE '^# opt:' "$log/tristream-maxconn32.log" | tail -n 9
if [ "${SKIP_KNOBS:-0}" != 1 ]; then
  step knobs 150 env OUT=$R/tristream-knobs-h200x$n scripts/bench-knobs.sh "$n"
  cat "$log/knobs.log"
fi
echo "== total $(( $(date +%s) - start ))s"
