#!/usr/bin/env bash
# session4 call M: this tree's trilap-fdtd (the stencil code of 919e50c) and
# bench-cpml.sh --ncu at 480^3: every launch of one step with and without CPML
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session4-M; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "build exit $?"
scripts/bench-cpml.sh $O/ncu --sizes 480 --reps 1 --ncu > /dev/null 2>&1; echo "bench exit $?"; cat $O/ncu/table.txt; ls -la $O/ncu
gzip -9 $O/ncu/*.csv 2>/dev/null; true
