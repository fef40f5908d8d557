# The executed instructions of one kernel launch by opcode, from Nsight
# Compute's SASS source page (`ncu -i REP --page source --print-source
# sass --csv`, with the SourceCounters section collected): the total of
# warp instructions and, with -v warps=N (the launch's warps), per warp;
# then the `top` opcodes (default 25) by count, with their share. How
# session7 compared the CPML shell's velocity kernel with the plain one
# (results/wave3-checks-h200/session7/Y: 597 against 323 per warp).
#
#   zcat zbox-sass.csv.gz | awk -v warps=36000 -f scripts/ncu-sass-ops.awk
BEGIN { FS = "\",\""; if (top == "") top = 25 }
/^"Kernel Name"/ { kernel = $2; sub(/",?$/, "", kernel); next }
/^"Address"/ {
    for (k = 1; k <= NF; k++) {
        h = $k
        gsub(/"/, "", h)
        if (h == "Source") src = k
        else if (h == "Instructions Executed") exe = k
    }
    next
}
src && exe && /^"/ {
    n = $exe
    gsub(/[",]/, "", n)
    if (n !~ /^[0-9]+$/ || n == 0) next
    s = $src
    sub(/^ +/, "", s)
    sub(/^@!?U?P[T0-9]+ +/, "", s)
    split(s, w, " ")
    if (!(w[1] in count)) names[++nops] = w[1]
    count[w[1]] += n
    total += n
}
END {
    if (!total) {
        print "ncu-sass-ops.awk: no SASS rows with executed instructions (not an ncu --page source --print-source sass --csv file?)" > "/dev/stderr"
        exit 1
    }
    if (kernel != "") print "kernel: " kernel
    printf "warp instructions executed: %d", total
    if (warps > 0) printf " (%.1f per warp of %d)", total / warps, warps
    printf "\n%-22s %12s %7s", "opcode", "executed", "share"
    if (warps > 0) printf " %9s", "per_warp"
    printf "\n"
    for (r = 1; r <= top && r <= nops; r++) {
        best = 0
        for (k = 1; k <= nops; k++)
            if (!(names[k] in done) && (!best || count[names[k]] > count[names[best]])) best = k
        op = names[best]
        done[op] = 1
        printf "%-22s %12d %6.1f%%", op, count[op], 100 * count[op] / total
        if (warps > 0) printf " %9.2f", count[op] / warps
        printf "\n"
    }
}
