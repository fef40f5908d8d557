#!/usr/bin/env bash
# session7 call Z: fewer instructions in the CPML shell. This tree
# (0c12ee8, branch exp-cpml-lean: the shell's boxes skip the warp vote,
# the three slab tests made once and packed in one register) and
# .carry/lb (the same with row0 from the host in the CPML build too) through the FDTD GPU
# tests; then CPML float 480/1024 against .carry/main (a816671), three
# rounds alternated; ncu per-instruction counts of the z shell box's
# velocity kernel in both
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session7/Z; mkdir -p $O/cpml $O/lb-tests $O/ncu
for t in lb main; do
  ( make -C .carry/$t -j5 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench $([ $t = lb ] && echo build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks) > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
TL_DATA=.carry/data scripts/device-session.sh $O/fdtd-tests 200 build-fdtd,fdtd-tests > /dev/null 2>&1
wait; tail -qn1 $O/build-*.log; cat $O/fdtd-tests/session.log
grep -h "^not ok" $O/fdtd-tests/*.log 2>/dev/null | head
( cd .carry/lb && TL_TEST_TIMEOUT=75 timeout 110 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/lb-tests/tests.log 2>&1
echo "lb: $(tail -n1 $O/lb-tests/tests.log)"; grep -h "^not ok" $O/lb-tests/tests.log | head
okA=0; grep -q " 0 failed" $O/fdtd-tests/session.log && okA=1
okB=0; grep -q " 0 failed" $O/lb-tests/tests.log && okB=1
echo "[$SECONDS s] bench"
for r in 1 2 3; do
  for t in main lean lb; do
    [ $t = lean ] && [ $okA = 0 ] && continue
    [ $t = lb ] && [ $okB = 0 ] && continue
    b=bin; [ $t != lean ] && b=.carry/$t/bin
    TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$t-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "$t r$r"; tail -n2 $O/cpml/$t-r$r/table.txt
  done
done
NCU=/usr/local/cuda/bin/ncu; [ -x $NCU ] || NCU=$(ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for t in lean lb; do
  b=bin; [ $t != lean ] && b=.carry/$t/bin
  timeout 60 $NCU --kernel-name-base mangled --kernel-name regex:v_vec_kernelIfLi4ELi4ELi8ELi32ELb1E --launch-skip 6 --launch-count 1 --section SourceCounters --section InstructionStats --section SpeedOfLight -o $O/ncu/zbox-$t -f $b/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/zbox-$t.log 2>&1; echo "ncu $t exit $?"
  timeout 30 $NCU -i $O/ncu/zbox-$t.ncu-rep --page source --print-source sass --csv > $O/ncu/zbox-$t-sass.csv 2>> $O/ncu/zbox-$t.log
  timeout 30 $NCU -i $O/ncu/zbox-$t.ncu-rep --page details --csv > $O/ncu/zbox-$t-details.csv 2>> $O/ncu/zbox-$t.log
done
gzip -9 $O/ncu/*.csv 2>/dev/null
echo "[$SECONDS s] done"
cd $OUT && tar czf session7-Z.tgz session7 && rm -rf session7
