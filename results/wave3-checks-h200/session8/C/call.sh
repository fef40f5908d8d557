#!/usr/bin/env bash
# session8 call C: this tree (6805996, main) built for the FDTD steps;
# where the CPML shell's L2 traffic goes: ncu's L1 / L2 / DRAM sector
# counts and the L2 and L1 throughput breakdowns of the second step's
# launches at 480^3 with 20 cells (the interior and six shell boxes, both
# updates) and without CPML; then, against main, CPML float 480/1024, two
# rounds alternated, and double 480 once:
#   .carry/b4: the shell's blocks 4 quads x 16 rows instead of 8 x 8 (64
#              threads: the y stencil's halo rows 1.5 a row instead of 2)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session8/C; mkdir -p $O/cpml $O/ncu
V="b4"
for t in $V; do
  ( make -C .carry/$t -j6 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j10 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "main build exit $?"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for c in 20 0; do
  n=14; [ $c = 0 ] && n=2
  timeout 120 $NCU --csv --page raw --kernel-name regex:vec --launch-skip $n --launch-count $n --metrics $M \
    bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml $c > $O/ncu/sectors-cpml$c.csv 2> $O/ncu/sectors-cpml$c.err; echo "ncu sectors cpml$c exit $?"
  timeout 120 $NCU --csv --page raw --kernel-name regex:vec --launch-skip $n --launch-count $n \
    --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active \
    bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml $c > $O/ncu/breakdown-cpml$c.csv 2> $O/ncu/breakdown-cpml$c.err; echo "ncu breakdown cpml$c exit $?"
done
echo "[$SECONDS s] ncu done"
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
for r in 1 2; do
  for t in main $V; do
    b=bin; [ $t != main ] && b=.carry/$t/bin
    TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
for t in main $V; do
  b=bin; [ $t != main ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
echo "[$SECONDS s] done"
gzip -9 $O/ncu/*.csv
cd $OUT && tar czf session8-C.tgz session8 && rm -rf session8
