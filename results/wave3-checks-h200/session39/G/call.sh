#!/usr/bin/env bash
# session39 call G: the row phase alone (.carry/xph-lo.patch, branch exp-xphase e6e1c99: the low x slab's end on a
# line, the interior from x = 20; its high edge still on a line), against main; bench-cpml.sh at 480^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session39/G; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/xph-lo.patch" > $O/tree.txt
rm -rf /tmp/lo && mkdir -p /tmp/lo && cp -a . /tmp/lo/
(cd /tmp/lo && patch -p1 -s < .carry/xph-lo.patch && make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-lo.log 2>&1; echo "build lo exit $?")
make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "build main exit $?"
echo "[$SECONDS s] built"
for r in 1 2; do for v in main lo; do
    [ $SECONDS -lt 100 ] || break 2
    b=$PWD/bin; [ $v = main ] || b=/tmp/$v/bin
    TL_BIN=$b timeout 40 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480" --reps 1 > $O/cpml-$v-$r.out 2>&1
    echo "$v round $r exit $?"; grep -E '^ +480 ' $O/cpml-$v-$r/table.txt
done; done
(cd $OUT && tar czf session39-G.tgz session39)
