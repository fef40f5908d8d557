#!/usr/bin/env bash
# session11 call A: this tree (branch exp-cpml-cs, cs1: the CPML build's
# memory variables read and written with the streaming hint, ld/st.global.cs)
# and copies (cs2: the CPML build's read-back fields too; cs3: the fields in
# both builds) against main (.carry/main = 5b1f80b, main's kernels): the FDTD
# GPU tests of this tree, CPML float 480/1024 three rounds alternated; then
# ncu on main's second step (14 launches): the L2 fabric counters ncu has
# for this chip and the L2 sectors' min / max over its slices
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session11/A; mkdir -p $O/cpml $O/ncu
V="main cs2 cs3"
for t in $V; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-cs1.log 2>&1; echo "cs1 build exit $?"
wait; tail -qn1 $O/build-*.log
for t in $V; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/cs1-tests.log 2>&1
echo "[$SECONDS s] cs1 tests: $(tail -n1 $O/cs1-tests.log)"; grep -h "^not ok" $O/cs1-tests.log | head
run() { # tree round
  local b=bin; [ $1 = cs1 ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2 3; do for t in main cs1 cs2 cs3; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main cs1 cs2 cs3; do echo "$t 480 mean $(ratio $t)"; done
echo "[$SECONDS s] ncu"
NCU=/usr/local/cuda/bin/ncu
$NCU --query-metrics --chip gh100 > $O/ncu/query-gh100.txt 2>&1
grep -i fabric $O/ncu/query-gh100.txt > $O/ncu/query-fabric.txt
FAB=$(awk 'tolower($0) ~ /fabric/ && $1 ~ /^lts__/ && $2 == "Counter" { printf "%s%s.sum", n++ ? "," : "", $1 }' $O/ncu/query-gh100.txt)
echo "fabric counters: $FAB"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.min,lts__t_sectors_srcunit_tex_op_read.max,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.min,lts__t_sectors_srcunit_tex_op_write.max,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__ltcfabric2ltc_cycles_active.sum,lts__ltcfabric2ltc_cycles_active.min,lts__ltcfabric2ltc_cycles_active.max,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed${FAB:+,$FAB}
timeout 150 $NCU --csv --page raw --kernel-name regex:vec --launch-skip 14 --launch-count 14 --metrics $M \
  .carry/main/bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/fabric-cpml20.csv 2> $O/ncu/fabric-cpml20.err; echo "[$SECONDS s] ncu exit $?"
tail -n 3 $O/ncu/fabric-cpml20.err
awk -f scripts/ncu-raw-per-point.awk $O/ncu/fabric-cpml20.csv | cut -c1-400
gzip -9 $O/ncu/*.csv $O/ncu/query-gh100.txt
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-A.tgz session11 && rm -rf session11
