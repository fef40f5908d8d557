# The fixed and the proportional part of an iteration: over the -iter runs
# of each variant (kernels, spmv) in bench-solver-roof.sh's summary.csv, a
# least-squares line us_per_iter = fixed_us + rows x ns_per_row / 1000.
# fixed_us is what every iteration costs whatever its size (launches,
# each kernel's ramp and drain, the dots' final reduction); ns_per_row
# against the variant's bytes per row gives the bandwidth its kernels
# reach once the size hides the fixed part (prop/tr: that over triad);
# prop_ratio is the ratio to the roofline the fixed part leaves (the
# limit of the variant's ratio at large sizes), and fix@1.15 the fixed_us
# a ratio of 1.15 would allow at `at` rows (default 2097152, 128^3; "-"
# without a run of that size). A variant with fewer than 3 sizes is left
# out; without any, nothing is printed.
#
#   awk -v triad=GB/s [-v at=ROWS] -f scripts/roof-fit.awk summary.csv
BEGIN {
    FS = ","
    if (at == "") at = 2097152
    if (triad + 0 <= 0) { print "roof-fit.awk: -v triad=GB/s needed" > "/dev/stderr"; bad = 1; exit 2 }
}
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    nneed = split("run spmv kernels rows us_per_iter bytes_per_iter", need, " ")
    for (k = 1; k <= nneed; k++)
        if (!(need[k] in col)) {
            print "roof-fit.awk: no column " need[k] " in " FILENAME > "/dev/stderr"
            bad = 1
            exit 2
        }
    next
}
$col["run"] ~ /-iter$/ && $col["rows"] > 0 && $col["us_per_iter"] > 0 {
    g = $col["kernels"] "," $col["spmv"]
    if (!(g in n)) order[++ng] = g
    k = ++n[g]
    x[g, k] = $col["rows"] + 0
    y[g, k] = $col["us_per_iter"] + 0
    b[g, k] = $col["bytes_per_iter"] / $col["rows"]
}
END {
    if (bad) exit 2
    for (o = 1; o <= ng; o++) {
        g = order[o]
        m = n[g]
        if (m < 3) continue
        sx = sy = sxx = sxy = sb = 0
        here = 0
        for (k = 1; k <= m; k++) {
            sx += x[g, k]; sy += y[g, k]; sxx += x[g, k] * x[g, k]; sxy += x[g, k] * y[g, k]; sb += b[g, k]
            if (x[g, k] == at) here = k
        }
        d = m * sxx - sx * sx
        if (d <= 0) continue
        p = (m * sxy - sx * sy) / d # us per row
        f = (sy - p * sx) / m
        bpr = sb / m
        dev = 0
        for (k = 1; k <= m; k++) {
            e = (f + p * x[g, k]) / y[g, k] - 1
            if (e < 0) e = -e
            if (e > dev) dev = e
        }
        # bytes per row over us per row: B/us, i.e. MB/s; in GB/s
        prop = p > 0 ? bpr / p / 1000 : 0
        allowed = "-"
        if (here) allowed = sprintf("%.1f", 1.15 * b[g, here] * at / (triad * 1000) - p * at)
        split(g, gs, ",")
        if (!said++) {
            printf "# us/iter = fixed_us + rows x ns_per_row / 1000, least squares over each variant's -iter runs; triad %s GB/s\n", triad
            printf "%-10s %-9s %5s %9s %10s %9s %8s %10s %11s %9s\n", "kernels", "spmv", "sizes", "fixed_us", "ns_per_row", "B_per_row", "prop/tr", "prop_ratio", "max_rel_dev", "fix@1.15"
        }
        printf "%-10s %-9s %5d %9.2f %10.4f %9.1f %8.3f %10.3f %11.3f %9s\n", gs[1], gs[2], m, f, p * 1000, bpr, prop / triad, (prop > 0 ? triad / prop : 0), dev, allowed
    }
}
