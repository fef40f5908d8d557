#!/usr/bin/env bash
# session10 call E: this tree (branch exp-cpml-zin: the CPML cut's interior
# runs its x-y columns through all z, the z slabs' planes corrected along z
# alone by a build of the plain kernel that branches once per block, and
# the shell is the y and x boxes through all z): make check-gpu part 2 on
# it (every GPU test but the five long solver comparisons; the FDTD tests'
# decomposed runs equal to the single domain bit for bit among them), then
# against main (.carry/main = 5b1f80b): CPML float 480/1024, three rounds
# alternated, and double 480 once each
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session10/E; mkdir -p $O/cpml
( make -C .carry/main -j4 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
cat $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head
wait; tail -qn1 $O/build-main.log
cp bin/trilap-bench .carry/main/bin/
echo "[$SECONDS s] bench"
run() { # tree round
  local b=bin; [ $1 = zin ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2 3; do for t in main zin; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main zin; do echo "$t 480 mean $(ratio $t)"; done
for t in main zin; do
  b=bin; [ $t != zin ] && b=.carry/$t/bin
  timeout 40 $b/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl-$t --results $O/cpml/double-$t.csv > $O/cpml/double-$t.log 2>&1 || echo "double $t failed"
  echo "double $t: $(cut -d, -f1,9,14,17 $O/cpml/double-$t.csv | tail -n +2 | tr '\n' ' ')"
done
echo "[$SECONDS s] done"
cd $OUT && tar czf session10-E.tgz session10 && rm -rf session10
