#!/usr/bin/env bash
# session16 call C: exp-deep-y after call B (the block's index as its
# ticket, its item by multiply and shift, the three chunks waited for at
# once, one fence a block): the FDTD GPU tests, ncu on each launch of the
# second step at 480^3 alone, and two rounds against main at 480^3 and
# 1024^3, with the deep launch built for 8 blocks of 64 an SM (128
# registers, no spill) and for 14 (deep14: 72 registers, 48 B spilled).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session16/C; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
mkv() { # NAME SED
    rm -rf /tmp/$1; mkdir -p /tmp/$1; tar --exclude=./build --exclude=./bin --exclude=./.carry --exclude=./results -cf - . | tar -xf - -C /tmp/$1
    sed -i "$2" /tmp/$1/stencil/fdtd_vec.cu
    make -C /tmp/$1 -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$1.log 2>&1; echo "$1 build exit $?" >> $O/build-$1.log
}
( make -C /tmp/main -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
mkv deep14 's/^#define TL_DEEP_BLOCKS 8 /#define TL_DEEP_BLOCKS 14 /' &
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd > $O/build-deep.log 2>&1; echo "[$SECONDS s] deep build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-deep14.log; echo "[$SECONDS s] builds"; grep -c "TL_DEEP_BLOCKS 14 " /tmp/deep14/stencil/fdtd_vec.cu
TL_BIN=bin timeout 200 tests/run.sh build/tests/test_gpu_fdtd > $O/test-deep.log 2>&1; echo "tests exit $?"
grep "^not ok" $O/test-deep.log | head -5; grep "deep\|passed" $O/test-deep.log | tail -n 2; echo "[$SECONDS s] tests"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__thread_count
for t in deep:bin:6 deep14:/tmp/deep14/bin:6; do
    IFS=: read n b k <<< "$t"
    timeout 100 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip $k --launch-count $k --metrics $M \
        $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu-$n.csv 2> $O/ncu-$n.err
    awk -f scripts/ncu-raw-per-point.awk $O/ncu-$n.csv > $O/ncu-$n.txt; echo "[$SECONDS s] $n ncu exit $?"
    awk '{print $1, $2, $3, $4, $5, $6, $7, $(NF-1), $NF}' $O/ncu-$n.txt
done
cp bin/trilap-bench /tmp/main/bin/; cp bin/trilap-bench /tmp/deep14/bin/
timeout 200 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin deep=bin deep14=/tmp/deep14/bin --rounds 2 2> $O/cpml-progress.log | tail -n 7
gzip -9 $O/ncu-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session16-C.tgz session16 && rm -rf session16
