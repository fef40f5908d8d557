#!/usr/bin/env bash
# session15 call E: main (b0d2fa2) against branch exp-vshell-one
# (.carry/vone): the velocity shell in one launch over its six boxes (the
# pressure shell's table), built for 14 blocks of 64 an SM (one14: 72
# registers, 28 B spilled) or 8 (one8: 126 registers, none); and call D's
# v8 (exp-vshell-regs: six launches at 8 blocks, 124 registers). The FDTD
# GPU tests on one8; three rounds of the four builds at 480^3 and 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session15/E; mkdir -p $O
mk() { # NAME TREE BLOCKS
    rm -rf /tmp/$1; cp -r $2 /tmp/$1
    sed -i "s/^#define TL_VSHELL_BLOCKS 14$/#define TL_VSHELL_BLOCKS $3/" /tmp/$1/stencil/fdtd_vec.cu
    grep -q "^#define TL_VSHELL_BLOCKS $3$" /tmp/$1/stencil/fdtd_vec.cu || echo "$1: no define"
    make -C /tmp/$1 -j4 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-$1.log 2>&1; echo "$1 build exit $?" >> $O/build-$1.log
}
mk one14 .carry/vone 14 & mk one8 .carry/vone 8 & mk v8 .carry/vregs 8 &
make -j4 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-one14.log $O/build-one8.log $O/build-v8.log; echo "[$SECONDS s] builds"
( cd /tmp/one8 && TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-one8.log 2>&1
grep "^not ok" $O/test-one8.log | head -5; tail -n1 $O/test-one8.log; echo "[$SECONDS s] tests"
for n in one14 one8 v8; do cp bin/trilap-bench /tmp/$n/bin/; done
scripts/bench-cpml-trees.sh $O/cpml main=bin one14=/tmp/one14/bin one8=/tmp/one8/bin v8=/tmp/v8/bin --rounds 3 2> $O/cpml-progress.log | tail -n 9
echo "[$SECONDS s] done"
cd $OUT && tar czf session15-E.tgz session15 && rm -rf session15
