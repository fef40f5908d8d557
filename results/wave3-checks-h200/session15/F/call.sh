#!/usr/bin/env bash
# session15 call F: main (the kernels of b0d2fa2) and v8 (branch
# exp-vshell-regs at 002af52 with the velocity shell at 8 blocks of 64 an
# SM: 124 registers, no spill, its loads issued together) each launch of
# the second step at 480^3 alone: bench-cpml.sh --ncu-fabric (DRAM and
# fabric bytes, time, fabric busy; ncu-raw-per-point.awk's rates), and
# the warps an SM of each launch. Does v8's shell run faster alone, where
# in the step it ran as main's (calls D, E)?
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session15/F; mkdir -p $O
rm -rf /tmp/v8; cp -r .carry/vregs /tmp/v8
sed -i "s/^#define TL_VSHELL_BLOCKS 14$/#define TL_VSHELL_BLOCKS 8/" /tmp/v8/stencil/fdtd_vec.cu
grep -q "^#define TL_VSHELL_BLOCKS 8$" /tmp/v8/stencil/fdtd_vec.cu || echo "v8: no define"
( make -C /tmp/v8 -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-v8.log 2>&1; echo "v8 build exit $?" >> $O/build-v8.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-v8.log; echo "[$SECONDS s] builds"
cp bin/trilap-bench /tmp/v8/bin/
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for t in main:bin v8:/tmp/v8/bin; do
    n=${t%%:*} b=${t#*:}
    TL_BIN=$b scripts/bench-cpml.sh $O/fab-$n --sizes 480 --reps 2 --ncu-fabric 2> $O/fab-$n.err; echo "[$SECONDS s] $n fabric exit $?"
    timeout 150 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip 9 --launch-count 9 \
        --metrics gpu__time_duration.sum,launch__thread_count,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
        $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/warps-$n.csv 2> $O/warps-$n.err
    awk -f scripts/ncu-raw-per-point.awk $O/warps-$n.csv > $O/warps-$n.txt; echo "[$SECONDS s] $n warps exit $?"
done
for n in main v8; do echo "== $n"; cat $O/fab-$n/table.txt | tail -2; awk '{print $1, $2, $3, $4, $5, $(NF-1), $NF}' $O/fab-$n/ncu-fabric-480-cpml20.txt; tail -n 3 $O/fab-$n/fabric.txt; cat $O/warps-$n.txt; done
gzip -9 $O/fab-*/ncu-fabric-*.csv $O/warps-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session15-F.tgz session15 && rm -rf session15
