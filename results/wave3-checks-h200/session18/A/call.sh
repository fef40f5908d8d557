#!/usr/bin/env bash
# session18 call A: branch exp-disjoint (.carry/disjoint, on main
# addae11's kernels): the compute stream in a green context of N SMs
# (TL_FDTD_SMS=N) and the CPML shell's stream on the SMs it leaves
# (TL_FDTD_SHELL_SMS=rest), against main on the whole GPU, two rounds
# alternated, 480^3, 20 cells, one --compare-cpml process a row: the
# branch's "none" figure is the plain kernel on N SMs (how far the plain
# update is from using every SM), its "CPML" figure the disjoint split.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session18/A; mkdir -p $O
rm -rf /tmp/dj; cp -r .carry/disjoint /tmp/dj
( make -C /tmp/dj -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-dj.log 2>&1; echo "dj build exit $?" >> $O/build-dj.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log
wait; tail -n1 $O/build-main.log $O/build-dj.log
echo "[$SECONDS s] built"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader > $O/gpu.txt
run() { # label, binary, env...
    local label=$1 bin=$2; shift 2
    env "$@" timeout 60 $bin run --backend cuda --kernel vec4-band --grid 480 --steps 100 --warmup 5 --cpml 20 \
        --source center --compare-cpml --label "$label" --results $O/fdtd.csv >> $O/runs.log 2>&1 || echo "$label failed" >> $O/runs.log
}
for r in 1 2; do
    run main-r$r bin/trilap-fdtd
    for n in 120 112 104 96 88 80 72; do
        run dj-$n-r$r /tmp/dj/bin/trilap-fdtd TL_FDTD_SMS=$n TL_FDTD_SHELL_SMS=rest
    done
    run main-r$r-b bin/trilap-fdtd
    echo "[$SECONDS s] round $r"
done
grep "SMs\|failed\|rror" $O/runs.log | sort | uniq -c | head -20
awk -F, 'NR>1 { k=$1; if ($14==0) none[k]=$17; else cpml[k]=$17; if (!(k in seen)) { seen[k]=1; o[++n]=k } }
    END { printf "%-14s %10s %10s\n", "label", "none", "cpml"; for (i=1;i<=n;i++) printf "%-14s %10.0f %10.0f\n", o[i], none[o[i]], cpml[o[i]] }' $O/fdtd.csv | tee $O/table.txt
echo "[$SECONDS s] done"
cd $OUT && tar czf session18-A.tgz session18 && rm -rf session18
