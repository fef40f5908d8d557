#!/usr/bin/env bash
# session9 call C: this tree (a51a5ad, branch exp-cpml-zthreads: float's CPML
# shell blocks hold 2 consecutive z planes side by side, threadIdx.z, over
# 8 rows: 128 threads, 7 per SM) against main (.carry/main = 5b1f80b) and
# the same with 2 planes over 4 rows (.carry/zt2r4: 64 threads, 14 per SM)
# and 4 planes over 4 rows (.carry/zt4r4: 128 threads). The FDTD GPU tests
# of this tree first (bit for bit), CPML float 480/1024 two rounds
# alternated, then ncu's counters and the L2 breakdown of this tree's
# second step at 480^3 with 20 cells, and the tests of the best carried
# variant where it beats this tree
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session9/C; mkdir -p $O/cpml $O/ncu
for t in main zt2r4 zt4r4; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-zt.log 2>&1; echo "zt build exit $?"
wait; tail -qn1 $O/build-*.log
for t in main zt2r4 zt4r4; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/zt-tests.log 2>&1
echo "[$SECONDS s] zt tests: $(tail -n1 $O/zt-tests.log)"; grep -h "^not ok" $O/zt-tests.log | head
run() { # tree round
  local b=bin; [ $1 = zt ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '{ printf " %s", $6 }' $O/cpml/$1-r$2/table.txt | tail -c 30)"
}
for r in 1 2; do for t in main zt zt2r4 zt4r4; do run $t $r; done; done
echo "[$SECONDS s] ncu"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
timeout 100 $NCU --csv --page raw --kernel-name regex:vec --launch-skip 14 --launch-count 14 --metrics $M \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/sectors-cpml20.csv 2> $O/ncu/sectors-cpml20.err; echo "ncu sectors exit $?"
timeout 100 $NCU --csv --page raw --kernel-name regex:vec --launch-skip 14 --launch-count 14 \
  --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/breakdown-cpml20.csv 2> $O/ncu/breakdown-cpml20.err; echo "ncu breakdown exit $?"
zcat -f $O/ncu/sectors-cpml20.csv | awk -f scripts/ncu-raw-per-point.awk | cut -c1-150
zcat -f $O/ncu/breakdown-cpml20.csv | awk -f scripts/ncu-raw-per-point.awk | cut -c1-80
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main zt zt2r4 zt4r4; do echo "$t 480 mean $(ratio $t)"; done
best=$(for t in zt2r4 zt4r4; do echo "$(ratio $t) $t"; done | sort -rn | head -1 | cut -d' ' -f2)
if awk -v a=$(ratio $best) -v b=$(ratio zt) 'BEGIN { exit !(a > b) }'; then
  ( cd .carry/$best && TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/$best-tests.log 2>&1
  echo "[$SECONDS s] $best tests: $(tail -n1 $O/$best-tests.log)"
fi
gzip -9 $O/ncu/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session9-C.tgz session9 && rm -rf session9
