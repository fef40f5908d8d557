#!/usr/bin/env bash
# The three tristream size sweeps on N GPUs (ring payload, allreduce
# length, DAXPY vector), each into its own results CSV.
#
#   scripts/bench-size-sweeps.sh NGPUS [extra tristream options]
#   scripts/bench-size-sweeps.sh 2 --iters 2000 --repeat 3
# Sweeps: ring-bytes 8K:8M:4, allreduce-count 1:64K:8, daxpy-bytes 1M:1G:4.
# OUT [results/tristream-sizes-<host>-<N>gpu-<date>]; BENCH: the trilap-bench
# to run [bin/trilap-bench].
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
usage() { echo "usage: ${0##*/} NGPUS [trilap-bench tristream options...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
n=$1; shift
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: invalid NGPUS '$n': a positive integer (try --help)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "${0##*/}: $bench not built (run make)" >&2; exit 1; }
out=${OUT:-$root/results/tristream-sizes-$(hostname -s)-${n}gpu-$(date +%Y%m%d-%H%M%S)}
. "$root/scripts/bench-out.sh"
bench_out_begin "$out"
sweeps=("ring-bytes 8K:8M:4" "allreduce-count 1:64K:8" "daxpy-bytes 1M:1G:4")
for s in "${sweeps[@]}"; do
  read -r kind range <<<"$s"
  bench_out_log "$out/sweep-$kind.log"
  "$bench" tristream --gpus "$n" --sweep "$kind" --sweep-range "$range" \
    --results "$out/sweep-$kind.csv" "$@" | tee -a "$out/sweep-$kind.log"
done
echo "# results in $out" >&2
