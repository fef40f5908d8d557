#!/usr/bin/env bash
# session11 call B: this tree (branch exp-l2-fetch: main's kernels, and
# TL_EXP_L2FETCH=N asks for an L2 fetch granularity of N bytes, the value
# before and after printed): CPML float 480/1024 with the default and with
# 32, 64 and 128 B asked, three rounds alternated; the SASS of the plain
# and CPML velocity kernels (float, order 8), where their spill stores and
# loads sit; a traced step of 480^3 without and with 20 cells
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/B; mkdir -p $O/cpml $O/sass
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench bin/trilap-analyze > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
run() { # setting round
  local g=; [ $1 = dflt ] || g=${1#g}
  TL_EXP_L2FETCH=$g TL_BIN=bin timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt) $(grep -h -m1 'L2 fetch' $O/cpml/$1-r$2/*.log 2>/dev/null)"
}
for r in 1 2 3; do for t in dflt g32 g64 g128; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in dflt g32 g64 g128; do echo "$t 480 mean $(ratio $t)"; done
echo "[$SECONDS s] sass"
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
$CUOBJ -sass build/obj/stencil/fdtd_vec.o > $O/sass/fdtd_vec.sass 2> $O/sass/cuobjdump.err; echo "cuobjdump exit $?"
for k in IfLi4ELi4ELi8ELi32ELb0E IfLi4ELi4ELi8ELi8ELb1E; do
  awk -v k="tl_fdtd_v_vec_kernel$k" '/Function :/ { on = index($0, k) > 0 } on' $O/sass/fdtd_vec.sass > $O/sass/v-$k.sass
  echo "v $k: $(grep -c '' $O/sass/v-$k.sass) lines, $(grep -c 'STL' $O/sass/v-$k.sass) STL, $(grep -c 'LDL' $O/sass/v-$k.sass) LDL"
  grep -n -B3 -A1 'STL\|LDL' $O/sass/v-$k.sass | head -60
done
gzip -9 $O/sass/fdtd_vec.sass
echo "[$SECONDS s] traces"
for c in 0 20; do
  timeout 60 bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 12 --warmup 3 --cpml $c --trace $O/trace-$c > $O/trace-$c.log 2>&1 || echo "trace $c failed"
  bin/trilap-analyze timeline $O/trace-$c --iter-range 7:7 -o $O/timeline-cpml$c-iter7.csv > /dev/null 2>&1 || echo "timeline $c failed"
  echo "timeline cpml $c:"; cut -d, -f8-10 $O/timeline-cpml$c-iter7.csv | tail -n +2 | tr '\n' ' '; echo
done
rm -rf $O/trace-*/
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-B.tgz session11 && rm -rf session11
