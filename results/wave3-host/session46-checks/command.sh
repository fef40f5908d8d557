#!/usr/bin/env bash
# session46: trilap-analyze before (ed8dbabb, session45's final code) and
# after (this session's code) on five synthetic Kineto trace sets of two
# two-stage pipelines over four ranks (traces/, written by
# tests/test_kineto_p2p.c: rank 2 reaches each of its three recvs 30 us after
# rank 0's send starts; an all_reduce of all four after each): the ends of a
# send or recv in ProcessGroupNCCL's names (names/), in record_param_comms'
# Dst Rank / Src Rank (dst-src/), in neither (unsaid/), in names that are
# not the trace's own rank's (not-mine/), and a batch_isend_irecv under
# nccl:coalesced (batched/). Writes OUTDIR/<set>.<old|new>.<command>.txt for
# overlap, diagnose and collectives. OLD is a build of ed8dbabb
# (`git worktree add ../old46 ed8dbabb && make -C ../old46 bin/trilap-analyze`),
# NEW the checkout's bin/. Run from the repository root:
# OLD=../old46/bin bash results/wave3-host/session46-checks/command.sh OUTDIR
set -euo pipefail
export LC_ALL=C
old=${OLD:?OLD names the old build\'s bin folder}
out=${1:?usage: OLD=DIR bash command.sh OUTDIR}
here=$(dirname "$0")
mkdir -p "$out"
for set in names dst-src unsaid not-mine batched; do
    for b in old new; do
        dir=$old; [ "$b" = new ] && dir=bin
        for c in overlap diagnose collectives; do
            # the first line names the build (its git commit), the input line a path of this machine
            "$dir/trilap-analyze" $c "$here/traces/$set" > "$out/$set.$b.$c.txt" 2>&1 || echo "exit $?" >> "$out/$set.$b.$c.txt"
        done
    done
done
