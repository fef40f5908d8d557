#!/usr/bin/env bash
# session37: the host figures quoted in its closing note and READMEs beside the GPU-trace check of
# command.sh: the thread ranks' reduction order against mpirun's (runtime/README.md), the host STREAM
# preamble's thread count (microbench/README.md), perfetto's events outside the analysis window on a
# committed GPU trace (analysis/README.md). Run from the repository root after `make all`; 2-core VM.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
A="--backend host --solver pipebicgstab --rtol 0 --atol 0 --max-iterations 200 --warmup 0 --repeat 1 gen:convdiff:12"
echo "== pipebicgstab, fixed 200 iterations, 4 thread ranks"
bin/trilap-solve --ranks 4 --launcher threads $A 2>&1 | grep -E '^(residual|true residual):'
echo "== the same under mpirun -np 4"
mpirun --oversubscribe -np 4 bin/trilap-solve $A 2>&1 | grep -E '^(residual|true residual):'
for t in 1 2; do
    echo "== stream --host, OMP_NUM_THREADS=$t"
    OMP_NUM_THREADS=$t bin/trilap-bench stream --host --count 16M --iters 5 2>&1 | grep -E '^# kernels|^Triad|triad' | head -3
done
T=$(mktemp -d)
echo "== perfetto on session6/X/pcg-128/trace-cupti-1 (a committed H200 trace)"
bin/trilap-analyze perfetto results/wave3-checks-h200/session6/X/pcg-128/trace-cupti-1 -o $T/p.json 2>&1 | grep -E '^# (events|outside)'
echo "tl_update_kernel events in the JSON: $(grep -o '"name":"tl_update_kernel"' $T/p.json | wc -l)"
echo "tl_update_kernel in breakdown: $(bin/trilap-analyze breakdown results/wave3-checks-h200/session6/X/pcg-128/trace-cupti-1 2>/dev/null | awk '$5 == "tl_update_kernel" && $3 == "name" { print $6; exit }')"
rm -rf $T
T=$(mktemp -d)
echo "== overlap's communication line on a host-backend trace (mpirun -np 2, gen:poisson7:32), whole window and --iter-range 0:0"
mpirun --oversubscribe -np 2 bin/trilap-solve --backend host gen:poisson7:32 --trace $T/mpi2 > /dev/null 2>&1
bin/trilap-analyze overlap $T/mpi2 2>&1 | grep '^# communication'
bin/trilap-analyze overlap $T/mpi2 --iter-range 0:0 2>&1 | grep '^# communication'
rm -rf $T
