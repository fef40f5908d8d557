# One trilap-solve output (stdout) to CSV rows, one per solver block:
# bytes per iteration, roofline (those bytes over the triad), the ratio of
# the measured iteration time to it, per-operation rates. Shared by
# bench-solvers-gpu.sh and bench-solver-roof.sh, which pick the columns:
#
#   awk -v triad=GBS -v run=NAME [-v kernels=WORD] -v cols=NAME,NAME,... -f csv.awk -f solver-log.awk LOG
#
# A cell is quoted where it must be (csv.awk's csv_field): the matrix is
# the path trilap-solve was given, which may hold a comma or a space, so
# its rows are read back with csv_split, not awk -F,.
#
# Columns: run solver schedule matrix backend spmv kernels op_timer fused
# registers iterations us_per_iter rows bytes_per_iter roofline_us
# roofline_ratio, per operation (spmv update dot precond loop) <op>_gbs and
# <op>_frac_triad (loop: the persistent loop's iterations, --persistent,
# whose row carries the bytes of the kernels it runs in one).
function flush(    op, k, bpi, roof, us, n, i, name, sep) {
    if (solver == "") return
    # calls per iteration: the count over the timed solves, rounded (the
    # setup calls of a solve drop out); bytes per call: the average over all
    # calls (setup ones included: a slight underestimate)
    bpi = 0
    for (op in bytes) if (op != "halo" && op != "allreduce" && cnt[op] > 0 && iters > 0) {
        k = int(cnt[op] / (iters * nsolves) + 0.5)
        bpi += bytes[op] / cnt[op] * k
    }
    roof = bpi / (triad * 1e3)
    us = tpi * 1e6
    v["run"] = run; v["solver"] = solver; v["schedule"] = schedule; v["matrix"] = matrix
    v["backend"] = backend; v["spmv"] = spmv; v["kernels"] = kernels; v["op_timer"] = optimer
    v["fused"] = fused; v["registers"] = regs; v["iterations"] = sprintf("%d", iters)
    v["us_per_iter"] = sprintf("%.3f", us); v["rows"] = rows; v["bytes_per_iter"] = sprintf("%.0f", bpi)
    v["roofline_us"] = sprintf("%.3f", roof); v["roofline_ratio"] = sprintf("%.3f", roof > 0 ? us / roof : 0)
    split("spmv update dot precond loop", ops, " ")
    for (i = 1; i <= 5; i++) {
        v[ops[i] "_gbs"] = sprintf("%.1f", rate[ops[i]])
        v[ops[i] "_frac_triad"] = sprintf("%.3f", triad > 0 ? rate[ops[i]] / triad : 0)
    }
    n = split(cols, names, ",")
    for (i = 1; i <= n; i++) {
        name = names[i]
        if (!(name in v)) { print "solver-log.awk: unknown column " name > "/dev/stderr"; exit 2 }
        printf "%s%s", csv_field(v[name]), i < n ? "," : "\n"
    }
    solver = ""; delete bytes; delete cnt; delete rate
}
/^solver: / { flush(); solver = $2; schedule = "-" } # a log from before cg, pcg and bicgstab printed theirs
/^schedule: / { schedule = $2 }
/^matrix: / { matrix = substr($0, 9) } # the whole path, spaces and all
/^backend: / { backend = $2 }
/^rows: / { rows = $2 }
/^iterations: / { iters = $2 }
/^spmv: / { spmv = $2 }
/^op timer: / { optimer = $3 }
/^fused: / { fused = $2 }
/^registers: / { regs = $2 }
/^timed solves: / { nsolves = $3 }
/^time per iteration: / { tpi = $4 }
/^(spmv|halo|dot|allreduce|update|precond|loop) +[0-9]/ { cnt[$1] = $2; bytes[$1] = $4; rate[$1] = $5 }
END { flush() }
