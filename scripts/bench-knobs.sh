#!/usr/bin/env bash
# What restores triple overlap: tristream (all variants) under each knob in
# turn, one results CSV for all (the knob columns tell them apart), and a
# summary line per configuration (per configuration and point of a sweep
# given after --): three-split against the ideal bound and two-stream, and
# three-naive.
#
#   scripts/bench-knobs.sh [NGPUS] [-- extra tristream options]   (default 2 GPUs)
#   ITERS=3000 REPEAT=3 (defaults) set the length of each configuration.
#   OUT [results/tristream-knobs-<host>-<N>gpu-<date>]; BENCH: the trilap-bench
#   to run [bin/trilap-bench].
# The hardware queues are a knob here: every configuration runs with CUDA's
# default (8; --hw-queues 0, CUDA_DEVICE_MAX_CONNECTIONS unset) unless it
# sets CUDA_DEVICE_MAX_CONNECTIONS itself, as results/tristream-knobs-h200x2
# was measured (before the program's own default became 32 queues).
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
n=2
if [ $# -gt 0 ] && [ "$1" != "--" ]; then n=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/bench-args.sh"
prog=${0##*/} # bench_args_count's name for its line
bench_args_count NGPUS "$n"
# before: ITERS=x went to trilap-bench, refused there after OUT was made
iters=${ITERS:-3000} repeat=${REPEAT:-3}
bench_args_count ITERS "$iters"
bench_args_count REPEAT "$repeat"
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "${0##*/}: $bench not built (run make)" >&2; exit 1; }
out=${OUT:-$root/results/tristream-knobs-$(hostname -s)-${n}gpu-$(date +%Y%m%d-%H%M%S)}
. "$root/scripts/bench-out.sh"
bench_out_begin "$out"
# name | environment | options
configs=(
  "base||"
  "prio-off||--priorities off"
  "daxpy-blocks-132||--daxpy-blocks 132"
  "daxpy-blocks-264||--daxpy-blocks 264"
  "daxpy-blocks-528||--daxpy-blocks 528"
  "split-maxctas-2||--split-max-ctas 2"
  "split-maxctas-1||--split-max-ctas 1"
  "launch-group|NCCL_LAUNCH_MODE=GROUP|"
  "max-connections-32|CUDA_DEVICE_MAX_CONNECTIONS=32|"
  "max-conn-32+prio-off|CUDA_DEVICE_MAX_CONNECTIONS=32|--priorities off"
  "max-conn-32+blocks-528|CUDA_DEVICE_MAX_CONNECTIONS=32|--daxpy-blocks 528"
  "max-conn-32+group|CUDA_DEVICE_MAX_CONNECTIONS=32 NCCL_LAUNCH_MODE=GROUP|"
  "max-conn-32+maxctas-2|CUDA_DEVICE_MAX_CONNECTIONS=32|--split-max-ctas 2"
)
# each configuration's output beside knobs.csv, appended as knobs.csv is
# (the table reads the last run's rows of it)
for c in "${configs[@]}"; do bench_out_log "$out/${c%%|*}.csv"; done
printf '%-20s %10s %10s %10s %8s %8s %12s\n' config split_us bound_us split/bnd eff_pct speedup naive_us
for c in "${configs[@]}"; do
  IFS='|' read -r name envs opts <<<"$c"
  # shellcheck disable=SC2086
  env -u CUDA_DEVICE_MAX_CONNECTIONS $envs "$bench" tristream --gpus "$n" --iters "$iters" \
    --repeat "$repeat" --hw-queues 0 --format csv --results "$out/knobs.csv" $opts "$@" \
    >>"$out/$name.csv" 2>"$out/$name.err.new" ||
    { cat "$out/$name.err.new" >&2; cat "$out/$name.err.new" >>"$out/$name.err"; rm -f "$out/$name.err.new"; exit 1; }
  # appended as its CSV is: an OUT given again keeps the earlier run's lines
  cat "$out/$name.err.new" >>"$out/$name.err"
  rm -f "$out/$name.err.new"
  # a figure the run did not give (--variants without the parts, two-stream
  # or three-naive) is '-', as in the program's table (before: split/bnd
  # 0.000 where there was no bound); an OUT given again holds the earlier
  # runs' rows above bench_out_log's line: the figures start again there
  # (before, a run without three-naive showed an earlier run's time).
  # A point a line: a sweep (-- --sweep ring-bytes ...) gives each point's
  # rows, told apart by their sizes, and each line names the size the
  # points differ in, base@ring_bytes=8000 (before, the last point alone,
  # under the configuration's bare name)
  awk -F, -v name="$name" '
    function shown(v) { return v == "" ? "-" : v }
    /^# ==== another run/ { split("", seen); split("", s); split("", b); split("", e); split("", x); split("", nv); np = 0; next }
    /^#/ || $1 == "variant" { next }
    { k = $2 "," $3 "," $4; if (!(k in seen)) { seen[k] = 1; key[++np] = k } }
    $1 == "three-split" { s[k] = $5; b[k] = $9; e[k] = $10; x[k] = $8 }
    $1 == "three-naive" { nv[k] = $5 }
    END {
      if (np == 0) key[++np] = ""
      nc = split("allreduce_bytes,ring_bytes,daxpy_bytes", col, ",")
      split(key[1], first, ",")
      for (i = 2; i <= np; i++) {
        split(key[i], f, ",")
        for (c = 1; c <= nc; c++) if (f[c] != first[c]) varies[c] = 1
      }
      for (i = 1; i <= np; i++) {
        k = key[i]; label = name; sep = "@"
        split(k, f, ",")
        for (c = 1; c <= nc; c++) if (varies[c]) { label = label sep col[c] "=" f[c]; sep = "," }
        r = s[k] > 0 && b[k] > 0 ? sprintf("%.3f", s[k] / b[k]) : "-"
        printf "%-20s %10s %10s %10s %8s %8s %12s\n", label, shown(s[k]), shown(b[k]), r, shown(e[k]), shown(x[k]), shown(nv[k])
      }
    }
  ' "$out/$name.csv"
done
echo "# raw results in $out" >&2
