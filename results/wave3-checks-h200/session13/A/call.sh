#!/usr/bin/env bash
# session13 call A: this tree (main 3b789c2: test_gpu_fdtd's three
# GPU-against-CPU comparisons as one helper): make check-gpu part 2; then
# three rounds of main against two shell builds specialised by slab axes
# (.carry/ax: velocity boxes only; .carry/axp: and the pressure shell in a
# launch per axis), 480^3 and 1024^3
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session13/A; mkdir -p $O
for t in ax axp; do
  ( make -C .carry/$t -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-$t.log 2>&1; echo "$t build exit $?" >> $O/build-$t.log ) &
done
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs.txt 2>/dev/null | head
grep -h "relative difference" $O/check-gpu-2/test-logs.txt 2>/dev/null | grep -c . 
wait; tail -qn1 $O/build-ax.log $O/build-axp.log
cp bin/trilap-bench .carry/ax/bin/; cp bin/trilap-bench .carry/axp/bin/
echo "[$SECONDS s] bench"
scripts/bench-cpml-trees.sh $O/cpml main=bin ax=.carry/ax/bin axp=.carry/axp/bin --rounds 3 | tail -n 5
echo "[$SECONDS s] done"
cd $OUT && tar czf session13-A.tgz session13 && rm -rf session13
