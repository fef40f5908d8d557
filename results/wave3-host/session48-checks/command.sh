#!/usr/bin/env bash
# session48: trilap-analyze before (e8780916, session47's final tree; OLD)
# and after (this session's code; the checkout's bin/) on three synthetic
# Kineto trace sets whose point-to-point operations are grouped unlike at
# their two ends (traces/, written by tests/test_kineto_p2p.c, three
# steps each): grouped-unlike/ (rank 0 one batch {0->1, 1->0} a step,
# rank 1 a recv 0->1 30 us late and a send 1->0 50 us late),
# interleaved-ring/ (four ranks, each step every rank one batch {send to
# the next, recv from the previous}, rank 2 90 us late), counts-differ/
# (rank 0 sends two messages 0->1 a step, rank 1 receives one). Writes
# OUTDIR/<set>.<old|new>.<command>.txt for overlap, diagnose and
# collectives. OLD is a build of e8780916 (`git worktree add ../old48
# e8780916 && make -C ../old48 bin/trilap-analyze`). Run from the
# repository root:
# OLD=../old48/bin bash results/wave3-host/session48-checks/command.sh OUTDIR
set -euo pipefail
export LC_ALL=C
old=${OLD:?OLD names the old build\'s bin folder}
out=${1:?usage: OLD=DIR bash command.sh OUTDIR}
here=$(dirname "$0")
mkdir -p "$out"
for set in grouped-unlike interleaved-ring counts-differ; do
    for b in old new; do
        dir=$old; [ "$b" = new ] && dir=bin
        for c in overlap diagnose collectives; do
            # the first line names the build (its git commit), the input line a path of this machine
            "$dir/trilap-analyze" $c "$here/traces/$set" > "$out/$set.$b.$c.txt" 2>&1 || echo "exit $?" >> "$out/$set.$b.$c.txt"
        done
    done
done
