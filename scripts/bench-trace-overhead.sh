#!/usr/bin/env bash
# Tracing overhead on the three-stream microbenchmark: the same timed loop
# with the probes off, NVTX only, and NVTX + CUPTI (--trace-mode), printing
# the three per-iteration times (median us) and the ratios to "off".
#
#   scripts/bench-trace-overhead.sh [NGPUS [VARIANT]] [-- extra tristream options]
#   scripts/bench-trace-overhead.sh 2 three-split -- --iters 2000 --repeat 3
set -euo pipefail
n=2 variant=three-split
if [ $# -gt 0 ] && [ "$1" != "--" ]; then n=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then variant=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [NGPUS [VARIANT]] [-- tristream options...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "$0: $bench not built (run make)" >&2; exit 1; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/trilap-overhead-XXXXXX")}
mkdir -p "$out"
declare -A t
for mode in off nvtx cupti; do
  extra=()
  [ "$mode" != off ] && extra=(--trace "$out/trace-$mode")
  "$bench" tristream --gpus "$n" --variants "$variant" --trace-mode "$mode" ${extra[@]+"${extra[@]}"} \
    --iters "${ITERS:-2000}" --repeat "${REPEAT:-5}" --format csv \
    --results "$out/overhead.csv" "$@" >"$out/$mode.csv"
  t[$mode]=$(awk -F, -v v="$variant" '$1 == v { print $5 }' "$out/$mode.csv")
  [ -n "${t[$mode]}" ] || { echo "$0: no $variant row in $out/$mode.csv" >&2; exit 1; }
done
printf '# tracing overhead, %s on %s GPU(s), median us/iter (raw: %s)\n' "$variant" "$n" "$out"
printf '%-6s %10s %8s\n' mode us_iter ratio
for mode in off nvtx cupti; do
  printf '%-6s %10s %8s\n' "$mode" "${t[$mode]}" "$(awk -v a="${t[$mode]}" -v b="${t[off]}" 'BEGIN { printf "%.4f", a / b }')"
done
