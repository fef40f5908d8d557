#!/usr/bin/env bash
# session15 call C (call B again, the driver entry points at CUDA 13.0): main (b0d2fa2) against branch exp-shell-green
# (.carry/green): the CPML shell's stream in a green context of N SMs
# (TL_FDTD_SHELL_SMS=N), the interior on the primary context's every SM.
# A first run says whether a runtime launch takes the green stream (else
# the stream made by the runtime with the green context current); the
# FDTD GPU tests at N=64; then two rounds of main and N = 32..96 at 480^3
# and 1024^3.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session15/C; mkdir -p $O
G=$PWD/.carry/green
( make -C .carry/green -j8 CUDA_ARCH=90 bin/trilap-fdtd build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-green.log 2>&1; echo "green build exit $?" >> $O/build-green.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "[$SECONDS s] main build exit $?"
wait; tail -qn1 $O/build-green.log; echo "[$SECONDS s] builds"
RT=""
if ! TL_FDTD_SHELL_SMS=64 $G/bin/trilap-fdtd run --backend cuda --grid 480 --steps 20 --cpml 20 > $O/first.log 2>&1; then
    echo "driver stream failed:"; tail -n 3 $O/first.log
    RT=1
    TL_FDTD_SHELL_SMS=64 TL_FDTD_SHELL_GREEN_RT=1 $G/bin/trilap-fdtd run --backend cuda --grid 480 --steps 20 --cpml 20 > $O/first-rt.log 2>&1; echo "runtime stream exit $?"; tail -n 3 $O/first-rt.log
fi
grep -h "SMs" $O/first*.log | head -2
( cd .carry/green && env TL_FDTD_SHELL_SMS=64 ${RT:+TL_FDTD_SHELL_GREEN_RT=1} TL_BIN=bin tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks ) > $O/test-green.log 2>&1
grep -E "^(ok|not ok)" $O/test-green.log | grep -c "^ok"; grep "^not ok" $O/test-green.log | head -5; tail -n1 $O/test-green.log; echo "[$SECONDS s] tests"
args=(main=bin)
for n in 32 48 64 80 96; do
    d=$O/bin-g$n; mkdir -p $d; ln -s $PWD/bin/trilap-bench $d/trilap-bench
    printf '#!/bin/sh\nTL_FDTD_SHELL_SMS=%s %s exec %s "$@"\n' $n "${RT:+TL_FDTD_SHELL_GREEN_RT=1}" $G/bin/trilap-fdtd > $d/trilap-fdtd; chmod +x $d/trilap-fdtd
    args+=(g$n=$d)
done
scripts/bench-cpml-trees.sh $O/cpml "${args[@]}" --rounds 2 2> $O/cpml-progress.log | tail -n 13
echo "[$SECONDS s] done"
rm -rf $O/bin-g*
cd $OUT && tar czf session15-C.tgz session15 && rm -rf session15
