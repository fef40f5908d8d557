#include "solvers/backends/backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/comm.h"

static const char *const tl_precond_names[TL_PRECOND_COUNT] = {
    [TL_PRECOND_NONE] = "none",
    [TL_PRECOND_JACOBI] = "jacobi",
};

const char *tl_precond_name(tl_precond p)
{
    return (p >= 0 && p < TL_PRECOND_COUNT) ? tl_precond_names[p] : "unknown";
}

tl_status tl_precond_parse(const char *s, tl_precond *out)
{
    for (int i = 0; i < TL_PRECOND_COUNT; i++)
        if (s && strcmp(s, tl_precond_names[i]) == 0) {
            *out = (tl_precond)i;
            return TL_OK;
        }
    return TL_FAIL(TL_ERR_INVAL, "unknown preconditioner '%s' (none|jacobi)", s ? s : "(null)");
}

static const char *const tl_op_names[TL_OP_COUNT] = {
    [TL_OP_SPMV] = "spmv",           [TL_OP_HALO] = "halo",     [TL_OP_DOT] = "dot",
    [TL_OP_ALLREDUCE] = "allreduce", [TL_OP_UPDATE] = "update", [TL_OP_PRECOND] = "precond",
    [TL_OP_LOOP] = "loop",
};

const char *tl_op_name(tl_op_kind k)
{
    return (k >= 0 && k < TL_OP_COUNT) ? tl_op_names[k] : "unknown";
}

static const tl_backend_ops *const tl_backends[] = {&tl_backend_host_ops, &tl_backend_cuda_ops};

const tl_backend_ops *tl_backend_find(const char *name)
{
    for (size_t i = 0; i < sizeof tl_backends / sizeof tl_backends[0]; i++)
        if (name && strcmp(tl_backends[i]->name, name) == 0) return tl_backends[i];
    return NULL;
}

tl_status tl_backend_init_base(tl_backend *be, const tl_backend_ops *ops, tl_ctx *ctx,
                               const tl_dist_matrix *m, const tl_backend_config *cfg,
                               const double *diag_local)
{
    be->ops = ops;
    be->ctx = ctx;
    be->m = m;
    be->cfg = *cfg;
    be->nglobal = m->nglobal;
    int64_t g[3] = {m->diag.nnz + m->offd.nnz, 0, 0};
    for (int64_t i = 0; i < m->nowned; i++) {
        g[1] += diag_local[i] <= 0.0 || diag_local[i] != diag_local[i];
        g[2] += diag_local[i] == 0.0;
    }
    /* ||A||_inf and the longest row, for the rounding-error bounds of the
     * pipelined methods (method_pipecg.c) */
    double amax = 0.0;
    int64_t rmax = 0;
    for (int64_t i = 0; i < m->nowned; i++) {
        double s = 0.0;
        const tl_csr *parts[2] = {&m->diag, &m->offd};
        int64_t len = 0;
        for (int q = 0; q < 2; q++) {
            const tl_csr *a = parts[q];
            if (a->nrows <= i || !a->rowptr) continue;
            for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
                s += fabs(a->val[k]);
            len += a->rowptr[i + 1] - a->rowptr[i];
        }
        if (s > amax || s != s) amax = s;
        if (len > rmax) rmax = len;
    }
    int64_t gmax = rmax;
    /* A one-rank context without host communication (unit tests, serial
     * reference) has nothing to reduce. */
    if (ctx->size > 1 || ctx->hc) {
        TL_TRY(tl_comm_allreduce(ctx, g, 3, TL_INT64, TL_SUM));
        TL_TRY(tl_comm_allreduce(ctx, &amax, 1, TL_DOUBLE, TL_MAX));
        TL_TRY(tl_comm_allreduce(ctx, &gmax, 1, TL_INT64, TL_MAX));
    }
    be->nnz_global = g[0];
    be->nonpos_diag = g[1];
    be->zero_diag = g[2];
    be->norm_inf = amax;
    be->max_row_nnz = gmax;
    tl_backend_stats_reset(be);
    return TL_OK;
}

void tl_backend_stats_reset(tl_backend *be)
{
    memset(be->stats, 0, sizeof be->stats);
}

tl_status tl_be_spmv(tl_backend *be, tl_vec *x, tl_vec *y)
{
    TL_TRY(tl_be_spmv_begin(be, x, y));
    TL_TRY(tl_be_spmv_end(be, x, y));
    return TL_OK;
}

tl_status tl_be_dots(tl_backend *be, int n, tl_vec *const *x, tl_vec *const *y, double *out)
{
    TL_TRY(tl_be_dot_begin(be, 0, n, x, y));
    TL_TRY(tl_be_dot_end(be, 0, out));
    return TL_OK;
}

tl_status tl_be_copy(tl_backend *be, tl_vec *y, tl_vec *x)
{
    tl_update u = {.y = y, .nterms = 1, .coef = {1.0}, .x = {x}};
    return tl_be_update(be, &u, 1);
}

tl_status tl_be_residual(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec *r, tl_vec *tmp)
{
    TL_TRY(tl_be_spmv(be, x, tmp));
    tl_update u = {.y = r, .nterms = 2, .coef = {1.0, -1.0}, .x = {b, tmp}};
    return tl_be_update(be, &u, 1);
}

tl_status tl_be_dot_begin(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y)
{
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    tl_kept_dots *k = &be->kept[slot];
    if (n != 0) {
        /* dots of its own: whatever an update_fused kept is forgotten */
        k->n = 0;
        return be->ops->dot_begin(be, slot, n, x, y);
    }
    TL_CHECK(k->n > 0, TL_ERR_INVAL, "dot slot %d: dot_begin of the kept dots, but no update_fused kept any",
             slot);
    int nk = k->n;
    k->n = 0;
    if (k->deferred) return be->ops->dot_begin(be, slot, nk, k->x, k->y);
    return be->ops->dot_begin(be, slot, 0, NULL, NULL);
}

static void keep_pairs(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y,
                       int deferred)
{
    tl_kept_dots *k = &be->kept[slot];
    k->n = n;
    k->deferred = deferred;
    for (int j = 0; j < n; j++) {
        k->x[j] = x[j];
        k->y[j] = y[j];
    }
}

static tl_status keep_dots(tl_backend *be, const tl_update_tail *t, int deferred)
{
    if (t->ndots > 0) keep_pairs(be, t->slot, t->ndots, t->x, t->y, deferred);
    return TL_OK;
}

tl_status tl_be_spmv_dot(tl_backend *be, tl_vec *x, tl_vec *y, int slot)
{
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "spmv_dot: dot slot %d", slot);
    if (!be->ops->spmv_dot || be->cfg.unfused_spmv_dot) {
        TL_TRY(tl_be_spmv(be, x, y));
        keep_pairs(be, slot, 1, &x, &y, 1);
        return TL_OK;
    }
    /* whatever an earlier pass kept for the slot is replaced */
    be->kept[slot].n = 0;
    TL_TRY(be->ops->spmv_dot(be, x, y, slot));
    keep_pairs(be, slot, 1, &x, &y, 0);
    return TL_OK;
}

static tl_status check_tail(const tl_update_tail *t)
{
    TL_CHECK(t, TL_ERR_INVAL, "update_fused without a tail");
    TL_CHECK(t->ndots >= 0 && t->ndots <= TL_UPDATE_DOTS, TL_ERR_INVAL,
             "update_fused: %d dots (0..%d)", t->ndots, TL_UPDATE_DOTS);
    TL_CHECK(t->ndots == 0 || (t->slot >= 0 && t->slot < TL_DOT_SLOTS), TL_ERR_INVAL,
             "update_fused: dot slot %d", t->slot);
    TL_CHECK(!t->pz == !t->pr, TL_ERR_INVAL, "update_fused: preconditioner step needs pz and pr");
    for (int j = 0; j < t->ndots; j++)
        TL_CHECK(t->x[j] && t->y[j], TL_ERR_INVAL, "update_fused: dot %d without vectors", j);
    return TL_OK;
}

tl_status tl_be_update_fused_split(tl_backend *be, const tl_update *u, int n,
                                   const tl_update_tail *t)
{
    TL_TRY(check_tail(t));
    TL_TRY(tl_be_update(be, u, n));
    if (t->pz) TL_TRY(tl_be_precond(be, t->pz, t->pr));
    return keep_dots(be, t, 1);
}

tl_status tl_be_fused_iterations(tl_backend *be, const tl_iteration *it, int64_t first_tag, int n)
{
    TL_CHECK(tl_be_has_fused_iterations(be), TL_ERR_UNSUPPORTED,
             "backend %s: no fused iterations", be->ops->name);
    TL_CHECK(n >= 1 && first_tag >= 0, TL_ERR_INVAL, "fused iterations: %d from %lld", n,
             (long long)first_tag);
    const tl_update_tail *t = it->t;
    TL_TRY(check_tail(t));
    TL_CHECK(t->pz && t->ndots > 0, TL_ERR_INVAL, "fused iterations: a tail without %s",
             t->pz ? "dots" : "preconditioner step");
    /* the loop computes t's dots itself, from the vectors as they stand */
    be->kept[t->slot].n = 0;
    TL_TRY(be->ops->fused_iterations(be, it, first_tag, n));
    return keep_dots(be, t, 1);
}

tl_status tl_backend_caps_query(const tl_backend_ops *ops, tl_ctx *ctx, const tl_dist_matrix *m,
                                const tl_backend_config *cfg, tl_backend_caps *out)
{
    *out = (tl_backend_caps){.device_scalars = ops->scalars != NULL,
                             .fused_update = ops->update_fused != NULL};
    if (!ops->caps) {
        snprintf(out->why_not, sizeof out->why_not, "backend %s has no fused iterations",
                 ops->name);
        return TL_OK;
    }
    TL_TRY(ops->caps(ctx, m, cfg, out));
    if (!ops->fused_iterations) out->fused_iterations = 0;
    return TL_OK;
}

tl_status tl_be_update_fused(tl_backend *be, const tl_update *u, int n, const tl_update_tail *t)
{
    if (!be->ops->update_fused || be->cfg.unfused) return tl_be_update_fused_split(be, u, n, t);
    TL_TRY(check_tail(t));
    TL_TRY(be->ops->update_fused(be, u, n, t));
    return keep_dots(be, t, 0);
}

static int seen(const tl_vec *v, const tl_vec **a, int n)
{
    int known = 0;
    for (int q = 0; q < n; q++)
        known |= a[q] == v;
    return known;
}

int tl_dot_vectors(int n, tl_vec *const *x, tl_vec *const *y)
{
    const tl_vec *distinct[2 * TL_DOT_MAX];
    int nd = 0;
    for (int k = 0; k < n; k++) {
        if (!seen(x[k], distinct, nd)) distinct[nd++] = x[k];
        if (!seen(y[k], distinct, nd)) distinct[nd++] = y[k];
    }
    return nd;
}

void tl_update_rw(const tl_update *u, int nu, const tl_vec **rd, int *nrd, const tl_vec **wr,
                  int *nwr)
{
    for (int j = 0; j < nu; j++) {
        for (int k = 0; k < u[j].nterms; k++)
            if (!seen(u[j].x[k], rd, *nrd) && !seen(u[j].x[k], wr, *nwr)) rd[(*nrd)++] = u[j].x[k];
        if (!seen(u[j].y, wr, *nwr)) wr[(*nwr)++] = u[j].y;
    }
}
