#!/usr/bin/env bash
# CG and PCG against Pipe-PCG on one GPU (issue 29 point 4): the same
# fixed-iteration solve of gen:poisson7:N with pipecg, cg and pcg on
# scalar programs (the default: (p, A p) in the product's pass), cg and pcg
# with the product then the dot kernel (--no-spmv-dot: -sepdot), and cg
# and pcg with their scalars on the host (--scalars host, the form
# before), alternated ROUNDS times (default
# 3) in one command; prints each one's median us per iteration (of every
# timed solve, REPEAT per run, default 3) and its ratio to pipecg's.
#
#   scripts/bench-cg.sh [SIZES [ITERATIONS]] [-- extra trilap-solve options]
#   scripts/bench-cg.sh "128 256" 1000        (the defaults)
# ROUNDS (3), REPEAT (3); SOLVE: the trilap-solve to run [bin/trilap-solve];
# OUT: the run's folder [a new one in the checkout,
# results/bench-cg-<host>-<date>, named by the last line]: the table in
# OUT/summary.txt, OUT/manifest.txt (command, variables, host, commit),
# every run's files in OUT/raw/ (trilap-solve's CSVs and manifest.txt, each
# run's output p7-N-SOLVER.ROUND.txt); one holding a CSV, raw/ or
# summary.txt is refused (the medians would take in its rows).
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
prog=bench-cg.sh
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/bench-args.sh"
bench_args "$prog" SIZES "128 256" 1000 "$@"
shift "$bench_args_shift"
sizes=$bench_arg iters=$bench_iters
for n in $sizes; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$prog: invalid size '$n' in SIZES: a positive integer (try --help)" >&2; exit 2; }
done
solve=${SOLVE:-$root/bin/trilap-solve}
[ -x "$solve" ] || { echo "$prog: $solve not built (run make)" >&2; exit 1; }
# a run that fails before a results CSV holds a row (no GPU) leaves no
# folder of logs behind
. "$root/scripts/bench-out.sh"
bench_out_name=$prog
bench_out_begin_results bench-cg
bench_out_fresh
bench_out_unused "$bench_out_dir" raw summary.txt
out=$bench_out_dir
bench_out_manifest "ROUNDS=$bench_rounds REPEAT=$bench_repeat SOLVE=$solve" "$sizes" "$bench_iters" ${1+-- "$@"}
raw=$out/raw
mkdir -p "$raw"
rounds=$bench_rounds
names=(pipecg cg cg-sepdot pcg pcg-sepdot cg-host pcg-host)
opts=("--solver pipecg" "--solver cg" "--solver cg --no-spmv-dot" "--solver pcg" "--solver pcg --no-spmv-dot"
  "--solver cg --scalars host" "--solver pcg --scalars host")
for n in $sizes; do
  for ((r = 1; r <= rounds; r++)); do
    for k in "${!names[@]}"; do
      # shellcheck disable=SC2086 # opts[k] is a list of words
      "$solve" --backend cuda ${opts[k]} --rtol 0 --atol 0 --max-iterations "$iters" --repeat "$bench_repeat" \
        --results "$raw/p7-$n-${names[k]}.csv" "$@" "gen:poisson7:$n" >"$raw/p7-$n-${names[k]}.$r.txt"
    done
  done
done
summary() {
  printf '# cg and pcg against pipecg, poisson7, %s iterations, %s rounds alternated, median us/iter (raw: %s)\n' \
    "$iters" "$rounds" "$raw"
  printf '%-6s %-10s %10s %8s\n' size solver us_iter ratio
  for n in $sizes; do
    declare -A t=()
    for k in "${!names[@]}"; do
      t[${names[k]}]=$(awk -f "$root/scripts/csv.awk" -f "$root/scripts/median-us-per-iter.awk" "$raw/p7-$n-${names[k]}.csv")
      [ -n "${t[${names[k]}]}" ] || { echo "$prog: no us_per_iter in $raw/p7-$n-${names[k]}.csv" >&2; exit 1; }
    done
    for k in "${!names[@]}"; do
      printf '%-6s %-10s %10.2f %8s\n' "$n" "${names[k]}" "${t[${names[k]}]}" \
        "$(awk -v a="${t[${names[k]}]}" -v b="${t[pipecg]}" 'BEGIN { printf "%.4f", a / b }')"
    done
  done
}
# the table kept beside the files it was made from (before, on stdout
# alone); a subshell, so that its exit leaves no half table
(summary) >"$out/summary.txt.tmp" || { rm -f "$out/summary.txt.tmp"; exit 1; }
mv -f "$out/summary.txt.tmp" "$out/summary.txt"
cat "$out/summary.txt"
