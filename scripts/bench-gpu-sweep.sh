#!/usr/bin/env bash
# tristream at each GPU count: scripts/run-tristream.sh once per count, into
# OUT/<N>gpu/ (results CSV with the nranks column, log, manifest).
#
#   scripts/bench-gpu-sweep.sh "N1 N2 ..." [extra tristream options]
#   scripts/bench-gpu-sweep.sh "1 2 4 8" --iters 10000
#   LAUNCH=mpi scripts/bench-gpu-sweep.sh "2 4"
# OUT [results/tristream-gpusweep-<host>-<date>]; LAUNCH, BENCH, MPIRUN,
# MPIRUN_ARGS, SRUN_ARGS and TRACE as for scripts/run-tristream.sh, which
# each count runs.
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
usage() { echo "usage: ${0##*/} \"N1 N2 ...\" [trilap-bench tristream options...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
counts=$1; shift
[[ $counts == *[![:space:]]* ]] || usage
for n in $counts; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: invalid GPU count '$n' in '$counts': positive integers (try --help)" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results/tristream-gpusweep-$(hostname -s)-$(date +%Y%m%d-%H%M%S)}
. "$root/scripts/bench-out.sh"
bench_out_begin "$out"
for n in $counts; do
  OUT="$out/${n}gpu" "$root/scripts/run-tristream.sh" "$n" "$@"
done
echo "# results in $out/<N>gpu" >&2
