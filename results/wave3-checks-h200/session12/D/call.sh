#!/usr/bin/env bash
# session12 call D: the CPML shell run by the vector kernel two points
# wide (W = 2, float2) instead of four, in blocks of 16 pairs x 4 rows
# (64 threads, a warp row one 128-byte line), the interior as on main:
# w16, both shell kernels held to 16 blocks a SM (63 and 64 registers, no
# spill; 32 warps against main's 28); w1620, the pressure kernel to 20
# (48 registers, no spill; 40 warps). Three rounds alternated against
# main (039bec7); ncu's fabric figures of w1620's CPML step.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session12/D; mkdir -p $O/ncu
for t in w16 w1620; do
  ( make -C .carry/$t -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?"
wait; tail -qn1 $O/build-w16.log $O/build-w1620.log
for t in w16 w1620; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] bench"
scripts/bench-cpml-trees.sh $O/cpml main=bin w16=.carry/w16/bin w1620=.carry/w1620/bin --rounds 3 | tail -n 6
echo "[$SECONDS s] ncu"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
timeout 100 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip 14 --launch-count 14 --metrics $M \
  .carry/w1620/bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/fabric-cpml20-w1620.csv 2> $O/ncu/fabric-cpml20-w1620.err
echo "[$SECONDS s] ncu exit $?"
awk -f scripts/ncu-raw-per-point.awk $O/ncu/fabric-cpml20-w1620.csv | cut -c1-60
gzip -9 $O/ncu/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session12-D.tgz session12 && rm -rf session12
