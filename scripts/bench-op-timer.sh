#!/usr/bin/env bash
# What the per-operation event timer costs the loop it measures: the same
# fixed-iteration solve with trilap-solve's default timer (one call in 8
# of each operation timed), with every call timed (--op-timer-every 1)
# and with no timer (--no-op-timer), alternated ROUNDS times in one
# command; prints each configuration's median us per iteration (of the
# rounds' medians) and its ratio to the untimed run.
#
#   scripts/bench-op-timer.sh [MATRIX [ITERATIONS]] [-- extra trilap-solve options]
#   scripts/bench-op-timer.sh gen:poisson7:128 1000 -- --solver pipecg
set -euo pipefail
matrix=gen:poisson7:128 iters=1000
if [ $# -gt 0 ] && [ "$1" != "--" ]; then matrix=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then iters=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
[[ $iters =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [MATRIX [ITERATIONS]] [-- trilap-solve options...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
solve=${SOLVE:-$root/bin/trilap-solve}
[ -x "$solve" ] || { echo "$0: $solve not built (run make)" >&2; exit 1; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/trilap-optimer-XXXXXX")}
mkdir -p "$out"
rounds=${ROUNDS:-3}
names=(default every-call none)
opts=("" "--op-timer-every 1" "--no-op-timer")
for ((r = 1; r <= rounds; r++)); do
  for k in 0 1 2; do
    # shellcheck disable=SC2086 # opts[k] is a list of words
    "$solve" --backend cuda --solver pipecg --rtol 0 --atol 0 --max-iterations "$iters" \
      --repeat "${REPEAT:-3}" ${opts[k]} --results "$out/${names[k]}.csv" "$@" "$matrix" \
      >"$out/${names[k]}.$r.txt"
  done
done
declare -A t
for k in 0 1 2; do
  # the median of every timed solve's us_per_iter
  t[${names[k]}]=$(awk -F, -f "$root/scripts/median-us-per-iter.awk" "$out/${names[k]}.csv")
  [ -n "${t[${names[k]}]}" ] || { echo "$0: no us_per_iter in $out/${names[k]}.csv" >&2; exit 1; }
done
printf '# op timer cost, pipecg %s, %s iterations, %s rounds alternated (raw: %s)\n' "$matrix" "$iters" "$rounds" "$out"
printf '%-11s %10s %8s\n' timer us_iter ratio
for k in 0 1 2; do
  n=${names[k]}
  printf '%-11s %10.2f %8s\n' "$n" "${t[$n]}" "$(awk -v a="${t[$n]}" -v b="${t[none]}" 'BEGIN { printf "%.4f", a / b }')"
done
