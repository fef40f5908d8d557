#!/usr/bin/env bash
# Tracing overhead: the same timed loop with the probes off, NVTX only, and
# NVTX + CUPTI, printing the per-iteration times (median us) and the ratios
# to "off".
#
# The three-stream microbenchmark (--trace-mode off|nvtx|cupti):
#   scripts/bench-trace-overhead.sh [NGPUS [VARIANT]] [-- extra tristream options]
#   scripts/bench-trace-overhead.sh 2 three-split -- --iters 2000 --repeat 3
# (NGPUS [2], VARIANT [three-split])
# The solver (trilap-solve --backend cuda, Pipe-PCG, fixed iterations; no
# --trace / --trace DIR / --trace DIR --cupti), the three alternated ROUNDS
# times (default 3), each run REPEAT timed solves (default 3):
#   scripts/bench-trace-overhead.sh solver [MATRIX [ITERATIONS]] [-- extra trilap-solve options]
#   scripts/bench-trace-overhead.sh solver gen:poisson7:256 1000
# (MATRIX [gen:poisson7:128], ITERATIONS [1000])
# ITERS (2000) and REPEAT (5): the microbenchmark's loop; BENCH, SOLVE: the
# trilap-bench and trilap-solve to run [bin/]; OUT: the run's folder [a new
# one in the checkout, results/trace-overhead[-solver]-<host>-<date>, named
# by the last line], the table in OUT/summary.txt, the traces gzipped.
# The solver's: OUT/manifest.txt (command, variables, host, commit), every
# run's files in OUT/raw/ (trilap-solve's CSVs and manifest.txt, each run's
# output MODE.ROUND.txt, its trace-MODE-ROUND/); an OUT holding a CSV, raw/
# or summary.txt is refused (its medians would take in its rows). The
# microbenchmark's: OUT/MODE.csv (each mode's output), OUT/overhead.csv and
# the manifest.txt beside it (trilap-bench's), OUT/trace-MODE/; given again
# it appends to them, and to summary.txt.
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
ratio_table() { # TITLE, then the times by mode in t[]
  printf '%s\n' "$1"
  printf '%-6s %10s %8s\n' mode us_iter ratio
  for mode in off nvtx cupti; do
    printf '%-6s %10s %8s\n' "$mode" "${t[$mode]}" "$(awk -v a="${t[$mode]}" -v b="${t[off]}" 'BEGIN { printf "%.4f", a / b }')"
  done
}
declare -A t
if [ "${1:-}" = solver ]; then
  shift
  # the arguments as bench-cg.sh's and bench-op-timer.sh's (before, read
  # here again without their checks: 'solver --bogus' was the MATRIX)
  . "$root/scripts/bench-args.sh"
  bench_args "${0##*/}" MATRIX gen:poisson7:128 1000 "$@"
  shift "$bench_args_shift"
  matrix=$bench_arg iters=$bench_iters rounds=$bench_rounds
  solve=${SOLVE:-$root/bin/trilap-solve}
  [ -x "$solve" ] || { echo "${0##*/}: $solve not built (run make)" >&2; exit 1; }
  . "$root/scripts/bench-out.sh"
  bench_out_begin_results trace-overhead-solver
  bench_out_fresh
  bench_out_unused "$bench_out_dir" raw summary.txt
  out=$bench_out_dir
  bench_out_manifest "ROUNDS=$rounds REPEAT=$bench_repeat SOLVE=$solve" solver "$matrix" "$iters" ${1+-- "$@"}
  raw=$out/raw
  mkdir -p "$raw"
  for ((r = 1; r <= rounds; r++)); do
    for mode in off nvtx cupti; do
      extra=()
      [ "$mode" = nvtx ] && extra=(--trace "$raw/trace-nvtx-$r")
      [ "$mode" = cupti ] && extra=(--trace "$raw/trace-cupti-$r" --cupti)
      "$solve" --backend cuda --solver pipecg --rtol 0 --atol 0 --max-iterations "$iters" \
        --repeat "$bench_repeat" --results "$raw/$mode.csv" ${extra[@]+"${extra[@]}"} "$@" "$matrix" \
        >"$raw/$mode.$r.txt"
      bench_out_gzip "$raw/trace-$mode-$r"
    done
  done
  for mode in off nvtx cupti; do
    t[$mode]=$(awk -f "$root/scripts/csv.awk" -f "$root/scripts/median-us-per-iter.awk" "$raw/$mode.csv")
    [ -n "${t[$mode]}" ] || { echo "${0##*/}: no us_per_iter in $raw/$mode.csv" >&2; exit 1; }
  done
  # the method that ran, as the program names it (the extra options may set it)
  solver=$(awk -F': ' '$1 == "solver" { print $2; exit }' "$raw/off.1.txt")
  # the table kept beside the files it was made from (before, on stdout alone)
  ratio_table "$(printf '# tracing overhead, %s %s, %s iterations, %s rounds alternated, median us/iter (raw: %s)' \
    "$solver" "$matrix" "$iters" "$rounds" "$raw")" >"$out/summary.txt.tmp"
  mv -f "$out/summary.txt.tmp" "$out/summary.txt"
  cat "$out/summary.txt"
  exit 0
fi
n=2 variant=three-split
if [ $# -gt 0 ] && [ "$1" != "--" ]; then n=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then variant=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: invalid NGPUS '$n': a positive integer (try --help)" >&2; exit 2; }
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "${0##*/}: $bench not built (run make)" >&2; exit 1; }
. "$root/scripts/bench-out.sh"
bench_out_begin_results trace-overhead
out=$bench_out_dir
# OUT given again (REPRODUCE.md's results/trace-overhead-h200x2): each
# mode's output appended below a line naming this run, as overhead.csv
# gets its rows, and the table from this run's, the last (before, the
# modes' files overwritten while overhead.csv held both runs)
for mode in off nvtx cupti; do bench_out_log "$out/$mode.csv"; done
for mode in off nvtx cupti; do
  extra=()
  [ "$mode" != off ] && extra=(--trace "$out/trace-$mode")
  "$bench" tristream --gpus "$n" --variants "$variant" --trace-mode "$mode" ${extra[@]+"${extra[@]}"} \
    --iters "${ITERS:-2000}" --repeat "${REPEAT:-5}" --format csv \
    --results "$out/overhead.csv" "$@" >>"$out/$mode.csv"
  t[$mode]=$(awk -F, -v v="$variant" '/^# ==== another run/ { x = "" } $1 == v { x = $5 } END { print x }' "$out/$mode.csv")
  [ -n "${t[$mode]}" ] || { echo "${0##*/}: no $variant row in $out/$mode.csv" >&2; exit 1; }
  bench_out_gzip "$out/trace-$mode"
done
# the table kept beside the files it was made from (before, on stdout
# alone), below an earlier run's
bench_out_log "$out/summary.txt"
ratio_table "$(printf '# tracing overhead, %s on %s GPU(s), median us/iter (raw: %s)' "$variant" "$n" "$out")" |
  tee -a "$out/summary.txt"
