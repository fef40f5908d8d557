"""Kernel start and end of one Pipe-PCG iteration, from an nsys cuda_gpu_trace export.

    python3 timeline.py TRACE.csv.gz [ITERATION]

Times are us from the start of the ITERATION-th update kernel (default 100,
the middle of a 200-iteration trace), for it and the eight kernels after it.
"""
import csv
import gzip
import sys

rows = list(csv.DictReader(gzip.open(sys.argv[1], "rt")))
it = int(sys.argv[2]) if len(sys.argv) > 2 else 100
kernels = [r for r in rows if not r["Name"].startswith("[")]
updates = [i for i, r in enumerate(kernels) if "update" in r["Name"] or "fused" in r["Name"]]
if len(updates) <= it:
    sys.exit(f"timeline.py: {sys.argv[1]}: {len(updates)} update kernels, none numbered {it}")
first = updates[it]
t0 = int(kernels[first]["Start (ns)"])
for r in kernels[first:first + 9]:
    s, d = int(r["Start (ns)"]) - t0, int(r["Duration (ns)"])
    print("%-40s grid %5s regs %3s start %8.2f end %8.2f"
          % (r["Name"][5:45], r["GrdX"], r["Reg/Trd"], s / 1e3, (s + d) / 1e3))
