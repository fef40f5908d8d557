# session27 call D: the command line was
#   echo "card: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"; T=560 bash .carry/s27D.sh
#!/usr/bin/env bash
# session27 call D (one GPU): the build and make check-gpu
# part 2 on the tree at .trilap-commit, the session's last (272a3fd: the
# manifest's block and the results file started in one hold of the
# folder lock, a results file named manifest.txt refused)
set -u
pack() { (cd $OUT && tar czf session27-D.tgz session27); }
export NCCL_NVLS_ENABLE=0
T=${T:-590}
O=$OUT/session27/D; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=290 scripts/device-session.sh $O/check-gpu-2 $((T - 10 - SECONDS)) build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log; grep "^not ok" $O/check-gpu-2/check-gpu.log | head
echo "[$SECONDS s] check-gpu-2"
pack
rm -rf $OUT/session27
