#!/usr/bin/env bash
# session39 call D: call C's qhi with the row pitch of the unshifted layout (544 floats at 480^3; qhi's
# shift made it 512, a power of two): .carry/xph-pitch.patch; bench-cpml.sh at 480^3, rounds alternated
# main / pitch; main's bin from call C's build on the same machine
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session39/D; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/xph-pitch.patch" > $O/tree.txt
rm -rf /tmp/pitch && mkdir -p /tmp/pitch && cp -a . /tmp/pitch/
(cd /tmp/pitch && patch -p1 -s < .carry/xph-pitch.patch && make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-pitch.log 2>&1; echo "build pitch exit $?")
make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "build main exit $?"
echo "[$SECONDS s] built"
for r in 1 2 3; do for v in main pitch; do
    [ $SECONDS -lt 250 ] || break 2
    b=$PWD/bin; [ $v = main ] || b=/tmp/$v/bin
    TL_BIN=$b timeout 40 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480" --reps 1 > $O/cpml-$v-$r.out 2>&1
    echo "$v round $r exit $?"; grep -E '^ +480 ' $O/cpml-$v-$r/table.txt
done; done
(cd $OUT && tar czf session39-D.tgz session39)
