#!/usr/bin/env bash
# What CPML costs several builds of the FDTD kernels, side by side in one
# command (issue 29 point 1): scripts/bench-cpml.sh on each build's binaries,
# in rounds, the builds alternated within each round so that a drift of the
# GPU's clocks or temperature falls on all of them alike; then per build and
# size the mean of the rounds' rates and of their ratios.
#
#   scripts/bench-cpml-trees.sh OUT NAME=BINDIR [NAME=BINDIR ...] [--rounds 3] [--sizes "480 1024"]
#   scripts/bench-cpml-trees.sh r/cmp base=.carry/base/bin new=bin --rounds 3
#
# BINDIR holds a build's trilap-fdtd and trilap-bench; NAME is lower case,
# digits, '.', '_' or '-'. Each run is `bench-cpml.sh OUT/NAME-rR --sizes
# SIZES --reps 1` (BENCH_CPML names another script with its interface).
# Writes OUT/NAME-rR/ (bench-cpml.sh's folder: cpml.csv, table.txt, ...) and
# OUT/summary.txt, printed on stdout (a line a run on stderr says which
# round and build is running): per build and size the rounds that ran, the
# mean rates without and with CPML (Mpoints/s), the mean ratio, the
# least and greatest round's ratio, and both mean rates over the first
# build's at that size (x1st).
# Exit status: 2 for a bad argument (before anything runs), 1 when a run
# failed (its round is left out of the means), 0 otherwise.
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

prog=bench-cpml-trees.sh
out="" rounds=3 sizes="480 1024"
names=() dirs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds=${2:-}; shift 2 || { echo "$prog: --rounds needs a count" >&2; exit 2; } ;;
        --sizes) sizes=${2:-}; shift 2 || { echo "$prog: --sizes needs a list" >&2; exit 2; } ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "$prog: invalid argument '$1' (try --help)" >&2; exit 2 ;;
        *=*)
            n=${1%%=*} d=${1#*=}
            [[ $n =~ ^[a-z0-9][a-z0-9._-]*$ ]] || { echo "$prog: invalid build name '$n' in '$1'" >&2; exit 2; }
            for m in "${names[@]}"; do [[ $m != "$n" ]] || { echo "$prog: build '$n' named twice" >&2; exit 2; }; done
            [[ -x $d/trilap-fdtd ]] || { echo "$prog: $n: no trilap-fdtd in '$d'" >&2; exit 2; }
            names+=("$n") dirs+=("$d")
            shift ;;
        *) [[ -z $out ]] || { echo "$prog: one output folder only ('$1')" >&2; exit 2; }; out=$1; shift ;;
    esac
done
[[ -n $out ]] || { echo "$prog: no output folder (try --help)" >&2; exit 2; }
[[ ${#names[@]} -gt 0 ]] || { echo "$prog: no build to run (NAME=BINDIR)" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "$prog: invalid --rounds '$rounds'" >&2; exit 2; }
for n in $sizes; do [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$prog: invalid size '$n' in --sizes" >&2; exit 2; }; done
[[ -n ${sizes// /} ]] || { echo "$prog: empty --sizes" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH_CPML:-$here/bench-cpml.sh}

mkdir -p "$out"
failed=0
for ((r = 1; r <= rounds; r++)); do
    for k in "${!names[@]}"; do
        run=$out/${names[k]}-r$r
        rm -rf "$run"
        echo "$prog: round $r of $rounds, ${names[k]} (sizes $sizes)" >&2
        if ! TL_BIN=${dirs[k]} "$bench" "$run" --sizes "$sizes" --reps 1 > /dev/null 2>&1; then
            echo "$prog: ${names[k]} round $r failed (see $run/bench.log)" >&2
            failed=1
        fi
    done
done

# cpml.csv: n,rep,steps,none_mpoints_s,cpml_mpoints_s,ratio,...; a round
# counts where both rates are there. Per build and size: rounds, mean
# rates, mean ratio, least and greatest ratio (0 rounds: the build alone)
# summary.txt under a temporary name, renamed once whole (parts.sh); the
# means in a scratch file beside it, removed however the script ends
. "$here/parts.sh"
stats=$out/.stats.$$
trap 'parts_drop; rm -f -- "$stats"' EXIT
: > "$stats"
for k in "${!names[@]}"; do
    for n in $sizes; do
        for ((r = 1; r <= rounds; r++)); do
            f=$out/${names[k]}-r$r/cpml.csv
            if [[ -f $f ]]; then awk -F, -v n="$n" 'NR > 1 && $1 == n && $4 > 0 && $5 > 0 { print $4, $5 }' "$f"; fi
        done | awk -v b="${names[k]}" -v n="$n" '
            { none += $1; cp += $2; q = $2 / $1; s += q; if (k == 0 || q < lo) lo = q; if (k == 0 || q > hi) hi = q; k++ }
            END {
                if (k == 0) print b, n, 0
                else printf "%s %s %d %.6f %.6f %.6f %.6f %.6f\n", b, n, k, none / k, cp / k, s / k, lo, hi
            }' >> "$stats"
    done
done
# The rates against the first build's at the same size: a build can lower
# the ratio by speeding the run without CPML more than the run with it
# (session14's read-only loads: 1.016 and 1.006 against main, the ratio
# 0.857 against 0.865), so the ratio alone does not say which is faster.
parts_stage tmp "$out/summary.txt"
{
    printf '# CPML against none, %s round(s) alternated over the builds; Mpoints/s and ratios are means of the rounds; x1st: the rate over the first build'"'"'s (%s)\n' "$rounds" "${names[0]}"
    printf '%-12s %5s %6s %12s %12s %7s %13s %9s %9s\n' build n rounds "none Mpt/s" "CPML Mpt/s" ratio "min-max" "none x1st" "CPML x1st"
    awk -v first="${names[0]}" '
        NR == FNR { if ($1 == first && $3 > 0) { fn[$2] = $4; fc[$2] = $5 } next }
        $3 == 0 { printf "%-12s %5s %6d %12s %12s %7s %13s %9s %9s\n", $1, $2, 0, "-", "-", "-", "-", "-", "-"; next }
        {
            printf "%-12s %5s %6d %12.0f %12.0f %7.4f %6.4f-%.4f", $1, $2, $3, $4, $5, $6, $7, $8
            if ($2 in fn) printf " %9.4f %9.4f\n", $4 / fn[$2], $5 / fc[$2]
            else printf " %9s %9s\n", "-", "-"
        }' "$stats" "$stats"
} > "$tmp"
parts_commit
cat "$out/summary.txt"
exit "$failed"
