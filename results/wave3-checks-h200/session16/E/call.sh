#!/usr/bin/env bash
# session16 call E (call D again, its two measuring builds fixed): exp-deep-y with the x boxes' velocity back in their own
# launches (deep: the deep launch holds the y boxes' velocity and the deep
# rows' pressure), (its FDTD GPU tests passed in call D); and where call C's deep
# launch lost its time alone (399 us against 308 for its parts in main):
# two builds that measure only, their fields wrong: nowait (the pressure
# chunks wait for nothing) and nofence (nor do the velocity blocks fence
# and count). ncu on each launch of the second step at 480^3 alone, and
# two rounds against main at 480^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session16/E; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
mkv() { # NAME SED
    rm -rf /tmp/$1; mkdir -p /tmp/$1; tar --exclude=./build --exclude=./bin --exclude=./.carry --exclude=./results -cf - . | tar -xf - -C /tmp/$1
    sed -i "$2" /tmp/$1/stencil/fdtd_vec.cu
    make -C /tmp/$1 -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$1.log 2>&1; echo "$1 build exit $?" >> $O/build-$1.log
}
( make -C /tmp/main -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
mkv nowait 's/while (load_acquire(d.done/while (false \&\& load_acquire(d.done/' &
mkv nofence 's/while (load_acquire(d.done/while (false \&\& load_acquire(d.done/; s/^            __threadfence();$//; s/^            atomicAdd(d.done + c, 1u);$//' &
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-deep.log 2>&1; echo "[$SECONDS s] deep build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-nowait.log $O/build-nofence.log; echo "[$SECONDS s] builds"
grep -c "while (false" /tmp/nowait/stencil/fdtd_vec.cu /tmp/nofence/stencil/fdtd_vec.cu; grep -c "atomicAdd(d.done" /tmp/nofence/stencil/fdtd_vec.cu
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__thread_count
for t in deep:bin:8 nowait:/tmp/nowait/bin:8 nofence:/tmp/nofence/bin:8; do
    IFS=: read n b k <<< "$t"
    timeout 100 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip $k --launch-count $k --metrics $M \
        $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu-$n.csv 2> $O/ncu-$n.err
    awk -f scripts/ncu-raw-per-point.awk $O/ncu-$n.csv > $O/ncu-$n.txt; echo "[$SECONDS s] $n ncu exit $?"
    awk '{print $1, $2, $3, $4, $5, $6, $7, $(NF-1), $NF}' $O/ncu-$n.txt
done
for n in main nowait nofence; do cp bin/trilap-bench /tmp/$n/bin/; done
timeout 150 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin deep=bin nowait=/tmp/nowait/bin nofence=/tmp/nofence/bin --rounds 2 --sizes 480 2> $O/cpml-progress.log | tail -n 5
gzip -9 $O/ncu-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session16-E.tgz session16 && rm -rf session16
