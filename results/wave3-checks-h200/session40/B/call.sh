#!/usr/bin/env bash
# session40 call B: why the row phase alone costs 7.5 % (.carry/xph-lo.patch, branch exp-xphase e6e1c99),
# ncu's per-launch sections of one step against main's, bench-cpml.sh --ncu at 480^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session40/B; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/xph-lo.patch" > $O/tree.txt
rm -rf /tmp/lo && mkdir -p /tmp/lo && cp -a . /tmp/lo/
(cd /tmp/lo && patch -p1 -s < .carry/xph-lo.patch && make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-lo.log 2>&1; echo "build lo exit $?")
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-main.log 2>&1; echo "build main exit $?"
echo "[$SECONDS s] built"
for v in main lo; do
    b=$PWD/bin; [ $v = main ] || b=/tmp/$v/bin
    TL_BIN=$b timeout 250 scripts/bench-cpml.sh $O/ncu-$v --sizes "480" --reps 1 --ncu > $O/ncu-$v.out 2>&1
    echo "$v exit $? [$SECONDS s]"; grep -E '^ +480 ' $O/ncu-$v/table.txt
    cat $O/ncu-$v/ncu-480-cpml20.txt 2>/dev/null | head -30
    (cd $OUT && tar czf session40-B.tgz session40)
done
gzip -9 $O/ncu-*/*.csv 2>/dev/null
(cd $OUT && tar czf session40-B.tgz session40)
