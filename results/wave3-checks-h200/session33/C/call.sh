#!/usr/bin/env bash
# session33 call C: issue 29 point 1, the pressure update's z-slab build
# (the interior's launch) at 5 blocks of 256 an SM, as the plain build
# (ptxas: 48 registers, no spill; the velocity's stays at 4: at 48 it
# spills 36 B), against main in the same command: bench-cpml.sh at 480^3,
# 640^3 and 1024^3, rounds alternated main / pz5; then test_gpu_fdtd and
# test_gpu_fdtd_ranks on the variant (bit for bit against the single domain
# and the CPU).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session33/C; mkdir -p $O
pack() { (cd $OUT && tar czf session33-C.tgz session33); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/pz5.patch" > $O/tree.txt
rm -rf /tmp/pz5 && mkdir -p /tmp/pz5 && cp -a . /tmp/pz5/
(cd /tmp/pz5 && { git apply .carry/pz5.patch 2>/dev/null || patch -p1 -s < .carry/pz5.patch; } && make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-pz5.log 2>&1; echo "build pz5 exit $?") &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1
echo "build main exit $?"
wait
echo "[$SECONDS s] built"
bin_of() { [ "$1" = main ] && echo "$PWD/bin" || echo "/tmp/$1/bin"; }
for r in ${ROUNDS:-1 2 3}; do
    for v in main pz5; do
        TL_BIN=$(bin_of $v) timeout 90 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480 640 1024" --reps 1 > $O/cpml-$v-$r.out 2>&1
        echo "$v round $r exit $?"; grep -E '^ +(480|640|1024) ' $O/cpml-$v-$r/table.txt
    done
done
echo "[$SECONDS s] rounds"
pack
mean() { cat $O/cpml-$1-*/cpml.csv 2>/dev/null | awk -F, -v n=$2 '$1 == n { s += $5 / $4; k++ } END { printf "%.4f", k ? s / k : 0 }'; }
for n in 480 640 1024; do echo "$n means: main $(mean main $n) pz5 $(mean pz5 $n)"; done | tee $O/means.txt
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN="$mpirun_path"
(cd /tmp/pz5 && TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=$PWD/.carry/data TL_TEST_TIMEOUT=120 timeout $((560 - SECONDS)) tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-gpu-fdtd-pz5.log 2>&1)
echo "[$SECONDS s] test_gpu_fdtd, test_gpu_fdtd_ranks pz5 exit $?"; tail -n 1 $O/test-gpu-fdtd-pz5.log; grep "^not ok" $O/test-gpu-fdtd-pz5.log | head -5
pack
rm -rf $OUT/session33
