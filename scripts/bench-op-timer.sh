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
# [bin/trilap-solve]; OUT: the raw results' folder [a new one under TMPDIR];
# one holding a CSV is refused (the medians would take in its rows).
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
bench_out_begin_temp optimer
bench_out_fresh
out=$bench_out_dir
rounds=$bench_rounds
names=(default every-call none none-sync)
opts=("" "--op-timer-every 1" "--no-op-timer" "--no-op-timer --schedule sync")
for ((r = 1; r <= rounds; r++)); do
  for s in "${solvers[@]}"; do
    for k in "${!names[@]}"; do
      # shellcheck disable=SC2086 # opts[k] is a list of words
      "$solve" --backend cuda --solver "$s" --rtol 0 --atol 0 --max-iterations "$iters" \
        --repeat "$bench_repeat" ${opts[k]} --results "$out/$s-${names[k]}.csv" "$@" "$matrix" \
        >"$out/$s-${names[k]}.$r.txt"
    done
  done
done
printf '# op timer and schedule against the fastest, %s, %s iterations, %s rounds alternated (raw: %s)\n' \
  "$matrix" "$iters" "$rounds" "$out"
printf '%-7s %-11s %10s %8s\n' solver config us_iter ratio
declare -A t
for s in "${solvers[@]}"; do
  t=()
  best=
  for n in "${names[@]}"; do
    # the median of every timed solve's us_per_iter
    t[$n]=$(awk -f "$root/scripts/csv.awk" -f "$root/scripts/median-us-per-iter.awk" "$out/$s-$n.csv")
    [ -n "${t[$n]}" ] || { echo "$prog: no us_per_iter in $out/$s-$n.csv" >&2; exit 1; }
    if [ -z "$best" ] || awk -v a="${t[$n]}" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=${t[$n]}; fi
  done
  for n in "${names[@]}"; do
    printf '%-7s %-11s %10.2f %8s\n' "$s" "$n" "${t[$n]}" \
      "$(awk -v a="${t[$n]}" -v b="$best" 'BEGIN { printf "%.4f", a / b }')"
  done
done
