#!/usr/bin/env bash
# session6 call X: issue 29 point 3 again after point 2's changes (the op
# timer at 1 call in 32, no device communicator on one rank), this tree
# (main after the session's solver changes): tracing's cost on Pipe-PCG
# poisson7 128^3, untraced / --trace DIR / --trace DIR --cupti alternated,
# three rounds; then the same for pcg
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session6/X; mkdir -p $O
make -j16 CUDA_ARCH=90 bin/trilap-solve > $O/build.log 2>&1; echo "build exit $?"
OUT=$O/pipecg-128 timeout 150 scripts/bench-trace-overhead.sh solver gen:poisson7:128 1000 > $O/pipecg-128.txt 2>&1; cat $O/pipecg-128.txt
OUT=$O/pcg-128 timeout 150 scripts/bench-trace-overhead.sh solver gen:poisson7:128 1000 -- --solver pcg > $O/pcg-128.txt 2>&1; cat $O/pcg-128.txt
find $O -name "*.json" -size +200k -exec gzip -9 {} \; 2>/dev/null
cd $OUT && tar czf session6-X.tgz session6 && rm -rf session6
