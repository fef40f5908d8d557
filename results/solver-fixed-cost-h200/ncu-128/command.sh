#!/usr/bin/env bash
# Run 0: ncu on the 128^3 Pipe-PCG kernels (current tree), stream at small sizes
set -u
export NCCL_NVLS_ENABLE=0
T0=$SECONDS
make -j16 CUDA_ARCH=90 TRILAP_COMMIT=$(cat .trilap-commit) bin/trilap-solve bin/trilap-bench >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build $((SECONDS-T0)) s"
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); [ -z "$NCU" ] && NCU=$(command -v ncu)
echo "ncu: $NCU"; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv
bin/trilap-bench stream --count 2097152 --iters 200 2>&1 | tail -8
bin/trilap-bench stream --count 16777216 --iters 100 2>&1 | tail -8
S="bin/trilap-solve --launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --schedule sync --precond jacobi --rtol 0 --atol 0 --max-iterations 30 --warmup 0 --repeat 1 --no-op-timer gen:poisson7:128"
for v in base:"" tail:"--fuse-tail" fused:"--fuse"; do
  n=${v%%:*} o=${v#*:}
  timeout 150 $NCU --clock-control none --cache-control all -k 'regex:tl_' --launch-skip 60 --launch-count 8 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --csv --page details $S $o >$OUT/ncu-$n.csv 2>$OUT/ncu-$n.err
  echo "ncu $n rc=$? $((SECONDS-T0)) s"; tail -3 $OUT/ncu-$n.err
done
timeout 100 $NCU --clock-control none --cache-control none -k 'regex:tl_' --launch-skip 60 --launch-count 8 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
  --csv --page raw $S >$OUT/ncu-base-warm.csv 2>$OUT/ncu-base-warm.err
echo "ncu warm rc=$? $((SECONDS-T0)) s"
gzip -9 $OUT/*.csv
