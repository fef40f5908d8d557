#!/usr/bin/env bash
# session34 call C: issue 29 point 4 after CG/PCG's benchmark-mode restart
# (the scalar program's alpha and beta steps test for underflow): bench-cg.sh
# on the tree before this session (8826a42, .carry/old) and on this tree
# (.trilap-commit), alternated round by round, 128^3 x 2000 and 256^3 x 1000
set -u
export NCCL_NVLS_ENABLE=0
C=${1:-C}; O=$OUT/session34/$C; mkdir -p $O
echo "tree: .trilap-commit $(cat .trilap-commit); old: 8826a42 (.carry/old)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
pack() { (cd $OUT && tar czf session34-$C.tgz session34); }
(make -j16 CUDA_ARCH=90 bin/trilap-solve > $O/build-new.log 2>&1; echo "new rc $?") &
(cd .carry/old && make -j16 CUDA_ARCH=90 bin/trilap-solve > $O/build-old.log 2>&1; echo "old rc $?") &
wait
echo "[$SECONDS s] built"
for r in 1 2 3; do
  for t in old new; do
    s=bin/trilap-solve; [ $t = old ] && s=.carry/old/bin/trilap-solve
    [ $SECONDS -gt 430 ] && break 2
    OUT=$O/cg128-$t-r$r ROUNDS=1 SOLVE=$s timeout 90 scripts/bench-cg.sh 128 2000 > $O/cg128-$t-r$r.out 2>&1
    echo "[$SECONDS s] $t round $r 128 rc $?"
    OUT=$O/cg256-$t-r$r ROUNDS=1 SOLVE=$s timeout 90 scripts/bench-cg.sh 256 1000 > $O/cg256-$t-r$r.out 2>&1
    echo "[$SECONDS s] $t round $r 256 rc $?"
  done
  pack
done
pack
rm -rf $OUT/session34
