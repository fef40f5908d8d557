# session28 call C, run as: bash .carry/s28C.sh (kind nvidia-h200 named, timeout 600 s; an H100 came), on 3af5b21
#!/usr/bin/env bash
# session28 call C (one GPU): on an H200 first the folded CPML step's L2
# fabric figures (s28A.sh's bench-cpml.sh --ncu-fabric at 480, 640, 1024);
# then make check-gpu part 2 and part 1 on the tree at .trilap-commit
# after merging the QA fixes (analysis, probes clock_align: thread ranks
# measured no more; test_gpu_solvers history names, decbbf7)
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session28/C; mkdir -p $O
pack() { (cd $OUT && tar czf session28-C.tgz session28); }
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "card: $name"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1
case $name in
    *H200*)
        make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-cpml.log 2>&1
        echo "[$SECONDS s] build exit $?"
        timeout 200 scripts/bench-cpml.sh $O/cpml --sizes "480 640 1024" --reps 2 --ncu-fabric > $O/cpml.out 2>&1
        echo "bench-cpml exit $?"; cat $O/cpml/table.txt $O/cpml/fabric.txt 2>/dev/null || tail -n 5 $O/cpml.out
        echo "[$SECONDS s] cpml"
        pack ;;
esac
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 $((560 - 140 - SECONDS)) build,check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log
zcat -f $O/check-gpu-2/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-2"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=$((575 - SECONDS)) scripts/device-session.sh $O/check-gpu-1 $((580 - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log
zcat -f $O/check-gpu-1/test-logs.txt* 2>/dev/null | grep "^not ok" | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session28
