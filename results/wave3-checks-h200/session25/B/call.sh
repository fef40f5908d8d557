# session25 call B, run as: T=340 bash .carry/s25.sh (kind nvidia-h200, timeout 370 s; an H100 came)
# .carry/s25.sh chose this script (the card is not an H200):
#!/usr/bin/env bash
# session25 call B (one GPU, whichever card): make check-gpu part 2 then
# part 1 on the tree at .trilap-commit (the build once): the GPU-side
# changes since session24/FG (persistent_loop test fix, the collective
# session opening, the injection's rank claim) have run on no GPU.
set -u
# the tgz after every step: a call cut short brings back only files two folders down
pack() { (cd $OUT && tar czf session25-B.tgz session25); }
export NCCL_NVLS_ENABLE=0
O=$OUT/session25/B; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=290 scripts/device-session.sh $O/check-gpu-2 $((${T:-590} - 10 - SECONDS)) build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log; grep "^not ok" $O/check-gpu-2/check-gpu.log | head
echo "[$SECONDS s] check-gpu-2"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=150 scripts/device-session.sh $O/check-gpu-1 $((${T:-590} - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log; grep "^not ok" $O/check-gpu-1/check-gpu.log | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session25
