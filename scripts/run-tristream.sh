#!/usr/bin/env bash
# The paper's Sec. II-C microbenchmark on N GPUs of one node: every variant,
# results CSV + manifest + console log under OUT (and a trace window with
# TRACE=1). Extra arguments go to trilap-bench tristream.
#
#   scripts/run-tristream.sh 2                       # thread launcher, 2 GPUs
#   LAUNCH=mpi scripts/run-tristream.sh 4 --iters 100000
#   OUT=results/tristream-h200x2 TRACE=1 scripts/run-tristream.sh 2   # + OUT/<variant>/trace.rank<R>.csv
set -euo pipefail
usage() { echo "usage: $0 NGPUS [trilap-bench tristream options...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
n=$1; shift
[[ $n =~ ^[1-9][0-9]*$ ]] || usage
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "$0: $bench not built (run make)" >&2; exit 1; }
out=${OUT:-$root/results/tristream-$(hostname -s)-${n}gpu-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
args=(tristream --results "$out/tristream.csv" "$@")
# traces as OUT/<variant>/trace.rank<R>.csv, the layout make demo and trilap-analyze read
if [ "${TRACE:-0}" = 1 ]; then args+=(--trace "$out"); fi
case ${LAUNCH:-threads} in
  threads) cmd=("$bench" "${args[@]}" --gpus "$n") ;;
  mpi) cmd=(${MPIRUN:-mpirun} -np "$n" ${MPIRUN_ARGS:-} "$bench" "${args[@]}") ;;
  srun) cmd=(srun -n "$n" ${SRUN_ARGS:-} "$bench" "${args[@]}") ;;
  *) echo "$0: LAUNCH must be threads, mpi or srun" >&2; exit 2 ;;
esac
echo "# ${cmd[*]}" | tee "$out/tristream.log"
"${cmd[@]}" 2> >(tee -a "$out/tristream.err" >&2) | tee -a "$out/tristream.log"
echo "# results in $out" >&2
