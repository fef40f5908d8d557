# session28 call A, run as: bash .carry/s28.sh (kind nvidia-h200 named, timeout 400 s; an H200 came), on 3af5b21; s28.sh runs s28A.sh on an H200 and stops on any other card
# --- .carry/s28.sh
#!/usr/bin/env bash
# session28: on an H200, the folded CPML step's L2 fabric figures, then
# nothing more (s28A.sh); on any other card, nothing (calls B and C ran
# make check-gpu part 2 there)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "card: $name"
case $name in
    *H200*) exec bash .carry/s28A.sh ;;
    *) exit 0 ;;
esac
# --- .carry/s28A.sh
#!/usr/bin/env bash
# session28 call A (one H200): issue 29 point 1 with the merged z fold,
# bench-cpml.sh at 480^3, 640^3 and 1024^3, two repetitions, with
# --ncu-fabric at 480^3: the folded step's bytes over the L2 fabric and its
# busy time against the step without CPML (the fabric-busy bound on the
# card the target is set on), and s and k
set -u
pack() { (cd $OUT && tar czf session28-A.tgz session28); }
export NCCL_NVLS_ENABLE=0
O=$OUT/session28/A; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1
echo "[$SECONDS s] build exit $?"
timeout 300 scripts/bench-cpml.sh $O/cpml --sizes "480 640 1024" --reps 2 --ncu-fabric > $O/cpml.out 2>&1
echo "bench-cpml exit $?"; cat $O/cpml/table.txt $O/cpml/fabric.txt 2>/dev/null || tail -n 5 $O/cpml.out
echo "[$SECONDS s] cpml"
pack
rm -rf $OUT/session28
