# run-solver-schedules.sh's summary of its results CSV (trilap-solve
# --results rows): per matrix, method, rank count and preconditioner, the
# median, least and greatest solver time of each schedule over its timed
# solves, and the speedup median(two-stream) / median(schedule); a row
# whose solve stopped before want iterations is marked WRONG, and the exit
# status is then 3. Cells by csv.awk (the matrix column is quoted, and a
# comma in its name moved every column after it). mawk: no asort.
#
#   awk -v want=ITERS -v order="SCHEDULES" -f scripts/csv.awk -f scripts/solver-schedules-summary.awk RESULTS.csv
function sortn(a, k,   i, j, t) { for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
NR == 1 { nh = csv_split($0, h); for (i = 1; i <= nh; i++) c[h[i]] = i; next }
{
    csv_split($0, f)
    g = f[c["matrix"]] SUBSEP f[c["solver"]] SUBSEP f[c["nranks"]] SUBSEP f[c["precond"]]
    if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
    k = g SUBSEP f[c["schedule"]]
    cnt[k]++; t[k, cnt[k]] = f[c["solver_time_s"]] + 0
    if (f[c["iterations"]] + 0 != want) bad[k] = "stopped at " f[c["iterations"]] " (" f[c["reason"]] ")"
}
END {
    ns = split(order, sch, " "); rows = 0; wrong = 0
    for (gi = 1; gi <= ng; gi++) {
        split(groups[gi], p, SUBSEP)
        printf "# %s, %s (%s), %s ranks, %d iterations\n", p[1], p[2], p[4], p[3], want
        printf "%-12s %8s %12s %12s %12s %10s\n", "schedule", "solves", "median", "min", "max", "speedup"
        printf "%-12s %8s %12s %12s %12s %10s\n", "", "", "s", "s", "s", "vs 2-str"
        for (si = 1; si <= ns; si++) {
            k = groups[gi] SUBSEP sch[si]
            m = cnt[k]; if (m == 0) continue
            for (i = 1; i <= m; i++) v[i] = t[k, i]
            sortn(v, m)
            med[si] = m % 2 ? v[(m + 1) / 2] : 0.5 * (v[m / 2] + v[m / 2 + 1])
            lo[si] = v[1]; hi[si] = v[m]
            if (sch[si] == "two-stream") base = med[si]
        }
        for (si = 1; si <= ns; si++) {
            k = groups[gi] SUBSEP sch[si]
            if (cnt[k] == 0) continue
            sp = base > 0 ? sprintf("%.3f", base / med[si]) : "-"
            printf "%-12s %8d %12.4e %12.4e %12.4e %10s%s\n", sch[si], cnt[k], med[si], lo[si], hi[si], sp, \
                   (k in bad) ? "  WRONG: " bad[k] : ""
            rows++; if (k in bad) wrong++
        }
        base = 0
        print ""
    }
    printf "# %d rows, %d wrong\n", rows, wrong
    exit (wrong > 0 ? 3 : 0)
}
