#!/usr/bin/env bash
# session14 call C: main (this tree, 4f2e639: the shell's row0 from the
# host): ncu's SourceCounters, InstructionStats and WarpStateStats of three
# launches of the second step at 480^3 with 20 CPML cells: the velocity
# shell's z-lo box, the plain velocity interior, the pressure shell; the
# SASS source pages (per-instruction executed counts and stall samples)
# and the details pages, for where a shell warp waits
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session14/C; mkdir -p $O/ncu
make -j16 CUDA_ARCH=90 bin/trilap-fdtd > $O/build.log 2>&1; echo "[$SECONDS s] build exit $?"
NCU=/usr/local/cuda/bin/ncu; [ -x $NCU ] || NCU=$(ls /opt/nvidia/nsight-compute/*/ncu | head -1)
prof() { # name regex skip
  timeout 120 $NCU --kernel-name-base mangled --kernel-name regex:$2 --launch-skip $3 --launch-count 1 \
    --section SourceCounters --section InstructionStats --section WarpStateStats --section LaunchStats --section Occupancy \
    -o $O/ncu/$1 -f bin/trilap-fdtd run --backend cuda --kernel vec4-band --grid 480 --steps 3 --cpml 20 > $O/ncu/$1.log 2>&1
  echo "[$SECONDS s] ncu $1 exit $?"
  timeout 60 $NCU -i $O/ncu/$1.ncu-rep --page source --print-source sass --csv > $O/ncu/$1-sass.csv 2>> $O/ncu/$1.log
  timeout 60 $NCU -i $O/ncu/$1.ncu-rep --page details --csv > $O/ncu/$1-details.csv 2>> $O/ncu/$1.log
  awk -f scripts/ncu-sass-ops.awk -v top=12 $O/ncu/$1-sass.csv | head -16
  grep -E '"(Warp Cycles Per Issued Instruction|Achieved Active Warps Per SM|Executed Instructions|Registers Per Thread|Duration)"' $O/ncu/$1-details.csv | awk -F'","' '{print "  " $(NF-2) " = " $NF}' | tr -d '"'
}
prof vshell-zlo 'v_vec_kernelIfLi4ELi4ELi8ELi8ELb1E' 6
prof vplain 'v_vec_kernelIfLi4ELi4ELi8ELi32ELb0E' 1
prof pshell 'p_vec_shell_kernelIfLi4ELi4ELi8ELi8ELb1E' 1
for f in $O/ncu/*.csv; do gzip -9 $f; done
rm -f $O/ncu/*.ncu-rep
echo "[$SECONDS s] done"
cd $OUT && tar czf session14-C.tgz session14 && rm -rf session14
