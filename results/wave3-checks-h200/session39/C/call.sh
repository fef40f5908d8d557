#!/usr/bin/env bash
# session39 call C: issue 29 point 1 and make check-gpu part 2 in one call. The x shell boxes narrowed:
# rows laid out so the low x slab's end is on a line and the interior's high x edge on a quad (qhi: x
# boxes 20 and 24 points at 20 cells, not 32 and 32), then those narrow boxes packed row after row into
# full warps in the velocity shell (packv) and in both updates (packvp); branch exp-xphase,
# .carry/xph-*.patch against .trilap-commit. Built beside main's whole build; then bench-cpml.sh at
# 480^3 and 1024^3, rounds alternated main / qhi / packv / packvp; the FDTD GPU tests on packvp (bit
# for bit); then make check-gpu part 2 on main with the time left.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session39/C; mkdir -p $O
pack() { (cd $OUT && tar czf session39-C.tgz session39); }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/xph-qhi.patch, xph-packv.patch, xph-packvp.patch" > $O/tree.txt
V="qhi packv packvp"
for v in $V; do
    rm -rf /tmp/$v && mkdir -p /tmp/$v && cp -a . /tmp/$v/
    tg="bin/trilap-fdtd bin/trilap-bench"; [ $v = packvp ] && tg="$tg build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks"
    (cd /tmp/$v && patch -p1 -s < .carry/xph-$v.patch && make -j3 CUDA_ARCH=90 $tg > $O/build-$v.log 2>&1; echo "build $v exit $?") &
done
TL_DATA=.carry/data scripts/device-session.sh $O/check-gpu-2 200 build > /dev/null 2>&1
tail -n 1 $O/check-gpu-2/session.log
wait
echo "[$SECONDS s] built"
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN="$mpirun_path"
bin_of() { [ "$1" = main ] && echo "$PWD/bin" || echo "/tmp/$1/bin"; }
for r in 1 2 3 4; do
    for v in main $V; do
        [ $SECONDS -lt ${ROUNDS_END:-300} ] || break 2
        TL_BIN=$(bin_of $v) timeout 60 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480 1024" --reps 1 > $O/cpml-$v-$r.out 2>&1
        echo "$v round $r exit $?"; grep -E '^ +(480|1024) ' $O/cpml-$v-$r/table.txt
    done
done
echo "[$SECONDS s] rounds"
mean() { cat $O/cpml-$1-*/cpml.csv 2>/dev/null | awk -F, -v n=$2 '$1 == n { s += $5 / $4; k++; if (!m || $5 / $4 < m) m = $5 / $4; if ($5 / $4 > M) M = $5 / $4 } END { printf "%.4f [%.4f-%.4f] (%d)", k ? s / k : 0, m, M, k }'; }
for n in 480 1024; do echo "$n means: main $(mean main $n)"; for v in $V; do echo "    $v $(mean $v $n)"; done; done | tee $O/means.txt
pack
(cd /tmp/packvp && TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=$PWD/.carry/data TL_TEST_TIMEOUT=100 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/test-gpu-fdtd-packvp.log 2>&1)
echo "[$SECONDS s] test_gpu_fdtd, test_gpu_fdtd_ranks packvp exit $?"; tail -n 1 $O/test-gpu-fdtd-packvp.log; grep "^not ok" $O/test-gpu-fdtd-packvp.log | head -5
pack
left=$((585 - SECONDS))
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((left - 10)) scripts/device-session.sh $O/check-gpu-2 $left check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
