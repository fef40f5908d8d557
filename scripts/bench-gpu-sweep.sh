#!/usr/bin/env bash
# tristream at each GPU count: one results CSV for all counts (the nranks
# column tells them apart), one log per count.
#
#   scripts/bench-gpu-sweep.sh "1 2 4 8" --iters 10000
#   LAUNCH=mpi scripts/bench-gpu-sweep.sh "2 4"
set -euo pipefail
usage() { echo "usage: $0 \"N1 N2 ...\" [trilap-bench tristream options...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
counts=$1; shift
for n in $counts; do [[ $n =~ ^[1-9][0-9]*$ ]] || usage; done
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "$0: $bench not built (run make)" >&2; exit 1; }
out=${OUT:-$root/results/tristream-gpusweep-$(hostname -s)-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
for n in $counts; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: bad GPU count '$n'" >&2; exit 2; }
  args=(tristream --results "$out/tristream.csv" "$@")
  case ${LAUNCH:-threads} in
    threads) cmd=("$bench" "${args[@]}" --gpus "$n") ;;
    mpi) cmd=(${MPIRUN:-mpirun} -np "$n" ${MPIRUN_ARGS:-} "$bench" "${args[@]}") ;;
    srun) cmd=(srun -n "$n" ${SRUN_ARGS:-} "$bench" "${args[@]}") ;;
    *) echo "$0: LAUNCH must be threads, mpi or srun" >&2; exit 2 ;;
  esac
  echo "# ${cmd[*]}" | tee "$out/tristream-${n}gpu.log"
  "${cmd[@]}" | tee -a "$out/tristream-${n}gpu.log"
done
echo "# results in $out" >&2
