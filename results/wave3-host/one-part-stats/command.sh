#!/usr/bin/env bash
# One-rank trilap-solve at gen:poisson7:256 on the host backend, one
# iteration, one timed solve: the whole process's wall time and peak
# resident size for each LABEL=BINARY given, three rounds alternated.
#   results/wave3-host/one-part-stats/command.sh before=/tmp/old-solve stats=/tmp/new-solve own=bin/trilap-solve > times.txt
set -u
for r in 1 2 3; do
  for lb in "$@"; do
    /usr/bin/time -f "${lb%%=*} round $r: %e s wall, %M kB peak" "${lb#*=}" --backend host --solver cg --rtol 0 \
      --atol 0 --max-iterations 1 --repeat 1 gen:poisson7:256 2>&1 >/dev/null | grep " s wall"
  done
done
