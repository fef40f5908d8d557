/* Internal to runtime/: the host-communication backend table. Each backend
 * (comm_threads.c, comm_mpi.c) fills one tl_comm_ops and embeds
 * tl_hostcomm / struct tl_request as the first member of its own structs;
 * comm.c validates arguments and dispatches. */
#ifndef TL_COMM_IMPL_H
#define TL_COMM_IMPL_H

#include "runtime/comm.h"

typedef struct tl_comm_ops tl_comm_ops;

struct tl_hostcomm {
    const tl_comm_ops *ops;
    int rank, size;
};

struct tl_request {
    const tl_comm_ops *ops;
};

struct tl_comm_ops {
    const char *name;
    tl_status (*barrier)(tl_hostcomm *hc);
    tl_status (*allreduce)(tl_hostcomm *hc, void *buf, size_t count, tl_dtype t, tl_op op);
    tl_status (*bcast)(tl_hostcomm *hc, void *buf, size_t bytes, int root);
    tl_status (*allgather)(tl_hostcomm *hc, const void *send, void *recv, size_t bytes);
    tl_status (*gatherv)(tl_hostcomm *hc, const void *send, size_t bytes, void *recv,
                         const size_t *counts, int root);
    tl_status (*iallreduce)(tl_hostcomm *hc, tl_chan ch, double *buf, size_t count, tl_request **req);
    tl_status (*isend)(tl_hostcomm *hc, tl_chan ch, const void *buf, size_t bytes, int peer, int tag,
                       tl_request **req);
    tl_status (*irecv)(tl_hostcomm *hc, tl_chan ch, void *buf, size_t bytes, int peer, int tag,
                       tl_request **req);
    /* Completes and frees req. */
    tl_status (*wait)(tl_hostcomm *hc, tl_request *req);
    /* wait, giving up after timeout_s (see tl_comm_wait_for): frees req either way. */
    tl_status (*wait_for)(tl_hostcomm *hc, tl_request *req, double timeout_s);
    /* Nonzero once another rank is known to have failed. */
    int (*peer_failed)(tl_hostcomm *hc);
    /* This rank failed: tell the others (see tl_comm_announce_failure). */
    void (*announce_failure)(tl_hostcomm *hc);
    void (*destroy)(tl_hostcomm *hc);
};

size_t tl_dtype_size(tl_dtype t);
/* acc[i] = op(acc[i], in[i]) */
void tl_reduce_local(void *acc, const void *in, size_t count, tl_dtype t, tl_op op);

/* ---- threads backend (comm_threads.c) ---- */
typedef struct tl_threadcomm_shared tl_threadcomm_shared;
tl_status tl_threadcomm_shared_create(int size, tl_threadcomm_shared **out);
void tl_threadcomm_shared_destroy(tl_threadcomm_shared **sh);
tl_status tl_threadcomm_create(tl_threadcomm_shared *sh, int rank, tl_hostcomm **out);
/* A rank has failed: every blocked or later call of the others returns
 * TL_ERR_REMOTE instead of waiting for it. */
void tl_threadcomm_fail(tl_threadcomm_shared *sh, int rank);

/* ---- MPI backend (comm_mpi.c); MPI must be initialised ---- */
tl_status tl_mpicomm_create(tl_hostcomm **out);
/* The launcher's last collective: agree on the outcome. A failed rank waits
 * at most grace_s for the others to join, then returns TL_ERR_TIMEOUT (the
 * caller aborts the job). *any_failed is set when some rank failed. */
tl_status tl_mpicomm_final_agree(tl_hostcomm *hc, tl_status st, double grace_s, int *any_failed);

void tl_hostcomm_destroy(tl_hostcomm **hc);

#endif
