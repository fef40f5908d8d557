#!/usr/bin/env bash
# session37 call A: issue 29 point 1, the x slabs folded into the interior's launch beside the z slabs
# (branch exp-xfold, .carry/xfold.patch: the cut keeps the interior whole along x; a quad of an x edge
# corrects x with one memory-variable vector, a quad cut by a slab's edge goes point by point, the x-z
# corners are shell boxes; ptxas: 64 registers, 8 B spilled in each folded kernel, 0 on main), and the
# fold in the velocity update alone (xfold-v) or the pressure update alone (xfold-p), against main in the
# same command: the FDTD GPU tests on xfold first (bit for bit), then bench-cpml.sh at 480^3, 640^3 and
# 1024^3, rounds alternated main / xfold / xfold-v / xfold-p.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session37/A; mkdir -p $O
pack() { (cd $OUT && tar czf session37-A.tgz session37); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/xfold.patch, xfold-v.patch, xfold-p.patch" > $O/tree.txt
V="xfold xfold-v xfold-p"
for v in $V; do
    rm -rf /tmp/$v && mkdir -p /tmp/$v && cp -a . /tmp/$v/
    tg="bin/trilap-fdtd bin/trilap-bench"; [ $v = xfold ] && tg="$tg build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks"
    (cd /tmp/$v && { git apply .carry/$v.patch 2>/dev/null || patch -p1 -s < .carry/$v.patch; } && make -j4 CUDA_ARCH=90 $tg > $O/build-$v.log 2>&1; echo "build $v exit $?") &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1
echo "build main exit $?"
wait
echo "[$SECONDS s] built"
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN="$mpirun_path"
(cd /tmp/xfold && TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=$PWD/.carry/data TL_TEST_TIMEOUT=100 timeout 200 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-gpu-fdtd-xfold.log 2>&1)
echo "[$SECONDS s] test_gpu_fdtd, test_gpu_fdtd_ranks xfold exit $?"; tail -n 1 $O/test-gpu-fdtd-xfold.log; grep "^not ok" $O/test-gpu-fdtd-xfold.log | head -5
pack
bin_of() { [ "$1" = main ] && echo "$PWD/bin" || echo "/tmp/$1/bin"; }
for r in ${ROUNDS:-1 2 3 4 5}; do
    for v in main $V; do
        [ $SECONDS -lt 520 ] || break 2
        TL_BIN=$(bin_of $v) timeout 60 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480 640 1024" --reps 1 > $O/cpml-$v-$r.out 2>&1
        echo "$v round $r exit $?"; grep -E '^ +(480|640|1024) ' $O/cpml-$v-$r/table.txt
    done
done
echo "[$SECONDS s] rounds"
mean() { cat $O/cpml-$1-*/cpml.csv 2>/dev/null | awk -F, -v n=$2 '$1 == n { s += $5 / $4; k++; if (!m || $5 / $4 < m) m = $5 / $4; if ($5 / $4 > M) M = $5 / $4 } END { printf "%.4f [%.4f-%.4f] (%d)", k ? s / k : 0, m, M, k }'; }
for n in 480 640 1024; do echo "$n means: main $(mean main $n)"; for v in $V; do echo "    $v $(mean $v $n)"; done; done | tee $O/means.txt
pack
rm -rf $OUT/session37
