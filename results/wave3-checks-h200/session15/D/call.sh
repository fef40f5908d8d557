#!/usr/bin/env bash
# session15 call D: main (b0d2fa2) against branch exp-vshell-regs
# (.carry/vregs): the velocity shell (float, blocks of 64) built for 12, 10
# or 8 blocks an SM instead of 14 (ptxas here: 80 registers and 4 B
# spilled, 96 and none, 124 and none; main 72 and 8 B), so that a warp
# holds its loads in flight in fewer batches. The SASS of the z-lo
# velocity shell build in main and v8; the FDTD GPU tests on v8; two
# rounds of the four builds at 480^3 and 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session15/D; mkdir -p $O
for n in 12 10 8; do
    rm -rf /tmp/v$n; cp -r .carry/vregs /tmp/v$n
    sed -i "s/^#define TL_VSHELL_BLOCKS 14$/#define TL_VSHELL_BLOCKS $n/" /tmp/v$n/stencil/fdtd_vec.cu
    grep -c "^#define TL_VSHELL_BLOCKS $n$" /tmp/v$n/stencil/fdtd_vec.cu > /dev/null || echo "v$n: no define"
    ( make -C /tmp/v$n -j4 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-v$n.log 2>&1; echo "v$n build exit $?" >> $O/build-v$n.log ) &
done
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-v*.log; echo "[$SECONDS s] builds"
for t in main:. v8:/tmp/v8; do
    o=$(find ${t#*:}/build -name 'fdtd_vec*.o' | head -1)
    /usr/local/cuda/bin/cuobjdump -sass $o | awk '/Function : .*_v_vec_kernel.*IfLi4ELi4ELi8ELi8ELb1E/ {on=1} on && /Function : / && !/_v_vec_kernel.*IfLi4ELi4ELi8ELi8ELb1E/ {on=0} on' | gzip > $O/sass-vshell-${t%%:*}.txt.gz
    echo "${t%%:*}: $(zcat $O/sass-vshell-${t%%:*}.txt.gz | grep -c LDG) LDG lines in $o"
done
( cd /tmp/v8 && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-v8.log 2>&1
grep "^not ok" $O/test-v8.log | head -5; tail -n1 $O/test-v8.log; echo "[$SECONDS s] tests"
for n in 12 10 8; do cp bin/trilap-bench /tmp/v$n/bin/; done
scripts/bench-cpml-trees.sh $O/cpml main=bin v12=/tmp/v12/bin v10=/tmp/v10/bin v8=/tmp/v8/bin --rounds 2 2> $O/cpml-progress.log | tail -n 9
echo "[$SECONDS s] done"
cd $OUT && tar czf session15-D.tgz session15 && rm -rf session15
