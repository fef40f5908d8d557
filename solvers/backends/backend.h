/* The operations a Krylov method is written against. A method (method_*.c)
 * is written once in terms of these; a backend implements them: the host
 * backend (backend_host.c) with OpenMP kernels and non-blocking tl_comm_*
 * calls, the CUDA backend (cuda/backend_cuda.c) by enqueueing onto the
 * role streams, joined by events as the schedule's steps say. Which stream
 * and which communicator each operation uses comes from the schedule
 * (runtime/schedule.h), not from the method.
 *
 * Split-phase operations overlap communication with computation:
 *   dot_begin(slot, n pairs)  local dots, then start ONE allreduce of all n
 *   dot_end(slot, out)        wait, out[k] = global (x_k, y_k)
 *   spmv_begin(x, y)          post the halo exchange of x, y = A_diag x_owned
 *   spmv_end(x, y)            wait for the halo, y[border] += A_offd x_ghost
 *   update(u, n)              n vector updates y = sum_k c_k x_k fused into
 *                             one pass over memory, applied in order per entry
 *   precond(z, r)             z = M^-1 r (none: a copy; Jacobi: D^-1 r)
 *   update_sq(u, n, slot, v)  optional: update, and in the same pass the local
 *                             sums of squares of v[k], reduced by the next
 *                             dot_begin on `slot` with its dots (rounding-
 *                             error bounds of pipelined CG at no extra pass)
 *   update_fused(u, n, t)     update, then z = M^-1 r and the local dots of
 *                             the next reduction from the same pass; the
 *                             next dot_begin(slot, 0) reduces them
 *                             (optional: the wrappers run update, precond
 *                             and the dots at that dot_begin instead)
 *   spmv_dot(x, y, slot)      spmv_begin + spmv_end, and the local (x, y)
 *                             from the pass that finishes each row; the
 *                             next dot_begin(slot, 0) reduces it (optional:
 *                             the wrappers compute it at that dot_begin)
 * Vectors hold the owned entries in the distributed matrix's local order
 * (interior | border), with room for the ghosts after them.
 *
 * Every operation records count, time and bytes in be->stats (rank-local)
 * and, when tracing, a host range (probes/probes.h). Host backends time an
 * operation with the host clock; GPU backends with the event timer
 * (runtime/evtimer.h), moved into stats by finish(). */
#ifndef TL_BACKEND_H
#define TL_BACKEND_H

#include <stdint.h>

#include "runtime/ctx.h"
#include "solvers/dist/dist.h"
#include "solvers/backends/scalars.h"
#include "runtime/schedule.h"

/* Backend-owned vector; `data` is a host or device pointer as the backend
 * decides. Methods never touch data directly. */
typedef struct tl_vec {
    double *data;
    int64_t nalloc; /* owned + ghost entries */
} tl_vec;

enum {
    TL_UPDATE_MAXTERMS = 4, /* terms of one update */
    TL_UPDATE_MAX = 12,     /* updates fused in one call */
    TL_DOT_MAX = 16,        /* dots (+ update_sq sums) fused into one allreduce */
    TL_DOT_SLOTS = 2,       /* reductions in flight at once */
    TL_UPDATE_DOTS = 8      /* dots kept by one update_fused */
};

/* y = coef[0] x[0] + ... + coef[nterms-1] x[nterms-1]; y may be one of x.
 * sref[k] > 0: the coefficient is coef[k] times register sref[k] - 1 of
 * the last scalar program (tl_be_scalars), which stays where the backend
 * computed it (on the device for GPU backends). */
typedef struct tl_update {
    tl_vec *y;
    int nterms;
    double coef[TL_UPDATE_MAXTERMS];
    tl_vec *x[TL_UPDATE_MAXTERMS];
    unsigned char sref[TL_UPDATE_MAXTERMS];
} tl_update;

/* What update_fused does after the updates, in the same pass: pz = M^-1 pr
 * (the backend's preconditioner; pz NULL: none), then the local dots
 * (x[k], y[k]), k < ndots, of the values after the pass (pz's included),
 * kept for dot slot `slot`. */
typedef struct tl_update_tail {
    tl_vec *pz, *pr;
    int slot, ndots;
    tl_vec *x[TL_UPDATE_DOTS], *y[TL_UPDATE_DOTS];
} tl_update_tail;

typedef enum { TL_PRECOND_NONE, TL_PRECOND_JACOBI, TL_PRECOND_COUNT } tl_precond;
const char *tl_precond_name(tl_precond p);
tl_status tl_precond_parse(const char *s, tl_precond *out);

/* Per-operation statistics. */
typedef enum {
    TL_OP_SPMV,      /* diagonal + off-diagonal block products */
    TL_OP_HALO,      /* halo pack/post + wait (P2P) */
    TL_OP_DOT,       /* local dot products */
    TL_OP_ALLREDUCE, /* post + wait of the (i)allreduce */
    TL_OP_UPDATE,    /* fused vector updates (AXPY family) */
    TL_OP_PRECOND,   /* preconditioner application */
    TL_OP_LOOP,      /* fused iterations (fused_iterations), one call each: the bytes of
                        the operations it runs in one kernel, the kernel's time */
    TL_OP_COUNT
} tl_op_kind;
const char *tl_op_name(tl_op_kind k);

typedef struct tl_opstat {
    int64_t count;
    int64_t ns;   /* time in the operation (host clock; GPU: event timer) */
    double bytes; /* bytes moved (memory for kernels, payload for communication) */
} tl_opstat;

typedef struct tl_backend_config {
    const tl_schedule *schedule;
    tl_precond precond;
    int omp_threads; /* host: OpenMP threads per rank; 0: cores / ranks on the host */
    /* CUDA backend (zero: defaults; the host backend ignores them) */
    int spmv;                           /* solvers/backends/cuda/spmv.h tl_spmv_impl: 0 trilap, 1 cusparse */
    int cusparse_alg;                   /* cusparseSpMVAlg_t, 0 default */
    int spmv_threads_per_row;           /* trilap kernel: 0 auto, 1..32, -1 the nonzero split */
    int stream_priorities;              /* p2p and coll streams above compute */
    int split_max_ctas, split_min_ctas; /* the split communicator's CTA limits (0: NCCL's) */
    int op_timer;                       /* per-operation event timer (statistics times) */
    int op_timer_every;                 /* time one call in this many of each operation (0, 1: all) */
    int check_every; /* device-scalar methods: host checks every N iterations, N late */
    /* The driver decides the next two from the backend's capabilities
     * (tl_backend_caps); create() refuses what it cannot run, it never
     * rewrites them. */
    int unfused;     /* update_fused as update, precond and dot kernels (the iteration before
                        fusion, for comparison; also where caps.fused_update is 0) */
    int fuse_tail;   /* CUDA, update_fused: the update kernel, then the preconditioner and the
                        dots in one kernel of their own (--fuse-tail) */
    int prefetch;    /* CUDA: the dot and update kernels prefetch each thread's next entry into
                        L2 (--prefetch) */
    int pdl;         /* CUDA: kernels by programmatic dependent launch (--pdl; compute
                        capability 9.0 and up) */
    int unfused_spmv_dot; /* spmv_dot as the product, then the dot at the next dot_begin (the
                             form before the fused pass, for comparison: --no-spmv-dot) */
    int regs_copy;   /* CUDA: each regs_post copies the registers with a cudaMemcpyAsync on the
                        update stream (0: the kernel writes them to mapped host memory) */
    int fused_iterations; /* the method's iterations through fused_iterations (a method
                             variant's choice; only where caps.fused_iterations says yes) */
    int vectors; /* the most vectors the solve holds at once (method + driver), for the
                    memory estimate create() makes before allocating; 0: TL_BE_VECTORS_UNKNOWN */
} tl_backend_config;

/* The estimate's vector count when the caller gives none: the largest
 * method's (pipebicgstab, 17) and tl_solve_run's four. */
#define TL_BE_VECTORS_UNKNOWN 21

typedef struct tl_backend tl_backend;

/* What a backend can run for one matrix, rank count and configuration
 * (the schedule, preconditioner, SpMV and register path in cfg): the
 * driver asks before create() and chooses the method variant and the
 * fusion from the answer. */
typedef struct tl_backend_caps {
    int device_scalars;   /* scalar programs run where the vectors live (no host round trip) */
    int fused_update;     /* update_fused in one pass (the schedule puts the update, the
                             dots and the preconditioner on one stream, none waiting) */
    int fused_iterations; /* fused_iterations for this configuration */
    int device_comm;      /* the dots and halos go through a device communicator (not on one
                             rank: no halo, and its local dots are the global ones) */
    char why_not[160];    /* fused_iterations 0: why, in the user's terms */
} tl_backend_caps;

/* One iteration of a pipelined method as a backend may run many of them
 * in one device-side loop (fused_iterations): the dots the tail kept for
 * `slot` reduced; sy = A sx; the scalar program `prog` on the reduced
 * dots; the updates u[0..nu-1] with coefficients from its registers; then
 * the tail t (t->pz = M^-1 t->pr and the next dots, kept for t->slot). */
typedef struct tl_iteration {
    tl_vec *sx, *sy;
    tl_sc_prog prog;
    const tl_update *u;
    int nu;
    const tl_update_tail *t;
} tl_iteration;

typedef struct tl_backend_ops {
    const char *name;
    const char *unavailable; /* NULL when built; else why not (create() fails with it) */
    /* Collective on ctx. `m` must outlive the backend. */
    tl_status (*create)(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                        tl_backend **out);
    /* Rank-local, before create (the GPU of ctx may be bound): what this
     * backend can run for m and cfg (tl_backend_caps). */
    tl_status (*caps)(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                      tl_backend_caps *out);
    void (*destroy)(tl_backend **be);
    tl_status (*vec_create)(tl_backend *be, tl_vec **out); /* zero-filled */
    void (*vec_destroy)(tl_backend *be, tl_vec **v);
    tl_status (*vec_set)(tl_backend *be, tl_vec *v,
                         const double *local); /* owned entries from host */
    tl_status (*vec_get)(tl_backend *be, const tl_vec *v,
                         double *local); /* owned entries to host */
    tl_status (*fill)(tl_backend *be, tl_vec *v, double alpha);
    tl_status (*update)(tl_backend *be, const tl_update *u, int n);
    tl_status (*dot_begin)(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y);
    tl_status (*dot_end)(tl_backend *be, int slot, double *out);
    tl_status (*spmv_begin)(tl_backend *be, tl_vec *x, tl_vec *y);
    tl_status (*spmv_end)(tl_backend *be, tl_vec *x, tl_vec *y);
    tl_status (*precond)(tl_backend *be, tl_vec *z, tl_vec *r);
    tl_status (*finish)(tl_backend *be); /* wait for all queued work (device sync) */
    /* Optional (NULL: methods compute the same sums with dots). As
     * update(u, n); in the same pass, the rank-local sums of squares of
     * v[0..nsq-1] as they stand after the pass (per entry, all n updates
     * applied) are kept for dot slot `slot` (not active). The next
     * dot_begin(slot, n', ...) reduces them in the same allreduce as its
     * n' dots (n' + nsq <= TL_DOT_MAX) and dot_end returns them after the
     * dots: out[n' + k] = global sum of squares of v[k]. */
    tl_status (*update_sq)(tl_backend *be, const tl_update *u, int n, int slot, int nsq,
                           tl_vec *const *v);
    /* Optional (NULL: tl_be_update_fused_split). As update(u, n), then in
     * the same pass what t says (tl_update_tail): t->pz = M^-1 t->pr and
     * the local dots of t's pairs, kept for slot t->slot (not active).
     * The next dot_begin(t->slot, 0, NULL, NULL) reduces them (no dot
     * kernel), dot_end returns them in t's order; a dot_begin on the slot
     * with dots of its own forgets them. The pairs' vectors must not be
     * written in between (the fallback computes the dots at that
     * dot_begin). */
    tl_status (*update_fused)(tl_backend *be, const tl_update *u, int n, const tl_update_tail *t);
    /* Optional (NULL: tl_be_spmv_dot's fallback). y = A x as spmv_begin
     * and spmv_end, and the local (x, y) over the owned rows, each row's
     * term taken once its value is final (interior rows after the
     * diagonal block, border rows after the ghost block), kept for slot
     * `slot` (not active) as after update_fused: the next
     * dot_begin(slot, 0, NULL, NULL) reduces it. */
    tl_status (*spmv_dot)(tl_backend *be, tl_vec *x, tl_vec *y, int slot);
    /* Optional (NULL: the method enqueues its iterations one by one). n
     * iterations as `it` describes (tl_iteration), in one device-side
     * loop, iteration j's registers posted as tag first_tag + j; after
     * them t->pz = M^-1 t->pr holds and t's dots are kept, as after
     * update_fused. A backend runs the shapes it has a loop for and
     * refuses any other (the CUDA backend: Pipe-PCG's, cuda/README.md);
     * only when cfg.fused_iterations; through tl_be_fused_iterations. */
    tl_status (*fused_iterations)(tl_backend *be, const tl_iteration *it, int64_t first_tag,
                                  int n);
    /* Optional device-resident scalars (all NULL: the tl_be_* wrappers
     * below run them on the host, solvers/backends/scalars_host.c):
     *   dot_end_async(slot)     the reduced dots stay on the device; the
     *                           compute stream waits for the reduction
     *   dot_fetch(slot, out, n) after dot_end_async: wait, copy n to the host
     *   scalars(prog, slot)     run program prog on them; registers for the
     *                           next update's sref coefficients
     *   scalars_init(state)     program state (TL_SC_STATE doubles)
     *   regs_post(tag)          copy the registers towards the host
     *   regs_get(tag, regs)     wait for that copy, regs[TL_SC_REGS]
     * update() then honours tl_update.sref. */
    tl_status (*dot_end_async)(tl_backend *be, int slot);
    tl_status (*dot_fetch)(tl_backend *be, int slot, double *out, int n);
    tl_status (*scalars)(tl_backend *be, tl_sc_prog prog, int slot);
    tl_status (*scalars_init)(tl_backend *be, const double *state);
    tl_status (*regs_post)(tl_backend *be, int64_t tag);
    tl_status (*regs_get)(tl_backend *be, int64_t tag, double *regs);
} tl_backend_ops;

/* The host side of scalar programs (backends without device scalars). */
typedef struct tl_sc_host {
    double dots[TL_DOT_SLOTS][TL_DOT_MAX]; /* the last dot_end of each slot */
    double state[2 * TL_SC_STATE];
    double regs[TL_SC_REGS];
    double ring[TL_SC_RING][TL_SC_REGS];
    int parity;
} tl_sc_host;

/* Dots an update_fused left to the next dot_begin of a slot: computed by
 * the backend (deferred 0) or, by the fallback, still to compute there. */
typedef struct tl_kept_dots {
    int n, deferred;
    tl_vec *x[TL_UPDATE_DOTS], *y[TL_UPDATE_DOTS];
} tl_kept_dots;

/* The part every backend shares (first member of each backend's struct). */
struct tl_backend {
    const tl_backend_ops *ops;
    tl_ctx *ctx;
    const tl_dist_matrix *m;
    tl_backend_config cfg;
    int64_t nglobal, nnz_global;
    int64_t nonpos_diag; /* global number of diagonal entries <= 0 (SPD test for Jacobi) */
    int64_t zero_diag;   /* global number of zero diagonal entries */
    double norm_inf;     /* ||A||_inf, max absolute row sum (rounding-error bounds) */
    int64_t max_row_nnz; /* most nonzeros in one row, over all ranks */
    tl_opstat stats[TL_OP_COUNT];
    tl_sc_host sc;
    tl_kept_dots kept[TL_DOT_SLOTS]; /* the tl_be_* wrappers' bookkeeping of update_fused */
    int vectors_live, vectors_peak;  /* tl_be_vec's count, against cfg.vectors in the tests */
};

/* Backends by name ("host", "cuda"); NULL when unknown. A backend that is
 * not built is listed with a create() that returns TL_ERR_UNSUPPORTED. */
const tl_backend_ops *tl_backend_find(const char *name);

extern const tl_backend_ops tl_backend_host_ops;

/* Where the host backend's thread count came from. */
typedef enum { TL_OMP_FROM_OPTION, TL_OMP_FROM_ENV, TL_OMP_FROM_CORES, TL_OMP_ENV_INVALID } tl_omp_source;
/* The OpenMP threads of a host rank: `asked` (--omp-threads) when > 0;
 * else OMP_NUM_THREADS's first element ("4,2" is 4) when it is a positive
 * whole number; else cores / `local_ranks`, TL_OMP_ENV_INVALID when
 * OMP_NUM_THREADS was set to something else (empty, as
 * `export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK` gives without
 * --cpus-per-task: libgomp answered it with every core, for every rank).
 * The backend and the driver's warnings ask the same question here. */
int tl_backend_host_threads(int asked, int local_ranks, tl_omp_source *source);
/* solvers/backends/cuda/backend_cuda.c; without CUDA a listed backend whose create()
 * fails with `unavailable`. */
extern const tl_backend_ops tl_backend_cuda_ops;

/* Shared by the backends: global matrix facts, stats bookkeeping. */
tl_status tl_backend_init_base(tl_backend *be, const tl_backend_ops *ops, tl_ctx *ctx,
                               const tl_dist_matrix *m, const tl_backend_config *cfg,
                               const double *diag_local);
static inline void tl_backend_stat(tl_backend *be, tl_op_kind k, int64_t ns, double bytes)
{
    be->stats[k].count++;
    be->stats[k].ns += ns;
    be->stats[k].bytes += bytes;
}
void tl_backend_stats_reset(tl_backend *be);

/* ---- what methods call --------------------------------------------------- */
static inline tl_status tl_be_vec(tl_backend *be, tl_vec **v)
{
    TL_TRY(be->ops->vec_create(be, v));
    if (++be->vectors_live > be->vectors_peak) be->vectors_peak = be->vectors_live;
    return TL_OK;
}
static inline void tl_be_vec_free(tl_backend *be, tl_vec **v)
{
    if (*v) be->vectors_live--;
    be->ops->vec_destroy(be, v);
}
/* n work vectors into v[0..n-1], which start NULL; after a failure the ones
 * made are still in v, for tl_be_vecs_free. */
static inline tl_status tl_be_vecs(tl_backend *be, tl_vec **v, int n)
{
    for (int i = 0; i < n; i++)
        TL_TRY(tl_be_vec(be, &v[i]));
    return TL_OK;
}
static inline void tl_be_vecs_free(tl_backend *be, tl_vec **v, int n)
{
    for (int i = 0; i < n; i++)
        tl_be_vec_free(be, &v[i]);
}
/* Updates whose coefficients may refer to scalar registers (sref). */
tl_status tl_be_update_host_sref(tl_backend *be, const tl_update *u, int n);
static inline int tl_be_has_device_scalars(const tl_backend *be)
{
    return be->ops->scalars != NULL;
}
static inline tl_status tl_be_update(tl_backend *be, const tl_update *u, int n)
{
    if (!tl_be_has_device_scalars(be))
        for (int j = 0; j < n; j++)
            for (int k = 0; k < u[j].nterms && k < TL_UPDATE_MAXTERMS; k++)
                if (u[j].sref[k]) return tl_be_update_host_sref(be, u, n);
    return be->ops->update(be, u, n);
}
/* n = 0: the dots the last update_fused kept for the slot. */
tl_status tl_be_dot_begin(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y);
static inline tl_status tl_be_dot_end(tl_backend *be, int slot, double *out)
{
    return be->ops->dot_end(be, slot, out);
}
/* Scalar programs (solvers/backends/scalars.h), device-resident where the backend
 * can: the method never waits for the dots it feeds to a program. */
tl_status tl_be_dot_end_async(tl_backend *be, int slot);
tl_status tl_be_dot_fetch(tl_backend *be, int slot, double *out, int n);
tl_status tl_be_scalars(tl_backend *be, tl_sc_prog prog, int slot);
tl_status tl_be_scalars_init(tl_backend *be, const double *state);
tl_status tl_be_regs_post(tl_backend *be, int64_t tag);
tl_status tl_be_regs_get(tl_backend *be, int64_t tag, double *regs);
static inline tl_status tl_be_spmv_begin(tl_backend *be, tl_vec *x, tl_vec *y)
{
    return be->ops->spmv_begin(be, x, y);
}
static inline tl_status tl_be_spmv_end(tl_backend *be, tl_vec *x, tl_vec *y)
{
    return be->ops->spmv_end(be, x, y);
}
/* update_sq when the backend has it; TL_ERR_UNSUPPORTED otherwise (check
 * tl_be_has_update_sq first). */
static inline int tl_be_has_update_sq(const tl_backend *be)
{
    return be->ops->update_sq != NULL;
}
static inline tl_status tl_be_update_sq(tl_backend *be, const tl_update *u, int n, int slot,
                                        int nsq, tl_vec *const *v)
{
    TL_CHECK(be->ops->update_sq, TL_ERR_UNSUPPORTED, "backend %s: no update_sq", be->ops->name);
    return be->ops->update_sq(be, u, n, slot, nsq, v);
}
static inline tl_status tl_be_precond(tl_backend *be, tl_vec *z, tl_vec *r)
{
    return be->ops->precond(be, z, r);
}
/* update_fused where the backend has it (and it is not switched off), else
 * tl_be_update_fused_split: update, precond, and the dots deferred to the
 * next dot_begin(t->slot, 0). Both give the same values on a backend
 * whose kernels sum alike; the fused pass sums the dots in its own order. */
/* How many distinct vectors the n dots (x[k], y[k]) read: the traffic a
 * dot pass counts, each vector once. */
int tl_dot_vectors(int n, tl_vec *const *x, tl_vec *const *y);
/* The vectors a fused pass of updates u moves: each read before the pass
 * writes it (rd, appended after *nrd of them) and each written (wr), once;
 * the traffic the backends count and the CUDA kernel's operand lists. */
void tl_update_rw(const tl_update *u, int nu, const tl_vec **rd, int *nrd, const tl_vec **wr,
                  int *nwr);
tl_status tl_be_update_fused(tl_backend *be, const tl_update *u, int n, const tl_update_tail *t);
tl_status tl_be_update_fused_split(tl_backend *be, const tl_update *u, int n,
                                   const tl_update_tail *t);
/* fused_iterations where the driver chose them (cfg.fused_iterations, from
 * the backend's capabilities): n iterations, after which t->pz = M^-1
 * t->pr holds and t's dots are deferred to the next dot_begin(t->slot, 0),
 * as after update_fused. Check with tl_be_has_fused_iterations first. */
static inline int tl_be_has_fused_iterations(const tl_backend *be)
{
    return be->ops->fused_iterations && be->cfg.fused_iterations;
}
tl_status tl_be_fused_iterations(tl_backend *be, const tl_iteration *it, int64_t first_tag, int n);
/* The backend's capabilities for m and cfg; a backend without a caps
 * query can run none of the optional forms. */
tl_status tl_backend_caps_query(const tl_backend_ops *ops, tl_ctx *ctx, const tl_dist_matrix *m,
                                const tl_backend_config *cfg, tl_backend_caps *out);
/* Helpers built on the operations. */
tl_status tl_be_spmv(tl_backend *be, tl_vec *x, tl_vec *y); /* y = A x */
/* y = A x and the local (x, y) kept for the next dot_begin(slot, 0): in
 * the product's pass where the backend has spmv_dot (and
 * cfg.unfused_spmv_dot is 0), else computed at that dot_begin. x and y
 * must not be written in between. */
tl_status tl_be_spmv_dot(tl_backend *be, tl_vec *x, tl_vec *y, int slot);
tl_status tl_be_dots(tl_backend *be, int n, tl_vec *const *x, tl_vec *const *y,
                     double *out);                          /* blocking */
tl_status tl_be_copy(tl_backend *be, tl_vec *y, tl_vec *x); /* y = x */
static inline tl_status tl_be_fill(tl_backend *be, tl_vec *y, double alpha)
{
    return be->ops->fill(be, y, alpha);
}
/* r = b - A x, using `tmp` for A x. */
tl_status tl_be_residual(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec *r, tl_vec *tmp);

#endif
