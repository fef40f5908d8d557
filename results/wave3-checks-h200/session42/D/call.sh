#!/usr/bin/env bash
# session42 call D: the final tree after the analysis merges (host-staged breakdown, waiting rules, owner notes)
# and the make flags change: build, then the GPU tests that run trilap-analyze on multi-rank GPU traces
# and the probes' tests; run as "bash call.sh D"
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-D}; O=$OUT/session42/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
timeout 200 make -j16 CUDA_ARCH=90 all gpu-tests > $O/build.log 2>&1; echo "[$SECONDS s] build rc $?"
export TL_BUILD=build TL_BIN=bin TL_DATA=.carry/data TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
timeout 150 tests/run.sh build/tests/test_gpu_multirank build/tests/test_gpu_probes build/tests/test_gpu_fdtd_ranks > $O/gpu-tests.txt 2>&1
grep -E "^(not )?ok|passed," $O/gpu-tests.txt | tail -n 22; echo "[$SECONDS s] gpu tests"
gzip -9 $O/build.log $O/gpu-tests.txt
(cd $OUT && tar czf session42-$C.tgz session42) && rm -rf $OUT/session42
