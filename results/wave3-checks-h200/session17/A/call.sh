#!/usr/bin/env bash
# session17 call A: main at dd16bf1 (this tree): make check-gpu part 1
# (scripts/device-session.sh steps build,check-gpu-1), then
# scripts/bench-cpml.sh --sizes "480 1024" --reps 2 --ncu-fabric (issue 29
# point 1's figures on the final kernels, and ncu-raw-per-point.awk's
# names end to end), and the same at 480^3 on exp-deep-y's last tree
# (.carry/deep, a348f1d), whose deep launch the reader cannot name: its
# fabric figures, no s or k.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session17/A; mkdir -p $O
rm -rf /tmp/deep; cp -r .carry/deep /tmp/deep
( make -C /tmp/deep -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-deep.log 2>&1; echo "deep build exit $?" >> $O/build-deep.log ) &
TL_DATA=.carry/data CHECK_GPU_LIMIT=240 scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
grep -h "^not ok" $O/check-gpu-1/test-logs.txt 2>/dev/null | head
echo "[$SECONDS s] check-gpu-1"
wait; tail -n1 $O/build-deep.log
timeout 200 scripts/bench-cpml.sh $O/fab-main --sizes "480 1024" --reps 2 --ncu-fabric 2> $O/fab-main.err; echo "[$SECONDS s] main exit $?"
grep "^ncu:" $O/fab-main.err; cat $O/fab-main/table.txt $O/fab-main/fabric.txt
cp bin/trilap-bench /tmp/deep/bin/
TL_BIN=/tmp/deep/bin timeout 120 scripts/bench-cpml.sh $O/fab-deep --sizes 480 --reps 1 --ncu-fabric 2> $O/fab-deep.err; echo "[$SECONDS s] deep exit $?"
grep "^ncu:" $O/fab-deep.err; tail -n 2 $O/fab-deep/fabric.txt; grep -c " ?  " $O/fab-deep/ncu-fabric-480-cpml20.txt
gzip -9 $O/fab-*/ncu-fabric-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session17-A.tgz session17 && rm -rf session17
