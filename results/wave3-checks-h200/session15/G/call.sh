#!/usr/bin/env bash
# session15 call G: main (b0d2fa2) against branch exp-shell-prio
# (.carry/prio): the order and priority of the shell beside the interior.
# sf: the shell's launches enqueued before the interior's (-DTL_SHELL_FIRST
# in a copy), the shell at the greatest priority as on main; sf-same: the
# same with the shell at the interior's priority
# (TL_FDTD_SHELL_SAME_PRIORITY=1); same: the interior first (main's
# order), the shell at its priority. The FDTD GPU tests on sf at the same
# priority; three rounds of the four builds at 480^3 and 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session15/G; mkdir -p $O
rm -rf /tmp/sf; cp -r .carry/prio /tmp/sf
sed -i '1i #define TL_SHELL_FIRST 1' /tmp/sf/stencil/fdtd_vec.cu
( make -C /tmp/sf -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-sf.log 2>&1; echo "sf build exit $?" >> $O/build-sf.log ) &
( make -C .carry/prio -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-prio.log 2>&1; echo "prio build exit $?" >> $O/build-prio.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-sf.log $O/build-prio.log; echo "[$SECONDS s] builds"
( cd /tmp/sf && TL_FDTD_SHELL_SAME_PRIORITY=1 TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-sf-same.log 2>&1
grep "^not ok" $O/test-sf-same.log | head -5; tail -n1 $O/test-sf-same.log; echo "[$SECONDS s] tests"
cp bin/trilap-bench /tmp/sf/bin/
wrap() { # DIR BINARY: DIR/trilap-fdtd runs BINARY at the interior's priority
    mkdir -p $1; ln -sf $PWD/bin/trilap-bench $1/trilap-bench
    printf '#!/bin/sh\nTL_FDTD_SHELL_SAME_PRIORITY=1 exec %s "$@"\n' $2 > $1/trilap-fdtd; chmod +x $1/trilap-fdtd
}
wrap /tmp/w-sfsame /tmp/sf/bin/trilap-fdtd
wrap /tmp/w-same $PWD/.carry/prio/bin/trilap-fdtd
scripts/bench-cpml-trees.sh $O/cpml main=bin sf=/tmp/sf/bin sf-same=/tmp/w-sfsame same=/tmp/w-same --rounds 3 2> $O/cpml-progress.log | tail -n 9
echo "[$SECONDS s] done"
cd $OUT && tar czf session15-G.tgz session15 && rm -rf session15
