#!/usr/bin/env bash
# flow2's dataflow with the dot kernel's grid capped at 1056 (as flow2), 2048 and 4096 blocks
# (a block per tile at 128^3 from 2048 on), against main's build, side by side; the prototype for reference
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data
t0=$(date +%s)
for d in 1056 2048 4096; do
  mkdir -p /tmp/f$d && tar xzf .carry/flow2src.tgz -C /tmp/f$d
  sed -i "s/TL_CU_DOT_BLOCKS = 1056/TL_CU_DOT_BLOCKS = $d/" /tmp/f$d/solvers/backends/cuda/kernels.h
  grep -c "TL_CU_DOT_BLOCKS = $d" /tmp/f$d/solvers/backends/cuda/kernels.h
  (cd /tmp/f$d && make -j4 CUDA_ARCH=90 bin/trilap-solve >$OUT/build-f$d.log 2>&1; echo "f$d rc $?") &
done
(make -j4 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench >$OUT/build-main.log 2>&1; echo "main rc $?") &
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/flowp .carry/cmd/flow.cu || echo "proto build failed"
wait
echo "build $(( $(date +%s) - t0 )) s"
timeout 40 /tmp/flowp 128 300 1024 | tee $OUT/proto.txt
for d in 2048 1056 4096; do
  SOLVE=/tmp/f$d/bin/trilap-solve VARIANTS="base=" timeout 100 scripts/bench-solver-roof.sh --old bin/trilap-solve --budget 80 --marginal --sizes "128 256" $OUT/f$d > $OUT/f$d-console.txt 2>&1; echo "roof f$d rc $?"
  awk '/^# marginal/{m=1} m' $OUT/f$d/summary.txt | grep -v cusparse
  cat $OUT/f$d/bits.txt
  echo "f$d done $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz f1056 f2048 f4096 *-console.txt build-*.log proto.txt && rm -rf f1056 f2048 f4096)
