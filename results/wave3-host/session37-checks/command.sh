#!/usr/bin/env bash
# session37: the GPU multi-rank traces committed in results/multirank-h200 (one H200, host-staged device
# communication) read by this tree's trilap-analyze after the QA merges (overlap's communication counted
# in the window, the host-staging evidence from it): diagnose's findings against the committed
# diagnose files, and overlap's communication line. Run from the repository root after `make all`.
set -u
for d in fdtd-r4 pcg-mpi-r2 pcg-mpi-r4 pcg-threads-r2 pcg-threads-r4; do
    new=$(bin/trilap-analyze diagnose results/multirank-h200/$d 2>/dev/null | grep -o '^FINDING [0-9]* \[[a-z-]*\]' | awk '{print $3}' | tr '\n' ' ')
    old=$(grep -o '^FINDING [0-9]* \[[a-z-]*\]' results/multirank-h200/$d.diagnose.txt | awk '{print $3}' | tr '\n' ' ')
    echo "$d: now $new| committed $old| $([ "$new" = "$old" ] && echo same || echo DIFFERENT)"
    bin/trilap-analyze overlap results/multirank-h200/$d 2>/dev/null | grep '^# communication' | head -2
done
