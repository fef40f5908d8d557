/* The CUDA backend's fused iterations: Pipe-PCG's iterations in one
 * persistent kernel (loop_kernels.cu, its order of work loop_plan.h), and
 * the capabilities query that says where it runs. The method describes
 * its iteration (tl_iteration); this file runs the one shape it has a
 * loop for, Pipe-PCG's (pipecg_form.h), and refuses any other. */
#include "config.h"

#if TL_HAVE_CUDA

#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/gpu.h"
#include "solvers/backends/cuda/fused_iterations.h"
#include "solvers/backends/cuda/loop_plan.h"

/* Stream roles as tl_gpu_stream maps them (roles past the streams share
 * the compute stream), so that two steps compare as their streams do. */
static tl_role stream_of(const tl_schedule *sc, tl_sched_op op)
{
    tl_role r = tl_schedule_step(sc, op)->role;
    return (int)r >= 0 && (int)r < TL_ROLE_NSTREAMS ? r : TL_ROLE_COMPUTE;
}

tl_status tl_cu_be_caps(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                        tl_backend_caps *out)
{
    const tl_schedule *sc = cfg->schedule;
    TL_CHECK(sc, TL_ERR_INVAL, "no schedule");
    memset(out, 0, sizeof *out);
    out->device_scalars = 1;
    out->device_comm = tl_cu_be_device_comm(ctx);
    /* update_fused runs the dots and the preconditioner in the update's
     * kernel: only where the schedule puts the three on one stream (every
     * row of runtime/schedule.h does), none of them waiting */
    tl_role su = stream_of(sc, TL_SOP_UPDATE);
    out->fused_update = stream_of(sc, TL_SOP_DOT) == su && stream_of(sc, TL_SOP_PRECOND) == su &&
                        !tl_schedule_step(sc, TL_SOP_DOT)->waits &&
                        !tl_schedule_step(sc, TL_SOP_PRECOND)->waits;
    /* the persistent loop: one rank (no halo; the allreduce between the
     * dots and the update, over NCCL or the host-staged provider, is the
     * identity on one rank and the loop leaves it out), Jacobi, trilap's
     * product, registers in mapped memory, and the steps it replaces on the
     * update's stream (what runs before and after it is ordered by it).
     * Call 4 of results/solver-persistent-h200 (run4-backend) had a check
     * of the device communicator here, which a one-rank NCCL run (the
     * benchmarks') never met. */
    int can_map = 0;
    if (!cfg->regs_copy)
        TL_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, ctx->device));
    const char *why = ctx->size != 1                        ? "one rank only"
                      : m->nowned == 0 || m->nghost != 0     ? "a rank with rows and no ghosts only"
                      : cfg->precond != TL_PRECOND_JACOBI   ? "Jacobi only"
                      : cfg->spmv != TL_SPMV_TRILAP         ? "--spmv trilap only"
                      : cfg->regs_copy                      ? "mapped registers only (not --regs-copy)"
                      : !can_map                            ? "the GPU cannot map host memory"
                      : stream_of(sc, TL_SOP_PRECOND) != su || stream_of(sc, TL_SOP_DOT) != su ||
                              stream_of(sc, TL_SOP_SPMV_INTERIOR) != su
                          ? "a schedule with the product, dots and preconditioner on the update's stream only"
                          : NULL;
    out->fused_iterations = why == NULL;
    if (why) snprintf(out->why_not, sizeof out->why_not, "%s", why);
    return TL_OK;
}

void tl_cu_be_loop_free(cuda_backend *cb)
{
    tl_cu_loop_args *a = &cb->loop;
    cudaFree((void *)a->items);
    cudaFree((void *)a->flo);
    cudaFree((void *)a->fhi);
    cudaFree((void *)a->rlo);
    cudaFree((void *)a->rhi);
    cudaFree(a->counter); /* the flags too */
    cudaFree(a->part);    /* the dots too */
    memset(a, 0, sizeof *a);
}

static tl_status upload_i32(const void *src, size_t bytes, void **dst, cudaStream_t s)
{
    TL_CUDA(cudaMalloc(dst, bytes));
    TL_CUDA(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, s));
    return TL_OK;
}

/* The plan of the rank's diagonal block and the loop's device state. */
static tl_status loop_make(cuda_backend *cb)
{
    const tl_csr *d = &cb->base.m->diag;
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    tl_status st = TL_OK;
    int32_t *rp = malloc((size_t)(d->nrows + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)(d->nnz ? d->nnz : 1) * sizeof *ci);
    tl_cu_loop_plan p = {0};
    TL_CHECKGOTO(rp && ci, TL_ERR_NOMEM, st, done, "persistent loop: CSR of %lld nonzeros",
                 (long long)d->nnz);
    for (int64_t i = 0; i <= d->nrows; i++)
        rp[i] = (int32_t)d->rowptr[i];
    for (int64_t k = 0; k < d->nnz; k++)
        ci[k] = (int32_t)d->colidx[k];
    TL_TRYGOTO(tl_cu_pipecg_loop_blocks(cb->sms, &cb->loop_blocks), st, done);
    TL_TRYGOTO(tl_cu_loop_plan_make(rp, ci, (int32_t)d->nrows, cb->loop_blocks, &p), st, done);
    TL_TRYGOTO(tl_cu_loop_plan_check(&p), st, done);
    tl_cu_loop_args *a = &cb->loop;
    size_t nt = (size_t)p.ntiles;
    a->nrows = d->nrows;
    a->tile = p.tile;
    a->ntiles = p.ntiles;
    a->nitems = p.nitems;
    TL_TRYGOTO(upload_i32(p.items, (size_t)p.nitems * sizeof *p.items, (void **)&a->items, s), st,
               done);
    TL_TRYGOTO(upload_i32(p.flo, nt * sizeof(int32_t), (void **)&a->flo, s), st, done);
    TL_TRYGOTO(upload_i32(p.fhi, nt * sizeof(int32_t), (void **)&a->fhi, s), st, done);
    TL_TRYGOTO(upload_i32(p.rlo, nt * sizeof(int32_t), (void **)&a->rlo, s), st, done);
    TL_TRYGOTO(upload_i32(p.rhi, nt * sizeof(int32_t), (void **)&a->rhi, s), st, done);
    /* the counters and flags in one zeroed allocation: counter, djcount[2],
     * prog_done, then fu, fdj, fs per tile */
    size_t nflags = 4 + 3 * nt;
    TL_CUDAGOTO(cudaMalloc((void **)&a->counter, nflags * sizeof(unsigned)), st, done);
    TL_CUDAGOTO(cudaMemsetAsync(a->counter, 0, nflags * sizeof(unsigned), s), st, done);
    a->djcount = a->counter + 1;
    a->prog_done = a->counter + 3;
    a->fu = a->counter + 4;
    a->fdj = a->fu + nt;
    a->fs = a->fdj + nt;
    /* the tiles' partials, then the reduced dots */
    TL_CUDAGOTO(cudaMalloc((void **)&a->part, (3 * nt + 3) * sizeof(double)), st, done);
    a->dots = a->part + 3 * nt;
    const tl_cu_csr *csr = tl_cu_spmv_diag_csr(cb->spmv);
    a->rowptr = csr->d_rowptr;
    a->colidx = csr->d_colidx;
    a->val = csr->d_val;
    a->dinv = cb->d_dinv;
    a->state = cb->d_state;
    a->regs = cb->d_regs;
    a->ring = cb->d_runs;
    a->ring_slots = RUN_SLOTS;
    TL_TRYGOTO(tl_gpu_sync(cb->base.ctx, s, "persistent loop plan"), st, done);
done:
    if (st != TL_OK) tl_cu_be_loop_free(cb);
    tl_cu_loop_plan_free(&p);
    free(rp);
    free(ci);
    return st;
}

/* The loop's vectors by role from the method's description of its
 * iteration, refused unless it is Pipe-PCG's: the eight updates with
 * coefficients 1 or -1 on the alpha and beta registers, the tail m = M^-1 w
 * with (r, u), (w, u), (r, r), the product n = A m. */
static tl_status loop_operands(cuda_backend *cb, tl_vec *sx, tl_vec *sy, const tl_update *u,
                               int nu, const tl_update_tail *t, tl_cu_loop_args *a)
{
    tl_cu_update_args ua;
    const tl_vec *rd[2 * TL_UPDATE_MAX * TL_UPDATE_MAXTERMS], *wr[TL_UPDATE_MAX];
    int nrd = 0, nwr = 0;
    TL_TRY(tl_cu_be_update_args(cb, u, nu, &ua, rd, &nrd, wr, &nwr));
    tl_cu_update_link(&ua);
    TL_CHECK(tl_cu_update_is_pipecg(&ua), TL_ERR_INVAL,
             "persistent loop: the updates are not Pipe-PCG's eight");
    int beta = ua.u[0].sref[1], alpha = ua.u[4].sref[1];
    for (int j = 0; j < 8; j++)
        TL_CHECK(ua.u[j].sref[1] == (j < 4 ? beta : alpha) && ua.u[j].sref[1] > 0 &&
                     ua.u[j].coef[1] == (j < 5 ? 1.0 : -1.0),
                 TL_ERR_INVAL, "persistent loop: update %d is %g x register %d", j,
                 ua.u[j].coef[1], ua.u[j].sref[1] - 1);
    const double *in[10];
    double *out[8];
    tl_cu_pipecg_operands(&ua, in, out);
    enum { N_, M_, W_, U_, X_, R_, Z_, Q_, S_, P_ };
    TL_CHECK(sx->data == in[M_] && sy->data == in[N_] && t->pz->data == in[M_] &&
                 t->pr->data == in[W_] && t->ndots == 3,
             TL_ERR_INVAL, "persistent loop: the product or the tail is not n = A m, m = M^-1 w");
    const double *dx[3] = {in[R_], in[W_], in[R_]}, *dy[3] = {in[U_], in[U_], in[R_]};
    for (int k = 0; k < 3; k++)
        TL_CHECK(t->x[k]->data == dx[k] && t->y[k]->data == dy[k], TL_ERR_INVAL,
                 "persistent loop: dot %d is not (r, u), (w, u), (r, r)'s", k);
    a->n = (double *)in[N_];
    a->m = (double *)in[M_];
    a->w = (double *)in[W_];
    a->u = (double *)in[U_];
    a->x = (double *)in[X_];
    a->r = (double *)in[R_];
    a->z = (double *)in[Z_];
    a->q = (double *)in[Q_];
    a->s = (double *)in[S_];
    a->p = (double *)in[P_];
    a->reg_alpha = alpha - 1;
    a->reg_beta = beta - 1;
    return TL_OK;
}

tl_status tl_cu_be_fused_iterations(tl_backend *be, const tl_iteration *it, int64_t first_tag,
                                    int n)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(it->prog == TL_SC_PIPECG, TL_ERR_UNSUPPORTED,
             "fused iterations: the CUDA backend's loop runs Pipe-PCG's iteration only");
    TL_CHECK(n <= TL_SC_RING / 2, TL_ERR_INVAL,
             "persistent loop: %d iterations at once (their registers: at most %d)", n,
             TL_SC_RING / 2);
    TL_TRY(tl_cu_be_flush_scalars(cb));
    if (!cb->loop.items) TL_TRY(loop_make(cb));
    tl_cu_loop_args *a = &cb->loop;
    TL_TRY(loop_operands(cb, it->sx, it->sy, it->u, it->nu, it->t, a));
    if (first_tag != cb->loop_tag) {
        /* a new run of loop iterations: whatever other streams still do
         * is done before it (the loop runs on the update stream alone),
         * and its first DJ items wait for nothing */
        TL_TRY(tl_gpu_sync_all(be->ctx, "persistent loop start"));
        a->first = cb->loop_iter;
    }
    a->base = cb->loop_iter;
    a->iters = n;
    a->run0 = cb->nruns;
    a->parity0 = cb->parity;
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "pipecg_loop");
    tl_status st = tl_cu_be_timer_begin(cb, ET_LOOP, s);
    if (st == TL_OK) st = tl_cu_pipecg_loop(a, cb->loop_blocks, s);
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_LOOP, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    for (int j = 0; j < n; j++) {
        int q = (int)((first_tag + j) % TL_SC_RING);
        cb->run_of[q] = (int)((cb->nruns + j) % RUN_SLOTS);
        cb->run_seq[q] = cb->nruns + j + 1;
        cb->ring_tag[q] = first_tag + j;
    }
    cb->nruns += n;
    cb->parity ^= n & 1;
    cb->have_regs = 1;
    cb->loop_iter += (unsigned)n;
    cb->loop_tag = first_tag + n;
    /* a row of its own, one call per iteration, not the rows of the
     * kernels it replaces: their times could not include it, and their
     * rates would count its bytes over their time alone. Its bytes: the
     * product's, the dots with Jacobi (r, u, w, the inverse diagonal read,
     * m written; --fuse-tail's tail), the update's */
    double per_iteration = tl_cu_spmv_diag_bytes(cb->spmv) + (40.0 + 144.0) * be->m->nowned;
    for (int j = 0; j < n; j++)
        tl_backend_stat(be, TL_OP_LOOP, 0, per_iteration);
    return TL_OK;
}

#endif /* TL_HAVE_CUDA */
