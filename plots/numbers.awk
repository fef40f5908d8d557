# The cells a plot draws as numbers, checked before it draws (input.gp runs
# this after scripts/csv.awk): `every` names the columns that must hold a
# number in every row, `any` those of which one cell at least must (bars.gp:
# a configuration without one variant is NaN there, a file of NaN only is
# not a figure). Prints the first problem, nothing when there is none. A
# NaN or an empty cell drew nothing, a 0-byte figure ("No valid points in
# histogram", comm.gp's "all points y value undefined") or, in
# model-scaling.gp, a bar short of its group with no word.
function is_number(s) {
    return s ~ /^[ \t]*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?[ \t]*$/
}
function index_of(names, idx,    k, n, w) {
    n = split(names, w, " ")
    for (k = 1; k <= n; k++) {
        if (!(w[k] in col)) continue
        idx[w[k]] = col[w[k]]
    }
}
/^#/ || NF == 0 { next }
{ sub(/\r$/, ""); n = csv_split($0, f) }
!head { head = 1; for (k = 1; k <= n; k++) col[f[k]] = k; index_of(every, ev); index_of(any, an); next }
{
    for (c in ev) {
        if (!is_number(f[ev[c]])) {
            printf "line %d: column %s is '%s', not a number\n", FNR, c, f[ev[c]]
            bad = 1; exit
        }
    }
    for (c in an) if (is_number(f[an[c]])) found = 1
}
END {
    if (!bad && any != "" && !found) printf "no number in column(s) %s in any row\n", any
}
