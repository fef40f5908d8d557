#!/usr/bin/env bash
# session7 call Y: this tree (a816671, main after session6's review) built
# whole, make check-gpu part 1 (the five long solver comparisons, after
# d097bc8 moved the one-rank rule into tl_cu_be_device_comm); the branch
# exp-cpml-faces-stream (.carry/fs = e659bef: the face builds, 48
# registers, on the CPML shell stream beside the interior) through the
# FDTD GPU tests and, if they pass, against this tree: CPML float 480/1024
# alternated; then ncu's per-instruction counts (source page, SASS) of
# this tree's float CPML velocity kernel on the z shell box and of the
# plain one on the interior, one launch each of the second step at 480^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session7/Y; mkdir -p $O/cpml $O/fs-tests $O/ncu
( make -C .carry/fs -j5 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/fs-tests/build.log 2>&1; echo "fs build exit $?" >> $O/fs-tests/build.log ) &
TL_DATA=.carry/data CHECK_GPU_LIMIT=230 scripts/device-session.sh $O/check-gpu-1 330 build,check-gpu-1 > /dev/null 2>&1
cat $O/check-gpu-1/session.log
grep -h "^not ok" $O/check-gpu-1/test-logs/*.log 2>/dev/null | head
wait; tail -n1 $O/fs-tests/build.log
( cd .carry/fs && TL_TEST_TIMEOUT=75 timeout 110 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/fs-tests/tests.log 2>&1
tail -n1 $O/fs-tests/tests.log; grep -h "^not ok" $O/fs-tests/tests.log | head
ok=0; grep -q " 0 failed" $O/fs-tests/tests.log && ok=1
cp bin/trilap-bench .carry/fs/bin/
echo "[$SECONDS s] bench"
for r in 1 2; do
  [ $r = 2 ] && [ $SECONDS -gt 470 ] && break
  timeout 70 scripts/bench-cpml.sh $O/cpml/main-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "main r$r"; tail -n2 $O/cpml/main-r$r/table.txt
  if [ $ok = 1 ]; then TL_BIN=.carry/fs/bin timeout 70 scripts/bench-cpml.sh $O/cpml/fs-r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1; echo "fs r$r"; tail -n2 $O/cpml/fs-r$r/table.txt; fi
  if [ $r = 1 ]; then
    NCU=/usr/local/cuda/bin/ncu; [ -x $NCU ] || NCU=$(ls /opt/nvidia/nsight-compute/*/ncu | head -1)
    for k in "Lb1E 6 zbox" "Lb0E 1 interior"; do set -- $k
      timeout 60 $NCU --kernel-name-base mangled --kernel-name regex:v_vec_kernelIfLi4ELi4ELi8ELi32E$1 --launch-skip $2 --launch-count 1 --section SourceCounters --section InstructionStats -o $O/ncu/$3 -f bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/$3.log 2>&1; echo "ncu $3 exit $?"
      timeout 30 $NCU -i $O/ncu/$3.ncu-rep --page source --print-source sass --csv > $O/ncu/$3-sass.csv 2>> $O/ncu/$3.log; echo "export $3 exit $? $(wc -l < $O/ncu/$3-sass.csv) lines"
    done
    echo "[$SECONDS s]"
  fi
done
gzip -9 $O/ncu/*.csv $O/check-gpu-1/test-logs.txt 2>/dev/null
echo "[$SECONDS s] done"
cd $OUT && tar czf session7-Y.tgz session7 && rm -rf session7
