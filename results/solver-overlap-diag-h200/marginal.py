"""The marginal us per iteration from two trilap-solve --results CSVs.

    python3 marginal.py NAME RESULTS_K.csv RESULTS_KQ.csv [BACKEND]

Each file holds the timed solves of one run at K (resp. Kq) fixed
iterations; the median us_per_iter of each, then (K T_K - Kq T_Kq) / (K - Kq):
the iteration without the solve's setup. BACKEND keeps only rows of that
backend column (e.g. cuda:trilap when cuSPARSE ran in the same file).
"""
import csv
import statistics
import sys


def median_of(path, backend):
    rows = [r for r in csv.DictReader(open(path)) if not backend or r["backend"] == backend]
    if not rows:
        sys.exit(f"marginal.py: {path}: no rows" + (f" of backend {backend}" if backend else ""))
    return int(rows[0]["max_iterations"]), statistics.median(float(r["us_per_iter"]) for r in rows)


name, path_k, path_kq = sys.argv[1:4]
backend = sys.argv[4] if len(sys.argv) > 4 else ""
k, t = median_of(path_k, backend)
kq, tq = median_of(path_kq, backend)
if k == kq:
    sys.exit(f"marginal.py: {path_k} and {path_kq} ran the same {k} iterations")
print("%-10s K=%d %.2f  K=%d %.2f  marginal %.2f us" % (name, k, t, kq, tq, (k * t - kq * tq) / (k - kq)))
