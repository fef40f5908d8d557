#!/usr/bin/env bash
# session13 call B: this tree (main): scripts/bench-cpml.sh --ncu-fabric
# at 480^3 and at 1024^3, two repetitions each: the CPML ratio, ncu's L2
# fabric counters of the second step without CPML and with 20 cells, and
# k, a shell point slot's extra cost in plain point-times
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session13/B; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
for n in 480 1024; do
  scripts/bench-cpml.sh $O/fabric-$n --sizes $n --reps 2 --ncu-fabric 2> $O/fabric-$n.err; echo "[$SECONDS s] $n exit $?"
done
for n in 480 1024; do gzip -9 $O/fabric-$n/ncu-fabric-*.csv; done
echo "[$SECONDS s] done"
cd $OUT && tar czf session13-B.tgz session13 && rm -rf session13
