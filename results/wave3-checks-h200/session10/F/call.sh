#!/usr/bin/env bash
# session10 call F: this tree (branch exp-cpml-zin, as call E) built for the
# FDTD steps; ncu's counters and L2 breakdown of the second step's ten
# launches at 480^3 with 20 cells (the interior through all z by the ZS
# build, the y and x shell boxes), as session8/C took main's
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session10/F; mkdir -p $O/ncu
make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-zin.log 2>&1; echo "[$SECONDS s] zin build exit $?"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
timeout 100 $NCU --csv --page raw --kernel-name regex:vec --launch-skip 10 --launch-count 10 --metrics $M \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/sectors-cpml20.csv 2> $O/ncu/sectors-cpml20.err; echo "[$SECONDS s] ncu sectors exit $?"
timeout 100 $NCU --csv --page raw --kernel-name regex:vec --launch-skip 10 --launch-count 10 \
  --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/breakdown-cpml20.csv 2> $O/ncu/breakdown-cpml20.err; echo "[$SECONDS s] ncu breakdown exit $?"
awk -f scripts/ncu-raw-per-point.awk $O/ncu/sectors-cpml20.csv | cut -c1-140
awk -f scripts/ncu-raw-per-point.awk $O/ncu/breakdown-cpml20.csv | tail -n 1
gzip -9 $O/ncu/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session10-F.tgz session10 && rm -rf session10
