/* Host communication over MPI. The library works on duplicates of
 * MPI_COMM_WORLD (one per channel, one for the launcher's outcome), so its
 * traffic never matches the application's and errors come back as codes. */
#include "runtime/comm_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/check.h"
#include "runtime/clock.h"

#if TL_HAVE_MPI
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI: MPIX_CUDA_AWARE_SUPPORT */
#endif
#endif

typedef struct tl_mpicomm {
    tl_hostcomm base;
    MPI_Comm chan[TL_CHAN_COUNT];
    MPI_Comm outcome;
    /* a failure announced early: this rank's part of the final agreement,
     * already posted, and whether a peer's notice has been seen */
    int announced, mine, all, peer_failed;
    MPI_Request outcome_req;
} tl_mpicomm;

/* The tag of the failure notice on the outcome communicator. */
enum { TL_MPI_FAILURE_TAG = 7001 };

typedef struct mpi_req {
    struct tl_request base;
    MPI_Request r;
    const char *what;
} mpi_req;

static MPI_Comm world_of(tl_hostcomm *hc) { return ((tl_mpicomm *)hc)->chan[TL_CHAN_WORLD]; }

static tl_status fits_int(size_t n, const char *what)
{
    TL_CHECK(n <= (size_t)INT_MAX, TL_ERR_INVAL, "%s of %zu elements exceeds MPI's int count", what, n);
    return TL_OK;
}

static MPI_Datatype mpi_type(tl_dtype t)
{
    return t == TL_DOUBLE ? MPI_DOUBLE : t == TL_INT64 ? MPI_INT64_T : MPI_INT32_T;
}

static MPI_Op mpi_op(tl_op op) { return op == TL_SUM ? MPI_SUM : op == TL_MAX ? MPI_MAX : MPI_MIN; }

static tl_status mc_barrier(tl_hostcomm *hc)
{
    TL_MPI(MPI_Barrier(world_of(hc)));
    return TL_OK;
}

static tl_status mc_allreduce(tl_hostcomm *hc, void *buf, size_t count, tl_dtype t, tl_op op)
{
    TL_TRY(fits_int(count, "allreduce"));
    TL_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, mpi_type(t), mpi_op(op), world_of(hc)));
    return TL_OK;
}

static tl_status mc_bcast(tl_hostcomm *hc, void *buf, size_t bytes, int root)
{
    TL_TRY(fits_int(bytes, "bcast"));
    TL_MPI(MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, world_of(hc)));
    return TL_OK;
}

static tl_status mc_allgather(tl_hostcomm *hc, const void *send, void *recv, size_t bytes)
{
    TL_TRY(fits_int(bytes, "allgather"));
    const void *sb = send == (const char *)recv + (size_t)hc->rank * bytes ? MPI_IN_PLACE : send;
    TL_MPI(MPI_Allgather(sb, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, world_of(hc)));
    return TL_OK;
}

static tl_status mc_gatherv(tl_hostcomm *hc, const void *send, size_t bytes, void *recv,
                            const size_t *counts, int root)
{
    TL_TRY(fits_int(bytes, "gatherv"));
    int *icounts = NULL, *displs = NULL;
    tl_status st = TL_OK;
    if (hc->rank == root) {
        icounts = calloc((size_t)hc->size, sizeof *icounts);
        displs = calloc((size_t)hc->size, sizeof *displs);
        TL_CHECKGOTO(icounts && displs, TL_ERR_NOMEM, st, fail, "%d counts", hc->size);
        size_t at = 0;
        for (int r = 0; r < hc->size; r++) {
            TL_CHECKGOTO(counts[r] <= INT_MAX && at <= INT_MAX, TL_ERR_INVAL, st, fail,
                         "gatherv: %zu bytes at offset %zu exceed MPI's int counts", counts[r], at);
            icounts[r] = (int)counts[r];
            displs[r] = (int)at;
            at += counts[r];
        }
    }
    {
        int rc = MPI_Gatherv(send, (int)bytes, MPI_BYTE, recv, icounts, displs, MPI_BYTE, root, world_of(hc));
        if (rc != MPI_SUCCESS) st = tl_mpi_report(rc, TL_FILE_, __LINE__, "MPI_Gatherv");
    }
fail:
    free(icounts);
    free(displs);
    return st;
}

static tl_status new_req(tl_hostcomm *hc, const char *what, mpi_req **out)
{
    mpi_req *r = NULL;
    TL_ALLOC(r, 1);
    r->base.ops = hc->ops;
    r->r = MPI_REQUEST_NULL;
    r->what = what;
    *out = r;
    return TL_OK;
}

static tl_status mc_iallreduce(tl_hostcomm *hc, tl_chan ch, double *buf, size_t count, tl_request **req)
{
    TL_TRY(fits_int(count, "iallreduce"));
    mpi_req *r = NULL;
    TL_TRY(new_req(hc, "MPI_Iallreduce", &r));
    int rc = MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, MPI_DOUBLE, MPI_SUM,
                            ((tl_mpicomm *)hc)->chan[ch], &r->r);
    if (rc != MPI_SUCCESS) {
        free(r);
        return tl_mpi_report(rc, TL_FILE_, __LINE__, "MPI_Iallreduce");
    }
    *req = &r->base;
    return TL_OK;
}

static tl_status mc_isend(tl_hostcomm *hc, tl_chan ch, const void *buf, size_t bytes, int peer, int tag,
                          tl_request **req)
{
    TL_TRY(fits_int(bytes, "isend"));
    mpi_req *r = NULL;
    TL_TRY(new_req(hc, "MPI_Isend", &r));
    int rc = MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag, ((tl_mpicomm *)hc)->chan[ch], &r->r);
    if (rc != MPI_SUCCESS) {
        free(r);
        return tl_mpi_report(rc, TL_FILE_, __LINE__, "MPI_Isend");
    }
    *req = &r->base;
    return TL_OK;
}

static tl_status mc_irecv(tl_hostcomm *hc, tl_chan ch, void *buf, size_t bytes, int peer, int tag,
                          tl_request **req)
{
    TL_TRY(fits_int(bytes, "irecv"));
    mpi_req *r = NULL;
    TL_TRY(new_req(hc, "MPI_Irecv", &r));
    int rc = MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, tag, ((tl_mpicomm *)hc)->chan[ch], &r->r);
    if (rc != MPI_SUCCESS) {
        free(r);
        return tl_mpi_report(rc, TL_FILE_, __LINE__, "MPI_Irecv");
    }
    *req = &r->base;
    return TL_OK;
}

static tl_status mc_wait(tl_hostcomm *hc, tl_request *req)
{
    mpi_req *r = (mpi_req *)req;
    MPI_Status status;
    int rc = MPI_Wait(&r->r, &status);
    tl_status st = TL_OK;
    if (rc != MPI_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "MPI_Wait(%s)", r->what);
        /* MPI_ERR_IN_STATUS is not used by MPI_Wait; the code says it all */
        st = tl_mpi_report(rc, TL_FILE_, __LINE__, what);
    }
    free(r);
    return st;
}

static double seconds_since(int64_t t0_ns) { return (double)(tl_clock_ns() - t0_ns) * 1e-9; }

static int mc_peer_failed(tl_hostcomm *hc);

/* Polls without a pause for the first 0.1 s, as MPI_Wait does (the clock
 * measurement times these messages), then every 1 ms, looking for a
 * peer's failure notice too. A collective request cannot be cancelled:
 * it waits as mc_wait. */
static tl_status mc_wait_for(tl_hostcomm *hc, tl_request *req, double timeout_s)
{
    mpi_req *r = (mpi_req *)req;
    if (timeout_s < 0 || !strcmp(r->what, "MPI_Iallreduce")) return mc_wait(hc, req);
    int64_t t0 = tl_clock_ns();
    tl_status st = TL_OK;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(&r->r, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            char what[64];
            snprintf(what, sizeof what, "MPI_Test(%s)", r->what);
            st = tl_mpi_report(rc, TL_FILE_, __LINE__, what);
            break;
        }
        if (done) break;
        double waited = seconds_since(t0);
        if (waited > timeout_s) st = TL_ERR_TIMEOUT;
        else if (waited > 0.1 && mc_peer_failed(hc)) st = TL_ERR_REMOTE;
        if (st != TL_OK) {
            /* MPI_Wait returns after MPI_Cancel whatever the peer does; a
             * message that arrived in between is taken after all */
            MPI_Status status;
            int cancelled = 1;
            if (MPI_Cancel(&r->r) == MPI_SUCCESS && MPI_Wait(&r->r, &status) == MPI_SUCCESS)
                MPI_Test_cancelled(&status, &cancelled);
            if (!cancelled) st = TL_OK;
            break;
        }
        if (waited > 0.1) {
            struct timespec nap = {0, 1000000};
            nanosleep(&nap, NULL);
        }
    }
    free(r);
    return st;
}

/* Post this rank's "failed" into the outcome agreement and a notice to
 * every other rank, without waiting for anything. */
static void mc_announce_failure(tl_hostcomm *hc)
{
    tl_mpicomm *mc = (tl_mpicomm *)hc;
    if (mc->announced) return;
    mc->announced = 1;
    mc->mine = 1;
    if (MPI_Iallreduce(&mc->mine, &mc->all, 1, MPI_INT, MPI_MAX, mc->outcome, &mc->outcome_req) != MPI_SUCCESS)
        mc->outcome_req = MPI_REQUEST_NULL;
    static const int notice = 1;
    for (int r = 0; r < hc->size; r++) {
        MPI_Request q;
        if (r != hc->rank && MPI_Isend(&notice, 1, MPI_INT, r, TL_MPI_FAILURE_TAG, mc->outcome, &q) == MPI_SUCCESS)
            MPI_Request_free(&q);
    }
}

static int mc_peer_failed(tl_hostcomm *hc)
{
    tl_mpicomm *mc = (tl_mpicomm *)hc;
    if (!mc->peer_failed) {
        int flag = 0;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TL_MPI_FAILURE_TAG, mc->outcome, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
            flag)
            mc->peer_failed = 1;
    }
    return mc->peer_failed;
}

/* Receive the notices sent to this rank, so none is left unmatched. */
static void drain_notices(tl_mpicomm *mc)
{
    for (;;) {
        int flag = 0, v = 0;
        MPI_Status status;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TL_MPI_FAILURE_TAG, mc->outcome, &flag, &status) != MPI_SUCCESS || !flag) return;
        MPI_Recv(&v, 1, MPI_INT, status.MPI_SOURCE, TL_MPI_FAILURE_TAG, mc->outcome, MPI_STATUS_IGNORE);
    }
}

static void mc_destroy(tl_hostcomm *hc)
{
    tl_mpicomm *mc = (tl_mpicomm *)hc;
    for (int ch = 0; ch < TL_CHAN_COUNT; ch++)
        if (mc->chan[ch] != MPI_COMM_NULL) MPI_Comm_free(&mc->chan[ch]);
    if (mc->outcome != MPI_COMM_NULL) MPI_Comm_free(&mc->outcome);
    free(mc);
}

static const tl_comm_ops tl_comm_mpi_ops = {
    .name = "mpi",
    .barrier = mc_barrier,
    .allreduce = mc_allreduce,
    .bcast = mc_bcast,
    .allgather = mc_allgather,
    .gatherv = mc_gatherv,
    .iallreduce = mc_iallreduce,
    .isend = mc_isend,
    .irecv = mc_irecv,
    .wait = mc_wait,
    .wait_for = mc_wait_for,
    .peer_failed = mc_peer_failed,
    .announce_failure = mc_announce_failure,
    .destroy = mc_destroy,
};

static tl_status dup_world(MPI_Comm *out)
{
    TL_MPI(MPI_Comm_dup(MPI_COMM_WORLD, out));
    TL_MPI(MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN));
    return TL_OK;
}

tl_status tl_mpicomm_create(tl_hostcomm **out)
{
    tl_mpicomm *mc = NULL;
    tl_status st = TL_OK;
    TL_ALLOC(mc, 1);
    mc->base.ops = &tl_comm_mpi_ops;
    for (int ch = 0; ch < TL_CHAN_COUNT; ch++) mc->chan[ch] = MPI_COMM_NULL;
    mc->outcome = MPI_COMM_NULL;
    mc->outcome_req = MPI_REQUEST_NULL;
    TL_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &mc->base.rank));
    TL_MPI(MPI_Comm_size(MPI_COMM_WORLD, &mc->base.size));
    for (int ch = 0; ch < TL_CHAN_COUNT; ch++) TL_TRYGOTO(dup_world(&mc->chan[ch]), st, fail);
    TL_TRYGOTO(dup_world(&mc->outcome), st, fail);
    *out = &mc->base;
    return TL_OK;
fail:
    mc_destroy(&mc->base);
    return st;
}

tl_status tl_mpicomm_final_agree(tl_hostcomm *hc, tl_status st, double grace_s, int *any_failed)
{
    tl_mpicomm *mc = (tl_mpicomm *)hc;
    if (st != TL_OK) mc_announce_failure(hc);
    if (!mc->announced) {
        mc->mine = 0;
        TL_MPI(MPI_Iallreduce(&mc->mine, &mc->all, 1, MPI_INT, MPI_MAX, mc->outcome, &mc->outcome_req));
    }
    TL_CHECK(mc->outcome_req != MPI_REQUEST_NULL, TL_ERR_MPI, "the outcome agreement could not be posted");
    if (!mc->mine) {
        /* a healthy rank waits as long as it takes: a failed rank that
         * gives up aborts the whole job, this one included */
        TL_MPI(MPI_Wait(&mc->outcome_req, MPI_STATUS_IGNORE));
        *any_failed = mc->all;
        drain_notices(mc);
        return TL_OK;
    }
    int64_t t0 = tl_clock_ns();
    for (;;) {
        int done = 0;
        TL_MPI(MPI_Test(&mc->outcome_req, &done, MPI_STATUS_IGNORE));
        if (done) break;
        if (seconds_since(t0) > grace_s) {
            *any_failed = 1;
            return TL_ERR_TIMEOUT; /* the request stays pending: the caller aborts */
        }
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
    *any_failed = 1;
    drain_notices(mc);
    return TL_OK;
}

MPI_Comm tl_comm_mpi(const tl_ctx *ctx, tl_chan ch)
{
    if (!ctx || !ctx->hc || ctx->hc->ops != &tl_comm_mpi_ops || ch < 0 || ch >= TL_CHAN_COUNT)
        return MPI_COMM_NULL;
    return ((const tl_mpicomm *)ctx->hc)->chan[ch];
}

/* Open MPI and MPICH say at run time whether device pointers may be passed
 * (MPIX_Query_cuda_support); TRILAP_CUDA_AWARE_MPI=0 turns it off. */
int tl_comm_cuda_aware(const tl_ctx *ctx)
{
    if (!ctx || !ctx->hc || ctx->hc->ops != &tl_comm_mpi_ops) return 0;
    const char *env = getenv("TRILAP_CUDA_AWARE_MPI");
    if (env && strcmp(env, "0") == 0) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

#else

int tl_comm_cuda_aware(const tl_ctx *ctx)
{
    (void)ctx;
    return 0;
}

tl_status tl_mpicomm_create(tl_hostcomm **out)
{
    *out = NULL;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "MPI launch: this build has no MPI (install libopenmpi-dev and rebuild)");
}

tl_status tl_mpicomm_final_agree(tl_hostcomm *hc, tl_status st, double grace_s, int *any_failed)
{
    *any_failed = st != TL_OK;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "MPI: not in this build");
}

#endif
