#!/usr/bin/env bash
# session47: trilap-analyze before (66ec953f, session46's final tree; OLD)
# and after (this session's code; the checkout's bin/) on three synthetic
# Kineto trace sets of two two-stage pipelines over four ranks whose sends
# and recvs are batches (batch_isend_irecv: the SendRecv kernel launched
# under nccl:coalesced; traces/, written by tests/test_kineto_p2p.c; rank 2
# reaches each of its three batches 30 us after rank 0's starts; an
# all_reduce of all four after each): each batch's record_param_comms
# naming one other rank, a send and a recv (batch-one-peer/), a batch whose
# two sends go to two other ranks (batch-two-peers/), and batches with no
# record_param_comms (batch-unsaid/, session46's batched/); and two sets
# of the same pipelines without batches: each pipeline an all_reduce on its
# process group of two instead of a send (subgroup-allreduce/), and sends
# named "nccl:send" without ranks on a group of two (send-group-of-two/,
# session46's unsaid/). Writes
# OUTDIR/<set>.<old|new>.<command>.txt for overlap, diagnose and
# collectives. OLD is a build of 66ec953f (`git worktree add ../old47
# 66ec953f && make -C ../old47 bin/trilap-analyze`). Run from the
# repository root:
# OLD=../old47/bin bash results/wave3-host/session47-checks/command.sh OUTDIR
set -euo pipefail
export LC_ALL=C
old=${OLD:?OLD names the old build\'s bin folder}
out=${1:?usage: OLD=DIR bash command.sh OUTDIR}
here=$(dirname "$0")
mkdir -p "$out"
for set in batch-one-peer batch-two-peers batch-unsaid subgroup-allreduce send-group-of-two; do
    for b in old new; do
        dir=$old; [ "$b" = new ] && dir=bin
        for c in overlap diagnose collectives; do
            # the first line names the build (its git commit), the input line a path of this machine
            "$dir/trilap-analyze" $c "$here/traces/$set" > "$out/$set.$b.$c.txt" 2>&1 || echo "exit $?" >> "$out/$set.$b.$c.txt"
        done
    done
done
