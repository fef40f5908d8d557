#!/usr/bin/env bash
# session11 call E: this tree (branch exp-psi-align: the y and z slabs'
# memory variables in rows whose x = 0 sits on a 128-byte line, as the
# fields' do, instead of 16 bytes into a sector): make check-gpu part 2 on
# it (every GPU test but the five long solver comparisons; the FDTD tests,
# decomposed runs bit for bit, among them), then against main (.carry/main
# = 5b1f80b, main's kernels and layout): CPML float 480/1024, three rounds
# alternated, double 480 once each; ncu of this tree's CPML step (the L2
# fabric's bytes) and the source counters of its z-lo box velocity launch
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/E; mkdir -p $O/cpml $O/ncu
( make -C .carry/main -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
cat $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head
wait; tail -qn1 $O/build-main.log
cp bin/trilap-bench .carry/main/bin/
echo "[$SECONDS s] bench"
run() { # tree round
  local b=bin; [ $1 = al ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2 3; do for t in main al; do run $t $r; done; done
ratio() { awk -v n=$2 '$1 == n { s += $6; k++ } END { printf "%.4f", s / k }' $O/cpml/$1-r*/table.txt; }
for t in main al; do echo "$t mean 480 $(ratio $t 480) 1024 $(ratio $t 1024)"; done
for t in main al; do
  b=bin; [ $t != al ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
echo "[$SECONDS s] ncu"
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
timeout 100 $NCU --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip 14 --launch-count 14 --metrics $M \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/fabric-cpml20.csv 2> $O/ncu/fabric-cpml20.err
echo "[$SECONDS s] ncu exit $?"
awk -f scripts/ncu-raw-per-point.awk $O/ncu/fabric-cpml20.csv | cut -c1-160
timeout 100 $NCU --clock-control none --section SourceCounters --csv --page source --print-source sass --kernel-name regex:vec --launch-skip 15 --launch-count 1 \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/source-zlo-v.csv 2> $O/ncu/source-zlo-v.err
echo "[$SECONDS s] ncu source exit $?"
gzip -9 $O/ncu/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-E.tgz session11 && rm -rf session11
