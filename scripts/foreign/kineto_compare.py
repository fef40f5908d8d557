#!/usr/bin/env python3
"""The same steps seen by torch.profiler (Kineto) and by trilap's injection
library: per kernel, the count and the total time of the two traces, read
by trilap-analyze breakdown (the Kineto trace directly, the injection trace
restricted to the steps' window), and a verdict: every kernel name in both,
counts within 5 %, totals within 5 % (issue 27, point 5).

  kineto_compare.py KINETO.json[.gz] INJECT_DIR WINDOW.json OUT_DIR [--analyze bin/trilap-analyze]
writes OUT_DIR/kineto-breakdown.csv, OUT_DIR/inject-breakdown.csv,
OUT_DIR/inject-window/ (the injection trace with the window as its
metadata) and OUT_DIR/compare.csv; prints the table; exit 1 on disagreement.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

TOL = 0.05


def breakdown(an, src, out):
    subprocess.run([an, "breakdown", src, "--csv", out], check=True, stdout=subprocess.DEVNULL)
    rows = {}
    with open(out) as f:
        for r in csv.DictReader(f):
            if r["level"] != "name" or r["rank"] in ("max", "mean"):
                continue
            if r["category"] in ("memcpy", "memset"):
                continue
            k = r["name"]  # the short name: Kineto writes names demangled, CUPTI mangled
            c, t = rows.get(k, (0, 0.0))
            rows[k] = (c + int(float(r["count"])), t + float(r["total_us"]))
    return rows


def windowed(inject_dir, win, out_dir):
    """The injection trace with window_start_ns/window_end_ns set to the
    steps' window: breakdown counts the records starting in it."""
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(inject_dir)):
        if not name.startswith("trace.rank"):
            continue
        src = os.path.join(inject_dir, name)
        opener = open
        if name.endswith(".gz"):
            import gzip
            opener = gzip.open
        dst = os.path.join(out_dir, name[:-3] if name.endswith(".gz") else name)
        with opener(src, "rt") as f, open(dst + ".tmp", "w") as g:
            for line in f:
                if line.startswith("# window_start_ns="):
                    line = "# window_start_ns=%d\n" % win["start_ns"]
                elif line.startswith("# window_end_ns="):
                    line = "# window_end_ns=%d\n" % win["end_ns"]
                g.write(line)
        os.replace(dst + ".tmp", dst)
        n += 1
    if not n:
        sys.exit("kineto_compare: %s: no trace.rank*.csv" % inject_dir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kineto")
    ap.add_argument("inject_dir")
    ap.add_argument("window")
    ap.add_argument("out_dir")
    ap.add_argument("--analyze", default="bin/trilap-analyze")
    a = ap.parse_args()
    with open(a.window) as f:
        win = json.load(f)
    os.makedirs(a.out_dir, exist_ok=True)
    windowed(a.inject_dir, win, os.path.join(a.out_dir, "inject-window"))
    k = breakdown(a.analyze, a.kineto, os.path.join(a.out_dir, "kineto-breakdown.csv"))
    i = breakdown(a.analyze, os.path.join(a.out_dir, "inject-window"), os.path.join(a.out_dir, "inject-breakdown.csv"))
    bad = 0
    rows = []
    for name in sorted(set(k) | set(i), key=lambda s: -(k.get(s, (0, 0))[1] + i.get(s, (0, 0))[1])):
        kc, kt = k.get(name, (0, 0.0))
        ic, it = i.get(name, (0, 0.0))
        dc = (ic - kc) / kc if kc else float("inf")
        dt = (it - kt) / kt if kt else float("inf")
        ok = kc > 0 and ic > 0 and abs(dc) <= TOL and abs(dt) <= TOL
        bad += not ok
        rows.append((name, kc, ic, dc, kt, it, dt, "ok" if ok else "DIFFERS"))
    with open(os.path.join(a.out_dir, "compare.csv.tmp"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "kineto_count", "inject_count", "count_diff", "kineto_total_us", "inject_total_us",
                    "total_diff", "verdict"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], "%.4f" % r[3], "%.3f" % r[4], "%.3f" % r[5], "%.4f" % r[6], r[7]])
    os.replace(os.path.join(a.out_dir, "compare.csv.tmp"), os.path.join(a.out_dir, "compare.csv"))
    print("# kineto vs injection, %d steps, window %.3f ms; tolerance %.0f %% on counts and totals" %
          (win["steps"], (win["end_ns"] - win["start_ns"]) / 1e6, 100 * TOL))
    print("%-60s %7s %7s %10s %10s %8s %s" % ("kernel", "k_count", "i_count", "k_total_us", "i_total_us", "diff",
                                            "verdict"))
    for r in rows:
        print("%-60.60s %7d %7d %10.1f %10.1f %7.2f%% %s" % (r[0], r[1], r[2], r[4], r[5], 100 * r[6]
                                                            if r[6] != float("inf") else float("nan"), r[7]))
    tk, ti = sum(v[1] for v in k.values()), sum(v[1] for v in i.values())
    print("# %d kernel names, %d differ; kernel time in all: kineto %.1f us, injection %.1f us" %
          (len(rows), bad, tk, ti))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
