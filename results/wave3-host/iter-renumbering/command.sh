#!/usr/bin/env bash
# A default traced host solve (one warm-up solve before the trace window,
# two timed ones in it, each numbering its iterations from 0) read by
# trilap-analyze overlap: iterations numbered over the window
# (analysis/iters.c). Run from the repository root with OUT set.
set -euo pipefail
bin/trilap-solve gen:poisson7:16 --launcher threads --ranks 2 --backend host --max-iterations 30 --rtol 0 --atol 0 \
    --warmup 1 --repeat 2 --schedule three-split --trace "$OUT/trace" --results "$OUT/solve.csv" > "$OUT/solve.txt"
bin/trilap-analyze overlap "$OUT/trace" > "$OUT/overlap.txt"
bin/trilap-analyze overlap "$OUT/trace" --iter-range 1: > "$OUT/overlap-from-1.txt"
bin/trilap-analyze overlap "$OUT/trace" --iter-range 0:0 > "$OUT/overlap-0.txt"
bin/trilap-analyze overlap results/device-session-070b323/demo/solver/traces/three-split > "$OUT/demo-three-split.txt"
gzip -9 "$OUT"/trace/*.csv
