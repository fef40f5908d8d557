#!/usr/bin/env bash
# session47: how long `overlap` takes to pair 1000 ProfilerSteps of 40
# all_reduces per rank when they are on a process group of two (peers
# lines) against the same on the whole world, before (5247de1, the tree
# before the QA pass made match.c's search for peered keys one sort; OLD)
# and after (this checkout's bin/). The traces and the timing are
# tests/test_kineto_groups.c's group_steps_paired_in_linear_time, which
# prints both processor times before it asserts. OLD is a build of
# 5247de1 (`git worktree add ../old47q 5247de1 && make -C ../old47q
# bin/trilap-analyze`). Run from the repository root after `make tests`:
# OLD=../old47q/bin bash results/wave3-host/session47-checks/pairing-time/command.sh OUTDIR
set -euo pipefail
export LC_ALL=C
old=${OLD:?OLD names the old build\'s bin folder}
out=${1:?usage: OLD=DIR bash command.sh OUTDIR}
mkdir -p "$out"
for b in old new; do
    dir=$old; [ "$b" = new ] && dir=bin
    TL_BIN=$dir TL_BUILD=build build/tests/test_kineto_groups group_steps_paired_in_linear_time > "$out/$b.txt" 2>&1 ||
        echo "exit $?" >> "$out/$b.txt"
done
