#!/usr/bin/env bash
# The Sec. IV-C table of scripts/bench-solvers-protocol.sh --breakdown: per
# traced run (OUT/logs/breakdown-<run>.txt, trilap-solve's output with the
# event timer on; OUT/breakdown/<run>.csv and <run>-overlap.csv,
# trilap-analyze breakdown / overlap of its CUPTI trace), the compute
# kernels per operation and the derived communication, in us per
# iteration, from both sources, and their ratio (event timer / CUPTI).
#
#   scripts/render-solver-breakdown.sh OUT
#
# Event timer: an operation's time summed over the timed solves (CUDA
# events around it on its stream: the wait for its inputs is included)
# / (timed solves x iterations); derived communication = time per
# iteration (host clock) - the four compute operations. CUPTI: the
# category's kernel time (trilap-analyze breakdown, max rank) / the same
# iterations; derived communication = W - the compute kernels
# (trilap-analyze overlap, the paper's definition, analysis/README.md)
# / iterations; the allreduce row's CUPTI figure is every NCCL kernel
# (categories coll / p2p). Both cover the same timed solves (the trace
# window).
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# an option is no OUT (it said "no traced breakdown runs under --bogus", exit 1)
case ${1:-} in -?*) echo "render-solver-breakdown.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;; esac
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: render-solver-breakdown.sh OUT (try --help)" >&2; exit 2; }
out=$1
shopt -s nullglob
found=0
echo "# Sec. IV-C breakdown: us per iteration; event timer: trilap-solve per-operation statistics; CUPTI: trilap-analyze breakdown/overlap of the same run's trace"
for log in "$out"/logs/breakdown-*.txt; do
    run=$(basename "$log" .txt)
    run=${run#breakdown-}
    bcsv=$out/breakdown/$run.csv
    ocsv=$out/breakdown/$run-overlap.csv
    [ -f "$bcsv" ] || { echo "# $run: no CUPTI breakdown ($bcsv)"; continue; }
    found=1
    awk -v run="$run" -v ocsv="$ocsv" -v bcsv="$bcsv" '
    BEGIN {
        # event-timer operation -> CUPTI category
        cat["spmv"] = "spmv"; cat["update"] = "fused-update"; cat["dot"] = "dot"; cat["precond"] = "precond"
        nops = split("spmv update dot precond", ops, " ")
    }
    /^iterations: / { iters = $2 }
    /^timed solves: / { nt = $3 }
    /^time per iteration: / { tpi = $4 * 1e6 }
    /^schedule: / { sched = $2 }
    /^matrix: / { matrix = $2 }
    /^(spmv|halo|dot|allreduce|update|precond) +[0-9]/ { et[$1] = $3 * 1e6 }
    END {
        # CUPTI categories, max over ranks: the rank with the largest total
        while ((getline line < bcsv) > 0) {
            m = split(line, f, ",")
            if (!bh++) { for (i = 1; i <= m; i++) c[f[i]] = i; continue }
            if (f[c["level"]] != "category") continue
            if (f[c["total_us"]] + 0 > ctot[f[c["category"]]]) ctot[f[c["category"]]] = f[c["total_us"]] + 0
        }
        n = nt * iters
        if (n <= 0) { printf "# %s: no iteration count in the solver output\n", run; exit 1 }
        # derived communication from the overlap CSV (max over ranks)
        dc = -1
        while ((getline line < ocsv) > 0) {
            m = split(line, f, ",")
            if (!hdr++) { for (i = 1; i <= m; i++) oc[f[i]] = i; continue }
            if (f[oc["rank"]] == "max" || dc < 0 || f[oc["derived_comm_us"]] + 0 > dc) dc = f[oc["derived_comm_us"]] + 0
        }
        printf "\n## %s: %s, %s, %d iterations x %d timed solve(s)\n", run, matrix, sched, iters, nt
        printf "%-22s %14s %10s %8s\n", "operation", "event-timer", "CUPTI", "ratio"
        printf "%-22s %14s %10s %8s\n", "", "us/iter", "us/iter", "et/cupti"
        se = 0; sc = 0
        for (i = 1; i <= nops; i++) {
            o = ops[i]; e = et[o] / n; k = ctot[cat[o]] / n; se += e; sc += k
            printf "%-22s %14.2f %10.2f %8s\n", o " (" cat[o] ")", e, k, (k > 0) ? sprintf("%.3f", e / k) : "-"
        }
        printf "%-22s %14.2f %10.2f %8s\n", "compute, sum", se, sc, (sc > 0) ? sprintf("%.3f", se / sc) : "-"
        nccl = 0
        for (k in ctot) if (k ~ /nccl|coll|p2p|allreduce|sendrecv/) nccl += ctot[k]
        printf "%-22s %14.2f %10.2f %8s\n", "allreduce (enqueue)", et["allreduce"] / n, nccl / n, "-"
        printf "%-22s %14.2f %10s %8s\n", "halo (enqueue)", et["halo"] / n, "-", "-"
        dcu = (dc >= 0) ? dc / n : -1
        printf "%-22s %14.2f %10s %8s\n", "derived communication", tpi - se, (dcu >= 0) ? sprintf("%.2f", dcu) : "-", (dcu > 0) ? sprintf("%.3f", (tpi - se) / dcu) : "-"
        printf "%-22s %14.2f\n", "iteration (host clock)", tpi
    }' "$log"
done
[ $found -eq 1 ] || { echo "render-solver-breakdown.sh: no traced breakdown runs under $out" >&2; exit 1; }
echo
echo "# the event timer brackets each operation with CUDA events on its stream, so its figure includes waits for inputs on other streams; CUPTI counts kernel execution only; a ratio near 1 for spmv/update/precond says the two agree, dot may differ by the stream wait"
