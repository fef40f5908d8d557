#!/usr/bin/env bash
# session20 call D: issue 29s rows again on this tree, part 2:
# point 3's other rows (bench-trace-overhead.sh solver at 256^3, 300
# iterations; the one-GPU tristream, three times) and point 4
# (bench-cg.sh at 128^3, 1,000 iterations, and at 256^3, 300, two rounds).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session20/D; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "build exit $?" >> $O/build.log
tail -n1 $O/build.log; echo "[$SECONDS s] built"
OUT=$O/trace-256/raw timeout 120 scripts/bench-trace-overhead.sh solver gen:poisson7:256 300 > $O/trace-256.txt 2>&1; echo "[$SECONDS s] trace 256 exit $?"
tail -n 6 $O/trace-256.txt
for k in 1 2 3; do
  OUT=$O/trace-tri-$k/raw timeout 60 scripts/bench-trace-overhead.sh 1 three-split > $O/trace-tri-$k.txt 2>&1; echo "[$SECONDS s] trace tristream $k exit $?"
  tail -n 5 $O/trace-tri-$k.txt
done
ROUNDS=2 OUT=$O/cg-128/raw timeout 120 scripts/bench-cg.sh 128 1000 > $O/cg-128.txt 2>&1; echo "[$SECONDS s] cg 128 exit $?"
tail -n 10 $O/cg-128.txt
ROUNDS=2 OUT=$O/cg-256/raw timeout 330 scripts/bench-cg.sh 256 300 > $O/cg-256.txt 2>&1; echo "[$SECONDS s] cg 256 exit $?"
tail -n 10 $O/cg-256.txt
cd $OUT && tar czf session20-D.tgz session20 && rm -rf session20
