# One line per kernel launch of an `ncu --csv --page details` file of the
# FDTD vector kernels (scripts/bench-cpml.sh --ncu): the update (v or p),
# plain, z-slab or CPML build, grid, registers, time, executed warp
# instructions, DRAM and L2 throughput; then per update the time of the
# interior's launches (plain_us: the plain or z-slab build) and the CPML
# shell's, and the shell's share. What session4's analysis of
# the CPML shell read by hand (results/wave3-checks-h200/session4/).
#
#   zcat ncu-480-cpml20.csv.gz | awk -f scripts/ncu-launches.awk

# The launch's update and build from its kernel's name, the same two
# functions as in ncu-raw-per-point.awk (tests/test_bench_scripts.c's
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
BEGIN { FS = "\",\"" }
/^"/ {
    id = $1
    gsub(/"/, "", id)
    if (id !~ /^[0-9]+$/) next
    if (!(id in name)) { order[++n] = id; name[id] = $5; grid[id] = $9 }
    v = $15
    gsub(/[",]/, "", v)
    unit = $14
    if ($13 == "Duration") time_us[id] = v / (unit == "ms" ? 0.001 : unit == "us" ? 1 : 1000)
    else if ($13 == "Registers Per Thread") regs[id] = v
    else if ($13 == "Executed Instructions") instr[id] = v
    else if ($13 == "DRAM Throughput") dram[id] = v
    else if ($13 == "L2 Cache Throughput") l2[id] = v
}
END {
    if (!n) { print "ncu-launches.awk: no launch rows (not an ncu --csv --page details file?)" > "/dev/stderr"; exit 1 }
    printf "%-6s %-6s %-5s %-16s %4s %10s %12s %6s %6s\n", "launch", "update", "build", "grid", "regs", "us", "warp_instr", "dram%", "l2%"
    for (k = 1; k <= n; k++) {
        id = order[k]
        upd = update_of(name[id])
        build = build_of(name[id])
        printf "%-6s %-6s %-5s %-16s %4s %10.1f %12s %6s %6s\n", id, upd, build, grid[id], regs[id], time_us[id],
               instr[id], dram[id], l2[id]
        # the interior's launches in plain_us, whichever build ran them
        sum[upd, build == "zslab" ? "plain" : build] += time_us[id]
        seen[upd] = 1
        if (upd == "?" || build == "?") unknown = unknown " " id
        if (build == "?") partial[upd] = 1
    }
    printf "%-6s %12s %12s %12s\n", "update", "plain_us", "cpml_us", "cpml_share"
    split("v p", ups, " ")
    for (u = 1; u <= 2; u++) {
        if (!(ups[u] in seen)) continue
        t = sum[ups[u], "plain"] + sum[ups[u], "cpml"]
        share = t > 0 ? sprintf("%.3f", sum[ups[u], "cpml"] / t) : "0.000"
        if (ups[u] in partial) share = "?"
        printf "%-6s %12.1f %12.1f %12s\n", ups[u], sum[ups[u], "plain"], sum[ups[u], "cpml"], share
    }
    if (unknown != "") printf "launches%s: update or build not known from the kernel's name, left out of the sums\n", unknown
}
