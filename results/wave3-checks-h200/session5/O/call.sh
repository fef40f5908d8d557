#!/usr/bin/env bash
# session5 call O: build this tree (e190f59: cg_async's x update in the
# update of p); scripts/bench-cg.sh at 128^3 (1,000 iterations, 2 rounds) and
# 256^3 (300, 1 round): pipecg, cg, pcg, their separate-dot and host-scalar
# forms side by side; scripts/bench-solver-roof.sh: Pipe-PCG, CG (no
# preconditioner) and PCG against their byte rooflines at 128^3 and 256^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session5/O; mkdir -p $O
scripts/device-session.sh $O/build 200 build > /dev/null 2>&1; head -1 $O/build/session.log
ROUNDS=2 OUT=$O/cg128 timeout 150 scripts/bench-cg.sh 128 1000 > $O/bench-cg-128.txt 2>&1; echo "cg128 exit $?"; cat $O/bench-cg-128.txt
ROUNDS=1 OUT=$O/cg256 timeout 120 scripts/bench-cg.sh 256 300 > $O/bench-cg-256.txt 2>&1; echo "cg256 exit $?"; cat $O/bench-cg-256.txt
VARIANTS="base= cg=--solver,cg,--precond,none pcg=--solver,pcg" TL_DATA=.carry/data timeout 200 scripts/bench-solver-roof.sh --budget 170 --sizes "128 256" $O/roof > $O/roof.log 2>&1; echo "roof exit $?"
sed -n 1,20p $O/roof/summary.txt
cd $OUT && tar czf session5-O.tgz session5 && rm -rf session5
