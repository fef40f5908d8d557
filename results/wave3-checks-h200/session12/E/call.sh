#!/usr/bin/env bash
# session12 call E: this tree (branch exp-shell-one-launch: the CPML
# shell's six boxes in one launch per update, each block finding its box
# in a table) against main (.carry/main = 46cab00) and a build with the
# pressure shell in one launch and the velocity shell in six as on main
# (.carry/onep: the one-launch velocity kernel spills 28 B, main's 8).
# The FDTD GPU tests on this tree first; three rounds alternated; double
# at 480^3; ncu's fabric figures of this tree's CPML step.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session12/E; mkdir -p $O/ncu
for t in main onep; do
  ( make -C .carry/$t -j5 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
make -j6 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-one.log 2>&1
echo "one build exit $?"
wait; tail -qn1 $O/build-main.log $O/build-onep.log
for t in main onep; do cp bin/trilap-bench .carry/$t/bin/; done
echo "[$SECONDS s] tests"
TL_BIN=bin timeout 150 tests/run.sh build/tests/test_gpu_fdtd > $O/test_gpu_fdtd.log 2>&1
tail -n1 $O/test_gpu_fdtd.log; grep "^not ok" $O/test_gpu_fdtd.log | head -5
TL_BIN=bin TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  TL_TEST_TIMEOUT=60 timeout 150 tests/run.sh build/tests/test_gpu_fdtd_ranks > $O/test_gpu_fdtd_ranks.log 2>&1
tail -n1 $O/test_gpu_fdtd_ranks.log; grep "^not ok" $O/test_gpu_fdtd_ranks.log | head -5
echo "[$SECONDS s] bench"
scripts/bench-cpml-trees.sh $O/cpml main=.carry/main/bin one=bin onep=.carry/onep/bin --rounds 3 | tail -n 6
for t in main one; do
  b=bin; [ $t != one ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
echo "[$SECONDS s] ncu"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
timeout 100 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip 4 --launch-count 4 --metrics $M \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/fabric-cpml20.csv 2> $O/ncu/fabric-cpml20.err
echo "[$SECONDS s] ncu exit $?"
awk -f scripts/ncu-raw-per-point.awk $O/ncu/fabric-cpml20.csv | cut -c1-70
gzip -9 $O/ncu/*.csv $O/*.log
echo "[$SECONDS s] done"
cd $OUT && tar czf session12-E.tgz session12 && rm -rf session12
