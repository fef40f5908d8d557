#!/bin/bash
# compare new vs base trilap-solve histories and verdict lines
D=/work/shared/data/matrices
n=0; bad=0
run() { # label, args...
  local l=$1; shift
  /work/main/bin/trilap-solve --omp-threads 1 --history new.csv "$@" > new.txt 2>&1; a=$?
  /tmp/base/bin/trilap-solve --omp-threads 1 --history old.csv "$@" > old.txt 2>&1; b=$?
  n=$((n+1))
  if [ $a != $b ] || ! cmp -s new.csv old.csv || ! diff -q <(grep -E "iterations|residual|converged|stop|replace|restart" new.txt) <(grep -E "iterations|residual|converged|stop|replace|restart" old.txt) >/dev/null; then
     bad=$((bad+1)); echo "DIFF $l: rc $a/$b"; diff <(grep -E "iterations|residual|converged|stop" new.txt) <(grep -E "iterations|residual|converged|stop" old.txt) | head -5
  fi
}
M="$D/1138_bus.mtx $D/ani4.mtx gen:poisson7:16 gen:hetero2d:52:4 gen:convdiff:12"
for m in $M; do for s in cg pcg pipecg bicgstab pipebicgstab; do for sc in host program; do for r in 1 3; do
  run "$m $s $sc $r" --solver $s --scalars $sc --ranks $r --rtol 1e-8 --max-iterations 3000 $m
done; done; done; done
for s in pipecg bicgstab pipebicgstab; do run "fixed $s" --solver $s --rtol 0 --atol 0 --max-iterations 900 gen:convdiff:12; done
run "rr" --solver pipebicgstab --residual-replacement 10 --rtol 1e-8 $D/1138_bus.mtx
run "rr prog" --solver pipebicgstab --scalars program --residual-replacement 10 --rtol 1e-8 $D/1138_bus.mtx
run "fixed pipecg 1138" --solver pipecg --rtol 0 --atol 0 --max-iterations 3000 $D/1138_bus.mtx
echo "$n compared, $bad differ"
