#!/usr/bin/env bash
# session43: make check's wall and CPU time at two tests at a time, on this
# 2-core machine alone (no helper running), the build already made, with
# vmstat every 5 s beside it. Tree: 1b8c595 (session42's final code;
# test_clock_align still 21.5 s there).
set -u
export TRILAP_NO_INSTALL=1
vmstat 5 > make-check-jobs2-1b8c595.vmstat.txt &
/usr/bin/time -v make -j2 check > make-check-jobs2-1b8c595.log 2>&1
echo "rc $?" >> make-check-jobs2-1b8c595.log
kill %1
# idle share: awk 'NR>2{n++; id+=$15} END{print id/n}' make-check-jobs2-1b8c595.vmstat.txt

# mpi-transport.txt: a 4-rank trilap-solve under mpirun, Open MPI's default
# transport (UCX) against ob1 over vader, twice each, then the MPI solves of
# test_solve_cli both ways (after session43's last CI, alone):
#   env [OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_osc=^ucx] /usr/bin/time -f '%e s wall, %U s user, %S s sys' \
#     mpirun --allow-run-as-root --oversubscribe -np 4 bin/trilap-solve --warmup 0 --repeat 1 --no-stats gen:poisson7:8
#   env [...] TL_TEST_FILTER='test_solve_cli:mpi_1_to_4' tests/run.sh build/tests/test_solve_cli
