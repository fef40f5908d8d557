/* The ranks that share this rank's host (or its GPU), and a per-rank need
 * added up over them against what their first rank measured as room.
 *
 * Several ranks may draw on one pool: the thread ranks of a process and
 * the MPI ranks of a node share the host's memory; ranks bound to one
 * device (--device-comm host) share its memory. A check rank by rank
 * lets each through against the whole pool; this gathers every rank's
 * need and room once, so the check adds them up per pool and one rank
 * speaks for it. The FDTD's host check (stencil/memneed.c) and the GPU
 * memory check (runtime/gpumem.c) ask here. A process's address-space
 * limit (ulimit -v) is its own, shared by its thread ranks alone, so
 * each rank also gives its own room, which its process's ranks are held
 * to (before, every MPI rank of a host was held to the first rank's
 * limit). */
#ifndef TL_HOSTSHARE_H
#define TL_HOSTSHARE_H

#include "runtime/ctx.h"

typedef enum {
    TL_HOSTSHARE_HOST,   /* the same host name */
    TL_HOSTSHARE_DEVICE, /* the same host name and the same ctx->device */
} tl_hostshare_by;

/* Every rank's entry, the same on every rank after the gather. */
typedef struct tl_hostshare_rank {
    char host[64];
    int device;
    long pid;        /* its process: thread ranks share one */
    double need, room;
    double own_room; /* what its process's address-space limit leaves (INFINITY: none) */
    int first;       /* the first (lowest) rank of its pool: the one that speaks for it */
} tl_hostshare_rank;

typedef struct tl_hostshare {
    int size;
    tl_hostshare_rank *rank; /* size entries, by world rank */
} tl_hostshare;

/* One pool, as its first rank sees it. */
typedef struct tl_hostshare_pool {
    int first;   /* its first rank */
    int nranks;  /* the ranks in it */
    double need; /* their needs added up */
    double room; /* what its first rank measured (each measured before any allocated) */
} tl_hostshare_pool;

/* Collective on ctx: this rank's `need` and `room` gathered with every
 * other rank's, pools found by `by`. `st` is this rank's status so far,
 * agreed before the gather so that a rank that failed leaves none
 * waiting: TL_ERR_REMOTE where another rank failed, `st` where this one
 * did, and then nothing is gathered. Free with tl_hostshare_free. One
 * rank: a table of it alone, nothing gathered. */
tl_status tl_hostshare_gather(tl_ctx *ctx, tl_status st, tl_hostshare_by by, double need, double room,
                              tl_hostshare *out);
/* The same, with this rank's process's own room (tl_hostmem_rooms). */
tl_status tl_hostshare_gather_rooms(tl_ctx *ctx, tl_status st, tl_hostshare_by by, double need, double room,
                                    double own_room, tl_hostshare *out);
/* The pool of rank r. */
tl_hostshare_pool tl_hostshare_pool_of(const tl_hostshare *s, int r);
/* The first pool, by its first rank at `from` or after, whose ranks need
 * more together than its room: its first rank, or -1 when none. */
int tl_hostshare_next_short(const tl_hostshare *s, int from);
/* Whether ranks a and b run on one host (by its name). */
int tl_hostshare_same_host(const tl_hostshare *s, int a, int b);
/* Whether ranks a and b run in one process (one host, one pid). */
int tl_hostshare_same_process(const tl_hostshare *s, int a, int b);
/* The ranks of rank r's process against its own room (first: its lowest
 * rank). */
tl_hostshare_pool tl_hostshare_process_of(const tl_hostshare *s, int r);
/* The first process, by its lowest rank at `from` or after, whose ranks
 * need more together than its own room: that rank, or -1 when none. */
int tl_hostshare_next_short_process(const tl_hostshare *s, int from);
/* Frees the table (a zeroed one too). */
void tl_hostshare_free(tl_hostshare *s);

#endif
