#!/usr/bin/env bash
# session34's host figures: run from the repository root as
#   results/wave3-host/session34-checks/command.sh BIN > OUT.txt
# with BIN the folder of a built tree's programs (bin: this tree; a build of
# 8826a42, the tree before the session, for before-8826a42.txt). Each part is
# one behaviour this session changed; the machine otherwise idle.
set -u
B=${1:?usage: command.sh BIN}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
part() { printf '\n== part %s: %s\n' "$1" "$2"; }
run() { printf '$ %s\n' "$*"; "$@" 2>&1; printf '(exit %d)\n' $?; }
v() { run "$@" | grep -E "^[$] |$pat"; }
vec() { # FILE N VALUE: an n-vector in Matrix Market array form
    printf '%%%%MatrixMarket matrix array real general\n%d 1\n' "$2" > "$1"
    for ((i = 0; i < $2; i++)); do echo "$3"; done >> "$1"
}

part 1 "trilap-solve, benchmark mode: cg and pcg run the 1,000 iterations asked for (they stopped at the breakdown, 356 and 353)"
pat='^(converged|reason|iterations|restarts|rounding level|true residual):|^\(exit'
for s in cg pcg; do v $B/trilap-solve --solver $s --rtol 0 --atol 0 --max-iterations 1000 --warmup 0 --repeat 1 gen:poisson7:8; done

part 2 "trilap-solve: a right-hand side of 1e200 and of 1e-200 (||b|| was inf, and 0: 'converged, b = 0')"
vec "$T/big.mtx" 512 1e200
vec "$T/tiny.mtx" 512 1e-200
pat='^(residual base|converged|reason):|^trilap-solve:|^\(exit'
v $B/trilap-solve --solver cg --warmup 0 --repeat 1 gen:poisson7:8 "$T/big.mtx"
v $B/trilap-solve --solver cg --warmup 0 --repeat 1 gen:poisson7:8 "$T/tiny.mtx"

part 3 "PETSc path: b = 0 with a nonzero x0 (was 'converged: no', exit 3)"
vec "$T/z64.mtx" 64 0
vec "$T/x64.mtx" 64 1
pat='^(converged|reason):|^trilap-solve:|^\(exit'
v mpirun -np 1 $B/trilap-solve --backend petsc --solver cg --warmup 0 --repeat 1 gen:poisson7:4 "$T/z64.mtx" "$T/x64.mtx"

part 4 "exit statuses of options that clash (1 before, as if a file had failed)"
run $B/trilap-solve --partition metis-foo gen:poisson7:4
run $B/trilap-solve --results "$T/x.csv" --history "$T/x.csv" gen:poisson7:4
run $B/trilap-analyze overlap results/tristream-h200x2/three-split --csv "$T/o.csv" --iter-csv "$T/o.csv"
run $B/trilap-fdtd run --grid 16 --steps 2 --cpml 0 --results "$T/manifest.txt"
run $B/trilap-analyze compare results/tristream-h200x2/tristream.csv results/tristream-h200x2/tristream.csv

part 5 "trilap-fdtd verify convergence in single precision: no rate past the rounding floor"
run $B/trilap-fdtd verify convergence --precision single --orders 8 --sizes 8,16,32

part 6 "trilap-analyze --iter-range: beyond the run, and clipped"
run $B/trilap-analyze overlap results/tristream-h200x2/three-split --iter-range 500:600
pat='selection|^\(exit'
v $B/trilap-analyze breakdown results/tristream-h200x2/three-split --iter-range 150:250

part 7 "trilap-model: rtx6000-pcie beyond its one node"
pat='^trilap-model|^\(exit'
v $B/trilap-model solver --platform rtx6000-pcie --gpus 4,8 --matrix gen:poisson7:32
