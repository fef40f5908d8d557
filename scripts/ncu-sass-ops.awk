# The executed instructions of one kernel launch by opcode, from Nsight
# Compute's SASS source page (`ncu -i REP --page source --print-source
# sass --csv`, with the SourceCounters section collected): the total of
# warp instructions and, with -v warps=N (the launch's warps), per warp;
# then the `top` opcodes (default 25) by count, with their share. How
# session7 compared the CPML shell's velocity kernel with the plain one
# (results/wave3-checks-h200/session7/Y: 597 against 323 per warp).
# With -v stalls=N, also where the warps waited: the warp-state samples
# (Warp Stall Sampling, All Samples) by reason (the stall_* columns), each
# reason's share, and the N instructions with the most samples, by their
# row among the executed ones (results/wave3-checks-h200/session14/C: the
# shell's warps 67.7 % of their samples on a long scoreboard, the plain
# kernel's 85.5 %).
#
#   zcat zbox-sass.csv.gz | awk -v warps=36000 -f scripts/ncu-sass-ops.awk
#   zcat vshell-zlo-sass.csv.gz | awk -v top=5 -v stalls=8 -f scripts/ncu-sass-ops.awk
# a quoted ncu number as a number
function num(s) { gsub(/[",]/, "", s); return s + 0 }
BEGIN { FS = "\",\""; if (top == "") top = 25 }
/^"Kernel Name"/ { kernel = $2; sub(/",?$/, "", kernel); next }
/^"Address"/ {
    for (k = 1; k <= NF; k++) {
        h = $k
        gsub(/"/, "", h)
        if (h == "Source") src = k
        else if (h == "Instructions Executed") exe = k
        else if (h == "Warp Stall Sampling (All Samples)") samp = k
        else if (h ~ /^stall_/ && h !~ /Not Issued/) { reason[k] = substr(h, 7); nreason++ }
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
    if (stalls > 0 && samp) {
        row++
        at_row[row] = num($samp)
        text[row] = s
        samples += at_row[row]
        for (k in reason) by_reason[reason[k]] += num($k)
    }
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
    if (stalls > 0) {
        if (!samples) {
            print "ncu-sass-ops.awk: no warp stall samples (collect the SourceCounters section)" > "/dev/stderr"
            exit 1
        }
        printf "stall samples: %d\n%-22s %12s %7s\n", samples, "reason", "samples", "share"
        for (r = 1; r <= nreason; r++) {
            best = ""
            for (k in by_reason)
                if (!(k in shown) && (best == "" || by_reason[k] > by_reason[best])) best = k
            if (best == "" || !by_reason[best]) break
            shown[best] = 1
            printf "%-22s %12d %6.1f%%\n", best, by_reason[best], 100 * by_reason[best] / samples
        }
        printf "%-6s %9s %7s  %s\n", "row", "samples", "share", "instruction"
        for (r = 1; r <= stalls && r <= row; r++) {
            best = 0
            for (k = 1; k <= row; k++)
                if (!(k in hot) && (!best || at_row[k] > at_row[best])) best = k
            hot[best] = 1
            printf "%-6d %9d %6.1f%%  %s\n", best, at_row[best], 100 * at_row[best] / samples, text[best]
        }
    }
}
