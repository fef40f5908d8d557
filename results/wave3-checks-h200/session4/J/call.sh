#!/usr/bin/env bash
# session4 call J: build; the SASS of the float order-8 vec kernels (plain and
# CPML) and ncu's instruction statistics of one pressure update's launches
# (interior and shell) at 480^3; cg/pcg against pipecg at 256^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session4; mkdir -p $O/sass $O/cg
scripts/device-session.sh $O/build-J 200 build > /dev/null 2>&1; head -1 $O/build-J/session.log
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CO -sass build/obj/stencil/fdtd_vec.o > $O/sass/all.sass 2>&1
awk '/Function : .*_vec_kernelIfLi4ELi4ELi8ELi32ELb[01]E/{f=1} f&&/Function : /&&!/_vec_kernelIfLi4ELi4ELi8ELi32ELb[01]E/{f=0} f' $O/sass/all.sass > $O/sass/f4-8x32.sass
wc -l $O/sass/f4-8x32.sass; gzip -9 $O/sass/all.sass
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for k in p v; do
timeout 120 $NCU --csv --page details --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
  --kernel-name regex:${k}_vec --launch-skip 7 --launch-count 7 bin/trilap-fdtd run --backend cuda --grid 480 --steps 3 --cpml 20 > $O/sass/ncu-480-$k.csv 2>&1; echo "ncu $k exit $?"
done
gzip -9 $O/sass/ncu-480-*.csv
OUT=$O/cg/raw-256 ROUNDS=1 timeout 110 scripts/bench-cg.sh 256 300 > $O/cg/bench-cg-256.txt 2>&1; tail -9 $O/cg/bench-cg-256.txt
cd $OUT && tar czf session4-J.tgz session4 && rm -rf session4
