#!/usr/bin/env bash
# session38's host claims, run from the repository root after `make all`
# (2-core VM, no GPU): bash results/wave3-host/session38-checks/command.sh > output.txt 2>&1
set -u
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
say() { echo; echo "\$ $*"; "$@" 2>&1 | sed "s|$t|TMP|g"; echo "exit ${PIPESTATUS[0]}"; }
echo "commit: $(git rev-parse --short=12 HEAD)"
# a file no one may write, named or through a link (as root here)
echo x > "$t/ro.mtx"; chmod 444 "$t/ro.mtx"; ln -s ro.mtx "$t/ln.mtx"
say bin/trilap-matgen poisson7 4 "$t/ln.mtx"
say bin/trilap-solve --backend host gen:poisson7:8 --results "$t/ro.mtx"
# --launcher mpi --ranks 4 without mpirun
say bin/trilap-solve --backend host --launcher mpi --ranks 4 gen:poisson7:8
# a cut .tlcsr refused from its size
bin/trilap-matgen poisson7 40 "$t/p.tlcsr" > /dev/null && head -c 100000 "$t/p.tlcsr" > "$t/cut.tlcsr"
say bin/trilap-solve --backend host "$t/cut.tlcsr"
# a CPU run's compute counted (overlap's U_compute, diagnose's per-rank line)
bin/trilap-fdtd run --backend cpu --grid 24 --steps 4 --trace "$t/fd" > /dev/null 2>&1
say bin/trilap-analyze overlap "$t/fd"
bin/trilap-solve --backend host --ranks 2 --launcher threads gen:poisson7:16 --trace "$t/hs" > /dev/null 2>&1
say bin/trilap-analyze diagnose "$t/hs"
# single precision on the CPU with a source and without (64^3, one thread)
say bin/trilap-fdtd run --backend cpu --grid 64 --cpml 0 --steps 40
say bin/trilap-fdtd run --backend cpu --grid 64 --cpml 0 --steps 40 --source none
# refusals of round 3 and 4
say bin/trilap-fdtd run --backend cpu --grid 24 --steps 4 --f0 1e-300
say bin/trilap-model solver --gpus 4 --matrix gen:poisson7:100000
say bin/trilap-solve --backend host --rtol 0 --atol 0 --max-iterations 0 gen:poisson7:4
