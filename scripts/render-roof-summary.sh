#!/usr/bin/env bash
# The summary of a bench-solver-roof.sh directory, from its logs: every
# block of OUTDIR/logs/p7-*.txt as a row of summary.csv (solver-log.awk),
# the same as a table in summary.txt, and roof-fit.awk's fit after it.
# bench-solver-roof.sh ends with it; run it again to rebuild a summary
# (the triad from OUTDIR/stream.csv when not given).
#
#   scripts/render-roof-summary.sh OUTDIR [TRIAD_GBS]
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# an option is no OUTDIR (it said "--bogus/logs: no such directory")
case ${1:-} in -?*) echo "render-roof-summary.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;; esac
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: render-roof-summary.sh OUTDIR [TRIAD_GBS]" >&2; exit 2; }
out=$1
here=$(dirname "$0")
[ -d "$out/logs" ] || { echo "render-roof-summary.sh: $out/logs: no such directory" >&2; exit 2; }
triad=${2:-$(awk -F, -f "$here/triad.awk" "$out/stream.csv" 2>/dev/null | head -n1 || true)}
case "$triad" in
'' | *[!0-9.]*) echo "render-roof-summary.sh: no triad (give it, or $out/stream.csv)" >&2; exit 2 ;;
esac
# the kernels a run measured, from its name (p7-N-VARIANT-iter|iterq|ops)
variant() { local r=${1#p7-*-}; echo "${r%-*}"; }
# per block of output: rates (event timer), bytes per iteration, iteration
# time, roofline (bytes over triad) and fractions of triad
cols=run,spmv,fused,kernels,op_timer,iterations,us_per_iter,rows,bytes_per_iter,roofline_us,roofline_ratio,spmv_frac_triad,update_frac_triad,dot_frac_triad,precond_frac_triad,loop_frac_triad
# both written under temporary names, renamed once both are whole: a
# failure (a log awk cannot read, a full disk) is one line, exit 1, the
# earlier summary as it was (before: summary.csv.tmp or summary.txt.tmp
# left beside it, exit 2 without a word)
. "$here/parts.sh"
trap parts_drop EXIT
parts_stage csv "$out/summary.csv"
parts_stage txt "$out/summary.txt"
cannot() { echo "render-roof-summary.sh: cannot write $out/$1 ($2); the summary left as it was" >&2; exit 1; }
{
    echo "$cols"
    for f in "$out"/logs/p7-*.txt; do
        [ -f "$f" ] || continue
        awk -v triad="$triad" -v run="$(basename "$f" .txt)" -v kernels="$(variant "$(basename "$f" .txt)")" \
            -v cols="$cols" -f "$here/csv.awk" -f "$here/solver-log.awk" "$f" || cannot summary.csv "reading $f"
    done
} >"$csv" || cannot summary.csv "writing it"
{
    echo "# triad: $triad GB/s (trilap-bench stream, same command)"
    echo "# -iter: no event timer (iteration time); -iterq: the same at a quarter of the iterations; -ops: event timer (per-kernel rates, launch gaps included); roofline = bytes of all kernels of one iteration / triad"
    printf '%-28s %-9s %5s %-8s %6s %10s %9s %8s %7s %7s %7s %7s %7s\n' run spmv fused kernels iters us/iter roof_us ratio spmv/tr upd/tr dot/tr pre/tr loop/tr
    awk -F, 'NR > 1 { printf "%-28s %-9s %5s %-8s %6d %10.2f %9.2f %8.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n", $1, $2, $3, $4, $6, $7, $10, $11, $12, $13, $14, $15, $16 }' "$csv" ||
        cannot summary.txt "its table"
    # three sizes or more: the fixed and the proportional part of each variant's iteration
    awk -v triad="$triad" -f "$here/roof-fit.awk" "$csv" | sed '1s/^/\n/' || cannot summary.txt "roof-fit.awk"
} >"$txt" || cannot summary.txt "writing it"
parts_commit
