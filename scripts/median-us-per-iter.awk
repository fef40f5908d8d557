# The median of the us_per_iter column over every row of trilap-solve
# --results CSV files (each with its header), printed as it was written;
# nothing when there is no such column or row. Used by bench-op-timer.sh,
# bench-trace-overhead.sh (solver) and bench-cg.sh.
#
# Cells as csv.awk reads them (the matrix column is quoted):
#
#   awk -f scripts/csv.awk -f scripts/median-us-per-iter.awk RESULTS.csv...
FNR == 1 { c = 0; nh = csv_split($0, h); for (i = 1; i <= nh; i++) if (h[i] == "us_per_iter") c = i; next }
c { csv_split($0, f); v[++n] = f[c] }
END {
    if (!n) exit
    # insertion sort by value: a few dozen solves
    for (i = 2; i <= n; i++) {
        x = v[i]
        for (j = i - 1; j >= 1 && v[j] + 0 > x + 0; j--) v[j + 1] = v[j]
        v[j + 1] = x
    }
    print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2)
}
