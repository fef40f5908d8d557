#!/usr/bin/env bash
# session16 call B: why exp-deep-y ran slower (call A: 0.789 against
# 0.858 at 480^3). ncu on each launch of the second step at 480^3 alone
# (main: 9 launches, deep: 6), DRAM and fabric bytes and time: did the
# deep rows' pressure update read its velocities and pressure from L2?
# Then two variants of the deep launch's schedule against both: the
# pressure chunks 4 chunks behind instead of 2 (d4), chunks of 8 planes
# (c8); two rounds at 480^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session16/B; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
mkv() { # NAME SED
    rm -rf /tmp/$1; mkdir -p /tmp/$1; tar --exclude=./build --exclude=./bin --exclude=./.carry --exclude=./results -cf - . | tar -xf - -C /tmp/$1
    sed -i "$2" /tmp/$1/stencil/fdtd_vec.cu
    make -C /tmp/$1 -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$1.log 2>&1; echo "$1 build exit $?" >> $O/build-$1.log
}
( make -C /tmp/main -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
mkv d4 's/^constexpr int deep_lag = 2;$/constexpr int deep_lag = 4;/' &
mkv c8 's/^    constexpr int C = 4;$/    constexpr int C = 8;/' &
make -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-deep.log 2>&1; echo "[$SECONDS s] deep build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-d4.log $O/build-c8.log; echo "[$SECONDS s] builds"
grep -c "deep_lag = 4" /tmp/d4/stencil/fdtd_vec.cu; grep -c "int C = 8" /tmp/c8/stencil/fdtd_vec.cu
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__thread_count
for t in main:/tmp/main/bin:9 deep:bin:6; do
    IFS=: read n b k <<< "$t"
    timeout 150 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip $k --launch-count $k --metrics $M \
        $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu-$n.csv 2> $O/ncu-$n.err
    awk -f scripts/ncu-raw-per-point.awk $O/ncu-$n.csv > $O/ncu-$n.txt; echo "[$SECONDS s] $n ncu exit $?"
done
for n in main deep; do echo "== $n"; awk '{print $1, $2, $3, $4, $5, $6, $7, $(NF-1), $NF}' $O/ncu-$n.txt; done
for n in d4 c8; do cp bin/trilap-bench /tmp/$n/bin/; done; cp bin/trilap-bench /tmp/main/bin/
timeout 150 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin deep=bin d4=/tmp/d4/bin c8=/tmp/c8/bin --rounds 2 --sizes 480 2> $O/cpml-progress.log | tail -n 5
gzip -9 $O/ncu-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session16-B.tgz session16 && rm -rf session16
