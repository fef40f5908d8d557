/* A rank claimed in a trace folder, for processes that no launcher gave
 * one (libtrilap-inject.so under a program that starts its own workers,
 * torch.multiprocessing.spawn say: every worker was rank 0 and the last
 * to exit wrote over the others' trace.rank0.csv).
 *
 * Rank R is held by an flock on DIR/trace.rank<R>.claim for as long as
 * the process lives: the lowest rank no live process holds is taken, and
 * a claim left by a process that died is free again (the kernel drops its
 * lock). Processes started together get 0, 1, 2, ...; a process started
 * after another exited takes its rank again, as a rerun does. */
#ifndef TL_PROBES_RANK_CLAIM_H
#define TL_PROBES_RANK_CLAIM_H

#include "runtime/error.h"

typedef struct tl_rank_claim {
    int rank; /* -1: none held */
    int fd;
    char path[4096];
} tl_rank_claim;

/* The lowest free rank below 4096 in dir (which must exist). */
tl_status tl_probes_rank_claim(const char *dir, tl_rank_claim *c);
/* Gives the rank back (its claim file removed); a claim never made is
 * left alone. */
void tl_probes_rank_release(tl_rank_claim *c);

#endif
