# A rank's trace cut to its first n iterations, relabelled as a run of
# `nranks` ranks:  awk -v n=50 -v nranks=1 -f trim.awk trace.csv trace.csv
BEGIN { FS = "," }
FNR == NR {
    if (!/^#/ && !h) { h = 1; next }
    if (h && $6 == "host" && $7 == "iter" && $12 == n && !cut) cut = $8
    next
}
/^#/ { meta[++nm] = $0; next }
!hh { hh = 1; header = $0; next }
!cut || $8 + 0 < cut + 0 { rows[++nr] = $0 }
END {
    for (i = 1; i <= nm; i++) {
        m = meta[i]
        if (m ~ /^# nranks=/) m = "# nranks=" nranks
        else if (m ~ /^# window_end_ns=/ && cut) m = "# window_end_ns=" cut
        else if (m ~ /^# records=/) m = "# records=" nr
        print m
    }
    print header
    for (i = 1; i <= nr; i++) print rows[i]
}
