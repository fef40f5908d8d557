#!/usr/bin/env bash
# session30 call E (the session's device time ran low while machines failed
# to start: B, C, D never ran): issue 29 point 1, the pressure update's y
# slabs in the interior's launch (branch exp-pyfold) in two builds against
# main in the same command: early (the y slab's memory variable read with
# the stencil's loads where the quad is in no z slab; ptxas 64 registers,
# 8 B spilled) and late (read after the derivatives; no spill).
# bench-cpml.sh at 480^3 and 1024^3, rounds alternated main / early / late;
# test_gpu_fdtd on the better variant; then every GPU test binary but
# test_gpu_solvers on the tree at .trilap-commit (the solver comparisons,
# unchanged this session, do not fit).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session30/E; mkdir -p $O
pack() { (cd $OUT && tar czf session30-E.tgz session30); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit)" > $O/tree.txt
make -j16 CUDA_ARCH=90 all gpu-tests > $O/build-main.log 2>&1
echo "[$SECONDS s] build main exit $?"
apply() { git apply "$1" 2>/dev/null || patch -p1 -s < "$1"; }
for v in early late; do
    rm -rf /tmp/$v && mkdir -p /tmp/$v && cp -a . /tmp/$v/
    (cd /tmp/$v && apply .carry/pyfold-$v.patch &&
        make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd > $O/build-$v.log 2>&1; echo "build $v exit $?") &
done
wait
echo "[$SECONDS s] variants built"
bin_of() { [ "$1" = main ] && echo "$PWD/bin" || echo "/tmp/$1/bin"; }
for r in ${ROUNDS:-1 2 3}; do
    for v in main early late; do
        TL_BIN=$(bin_of $v) timeout 60 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480 1024" --reps 1 > $O/cpml-$v-$r.out 2>&1
        echo "$v round $r exit $?"; grep -E '^ +(480|1024) ' $O/cpml-$v-$r/table.txt
    done
done
echo "[$SECONDS s] rounds"
pack
mean() { cat $O/cpml-$1-*/cpml.csv 2>/dev/null | awk -F, '$1 == 480 { s += $5 / $4; n++ } END { printf "%.4f", n ? s / n : 0 }'; }
m=$(mean main); e=$(mean early); l=$(mean late)
best=$(awk -v e=$e -v l=$l 'BEGIN { print (e > l ? "early" : "late") }')
echo "480 means: main $m early $e late $l; tested: $best" | tee $O/chosen.txt
(cd /tmp/$best && TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=$PWD/.carry/data TL_TEST_TIMEOUT=75 timeout 90 tests/run.sh build/tests/test_gpu_fdtd > $O/test-gpu-fdtd-$best.log 2>&1)
echo "[$SECONDS s] test_gpu_fdtd $best exit $?"; tail -n 1 $O/test-gpu-fdtd-$best.log; grep "^not ok" $O/test-gpu-fdtd-$best.log | head -5
pack
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN="$mpirun_path"
TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=$PWD/.carry/data TL_TEST_TIMEOUT=80 timeout $((${T:-330} - SECONDS)) tests/run.sh \
    build/tests/test_gpu_nccl build/tests/test_gpu_runtime build/tests/test_gpu_probes build/tests/test_gpu_multirank \
    build/tests/test_gpu_bench build/tests/test_gpu_fdtd_ranks build/tests/test_gpu_fdtd > $O/gpu-tests-main.log 2>&1
echo "[$SECONDS s] GPU tests (all but test_gpu_solvers) exit $?"; tail -n 1 $O/gpu-tests-main.log; grep "^not ok" $O/gpu-tests-main.log | head
mkdir -p $O/test-logs && cp build/test-logs/*.log $O/test-logs/ 2>/dev/null
pack
rm -rf $OUT/session30
