#!/usr/bin/env bash
# session39 call E: call D's tree (.carry/xph-pitch.patch) with the shell boxes' blocks from the line start at
# or below their first x, so that the y boxes' warps are on lines again (.carry/xph-line.patch holds both);
# bench-cpml.sh at 480^3, rounds alternated main / line
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session39/E; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
echo "commit $(cat .trilap-commit) and .carry/xph-line.patch" > $O/tree.txt
rm -rf /tmp/line && mkdir -p /tmp/line && cp -a . /tmp/line/
(cd /tmp/line && patch -p1 -s < .carry/xph-line.patch && make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-line.log 2>&1; echo "build line exit $?")
make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "build main exit $?"
echo "[$SECONDS s] built"
for r in 1 2 3; do for v in main line; do
    [ $SECONDS -lt 250 ] || break 2
    b=$PWD/bin; [ $v = main ] || b=/tmp/$v/bin
    TL_BIN=$b timeout 40 scripts/bench-cpml.sh $O/cpml-$v-$r --sizes "480" --reps 1 > $O/cpml-$v-$r.out 2>&1
    echo "$v round $r exit $?"; grep -E '^ +480 ' $O/cpml-$v-$r/table.txt
done; done
(cd $OUT && tar czf session39-E.tgz session39)
