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
# out; without any, nothing is printed. -v min_rows=R fits only the sizes
# of at least R rows (884736: 96^3 and up, leaving out the sizes whose
# vectors fit in L2, which lie below the line); the table of marginal
# times still lists every size, of every variant, fitted or not.
#
# A run's us_per_iter is its solve time over its iterations, so the
# solve's setup (r0, u0, w0, the first reduction read by the host, the
# final true residual) is spread over them. Where a size also has a
# -iterq run (bench-solver-roof.sh --marginal: the same at fewer
# iterations), its point is the marginal iteration instead, (K T - Kq Tq)
# / (K - Kq), which the setup does not reach (column marg: how many
# points are); then the marginal times and their ratios follow, per size.
#
#   awk -v triad=GB/s [-v at=ROWS] [-v min_rows=ROWS] -f scripts/roof-fit.awk summary.csv
BEGIN {
    FS = ","
    if (at == "") at = 2097152
    if (triad + 0 <= 0) { print "roof-fit.awk: -v triad=GB/s needed" > "/dev/stderr"; bad = 1; exit 2 }
}
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    nneed = split("run spmv kernels iterations rows us_per_iter bytes_per_iter", need, " ")
    for (k = 1; k <= nneed; k++)
        if (!(need[k] in col)) {
            print "roof-fit.awk: no column " need[k] " in " FILENAME > "/dev/stderr"
            bad = 1
            exit 2
        }
    next
}
$col["run"] ~ /-iterq?$/ && $col["rows"] > 0 && $col["us_per_iter"] > 0 && $col["iterations"] > 0 {
    g = $col["kernels"] "," $col["spmv"]
    r = $col["rows"] + 0
    q = $col["run"] ~ /q$/
    if (!((g, r) in seen)) {
        seen[g, r] = 1
        if (!(g in n)) order[++ng] = g
        x[g, ++n[g]] = r
    }
    kk[g, r, q] = $col["iterations"] + 0
    tt[g, r, q] = $col["us_per_iter"] + 0
    # the bytes of the -iter run's iterations (fewer ones count setup calls differently)
    if (!q) bb[g, r] = $col["bytes_per_iter"] / r
}
END {
    if (bad) exit 2
    for (o = 1; o <= ng; o++) {
        g = order[o]
        # the sizes in increasing order (the summary lists its logs by name)
        for (j = 2; j <= n[g]; j++)
            for (i = j; i > 1 && x[g, i - 1] > x[g, i]; i--) {
                r = x[g, i]; x[g, i] = x[g, i - 1]; x[g, i - 1] = r
            }
        m = 0
        sx = sy = sxx = sxy = sb = 0
        here = marg = 0
        for (j = 1; j <= n[g]; j++) {
            r = x[g, j]
            if (!((g, r, 0) in tt)) continue # an -iterq run alone
            t = tt[g, r, 0]
            if ((g, r, 1) in tt && kk[g, r, 1] < kk[g, r, 0]) {
                t = (kk[g, r, 0] * t - kk[g, r, 1] * tt[g, r, 1]) / (kk[g, r, 0] - kk[g, r, 1])
                mt[g, r] = t
                if (r < min_rows + 0) continue
                marg++
            }
            if (r < min_rows + 0) continue
            m++
            px[m] = r
            py[m] = t
            sx += r; sy += t; sxx += r * r; sxy += r * t; sb += bb[g, r]
            if (r == at) here = m
        }
        anymarg += marg
        if (m < 3) continue
        d = m * sxx - sx * sx
        if (d <= 0) continue
        p = (m * sxy - sx * sy) / d # us per row
        f = (sy - p * sx) / m
        bpr = sb / m
        dev = 0
        for (k = 1; k <= m; k++) {
            e = (f + p * px[k]) / py[k] - 1
            if (e < 0) e = -e
            if (e > dev) dev = e
        }
        # bytes per row over us per row: B/us, i.e. MB/s; in GB/s
        prop = p > 0 ? bpr / p / 1000 : 0
        allowed = "-"
        if (here) allowed = sprintf("%.1f", 1.15 * bb[g, at] * at / (triad * 1000) - p * at)
        split(g, gs, ",")
        if (!said++) {
            printf "# us/iter = fixed_us + rows x ns_per_row / 1000, least squares over each variant's -iter runs%s; triad %s GB/s\n", (min_rows + 0 > 0 ? " of at least " min_rows " rows" : ""), triad
            printf "%-10s %-9s %5s %4s %9s %10s %9s %8s %10s %11s %9s\n", "kernels", "spmv", "sizes", "marg", "fixed_us", "ns_per_row", "B_per_row", "prop/tr", "prop_ratio", "max_rel_dev", "fix@1.15"
        }
        printf "%-10s %-9s %5d %4d %9.2f %10.4f %9.1f %8.3f %10.3f %11.3f %9s\n", gs[1], gs[2], m, marg, f, p * 1000, bpr, prop / triad, (prop > 0 ? triad / prop : 0), dev, allowed
    }
    if (!anymarg) exit 0
    printf "# marginal iterations (the setup left out): us/iter, roofline us, ratio\n"
    printf "%-10s %-9s %10s %10s %10s %8s\n", "kernels", "spmv", "rows", "us/iter", "roof_us", "ratio"
    for (o = 1; o <= ng; o++) {
        g = order[o]
        split(g, gs, ",")
        for (j = 1; j <= n[g]; j++) {
            r = x[g, j]
            if (!((g, r) in mt)) continue
            roof = bb[g, r] * r / (triad * 1000)
            printf "%-10s %-9s %10d %10.2f %10.2f %8.3f\n", gs[1], gs[2], r, mt[g, r], roof, mt[g, r] / roof
        }
    }
}
