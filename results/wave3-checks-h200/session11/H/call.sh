#!/usr/bin/env bash
# session11 call H: this tree (branch exp-plain-cs: the plain build's
# read-back fields, vx vy vz in the velocity update and p in the pressure
# update, with the streaming hint; the CPML build as on main) against main
# (.carry/base = 8328ddc): CPML float 480/1024, two rounds alternated
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/H; mkdir -p $O/cpml
( make -C .carry/base -j8 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-base.log 2>&1; echo "base build exit $?" >> $O/build-base.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build-pcs.log 2>&1; echo "pcs build exit $?"
wait; tail -qn1 $O/build-base.log
cp bin/trilap-bench .carry/base/bin/
run() { # tree round
  local b=bin; [ $1 = pcs ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
for r in 1 2; do for t in base pcs; do run $t $r; done; done
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-H.tgz session11 && rm -rf session11
