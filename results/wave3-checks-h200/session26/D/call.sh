# session26 call D, run as: T=200 bash .carry/s26D.sh (kind nvidia-h100-x1, timeout 230 s: no H200 came in two tries), on 8939b87
#!/usr/bin/env bash
# session26 call D (one GPU, any card): bench-solvers-gpu.sh --quick with
# its matrices in a folder whose name holds a comma (eed1430's read of
# trilap-solve's quoted matrix cell, never run on a GPU), on the tree at
# .trilap-commit
set -u
pack() { (cd $OUT && tar czf session26-D.tgz session26); }
export NCCL_NVLS_ENABLE=0
T=${T:-590}
O=$OUT/session26/D; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
make -j16 CUDA_ARCH=90 bin/trilap-bench bin/trilap-solve bin/trilap-analyze > $O/build.log 2>&1
echo "[$SECONDS s] build exit $?"
rm -rf /tmp/da,ta && cp -r .carry/data /tmp/da,ta
TL_DATA=/tmp/da,ta timeout $((T - 5 - SECONDS)) scripts/bench-solvers-gpu.sh --quick --budget $((T - 40 - SECONDS)) $O/solvers-quick > $O/solvers-quick.out 2>&1
echo "bench-solvers-gpu exit $?"; head -n 30 $O/solvers-quick/summary.txt 2>/dev/null || tail -n 5 $O/solvers-quick.out
echo "[$SECONDS s] solvers"
pack
rm -rf $OUT/session26
