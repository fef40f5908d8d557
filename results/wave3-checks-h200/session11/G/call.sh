#!/usr/bin/env bash
# session11 call G: main after the memory variables' rows were aligned
# (this tree): a traced step of 480^3 without and with 20 cells, as call B
# took of the tree before, so that the CPML step's fabric share is read
# against a step timed on the same tree
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/G; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-analyze > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
for c in 0 20; do
  timeout 60 bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 12 --warmup 3 --cpml $c --trace $O/trace-$c > $O/trace-$c.log 2>&1 || echo "trace $c failed"
  bin/trilap-analyze timeline $O/trace-$c --iter-range 7:7 -o $O/timeline-cpml$c-iter7.csv > /dev/null 2>&1 || echo "timeline $c failed"
  echo "timeline cpml $c:"; cut -d, -f8-10 $O/timeline-cpml$c-iter7.csv | tail -n +2 | tr '\n' ' '; echo
done
rm -rf $O/trace-*/
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-G.tgz session11 && rm -rf session11
