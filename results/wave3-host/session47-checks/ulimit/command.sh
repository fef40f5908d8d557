#!/usr/bin/env bash
# session47: trilap-fdtd's host memory check on two MPI ranks of one host,
# each process under its own `ulimit -v 1400000` (the limit each rank's
# process inherits from mpirun's shell), before (66ec953f, OLD) and after
# (this session's code, the checkout's bin/): a 400^3 grid whose ranks
# each fit their own limit but not the two together, and a 520^3 grid
# whose ranks each exceed it. Writes OUTDIR/<grid>.<old|new>.txt (stdout
# and stderr, and the exit code). OLD is a build of 66ec953f
# (`git worktree add ../old47 66ec953f && make -C ../old47 bin/trilap-fdtd`).
# Run from the repository root (as root: OMPI_ALLOW_RUN_AS_ROOT=1
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1):
# OLD=../old47/bin bash results/wave3-host/session47-checks/ulimit/command.sh OUTDIR
set -euo pipefail
export LC_ALL=C
old=${OLD:?OLD names the old build\'s bin folder}
out=${1:?usage: OLD=DIR bash command.sh OUTDIR}
mkdir -p "$out"
for grid in 400 520; do
    for b in old new; do
        dir=$old; [ "$b" = new ] && dir=bin
        f="$out/$grid.$b.txt"
        ( ulimit -v 1400000
          mpirun -np 2 --oversubscribe "$dir/trilap-fdtd" run --grid $grid --steps 1 --cpml 0 --source none \
              --decomp 1x1x2 --no-gpu ) > "$f" 2>&1 || echo "exit $?" >> "$f"
    done
done
