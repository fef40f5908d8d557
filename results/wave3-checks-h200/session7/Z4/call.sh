#!/usr/bin/env bash
# session7 call Z4: this tree (main after merging exp-cpml-h8lean, call
# Z3's better shell), on the machine still holding call Z3's build of
# 991bcee: the FDTD GPU tests in full (in call Z3 the carried copy was
# built without MPI, so its two mpirun tests skipped); then CPML float
# 480/1024 once
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session7/Z4; mkdir -p $O
TL_DATA=.carry/data scripts/device-session.sh $O/fdtd-tests 170 build-fdtd,fdtd-tests > /dev/null 2>&1
cat $O/fdtd-tests/session.log; grep -h "^not ok" $O/fdtd-tests/*.log | head
timeout 30 scripts/bench-cpml.sh $O/cpml --sizes "480 1024" --reps 1 > /dev/null 2>&1; tail -n2 $O/cpml/table.txt
cd $OUT && tar czf session7-Z4.tgz session7 && rm -rf session7
