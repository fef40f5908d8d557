# session26 call C, run as: T=400 bash .carry/s26C.sh (kind nvidia-h200 named, timeout 430 s; an H100 came: a named kind without needs_h200 may run on either card), on 23aa98f
#!/usr/bin/env bash
# session26 call C (one H200): the merged z fold's L2 fabric figures at
# 480^3 (bench-cpml.sh --ncu-fabric: the fabric-busy bound of the CPML
# step against the step without, and s and k) with the ratio at 640^3
# beside 480^3, two repetitions; then bench-solvers-gpu.sh --quick with
# its matrices in a folder whose name holds a comma and a space (0bcc88b and 23aa98f; the read of
# trilap-solve's quoted matrix cell, never run on a GPU), on the tree at
# .trilap-commit
set -u
pack() { (cd $OUT && tar czf session26-C.tgz session26); }
export NCCL_NVLS_ENABLE=0
T=${T:-590}
O=$OUT/session26/C; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench bin/trilap-solve bin/trilap-analyze > $O/build.log 2>&1
echo "[$SECONDS s] build exit $?"
timeout 240 scripts/bench-cpml.sh $O/cpml --sizes "480 640" --reps 2 --ncu-fabric > $O/cpml.out 2>&1
echo "bench-cpml exit $?"; cat $O/cpml/table.txt $O/cpml/fabric.txt 2>/dev/null || tail -n 5 $O/cpml.out
echo "[$SECONDS s] cpml"
pack
rm -rf "/tmp/da, ta" && cp -r .carry/data "/tmp/da, ta"
TL_DATA="/tmp/da, ta" timeout $((T - 5 - SECONDS)) scripts/bench-solvers-gpu.sh --quick --budget $((T - 40 - SECONDS)) $O/solvers-quick > $O/solvers-quick.out 2>&1
echo "bench-solvers-gpu exit $?"; cat $O/solvers-quick/summary.txt 2>/dev/null | head -30 || tail -n 5 $O/solvers-quick.out
echo "[$SECONDS s] solvers"
pack
rm -rf $OUT/session26
