#!/usr/bin/env bash
# One-rank trilap-solve at gen:poisson7:256 on the host backend, one
# iteration, one timed solve: the whole process's wall time with the
# tree before 315f5cd (OLD, the one-part partition statistics through the
# symmetrised graph) and with 315f5cd (NEW), three rounds alternated.
#   OLD=/tmp/old-solve NEW=bin/trilap-solve results/wave3-host/one-part-stats/command.sh > times.txt
set -u
for r in 1 2 3; do
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    /usr/bin/time -f "$b round $r: %e s wall, %M kB peak" "$bin" --backend host --solver cg --rtol 0 --atol 0 \
      --max-iterations 1 --repeat 1 gen:poisson7:256 2>&1 >/dev/null | grep " s wall"
  done
done
