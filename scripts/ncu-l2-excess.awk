# Where a kernel launch asks the L2 for more sectors than its bytes need,
# instruction by instruction, from Nsight Compute's SASS source page
# (`ncu --section SourceCounters --page source --print-source sass --csv`):
# a line per global load or store whose L2 theoretical sectors exceed the
# ideal (its offset from the kernel's first instruction, as cuobjdump
# numbers it, warp instructions executed, sectors, ideal, excess, excess
# as a share of the ideal, the instruction), then the launch's totals of
# global loads, global stores and local (spill) traffic. With -v per=N
# (the launch's point slots, say) each total also in bytes per N. A warp
# row of 16-byte vectors starting 16 bytes into a sector touches 5
# sectors for 4 (25 %): how session11 found the CPML memory variables'
# rows off their sectors (results/wave3-checks-h200/session11/C).
#
#   zcat source-zlo-v.csv.gz | awk -v per=4610000 -f scripts/ncu-l2-excess.awk
function num(s) { gsub(/[",]/, "", s); return s + 0 }
function hex(s,    v, k, c) {
    v = 0
    s = tolower(s)
    sub(/^0x/, "", s)
    for (k = 1; k <= length(s); k++) { c = index("0123456789abcdef", substr(s, k, 1)); if (!c) return -1; v = v * 16 + c - 1 }
    return v
}
function total(name, sect, ideal,    e) {
    if (!sect && !ideal) return
    e = sect - ideal
    printf "%-14s sectors %d, ideal %d, excess %d (%.1f %%)", name, sect, ideal, e, ideal ? 100 * e / ideal : 0
    if (per > 0) printf "; %.2f B against %.2f per item", 32 * sect / per, 32 * ideal / per
    printf "\n"
}
BEGIN { FS = "\",\"" }
/^"Kernel Name"/ { kernel = $2; sub(/",?$/, "", kernel); next }
/^"Address"/ {
    for (k = 1; k <= NF; k++) {
        h = $k
        gsub(/"/, "", h)
        col[h] = k
    }
    src = col["Source"]; exe = col["Instructions Executed"]
    sect = col["L2 Theoretical Sectors Global"]; ideal = col["L2 Theoretical Sectors Global Ideal"]
    local = col["L2 Theoretical Sectors Local"]
    next
}
src && sect && ideal && /^"0x/ {
    a = $1
    gsub(/"/, "", a)
    if (base == "") base = hex(a)
    s = $src
    sub(/^ +/, "", s)
    sub(/^@!?U?P[T0-9]+ +/, "", s)
    split(s, w, " ")
    op = w[1]
    if (local) loc += num($local)
    g = num($sect); i = num($ideal)
    if (!g && !i) next
    if (op ~ /^STG/) { st += g; sti += i } else if (op ~ /^LDG/) { ld += g; ldi += i } else { other += g; otheri += i }
    rows++
    if (g > i)
        line[++shown] = sprintf("%8s %10d %10d %10d %10d %7.1f  %s", sprintf("0x%04x", hex(a) - base), num($exe), g, i,
                                g - i, i ? 100 * (g - i) / i : 0, s)
}
END {
    if (!rows) {
        print "ncu-l2-excess.awk: no SASS rows with L2 sectors (not an ncu --section SourceCounters --page source --print-source sass --csv file?)" > "/dev/stderr"
        exit 1
    }
    if (kernel != "") print "kernel: " kernel
    if (!shown) print "no global load or store asks for more sectors than its bytes"
    else printf "%8s %10s %10s %10s %10s %7s  %s\n", "offset", "executed", "sectors", "ideal", "excess", "excess%", "instruction"
    for (k = 1; k <= shown; k++) print line[k]
    total("global loads", ld, ldi)
    total("global stores", st, sti)
    total("other global", other, otheri)
    if (loc) {
        printf "%-14s sectors %d (spill loads and stores)", "local", loc
        if (per > 0) printf "; %.2f B per item", 32 * loc / per
        printf "\n"
    }
}
