#!/usr/bin/env bash
# session16 call H: scripts/bench-cpml.sh --ncu-fabric with the launches a
# step counted by ncu (this tree, main after 5d8eb29's kernels) on main's
# build and on exp-deep-y's last tree (.carry/deep, a348f1d: 8 launches a
# step with CPML, where the script used to assume main's 9).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session16/H; mkdir -p $O
rm -rf /tmp/deep; cp -r .carry/deep /tmp/deep
( make -C /tmp/deep -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-deep.log 2>&1; echo "deep build exit $?" >> $O/build-deep.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -n1 $O/build-deep.log; echo "[$SECONDS s] builds"
cp bin/trilap-bench /tmp/deep/bin/
for t in main:bin deep:/tmp/deep/bin; do
    IFS=: read n b <<< "$t"
    TL_BIN=$b timeout 150 scripts/bench-cpml.sh $O/fab-$n --sizes 480 --reps 1 --ncu-fabric 2> $O/fab-$n.err; echo "[$SECONDS s] $n exit $?"
    grep "^ncu:" $O/fab-$n.err; tail -n 4 $O/fab-$n/fabric.txt
done
gzip -9 $O/fab-*/ncu-fabric-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session16-H.tgz session16 && rm -rf session16
