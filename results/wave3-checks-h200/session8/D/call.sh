#!/usr/bin/env bash
# session8 call D: this tree (6805996, main) built for the FDTD steps; the
# CPML run's timeline at 480^3 with 20 cells (the interior on its stream,
# the six shell boxes on theirs), and without CPML, by trilap's own
# probes (--trace: CUPTI kernel records), 12 steps each, two runs each
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session8/D; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-analyze > $O/build-main.log 2>&1; echo "main build exit $?"
for c in 20 0; do
  for r in 1 2; do
    timeout 60 bin/trilap-fdtd run --backend cuda --grid 480 --steps 12 --warmup 3 --cpml $c --trace $O/trace-cpml$c-r$r --results $O/run-cpml$c-r$r.csv > $O/run-cpml$c-r$r.log 2>&1; echo "cpml$c r$r exit $? $(cut -d, -f17 $O/run-cpml$c-r$r.csv | tail -n1) Mpoints/s"
  done
done
bin/trilap-analyze overlap $O/trace-cpml20-r1 > $O/overlap-cpml20-r1.txt 2>&1; head -30 $O/overlap-cpml20-r1.txt
gzip -9 $O/trace-*/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session8-D.tgz session8 && rm -rf session8
