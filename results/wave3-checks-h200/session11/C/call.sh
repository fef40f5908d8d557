#!/usr/bin/env bash
# session11 call C: main (this tree): ncu's L2 fabric counters of one FDTD
# step at 480^3 without CPML (the second step's two launches) and with 20
# cells (its fourteen), at the GPU's own clocks (--clock-control none, as
# the traced steps run), so that the bytes crossing the fabric of the two
# steps are set side by side from one call; then the SASS source counters
# of the z-lo shell box's velocity launch (which instructions make the
# L2 sectors it writes beyond its fields, memory variables and spill)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/C; mkdir -p $O/ncu
make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_write.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum,lts__ltcfabric2ltc_cycles_active.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
for c in 0 20; do
  skip=2; n=2; [ $c = 20 ] && skip=14 n=14
  timeout 120 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip $skip --launch-count $n --metrics $M \
    bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml $c > $O/ncu/fabric-cpml$c.csv 2> $O/ncu/fabric-cpml$c.err
  echo "[$SECONDS s] ncu cpml $c exit $?"
  awk -f scripts/ncu-raw-per-point.awk $O/ncu/fabric-cpml$c.csv | cut -c1-200
done
timeout 150 $NCU --clock-control none --section SourceCounters --csv --page source --print-source sass --kernel-name regex:vec --launch-skip 15 --launch-count 1 \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/source-zlo-v.csv 2> $O/ncu/source-zlo-v.err
echo "[$SECONDS s] ncu source exit $?"; tail -n 2 $O/ncu/source-zlo-v.err
head -c 1500 $O/ncu/source-zlo-v.csv | tail -c 900; echo
gzip -9 $O/ncu/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-C.tgz session11 && rm -rf session11
