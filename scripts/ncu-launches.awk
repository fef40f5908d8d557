# One line per kernel launch of an `ncu --csv --page details` file of the
# FDTD vector kernels (scripts/bench-cpml.sh --ncu): the update (v or p),
# plain or CPML build, grid, registers, time, executed warp instructions,
# DRAM and L2 throughput; then per update the time of the plain and the
# CPML launches and the CPML launches' share. What session4's analysis of
# the CPML shell read by hand (results/wave3-checks-h200/session4/).
#
#   zcat ncu-480-cpml20.csv.gz | awk -f scripts/ncu-launches.awk
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
        upd = name[id] ~ /_v_vec_(shell_)?kernel/ ? "v" : name[id] ~ /_p_vec_(shell_)?kernel/ ? "p" : "?"
        # the last template argument: the CPML build (1) or the plain one (0)
        build = name[id] ~ /, 1>\(/ ? "cpml" : "plain"
        printf "%-6s %-6s %-5s %-16s %4s %10.1f %12s %6s %6s\n", id, upd, build, grid[id], regs[id], time_us[id],
               instr[id], dram[id], l2[id]
        sum[upd, build] += time_us[id]
        seen[upd] = 1
    }
    printf "%-6s %12s %12s %12s\n", "update", "plain_us", "cpml_us", "cpml_share"
    split("v p", ups, " ")
    for (u = 1; u <= 2; u++) {
        if (!(ups[u] in seen)) continue
        t = sum[ups[u], "plain"] + sum[ups[u], "cpml"]
        share = t > 0 ? sum[ups[u], "cpml"] / t : 0
        printf "%-6s %12.1f %12.1f %12.3f\n", ups[u], sum[ups[u], "plain"], sum[ups[u], "cpml"], share
    }
}
