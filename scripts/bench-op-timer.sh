#!/usr/bin/env bash
# Whether the default solver run is as fast as the fastest (issue 29
# point 2): per method, the same fixed-iteration solve with trilap-solve's
# defaults (the op timer on, one call in 32 of each operation timed; the
# three-split schedule), with every call timed (--op-timer-every 1), with
# no timer (--no-op-timer) and with no timer on one stream (--no-op-timer
# --schedule sync), alternated ROUNDS times in one command; prints each
# configuration's median us per iteration (of every timed solve) and its
# ratio to the fastest of them.
#
#   [SOLVERS="pipecg cg pcg"] scripts/bench-op-timer.sh [MATRIX [ITERATIONS]] [-- extra trilap-solve options]
#   SOLVERS="pipecg cg pcg" scripts/bench-op-timer.sh gen:poisson7:128 2000
# SOLVERS [pipecg], MATRIX [gen:poisson7:128], ITERATIONS [1000].
# ROUNDS (3), REPEAT (3): timed solves a run; SOLVE: the trilap-solve to run
# [bin/trilap-solve]; OUT: the run's folder [a new one in the checkout,
# results/bench-op-timer-<host>-<date>, named by the last line]: the table
# in OUT/summary.txt, OUT/manifest.txt (command, variables, host, commit),
# every run's files in OUT/raw/ (trilap-solve's CSVs and manifest.txt, each
# run's output SOLVER-CONFIG.ROUND.txt); one holding a CSV, raw/ or
# summary.txt is refused (the medians would take in its rows).
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
prog=bench-op-timer.sh
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/bench-args.sh"
bench_args "$prog" MATRIX gen:poisson7:128 1000 "$@"
shift "$bench_args_shift"
matrix=$bench_arg iters=$bench_iters
read -r -a solvers <<<"${SOLVERS:-pipecg}"
for s in "${solvers[@]}"; do
  [[ $s =~ ^(cg|pcg|pipecg)$ ]] || { echo "$prog: SOLVERS: '$s' is not cg, pcg or pipecg" >&2; exit 2; }
done
solve=${SOLVE:-$root/bin/trilap-solve}
[ -x "$solve" ] || { echo "$prog: $solve not built (run make)" >&2; exit 1; }
# a run that fails before a results CSV holds a row (no GPU, an option
# trilap-solve refuses) leaves no folder of logs behind
. "$root/scripts/bench-out.sh"
bench_out_name=$prog
bench_out_begin_results bench-op-timer
bench_out_fresh
bench_out_unused "$bench_out_dir" raw summary.txt
out=$bench_out_dir
bench_out_manifest "SOLVERS=${solvers[*]} ROUNDS=$bench_rounds REPEAT=$bench_repeat SOLVE=$solve" "$matrix" "$bench_iters" ${1+-- "$@"}
raw=$out/raw
mkdir -p "$raw"
rounds=$bench_rounds
names=(default every-call none none-sync)
opts=("" "--op-timer-every 1" "--no-op-timer" "--no-op-timer --schedule sync")
for ((r = 1; r <= rounds; r++)); do
  for s in "${solvers[@]}"; do
    for k in "${!names[@]}"; do
      # shellcheck disable=SC2086 # opts[k] is a list of words
      "$solve" --backend cuda --solver "$s" --rtol 0 --atol 0 --max-iterations "$iters" \
        --repeat "$bench_repeat" ${opts[k]} --results "$raw/$s-${names[k]}.csv" "$@" "$matrix" \
        >"$raw/$s-${names[k]}.$r.txt"
    done
  done
done
summary() {
  printf '# op timer and schedule against the fastest, %s, %s iterations, %s rounds alternated (raw: %s)\n' \
    "$matrix" "$iters" "$rounds" "$raw"
  printf '%-7s %-11s %10s %8s\n' solver config us_iter ratio
  declare -A t
  for s in "${solvers[@]}"; do
    t=()
    best=
    for n in "${names[@]}"; do
      # the median of every timed solve's us_per_iter
      t[$n]=$(awk -f "$root/scripts/csv.awk" -f "$root/scripts/median-us-per-iter.awk" "$raw/$s-$n.csv")
      [ -n "${t[$n]}" ] || { echo "$prog: no us_per_iter in $raw/$s-$n.csv" >&2; exit 1; }
      if [ -z "$best" ] || awk -v a="${t[$n]}" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=${t[$n]}; fi
    done
    for n in "${names[@]}"; do
      printf '%-7s %-11s %10.2f %8s\n' "$s" "$n" "${t[$n]}" \
        "$(awk -v a="${t[$n]}" -v b="$best" 'BEGIN { printf "%.4f", a / b }')"
    done
  done
}
# the table kept beside the files it was made from (before, on stdout
# alone); a subshell, so that its exit leaves no half table
(summary) >"$out/summary.txt.tmp" || { rm -f "$out/summary.txt.tmp"; exit 1; }
mv -f "$out/summary.txt.tmp" "$out/summary.txt"
cat "$out/summary.txt"
