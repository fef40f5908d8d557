# The untraced median of each run as a last column, timed_us, of a
# `trilap-analyze breakdown --stack-csv` file: the first file is
# `trilap-analyze compare RESULTS.csv --csv` (columns variant, nranks,
# A_median_us, ...), the second the stack CSV, whose first two columns are
# the variant and the GPU count; NaN where the compare file has no row for
# a run (gnuplot draws no marker there). Comment lines pass through. The
# breakdown figure's second marker (plots/breakdown.gp, timed=1); used by
# demo.sh and render-plots.sh. Neither file has a quoted cell.
#
#   awk -F, -f scripts/timed-column.awk COMPARE.csv STACK.csv > STACK-WITH-TIMED.csv
FNR == NR {
    if (/^#/) next
    if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    t[$c["variant"] "," $c["nranks"]] = $c["A_median_us"]
    next
}
/^#/ { print; next }
!hh { print $0 ",timed_us"; hh = 1; next }
{ k = $1 "," $2; print $0 "," ((k in t) ? t[k] : "NaN") }
