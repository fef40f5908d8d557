/* Host backend: OpenMP kernels on the rank's local arrays, halo exchange
 * and allreduce through runtime/comm.h (MPI or threads alike).
 *
 * Overlap, as the schedule asks: spmv_begin posts the halo (tl_halo_begin)
 * and multiplies the diagonal block while it is in flight, spmv_end waits
 * and adds the off-diagonal block on the border rows; dot_begin posts an
 * iallreduce on the schedule's channel (TL_CHAN_SPLIT for three-split) that
 * dot_end waits for. How far a non-blocking MPI collective progresses
 * during the computation is up to the MPI library (Open MPI's libnbc moves
 * on inside MPI calls such as the halo waits). */
#include "solvers/backends/backend.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/probes.h"
#include "runtime/comm.h"
#include "runtime/marks.h"
#include "runtime/timing.h"


/* Below this many entries a loop runs on one thread: a parallel region
 * costs more than it saves. */
#define HOST_OMP_MIN 16384

/* A CSR block with its column indices as int32 when they fit (every local
 * block does in practice): 12 instead of 16 bytes per nonzero, the same
 * as PETSc's AIJ, on the operation that moves the most bytes. */
typedef struct host_csr {
    const tl_csr *a;
    int32_t *col32; /* NULL: use a->colidx */
} host_csr;

typedef struct host_slot {
    double buf[TL_DOT_MAX];
    int n;
    int active;
    tl_request *req;
    double pend[TL_DOT_MAX]; /* update_sq sums waiting for the next dot_begin */
    int npend;
    double kept; /* the local (x, A x) of a spmv_dot, for the next dot_begin(slot, 0) */
    int has_kept;
} host_slot;

typedef struct host_backend {
    tl_backend base;
    int nthreads;
    int comm;           /* 0: one rank without host communication */
    tl_halo_xchg *halo; /* NULL without neighbours to talk to */
    double *dinv;       /* Jacobi: 1 / diagonal */
    host_csr diag, offd;
    host_slot slot[TL_DOT_SLOTS];
    int halo_pending;
} host_backend;

static inline host_backend *hb_of(tl_backend *be)
{
    return (host_backend *)be;
}

/* ---- kernels --------------------------------------------------------- */

/* Vectorise a loop without asking the cost model (-O2 would not version
 * the loops below for aliasing): every loop marked so reads entry i of
 * its inputs before it writes entry i of its output, so lanes never see
 * each other's writes, also when y is one of the x. */
#if TL_HAVE_OPENMP
#define HOST_SIMD _Pragma("omp simd")
#else
#define HOST_SIMD
#endif

/* y[r0..r1) = A x, or += when accumulate. */
static void csr_rows_serial(const host_csr *h, int64_t r0, int64_t r1, const double *x, double *y,
                            int accumulate)
{
    const tl_csr *a = h->a;
    const int64_t *rp = a->rowptr;
    const double *v = a->val;
    if (h->col32) {
        const int32_t *ci = h->col32;
        for (int64_t i = r0; i < r1; i++) {
            double s = accumulate ? y[i] : 0.0;
            for (int64_t k = rp[i]; k < rp[i + 1]; k++)
                s += v[k] * x[ci[k]];
            y[i] = s;
        }
        return;
    }
    const int64_t *ci = a->colidx;
    for (int64_t i = r0; i < r1; i++) {
        double s = accumulate ? y[i] : 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            s += v[k] * x[ci[k]];
        y[i] = s;
    }
}

static void csr_rows(const host_csr *h, int64_t r0, int64_t r1, const double *x, double *y,
                     int accumulate, int nthreads)
{
    const tl_csr *a = h->a;
    /* small products on one thread: entering a parallel region costs more */
    if (nthreads <= 1 || a->rowptr[r1] - a->rowptr[r0] < HOST_OMP_MIN) {
        csr_rows_serial(h, r0, r1, x, y, accumulate);
        return;
    }
    int64_t nb = (r1 - r0 + 255) / 256;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        int64_t i0 = r0 + b * 256, i1 = i0 + 256 < r1 ? i0 + 256 : r1;
        csr_rows_serial(h, i0, i1, x, y, accumulate);
    }
}

/* Updates and dots work on chunks of CHUNK entries: every fused update
 * of a chunk runs before the next chunk, so a vector written by one update
 * and read by a later one is still in L1. */
#define CHUNK 512

/* One update over [i0, i0 + len): y = sum_k c_k x_k, entry by entry (y may
 * be one of the x: each entry is read before it is written). */
static void update_range(const tl_update *w, int64_t i0, int64_t len)
{
    double *y = w->y->data + i0;
    const double *x0 = w->x[0]->data + i0;
    double c0 = w->coef[0];
    switch (w->nterms) {
    case 1:
        HOST_SIMD
        for (int64_t i = 0; i < len; i++)
            y[i] = c0 * x0[i];
        break;
    case 2: {
        const double *x1 = w->x[1]->data + i0;
        double c1 = w->coef[1];
        HOST_SIMD
        for (int64_t i = 0; i < len; i++)
            y[i] = c0 * x0[i] + c1 * x1[i];
        break;
    }
    case 3: {
        const double *x1 = w->x[1]->data + i0, *x2 = w->x[2]->data + i0;
        double c1 = w->coef[1], c2 = w->coef[2];
        HOST_SIMD
        for (int64_t i = 0; i < len; i++)
            y[i] = c0 * x0[i] + c1 * x1[i] + c2 * x2[i];
        break;
    }
    default: {
        const double *x1 = w->x[1]->data + i0, *x2 = w->x[2]->data + i0,
                     *x3 = w->x[3]->data + i0;
        double c1 = w->coef[1], c2 = w->coef[2], c3 = w->coef[3];
        HOST_SIMD
        for (int64_t i = 0; i < len; i++)
            y[i] = c0 * x0[i] + c1 * x1[i] + c2 * x2[i] + c3 * x3[i];
        break;
    }
    }
}

/* Four partial sums: a dependency chain the core can overlap without
 * -ffast-math. Measured on this machine over 512-entry chunks (L2): 33 us
 * per 2 x 1 MB, against 36 with "omp simd reduction" and 43 with eight
 * SSE2 partial sums. */
static double dot_range(const double *x, const double *y, int64_t i0, int64_t i1)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int64_t i = i0;
    for (; i + 4 <= i1; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < i1; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* The fused updates of one chunk; then, when nsq > 0, acc[k] += the sum
 * of squares of sq[k] over the chunk (values after the updates). */
static void update_chunk(const tl_update *u, int nu, int64_t i0, int64_t i1, int nsq,
                         tl_vec *const *sq, double *acc)
{
    for (int j = 0; j < nu; j++)
        update_range(&u[j], i0, i1 - i0);
    for (int k = 0; k < nsq; k++)
        acc[k] += dot_range(sq[k]->data, sq[k]->data, i0, i1);
}

static void dot_chunk(int n, const double *const *xs, const double *const *ys, int64_t i0,
                      int64_t i1, double *acc)
{
    for (int k = 0; k < n; k++)
        acc[k] += dot_range(xs[k], ys[k], i0, i1);
}

/* Bytes a CSR product over rows [r0, r1) moves: values and column indices,
 * row pointers, y written (and read when accumulating), x read once. */
static double csr_bytes(const host_csr *h, int64_t r0, int64_t r1, int64_t xlen, int accumulate)
{
    const tl_csr *a = h->a;
    double nz = (double)(a->rowptr[r1] - a->rowptr[r0]);
    double rows = (double)(r1 - r0);
    double idx = h->col32 ? sizeof(int32_t) : sizeof(int64_t);
    return nz * (sizeof(double) + idx) + rows * sizeof(int64_t) +
           rows * sizeof(double) * (accumulate ? 2 : 1) + (double)xlen * sizeof(double);
}

/* ---- vectors ----------------------------------------------------------- */

static tl_status host_vec_create(tl_backend *be, tl_vec **out)
{
    const tl_dist_matrix *m = be->m;
    tl_vec *v = NULL;
    TL_ALLOC(v, 1);
    v->nalloc = m->nowned + m->nghost;
    v->data = calloc((size_t)(v->nalloc ? v->nalloc : 1), sizeof(double));
    if (!v->data) {
        free(v);
        return TL_FAIL(TL_ERR_NOMEM, "vector of %lld doubles", (long long)m->nowned + m->nghost);
    }
    *out = v;
    return TL_OK;
}

static void host_vec_destroy(tl_backend *be, tl_vec **v)
{
    if (!v || !*v) return;
    free((*v)->data);
    free(*v);
    *v = NULL;
}

static tl_status host_vec_set(tl_backend *be, tl_vec *v, const double *local)
{
    memcpy(v->data, local, (size_t)be->m->nowned * sizeof(double));
    return TL_OK;
}

static tl_status host_vec_get(tl_backend *be, const tl_vec *v, double *local)
{
    memcpy(local, v->data, (size_t)be->m->nowned * sizeof(double));
    return TL_OK;
}

static tl_status host_fill(tl_backend *be, tl_vec *v, double alpha)
{
    int64_t n = be->m->nowned;
    int64_t t0 = tl_clock_ns();
    double *y = v->data;
    for (int64_t i = 0; i < n; i++)
        y[i] = alpha;
    tl_backend_stat(be, TL_OP_UPDATE, tl_clock_ns() - t0, (double)n * sizeof(double));
    return TL_OK;
}

/* ---- fused updates ----------------------------------------------------- */

/* update and update_sq: the fused pass, with nsq sums of squares into
 * slot `slot` when nsq > 0. */
static tl_status host_update_pass(tl_backend *be, const tl_update *u, int nu, int slot, int nsq,
                                  tl_vec *const *sq)
{
    TL_CHECK(nu >= 1 && nu <= TL_UPDATE_MAX, TL_ERR_INVAL, "%d updates (1..%d)", nu, TL_UPDATE_MAX);
    for (int j = 0; j < nu; j++)
        TL_CHECK(u[j].nterms >= 1 && u[j].nterms <= TL_UPDATE_MAXTERMS && u[j].y, TL_ERR_INVAL,
                 "update %d: %d terms", j, u[j].nterms);
    host_slot *hs = NULL;
    if (nsq > 0) {
        TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
        hs = &hb_of(be)->slot[slot];
        TL_CHECK(!hs->active && nsq <= TL_DOT_MAX, TL_ERR_INVAL,
                 "update_sq: %d sums into slot %d (active %d)", nsq, slot, hs->active);
    }
    /* Memory traffic of one fused pass: each vector read before the pass
     * writes it, and each vector written, once (the squared vectors are
     * among them, or read once more). */
    const tl_vec *rd[TL_UPDATE_MAX * TL_UPDATE_MAXTERMS + TL_DOT_MAX], *wr[TL_UPDATE_MAX];
    int nrd = 0, nwr = 0;
    tl_update_rw(u, nu, rd, &nrd, wr, &nwr);
    for (int k = 0; k < nsq; k++) {
        int known = 0;
        for (int q = 0; q < nrd; q++)
            known |= rd[q] == sq[k];
        for (int q = 0; q < nwr; q++)
            known |= wr[q] == sq[k];
        if (!known) rd[nrd++] = sq[k];
    }
    int64_t nvec = nrd, nwritten = nwr;
    int64_t n = be->m->nowned;
    double acc[TL_DOT_MAX] = {0};
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "update");
    int64_t t0 = tl_clock_ns();
    int64_t nchunks = (n + CHUNK - 1) / CHUNK;
    int nt = hb_of(be)->nthreads;
    if (nt <= 1 || n < HOST_OMP_MIN) {
        for (int64_t c = 0; c < nchunks; c++)
            update_chunk(u, nu, c * CHUNK, (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n, nsq, sq, acc);
    } else {
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : acc[:TL_DOT_MAX])
        for (int64_t c = 0; c < nchunks; c++)
            update_chunk(u, nu, c * CHUNK, (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n, nsq, sq, acc);
    }
    tl_backend_stat(be, TL_OP_UPDATE, tl_clock_ns() - t0,
                    (double)(nvec + nwritten) * n * sizeof(double));
    tl_probe_pop(be->ctx);
    if (hs) {
        memcpy(hs->pend, acc, (size_t)nsq * sizeof(double));
        hs->npend = nsq;
    }
    return TL_OK;
}

static tl_status host_update(tl_backend *be, const tl_update *u, int nu)
{
    return host_update_pass(be, u, nu, 0, 0, NULL);
}

static tl_status host_update_sq(tl_backend *be, const tl_update *u, int nu, int slot, int nsq,
                                tl_vec *const *v)
{
    TL_CHECK(nsq >= 1, TL_ERR_INVAL, "update_sq with %d vectors", nsq);
    return host_update_pass(be, u, nu, slot, nsq, v);
}

/* ---- dots and the allreduce ---------------------------------------------- */

/* The local dots (xs[k], ys[k]), k < n, over entries [0, len) into acc
 * (zeroed): as one dot_range each on one thread, else per chunk. */
static void local_dots(const host_backend *hb, int n, const double *const *xs,
                       const double *const *ys, int64_t len, double *acc)
{
    int64_t nchunks = (len + CHUNK - 1) / CHUNK;
    if (hb->nthreads <= 1 || len < HOST_OMP_MIN) {
        dot_chunk(n, xs, ys, 0, len, acc);
        return;
    }
#pragma omp parallel for num_threads(hb->nthreads) schedule(static) reduction(+ : acc[:TL_DOT_MAX])
    for (int64_t c = 0; c < nchunks; c++)
        dot_chunk(n, xs, ys, c * CHUNK, (c + 1) * CHUNK < len ? (c + 1) * CHUNK : len, acc);
}

/* The host's halo exchanges and reductions are communication in traces
 * (runtime/marks.h: the p2p and coll lanes) where there is some: on one
 * rank the allreduce is a copy that moves nothing, a plain host range. */
static void comm_begin(tl_backend *be, tl_role lane, const char *what)
{
    if (be->ctx && be->ctx->size > 1)
        tl_mark_begin(be->ctx, lane, what);
    else
        tl_probe_push(be->ctx, lane == TL_ROLE_COLL ? TL_CAT_COLL : TL_CAT_P2P, what);
}

/* n = 0: the dot a spmv_dot kept (no pass over the vectors). */
static tl_status host_dot_begin(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y)
{
    host_backend *hb = hb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    TL_CHECK(n >= 0 && n <= TL_DOT_MAX, TL_ERR_INVAL, "%d dots (0..%d)", n, TL_DOT_MAX);
    host_slot *s = &hb->slot[slot];
    TL_CHECK(!s->active, TL_ERR_INVAL, "dot slot %d begun twice without dot_end", slot);
    TL_CHECK(n > 0 || s->has_kept, TL_ERR_INVAL, "dot slot %d: no dots, and no spmv_dot kept one",
             slot);
    double acc[TL_DOT_MAX] = {0};
    if (n == 0) {
        acc[0] = s->kept;
        n = 1;
    } else {
        int64_t len = be->m->nowned;
        const double *xs[TL_DOT_MAX], *ys[TL_DOT_MAX];
        for (int k = 0; k < n; k++) {
            xs[k] = x[k]->data;
            ys[k] = y[k]->data;
        }
        int nseen = tl_dot_vectors(n, x, y);
        tl_probe_push(be->ctx, TL_CAT_COMPUTE, "dot");
        int64_t t0 = tl_clock_ns();
        local_dots(hb, n, xs, ys, len, acc);
        tl_backend_stat(be, TL_OP_DOT, tl_clock_ns() - t0, (double)nseen * len * sizeof(double));
        tl_probe_pop(be->ctx);
    }
    /* dots of the call's own forget what a spmv_dot kept */
    s->has_kept = 0;
    TL_CHECK(n + s->npend <= TL_DOT_MAX, TL_ERR_INVAL, "%d dots + %d update_sq sums (max %d)", n,
             s->npend, TL_DOT_MAX);
    memcpy(s->buf, acc, (size_t)n * sizeof(double));
    /* the sums an update_sq left for this slot ride in the same reduction */
    memcpy(s->buf + n, s->pend, (size_t)s->npend * sizeof(double));
    n += s->npend;
    s->npend = 0;
    s->n = n;
    s->active = 1;
    if (!hb->comm) return TL_OK;
    const tl_schedule *sc = be->cfg.schedule;
    comm_begin(be, TL_ROLE_COLL, sc->overlap_allreduce ? "allreduce_post" : "allreduce");
    int64_t t0 = tl_clock_ns();
    tl_status st;
    if (sc->overlap_allreduce)
        st = tl_comm_iallreduce(be->ctx, sc->host_chan, s->buf, (size_t)n, &s->req);
    else
        st = tl_comm_allreduce(be->ctx, s->buf, (size_t)n, TL_DOUBLE, TL_SUM);
    tl_backend_stat(be, TL_OP_ALLREDUCE, tl_clock_ns() - t0, (double)n * sizeof(double));
    tl_probe_pop(be->ctx); /* a mark's end, or the range's */
    if (st != TL_OK) {
        s->active = 0;
        return tl_error_frame(st, TL_FILE_, __LINE__);
    }
    return TL_OK;
}

static tl_status host_dot_end(tl_backend *be, int slot, double *out)
{
    host_backend *hb = hb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    host_slot *s = &hb->slot[slot];
    TL_CHECK(s->active, TL_ERR_INVAL, "dot_end on slot %d without dot_begin", slot);
    s->active = 0;
    if (s->req) {
        comm_begin(be, TL_ROLE_COLL, "allreduce_wait");
        int64_t t0 = tl_clock_ns();
        tl_status st = tl_comm_wait(be->ctx, &s->req);
        /* count the wait as time of the same allreduce, not a second one */
        be->stats[TL_OP_ALLREDUCE].ns += tl_clock_ns() - t0;
        tl_probe_pop(be->ctx); /* a mark's end, or the range's */
        TL_TRY(st);
    }
    memcpy(out, s->buf, (size_t)s->n * sizeof(double));
    return TL_OK;
}

/* ---- SpMV with the halo exchange ----------------------------------------- */

/* The exchange's two halves as traces name them (runtime/marks.h). */
static const char halo_post_what[] = "halo_post", halo_wait_what[] = "halo_wait";

/* For traces: both halves of the halo involve the plan's neighbours alone,
 * so that the analysis pairs them with those (a rank in the middle of a
 * row split waits for two ranks, not for every rank). */
static tl_status halo_declare_peers(tl_ctx *ctx, const tl_halo_plan *h)
{
    const tl_mark_peerset nbrs = {.rank = h->neighbors, .n = h->nneighbors};
    TL_TRY(tl_mark_peers(ctx, TL_ROLE_P2P, halo_post_what, &nbrs, 1));
    TL_TRY(tl_mark_peers(ctx, TL_ROLE_P2P, halo_wait_what, &nbrs, 1));
    return TL_OK;
}

static tl_status halo_post(tl_backend *be, tl_vec *x)
{
    host_backend *hb = hb_of(be);
    if (!hb->halo) return TL_OK;
    comm_begin(be, TL_ROLE_P2P, halo_post_what);
    int64_t t0 = tl_clock_ns();
    tl_status st = tl_halo_begin(be->ctx, hb->halo, x->data);
    /* bytes are counted once per exchange, at the wait */
    be->stats[TL_OP_HALO].ns += tl_clock_ns() - t0;
    tl_probe_pop(be->ctx); /* a mark's end, or the range's */
    TL_TRY(st);
    hb->halo_pending = 1;
    return TL_OK;
}

static tl_status halo_wait(tl_backend *be, tl_vec *x)
{
    host_backend *hb = hb_of(be);
    if (!hb->halo_pending) return TL_OK;
    hb->halo_pending = 0;
    const tl_halo_plan *h = &be->m->halo;
    comm_begin(be, TL_ROLE_P2P, halo_wait_what);
    int64_t t0 = tl_clock_ns();
    tl_status st = tl_halo_end(be->ctx, hb->halo, x->data);
    tl_backend_stat(be, TL_OP_HALO, tl_clock_ns() - t0,
                    (double)(h->nsend + h->nrecv) * sizeof(double));
    tl_probe_pop(be->ctx); /* a mark's end, or the range's */
    TL_TRY(st);
    return TL_OK;
}

static void spmv_diag(tl_backend *be, tl_vec *x, tl_vec *y)
{
    const tl_dist_matrix *m = be->m;
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "spmv_diag");
    int64_t t0 = tl_clock_ns();
    host_backend *hb = hb_of(be);
    csr_rows(&hb->diag, 0, m->nowned, x->data, y->data, 0, hb->nthreads);
    tl_backend_stat(be, TL_OP_SPMV, tl_clock_ns() - t0, csr_bytes(&hb->diag, 0, m->nowned, m->nowned, 0));
    tl_probe_pop(be->ctx);
}

static void spmv_offd(tl_backend *be, tl_vec *x, tl_vec *y)
{
    const tl_dist_matrix *m = be->m;
    if (m->nghost == 0 || m->nborder == 0) return;
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "spmv_offd");
    int64_t t0 = tl_clock_ns();
    /* offd columns count from 0; ghost values sit after the owned ones */
    host_backend *hb = hb_of(be);
    csr_rows(&hb->offd, m->ninterior, m->nowned, x->data + m->nowned, y->data, 1, hb->nthreads);
    /* the second half of the same product: time added, not counted again */
    be->stats[TL_OP_SPMV].ns += tl_clock_ns() - t0;
    be->stats[TL_OP_SPMV].bytes += csr_bytes(&hb->offd, m->ninterior, m->nowned, m->nghost, 1);
    tl_probe_pop(be->ctx);
}

static tl_status host_spmv_begin(tl_backend *be, tl_vec *x, tl_vec *y)
{
    TL_CHECK(x != y, TL_ERR_INVAL, "spmv in place");
    TL_CHECK(!hb_of(be)->halo_pending, TL_ERR_INVAL, "spmv_begin twice without spmv_end");
    TL_TRY(halo_post(be, x));
    if (!be->cfg.schedule->overlap_halo) TL_TRY(halo_wait(be, x));
    spmv_diag(be, x, y);
    return TL_OK;
}

static tl_status host_spmv_end(tl_backend *be, tl_vec *x, tl_vec *y)
{
    TL_TRY(halo_wait(be, x));
    spmv_offd(be, x, y);
    return TL_OK;
}

/* dot_range(x, y, 0, n) taken in pieces [i0, i1) in order: entry i goes
 * to lane i % 4 below n4 = n - n % 4 and to lane 0 above, in order of i,
 * so the pieces' sum is dot_range's bit for bit (and so the dot
 * dot_begin would compute on one thread). */
typedef struct host_lanes {
    double s[4];
    int64_t n4;
} host_lanes;

static void lanes_add(host_lanes *l, const double *x, const double *y, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1; i++)
        l->s[i < l->n4 ? (i & 3) : 0] += x[i] * y[i];
}

/* y = A x and the local (x, y) for the next dot_begin(slot, 0). On one
 * thread the pass that finishes a row takes its term: the interior rows
 * after the diagonal block, the border rows after the ghost block (the
 * CUDA backend's split, here with dot_range's order); on several, the
 * dot of dot_begin after the product. Counted as the SpMV (time only: the
 * vectors are those the product just moved). */
static tl_status host_spmv_dot(tl_backend *be, tl_vec *x, tl_vec *y, int slot)
{
    host_backend *hb = hb_of(be);
    const tl_dist_matrix *m = be->m;
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    host_slot *hs = &hb->slot[slot];
    TL_CHECK(!hs->active, TL_ERR_INVAL, "spmv_dot: dot slot %d is active", slot);
    int64_t n = m->nowned;
    /* spmv_offd finishes the border rows only where it runs */
    int64_t nfinal = m->nghost > 0 && m->nborder > 0 ? m->ninterior : n;
    int serial = hb->nthreads <= 1 || n < HOST_OMP_MIN;
    host_lanes l = {.n4 = n - n % 4};
    TL_TRY(host_spmv_begin(be, x, y));
    int64_t t0 = tl_clock_ns();
    if (serial) lanes_add(&l, x->data, y->data, 0, nfinal);
    be->stats[TL_OP_SPMV].ns += tl_clock_ns() - t0;
    TL_TRY(host_spmv_end(be, x, y));
    t0 = tl_clock_ns();
    double acc[TL_DOT_MAX] = {0};
    if (serial) {
        lanes_add(&l, x->data, y->data, nfinal, n);
        acc[0] += (l.s[0] + l.s[1]) + (l.s[2] + l.s[3]);
    } else {
        local_dots(hb, 1, (const double *[]){x->data}, (const double *[]){y->data}, n, acc);
    }
    be->stats[TL_OP_SPMV].ns += tl_clock_ns() - t0;
    hs->kept = acc[0];
    hs->has_kept = 1;
    return TL_OK;
}

/* ---- preconditioner -------------------------------------------------------- */

static tl_status host_precond(tl_backend *be, tl_vec *z, tl_vec *r)
{
    host_backend *hb = hb_of(be);
    int64_t n = be->m->nowned;
    const double *rv = r->data, *d = hb->dinv;
    double *zv = z->data;
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "precond");
    int64_t t0 = tl_clock_ns();
    if (d && (hb->nthreads <= 1 || n < HOST_OMP_MIN)) {
        HOST_SIMD
        for (int64_t i = 0; i < n; i++)
            zv[i] = d[i] * rv[i];
    } else if (d) {
#pragma omp parallel for num_threads(hb->nthreads) schedule(static)
        for (int64_t i = 0; i < n; i++)
            zv[i] = d[i] * rv[i];
    } else if (zv != rv) {
        memcpy(zv, rv, (size_t)n * sizeof(double));
    }
    tl_backend_stat(be, TL_OP_PRECOND, tl_clock_ns() - t0, (double)n * sizeof(double) * (d ? 3 : 2));
    tl_probe_pop(be->ctx);
    return TL_OK;
}

static tl_status host_finish(tl_backend *be)
{
    return TL_OK;
}

/* ---- life cycle --------------------------------------------------------- */

/* OMP_NUM_THREADS's first element as a positive int, else 0 */
static int env_threads(const char *text)
{
    size_t len = strcspn(text, ",");
    if (len == 0 || len > 9 || strspn(text, "0123456789") != len) return 0;
    return atoi(text);
}

int tl_backend_host_threads(int asked, int local_ranks, tl_omp_source *source)
{
    const char *env = getenv("OMP_NUM_THREADS");
    if (asked > 0) {
        *source = TL_OMP_FROM_OPTION;
        return asked;
    }
    int t = env ? env_threads(env) : 0;
    if (t > 0) {
        *source = TL_OMP_FROM_ENV;
        return t;
    }
    *source = env ? TL_OMP_ENV_INVALID : TL_OMP_FROM_CORES;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long each = cores / (local_ranks > 0 ? local_ranks : 1);
    return each < 1 ? 1 : (int)each;
}

static void host_destroy(tl_backend **be)
{
    if (!be || !*be) return;
    host_backend *hb = hb_of(*be);
    for (int s = 0; s < TL_DOT_SLOTS; s++)
        if (hb->slot[s].req) tl_comm_wait((*be)->ctx, &hb->slot[s].req);
    tl_halo_xchg_destroy(&hb->halo);
    free(hb->dinv);
    free(hb->diag.col32);
    free(hb->offd.col32);
    free(hb);
    *be = NULL;
}

/* int32 column indices when the block's columns fit (else col32 stays
 * NULL and the kernels read the int64 ones). */
static tl_status narrow_columns(host_csr *h)
{
    const tl_csr *a = h->a;
    if (a->ncols > INT32_MAX || a->nnz == 0) return TL_OK;
    h->col32 = malloc((size_t)a->nnz * sizeof *h->col32);
    TL_CHECK(h->col32, TL_ERR_NOMEM, "%lld column indices", (long long)a->nnz);
    for (int64_t k = 0; k < a->nnz; k++)
        h->col32[k] = (int32_t)a->colidx[k];
    return TL_OK;
}

static tl_status host_create(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                             tl_backend **out)
{
    tl_status st = TL_OK;
    host_backend *hb = NULL;
    double *diag = NULL;
    *out = NULL;
    TL_CHECK(cfg && cfg->schedule, TL_ERR_INVAL, "no schedule");
    hb = calloc(1, sizeof *hb);
    TL_CHECKGOTO(hb, TL_ERR_NOMEM, st, fail, "host backend");
    hb->comm = ctx->size > 1 || ctx->hc != NULL;
    tl_omp_source src;
    hb->nthreads = tl_backend_host_threads(cfg->omp_threads, ctx->local_size, &src);
#if !TL_HAVE_OPENMP
    hb->nthreads = 1;
#endif
    diag = calloc((size_t)(m->nowned ? m->nowned : 1), sizeof *diag);
    TL_CHECKGOTO(diag, TL_ERR_NOMEM, st, fail, "diagonal of %lld rows", (long long)m->nowned);
    tl_csr_diagonal(&m->diag, diag);
    TL_TRYGOTO(tl_backend_init_base(&hb->base, &tl_backend_host_ops, ctx, m, cfg, diag), st, fail);
    hb->base.cfg.omp_threads = hb->nthreads;
    if (cfg->precond == TL_PRECOND_JACOBI) {
        /* zero diagonals fail below (collectively), not here */
        for (int64_t i = 0; i < m->nowned; i++)
            diag[i] = diag[i] != 0.0 ? 1.0 / diag[i] : 0.0;
        hb->dinv = diag;
        diag = NULL;
    }
    if (hb->base.zero_diag > 0 && cfg->precond == TL_PRECOND_JACOBI) {
        st = TL_FAIL(TL_ERR_NUMERIC, "Jacobi preconditioner: %lld zero diagonal entries",
                     (long long)hb->base.zero_diag);
        goto fail;
    }
    if (hb->comm && ctx->size > 1) {
        TL_TRYGOTO(tl_halo_xchg_create(ctx, m, &hb->halo), st, fail);
        TL_TRYGOTO(halo_declare_peers(ctx, &m->halo), st, fail);
    }
    hb->diag.a = &m->diag;
    hb->offd.a = &m->offd;
    TL_TRYGOTO(narrow_columns(&hb->diag), st, fail);
    TL_TRYGOTO(narrow_columns(&hb->offd), st, fail);
    free(diag);
    *out = &hb->base;
    return TL_OK;
fail:
    free(diag);
    if (hb) {
        tl_backend *b = &hb->base;
        host_destroy(&b);
    }
    return st;
}

const tl_backend_ops tl_backend_host_ops = {
    .name = "host",
    .create = host_create,
    .destroy = host_destroy,
    .vec_create = host_vec_create,
    .vec_destroy = host_vec_destroy,
    .vec_set = host_vec_set,
    .vec_get = host_vec_get,
    .fill = host_fill,
    .update = host_update,
    .dot_begin = host_dot_begin,
    .dot_end = host_dot_end,
    .spmv_begin = host_spmv_begin,
    .spmv_end = host_spmv_end,
    .precond = host_precond,
    .finish = host_finish,
    .update_sq = host_update_sq,
    .spmv_dot = host_spmv_dot,
};
