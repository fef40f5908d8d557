#!/usr/bin/env bash
# session16 call G: branch exp-shell-tma (this tree, after F) against main
# (.carry/main): the velocity shell's z stencil (7 planes of p, a block's 8
# rows of 8 quads each) copied into shared memory by cp.async.bulk on one
# mbarrier, then read from there: copies in flight hold no register and
# no L1 miss slot. After F (each block waited for its copies before any
# other load): every global load of a quad issued before the wait, built
# for 8 blocks of 64 an SM (tma8: 128 registers, no spill) or 10 (tma10:
# 96, none). A guarded first run, the FDTD GPU tests on tma8, ncu on each
# launch of the second step at 480^3 alone, two rounds at 480^3 and
# 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session16/G; mkdir -p $O
rm -rf /tmp/main; cp -r .carry/main /tmp/main
( make -C /tmp/main -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
( rm -rf /tmp/tma10; mkdir -p /tmp/tma10; tar --exclude=./build --exclude=./bin --exclude=./.carry --exclude=./results -cf - . | tar -xf - -C /tmp/tma10
  sed -i 's/^#define TL_TMA_BLOCKS 8 /#define TL_TMA_BLOCKS 10 /' /tmp/tma10/stencil/fdtd_vec.cu; grep -c "TL_TMA_BLOCKS 10 " /tmp/tma10/stencil/fdtd_vec.cu > $O/build-tma10.log
  make -C /tmp/tma10 -j5 CUDA_ARCH=90 bin/trilap-fdtd >> $O/build-tma10.log 2>&1; echo "tma10 build exit $?" >> $O/build-tma10.log ) &
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-tma.log 2>&1; echo "[$SECONDS s] tma build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-tma10.log; head -n1 $O/build-tma10.log; echo "[$SECONDS s] builds"
timeout 60 bin/trilap-fdtd run --backend cuda --grid 480 --steps 20 --cpml 20 > $O/first-run.txt 2>&1; echo "[$SECONDS s] first run exit $?"; tail -n 1 $O/first-run.txt
TL_BIN=bin timeout 300 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-tma.log 2>&1; echo "tests exit $?"
grep "^not ok" $O/test-tma.log | head -5; tail -n 1 $O/test-tma.log; echo "[$SECONDS s] tests"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__thread_count
for t in tma8:bin; do
    IFS=: read n b <<< "$t"
    timeout 100 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip 9 --launch-count 9 --metrics $M \
        $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu-$n.csv 2> $O/ncu-$n.err
    awk -f scripts/ncu-raw-per-point.awk $O/ncu-$n.csv > $O/ncu-$n.txt; echo "[$SECONDS s] $n ncu exit $?"
    awk '$1 ~ /^[0-9]+$/ {print $1, $2, $3, $4, $5, $6, $7, $(NF-1), $NF} $1 == "total"' $O/ncu-$n.txt
done
cp bin/trilap-bench /tmp/main/bin/; cp bin/trilap-bench /tmp/tma10/bin/
timeout 200 scripts/bench-cpml-trees.sh $O/cpml main=/tmp/main/bin tma8=bin tma10=/tmp/tma10/bin --rounds 2 2> $O/cpml-progress.log | tail -n 7
gzip -9 $O/ncu-*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session16-G.tgz session16 && rm -rf session16
