#!/usr/bin/env bash
# session27: on an H200, the folded CPML step's L2 fabric figures, then
# make check-gpu part 2 (s27A.sh); on any other card, part 2 alone (s27B.sh)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "card: $name"
case $name in
    *H200*) exec bash .carry/s27A.sh ;;
    *) exec bash .carry/s27B.sh ;;
esac
#!/usr/bin/env bash
# session27 call C (one GPU, not an H200): the build and make check-gpu
# part 2 on the tree at .trilap-commit: the manifest's blocks begun before
# the first row (0ee1133: trilap-bench stream / comm / tristream,
# trilap-fdtd, trilap-solve on the cuda backend) and the trace reader
# through runtime/gzin (49ecb43)
set -u
pack() { (cd $OUT && tar czf session27-C.tgz session27); }
export NCCL_NVLS_ENABLE=0
T=${T:-590}
O=$OUT/session27/C; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data CHECK_GPU_LIMIT=290 scripts/device-session.sh $O/check-gpu-2 $((T - 10 - SECONDS)) build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log; grep "^not ok" $O/check-gpu-2/check-gpu.log | head
echo "[$SECONDS s] check-gpu-2"
pack
rm -rf $OUT/session27
