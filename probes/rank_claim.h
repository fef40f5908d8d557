/* A rank claimed in a trace folder, for processes that no launcher gave
 * one (libtrilap-inject.so under a program that starts its own workers,
 * torch.multiprocessing.spawn say: every worker was rank 0 and the last
 * to exit wrote over the others' trace.rank0.csv).
 *
 * Rank R is held by a POSIX record lock (fcntl) on DIR/trace.rank<R>.claim
 * for as long as the process lives: the lowest rank no live process holds
 * is taken, and a claim left by a process that died is free again (the
 * kernel drops its lock). Processes started together get 0, 1, 2, ...; a
 * process started after another exited takes its rank again, as a rerun
 * does. A record lock, not an flock: a child the process forks without
 * exec (multiprocessing's fork) does not inherit it, where an flock,
 * shared with the child's copy of the descriptor, kept the rank held
 * after the claimer died. One claim a process: record locks do not
 * exclude their own process, and closing any descriptor of the file
 * drops them. */
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
