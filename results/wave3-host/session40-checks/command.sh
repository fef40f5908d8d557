#!/usr/bin/env bash
# The host figures of session40's closing note, from one command run in the repository root after
# `make all` (no GPU): bash results/wave3-host/session40-checks/command.sh > output.txt 2>&1
set -u
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
echo "# commit $(git rev-parse --short=12 HEAD)"
zcat results/foreign-h200/torch.sqlite.gz > "$t/torch.sqlite"
zcat results/foreign-h200/cupy.sqlite.gz > "$t/cupy.sqlite"
zcat results/nsys-h200/tristream-plain.sqlite.gz > "$t/tri.sqlite" 2>/dev/null || true
say() { echo; echo "\$ $*"; }
# --iter-nvtx: a PyTorch program's own 'step N' NVTX ranges as iterations
say "trilap-analyze overlap --per-iter torch.sqlite (no option)"
bin/trilap-analyze overlap --per-iter "$t/torch.sqlite" 2>&1 | sed "s|$t/||g"; echo "exit ${PIPESTATUS[0]}"
say "trilap-analyze overlap --per-iter --iter-nvtx step torch.sqlite | iterations"
bin/trilap-analyze overlap --per-iter --iter-nvtx step "$t/torch.sqlite" 2>&1 | grep -E "over [0-9]+ iterations|^ +0 +(0|1|34) " | cut -c1-120
say "trilap-analyze diagnose --iter-nvtx step --iter-range 5:34 torch.sqlite | window"
bin/trilap-analyze diagnose --iter-nvtx step --iter-range 5:34 "$t/torch.sqlite" 2>&1 | grep "window" | head -2 | cut -c1-120
# collectives on Nsight Systems exports
say "trilap-analyze collectives --iter-nvtx step torch.sqlite | rows"
bin/trilap-analyze collectives --iter-nvtx step "$t/torch.sqlite" 2>&1 | grep -E "^# [0-9]+ rows" | head -1
if [ -s "$t/tri.sqlite" ]; then
    say "trilap-analyze collectives tristream-plain.sqlite | rows, waited"
    bin/trilap-analyze collectives "$t/tri.sqlite" 2>&1 | grep -E "^# [0-9]+ rows|^# finding" | grep -v "^# 1 rows" | cut -c1-170
fi
say "trilap-analyze collectives cupy.sqlite (no NCCL kernel)"
bin/trilap-analyze collectives "$t/cupy.sqlite" 2>&1 | sed "s|$t/||g"; echo "exit ${PIPESTATUS[0]}"
# TRILAP_LANES read alike by the Nsight reader and the injection library
say "TRILAP_LANES=7:p2p,,8:coll trilap-analyze import torch.sqlite -o run"
TRILAP_LANES=7:p2p,,8:coll bin/trilap-analyze import "$t/torch.sqlite" -o "$t/run" 2>&1; echo "exit $?"
# the option parser
say "trilap-fdtd run --grid 16 --steps 2 --results --overlap"
(cd "$t" && /work/main/bin/trilap-fdtd run --grid 16 --steps 2 --results --overlap 2>&1; echo "exit $?"; ls -- --overlap 2>&1 | head -1)
say "trilap-solve --rtol 1e-310 gen:poisson7:4"
bin/trilap-solve --rtol 1e-310 gen:poisson7:4 2>&1; echo "exit $?"
# trilap-matgen reads gen: specs
say "trilap-matgen partition gen:poisson7:4 3 p.mtx"
bin/trilap-matgen partition gen:poisson7:4 3 "$t/p.mtx" 2>&1 | sed "s|$t/||g" | tail -2
# a signal before the first row: the results file the command started goes
say "trilap-solve --backend host gen:poisson7:64 --max-iterations 100000 --rtol 0 --results r.csv, SIGTERM after 1 s"
(cd "$t" && { /work/main/bin/trilap-solve --backend host gen:poisson7:64 --max-iterations 100000 --rtol 0 --results r.csv >/dev/null 2>err.txt & p=$!; sleep 1; kill -TERM $p; wait $p; echo "exit $?"; cat err.txt; ls r.csv 2>&1; grep -c "while the command runs" manifest.txt; })
