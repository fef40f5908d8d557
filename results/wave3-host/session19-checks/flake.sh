#!/usr/bin/env bash
# bicgstab_on_1138_bus beside another MPI suite, N rounds; failing logs kept
cd /work/main
export TL_BUILD=build TL_BIN=bin TL_HAVE_MPI=1 TL_HAVE_PETSC=1 TL_MPIRUN=$(command -v mpirun) TL_DATA=$(readlink -f ../shared/data)
fails=0
for i in $(seq 1 ${1:-30}); do
  TL_TEST_JOBS=2 TL_TEST_PARALLEL=. TL_TEST_FILTER='bicgstab_on_1138_bus|mpi_1_to_4_ranks_every_method|pipecg_ani4|generated_poisson_both' \
    tests/run.sh build/tests/test_solve_cli build/tests/test_petsc > /tmp/flake-$i.txt 2>&1
  if grep -q "^not ok" /tmp/flake-$i.txt; then fails=$((fails+1)); cp build/test-logs/test_solve_cli.bicgstab_on_1138_bus.log /tmp/flake-fail-$i.log 2>/dev/null; fi
  echo "round $i: $(tail -1 /tmp/flake-$i.txt)" >> /tmp/flake-summary.txt
done
echo "done: $fails failed rounds" >> /tmp/flake-summary.txt
