# One line per kernel launch of an `ncu --csv --page raw` file of the
# FDTD vector kernels: the update (v or p), plain or CPML build, grid,
# time, and each counter the file holds per point slot (bytes: sectors
# times 32), each .avg percentage as it is. A point slot is one of the
# W points of a thread's quad (-v width, 4 by default): the launch's
# threads times W, so a box's idle edge lanes count (at 480^3 the shell's
# y boxes have 24 row slots for 20 or 21 rows, the interior 448 for 439).
# What session8's analysis of the CPML shell's traffic read
# (results/wave3-checks-h200/session8/C). A last line sums the launches'
# time and, where the file has the L2 fabric's share of its peak, the
# time the fabric was busy (share times time): the fabric-bound time of
# the step, whose ratio between two runs is what the slower one could
# reach if every launch kept the fabric as busy as the other's.
# Where the file has lts__t_sectors_srcunit_ltcfabric.sum, the last line
# also sums the bytes that crossed the fabric between the two L2
# partitions: the fabric's busy time follows them (66-70 fabric cycles
# per kB in every launch of session11/A), so their ratio between two runs
# is the ratio of the work the fabric-bound step must do.
# Where the file has them, two last columns give a launch's rates alone:
# dram_GB/s, DRAM bytes read and written over its time, and fabric_GB/s,
# the bytes that crossed the fabric over its time. Launches of one step
# compared by them show which moves its bytes slower than the interior
# (session15: alone, the velocity shell's six launches at 75-83 % of the
# velocity interior's DRAM rate, the pressure shell's one launch at 95 %,
# where its six had been at 79-91 %, session11/E).
#
#   zcat sectors-cpml20.csv.gz | awk -f scripts/ncu-raw-per-point.awk
function num(s) { gsub(/[",]/, "", s); return s + 0 }
# The launch's update and build from its kernel's name, the same two
# functions as in ncu-launches.awk (tests/test_bench_scripts.c's
# ncu_readers_name_launches_alike holds the two readers to one answer).
# v or p by the name (tl_fdtd_v_..., tl_fdtd_p_...), ? for neither, or a
# kernel of another name
function update_of(name) {
    if (name ~ /tl_fdtd_v_[a-z_]*kernel</) return "v"
    if (name ~ /tl_fdtd_p_[a-z_]*kernel</) return "p"
    return "?"
}
# cpml for a kernel named for its CPML build (session5's
# tl_fdtd_v_vec_cpml_kernel, whose last argument was a box kind), else by
# the template's last argument, the CPML flag of every FDTD vector kernel
# on main (so a branch's kernel of a new name is read right where it
# keeps that flag last), spelled as ncu's pages spell it (1, true,
# (bool)1); ? where the name has no flag. zslab: the interior's z-slab
# build (tl_fdtd_[vp]_vec_zslab_kernel, the plain build and the z slabs'
# memory variable), which takes no flag
function build_of(name) {
    if (name ~ /tl_fdtd_[vp]_[a-z_]*zslab_kernel</) return "zslab"
    if (name ~ /tl_fdtd_[vp]_[a-z_]*cpml_kernel</) return "cpml"
    if (name ~ /, (\(bool\))?(1|true)>\(/) return "cpml"
    if (name ~ /, (\(bool\))?(0|false)>\(/) return "plain"
    return "?"
}
# field i of a split row in bytes, by its unit
function bytes_of(f, i) { return num(f[i]) * scale[unit[i]] }
BEGIN {
    FS = "\",\""
    if (!width) width = 4
    # ncu's units to ns and to bytes
    n_pairs = split("ns 1 us 1e3 ms 1e6 byte 1 Kbyte 1e3 Mbyte 1e6 Gbyte 1e9 sector 32", pairs, " ")
    for (k = 1; k < n_pairs; k += 2) scale[pairs[k]] = pairs[k + 1]
}
/^"ID"/ {
    for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); col[h] = i; head[i] = h }
    ncol = NF
    want_units = 1
    next
}
want_units && /^"/ { for (i = 1; i <= NF; i++) { u = $i; gsub(/"/, "", u); unit[i] = u }; want_units = 0; next }
ncol && /^"[0-9]+"/ { rows[++n] = $0 }
END {
    if (!n) { print "ncu-raw-per-point.awk: no launch rows (not an ncu --csv --page raw file?)" > "/dev/stderr"; exit 1 }
    if (!("launch__thread_count" in col) || !("gpu__time_duration.sum" in col)) {
        print "ncu-raw-per-point.awk: launch__thread_count or gpu__time_duration.sum missing" > "/dev/stderr"; exit 1
    }
    fabric = col["lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed"]
    crossed = col["lts__t_sectors_srcunit_ltcfabric.sum"]
    dram_r = col["dram__bytes_read.sum"]
    dram_w = col["dram__bytes_write.sum"]
    for (i = 1; i <= ncol; i++) {
        h = head[i]
        if (h ~ /^(lts|l1tex|dram)__.*\.sum$/ && h !~ /pct/) show[++m] = i
        else if (h ~ /\.avg\.pct_of_peak/ && h ~ /^(lts__ltcfabric2ltc|lts__t_sectors\.|sm__warps_active)/) show[++m] = i
    }
    printf "%-6s %-6s %-5s %8s %10s", "launch", "update", "build", "slots_M", "ns/Mslot"
    for (k = 1; k <= m; k++) printf " %s", head[show[k]]
    if (dram_r && dram_w) printf " dram_GB/s"
    if (crossed) printf " fabric_GB/s"
    printf "\n"
    for (r = 1; r <= n; r++) {
        split(rows[r], f, FS)
        name = f[col["Kernel Name"]]
        upd = update_of(name)
        build = build_of(name)
        slots = num(f[col["launch__thread_count"]]) * width
        ns = num(f[col["gpu__time_duration.sum"]]) * scale[unit[col["gpu__time_duration.sum"]]]
        id = f[1]; gsub(/"/, "", id)
        printf "%-6s %-6s %-5s %8.2f %10.1f", id, upd, build, slots / 1e6, ns / slots * 1e6
        total += ns
        if (fabric) busy += ns * num(f[fabric]) / 100
        if (crossed) moved += bytes_of(f, crossed)
        for (k = 1; k <= m; k++) {
            i = show[k]
            v = num(f[i])
            if (head[i] ~ /pct/) printf " %.1f", v
            else if (unit[i] in scale) printf " %.2f", bytes_of(f, i) / slots
            else printf " %.3f", v / slots
        }
        # bytes over ns: GB/s
        if (dram_r && dram_w) printf " %.0f", (bytes_of(f, dram_r) + bytes_of(f, dram_w)) / ns
        if (crossed) printf " %.0f", bytes_of(f, crossed) / ns
        printf "\n"
    }
    printf "total  %d launches, %.1f us", n, total / 1e3
    if (fabric) printf ", L2 fabric busy %.1f us", busy / 1e3
    if (crossed) printf ", %.1f MB over the L2 fabric", moved / 1e6
    printf "\n"
}
