#!/usr/bin/env bash
# session18 call D: main's final tree, what 20 CPML cells cost the default
# kernel at the sizes between issue 29's two (scripts/bench-cpml.sh
# --sizes "560 640 768" --reps 2), for the proposal to judge point 1 where
# 0.88 is met.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session18/D; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "build exit $?" >> $O/build.log
tail -n1 $O/build.log; echo "[$SECONDS s] built"
timeout 200 scripts/bench-cpml.sh $O/cpml --sizes "560 640 768" --reps 2 > /dev/null 2> $O/cpml.err; echo "[$SECONDS s] bench-cpml exit $?"
cat $O/cpml/table.txt
cd $OUT && tar czf session18-D.tgz session18 && rm -rf session18
