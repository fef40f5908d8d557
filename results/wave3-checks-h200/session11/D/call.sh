#!/usr/bin/env bash
# session11 call D: this tree (branch exp-shell-smem: main's kernels; the
# CPML shell's blocks given S bytes of shared memory they do not use and
# the interior's and shell's kernels one carveout, P = 43 % of 228 KB =
# 100 KB, so that an SM holds at most k = 100 / (S/1K + 1) shell blocks and
# the interior's blocks take the rest of it through the shell phase):
# CPML float 480/1024 with the default (main), the carveout alone, and k =
# 5, 7, 10, 12; three rounds alternated; ncu's occupancy limits of the
# z-lo shell box's velocity launch at k = 7
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session11/D; mkdir -p $O/cpml $O/ncu
make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
smem_of() { case $1 in k5) echo 19456;; k7) echo 13312;; k10) echo 9216;; k12) echo 7168;; *) echo;; esac; }
run() { # setting round
  local c=43 s; s=$(smem_of $1); [ $1 = main ] && c=
  TL_EXP_CARVEOUT=$c TL_EXP_SHELL_SMEM=$s TL_BIN=bin timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '$1 ~ /^[0-9]+$/ { printf " %s: %s / %s = %s", $1, $4, $5, $6 }' $O/cpml/$1-r$2/table.txt)"
}
V="main co k5 k7 k10 k12"
for r in 1 2 3; do for t in $V; do run $t $r; done; done
ratio() { awk -v n=$2 '$1 == n { s += $6; k++ } END { printf "%.4f", s / k }' $O/cpml/$1-r*/table.txt; }
for t in $V; do echo "$t mean 480 $(ratio $t 480) 1024 $(ratio $t 1024)"; done
TL_EXP_CARVEOUT=43 TL_EXP_SHELL_SMEM=13312 timeout 100 /usr/local/cuda/bin/ncu --csv --page raw --kernel-name regex:vec --launch-skip 14 --launch-count 2 \
  --metrics launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
  bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/occupancy-k7.csv 2> $O/ncu/occupancy-k7.err
echo "[$SECONDS s] ncu exit $?"
awk -F'","' '/^"ID"/ { for (i = 1; i <= NF; i++) h[i] = $i; next } /^"[0-9]/ { for (i = 1; i <= NF; i++) if (h[i] ~ /occupancy_limit|config_size|dynamic|warps_active|duration/) printf "%s=%s ", h[i], $i; print "" }' $O/ncu/occupancy-k7.csv
gzip -9 $O/ncu/*.csv
echo "[$SECONDS s] done"
cd $OUT && tar czf session11-D.tgz session11 && rm -rf session11
