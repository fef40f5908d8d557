/* The FDTD driver, written once for every backend and strategy: windows of
 * s local steps over shrinking regions (the ghost zone computed
 * redundantly), then the dimension-ordered exchange; source, receivers,
 * energy monitor, blow-up check, slices, timing, probes. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"
#include "runtime/results.h"
#include "runtime/clock.h"
#include "runtime/comm.h"
#include "runtime/marks.h"
#include "runtime/progress.h"
#include "stencil/fdtd_impl.h"
#include "stencil/fill.h"

static const char axis_name[3] = {'x', 'y', 'z'};

static tl_status check_config(const tl_fdtd_config *c)
{
    TL_CHECK(c->order == 2 || c->order == 4 || c->order == 8, TL_ERR_INVAL, "order %d: must be 2, 4 or 8", c->order);
    for (int d = 0; d < 3; d++) {
        TL_CHECK(c->n[d] >= 2 && c->n[d] <= (1 << 20), TL_ERR_INVAL, "grid size %" PRId64 " along %c: must be 2 to 2^20",
                 c->n[d], axis_name[d]);
        TL_CHECK(c->pd[d] >= 1, TL_ERR_INVAL, "decomposition %d along %c: must be >= 1", c->pd[d], axis_name[d]);
    }
    TL_CHECK(c->s >= 1 && c->s <= 64, TL_ERR_INVAL, "s = %d: local steps between exchanges must be 1 to 64", c->s);
    TL_CHECK(c->h > 0 && isfinite(c->h), TL_ERR_INVAL, "h = %g: must be positive", c->h);
    TL_CHECK(c->K > 0 && c->rho > 0 && (c->layer_k <= 0 || (c->K2 > 0 && c->rho2 > 0)), TL_ERR_INVAL,
             "K and rho must be positive");
    TL_CHECK(c->steps >= 0 && c->warmup >= 0, TL_ERR_INVAL, "steps must be >= 0");
    TL_CHECK(!(c->periodic && c->cpml > 0), TL_ERR_INVAL, "a periodic grid has no outer boundary: use --cpml 0");
    TL_CHECK(!c->breakdown || c->backend == TL_FDTD_BACKEND_CUDA, TL_ERR_INVAL,
             "the per-kernel breakdown times GPU work with CUDA events: it needs --backend cuda");
    if (c->cpml > 0) {
        for (int d = 0; d < 3; d++)
            TL_CHECK(c->n[d] >= 2 * c->cpml + 2, TL_ERR_INVAL,
                     "grid size %" PRId64 " along %c is too small for a CPML of %" PRId64 " cells (needs >= %" PRId64 ")",
                     c->n[d], axis_name[d], c->cpml, 2 * c->cpml + 2);
        TL_CHECK(c->cpml_r > 0 && c->cpml_r < 1, TL_ERR_INVAL, "CPML reflection R = %g: must be in (0, 1)", c->cpml_r);
        TL_CHECK(c->kappa_max >= 1, TL_ERR_INVAL, "kappa_max = %g: must be >= 1", c->kappa_max);
    }
    if (c->source)
        for (int d = 0; d < 3; d++)
            TL_CHECK(c->src[d] >= 0 && c->src[d] < c->n[d], TL_ERR_INVAL, "--source: %c = %" PRId64 " outside the grid [0, %" PRId64 ")",
                     axis_name[d], c->src[d], c->n[d]);
    for (int r = 0; r < c->nrec; r++)
        for (int d = 0; d < 3; d++)
            TL_CHECK(c->rec[r][d] >= 0 && c->rec[r][d] < c->n[d], TL_ERR_INVAL,
                     "--receivers: receiver %d: %c = %" PRId64 " outside the grid [0, %" PRId64 ")", r, axis_name[d], c->rec[r][d], c->n[d]);
    return TL_OK;
}

/* The fewest significant digits, from `least`, at which a and b print
 * apart: a dt just past its limit must not read as the limit ("1 > 1"). */
static int digits_apart(double a, double b, int least)
{
    for (int p = least; p < 17; p++) {
        char x[40], y[40];
        snprintf(x, sizeof x, "%.*g", p, a);
        snprintf(y, sizeof y, "%.*g", p, b);
        if (strcmp(x, y) != 0) return p;
    }
    return 17;
}

tl_status tl_fdtd_config_check(const tl_fdtd_config *c)
{
    TL_TRY(check_config(c));
    double dtmax = tl_fdtd_dt_max(c);
    TL_CHECK(c->dt <= 0 || c->dt <= dtmax * (1 + 1e-12), TL_ERR_INVAL,
             "dt = %.*g violates the CFL condition: c_max dt sqrt(3) sum|c_m| / h = %.*g > 1 "
             "(order %d, h = %g: dt must be <= %.*g)",
             digits_apart(c->dt, dtmax, 6), c->dt, digits_apart(c->dt / dtmax, 1.0, 4), c->dt / dtmax, c->order,
             c->h, digits_apart(c->dt, dtmax, 6), dtmax);
    TL_CHECK(c->dt > 0 || (c->cfl > 0 && c->cfl <= 1), TL_ERR_INVAL, "CFL fraction %g: must be in (0, 1]", c->cfl);
    const char *sname = c->strategy ? c->strategy : tl_fdtd_strategy_default(c->backend, 0);
    TL_CHECK(tl_fdtd_strategy_find(sname, c->backend) != NULL, TL_ERR_INVAL,
             "exchange strategy '%s' is not one of the %s backend's (%s)", sname,
             c->backend == TL_FDTD_BACKEND_CUDA ? "cuda" : "cpu", tl_fdtd_strategy_names());
    TL_TRY(tl_fdtd_grid_check(c, c->order * c->s)); /* g = 2 r s, r = order / 2 */
    return TL_OK;
}

tl_status tl_fdtd_create(tl_fdtd **out, const tl_fdtd_config *cfg) { return tl_fdtd_create_on(out, cfg, NULL); }

tl_status tl_fdtd_create_on(tl_fdtd **out, const tl_fdtd_config *cfg, tl_ctx *ctx)
{
    *out = NULL;
    TL_TRY(tl_fdtd_config_check(cfg));
    tl_fdtd *f;
    TL_ALLOC(f, 1);
    tl_status st = TL_OK;
    f->cfg = *cfg;
    f->r = cfg->order / 2;
    f->g = 2 * f->r * cfg->s;
    f->esz = cfg->dbl ? 8 : 4;
    f->own = -1;
    double w[4];
    tl_fdtd_coefficients(cfg->order, w);
    for (int m = 0; m < 4; m++) f->c[m] = w[m] / cfg->h;
    f->dt = cfg->dt > 0 ? cfg->dt : cfg->cfl * tl_fdtd_dt_max(cfg);
    TL_TRYGOTO(tl_fdtd_grid_build(f), st, fail);
    f->inner = calloc((size_t)f->nsub, sizeof *f->inner);
    TL_CHECKGOTO(f->inner != NULL, TL_ERR_NOMEM, st, fail, "%d boxes", f->nsub);
    TL_TRYGOTO(tl_fdtd_model_profiles(f), st, fail);
    f->be = cfg->backend == TL_FDTD_BACKEND_CUDA ? &tl_fdtd_backend_cuda : &tl_fdtd_backend_cpu;
    const char *sname = cfg->strategy ? cfg->strategy : f->be->default_strategy;
    f->st = tl_fdtd_strategy_find(sname, cfg->backend); /* found: tl_fdtd_config_check */
    if (f->st->per_rank) {
        int size = ctx ? ctx->size : 1;
        TL_CHECKGOTO(size == f->nsub, TL_ERR_INVAL, st, fail,
                     "strategy '%s' puts one subdomain on each rank: %d rank%s for %d subdomains (%dx%dx%d); "
                     "run with px*py*pz = %d ranks",
                     sname, size, size == 1 ? "" : "s", f->nsub, cfg->pd[0], cfg->pd[1], cfg->pd[2], f->nsub);
        TL_CHECKGOTO(ctx != NULL && ctx->hc != NULL, TL_ERR_INVAL, st, fail,
                     "strategy '%s' needs a rank context (inside tl_launch_run)", sname);
        f->comm = ctx;
        f->own = ctx->rank;
    }
    int64_t total = cfg->warmup + cfg->steps;
    if (cfg->nrec > 0) {
        TL_ALLOC(f->traces, (size_t)(cfg->nrec * (total > 0 ? total : 1)));
        TL_ALLOC(f->rec_sub, (size_t)cfg->nrec);
        TL_ALLOC(f->rec_idx, (size_t)cfg->nrec);
        for (int r = 0; r < cfg->nrec; r++)
            for (int i = 0; i < f->nsub; i++) {
                const tl_fdtd_sub *s = &f->sub[i];
                int64_t l[3];
                int in = 1;
                for (int d = 0; d < 3; d++) {
                    l[d] = cfg->rec[r][d] - s->o[d];
                    in = in && l[d] >= 0 && l[d] < s->n[d];
                }
                if (in) {
                    f->rec_sub[r] = i;
                    f->rec_idx[r] = tl_fdtd_index(&s->full, l[0], l[1], l[2]);
                }
            }
    }
    if (cfg->energy_every > 0) TL_ALLOC(f->energy, (size_t)(2 * (total / cfg->energy_every + 2)));
    TL_TRYGOTO(f->be->setup(f), st, fail);
    TL_TRYGOTO(f->st->setup(f), st, fail);
    *out = f;
    return TL_OK;
fail:
    tl_fdtd_destroy(&f);
    return st;
}

void tl_fdtd_destroy(tl_fdtd **pf)
{
    tl_fdtd *f = *pf;
    if (!f) return;
    if (f->st) f->st->teardown(f);
    if (f->be && f->sub) f->be->teardown(f);
    tl_fdtd_grid_free(f);
    for (int d = 0; d < 3; d++) free(f->prof_host[d]);
    free(f->traces);
    free(f->rec_sub);
    free(f->rec_idx);
    free(f->energy);
    free(f->inner);
    free(f);
    *pf = NULL;
}

/* The region of local step t (1..s) of a window: velocities on the owned
 * box grown by g - (2t - 1) r, pressure by g - 2 t r, towards faces with
 * a neighbour (the outer faces stay put). */
static tl_fdtd_box region_of(const tl_fdtd *f, int sd, int which, int t)
{
    const tl_fdtd_sub *s = &f->sub[sd];
    int64_t e = which == 0 ? f->g - (2 * t - 1) * f->r : f->g - 2 * t * f->r;
    tl_fdtd_box b;
    for (int d = 0; d < 3; d++) {
        b.lo[d] = s->nbr[d][0] >= 0 ? -e : 0;
        b.hi[d] = s->n[d] + (s->nbr[d][1] >= 0 ? e : 0);
    }
    return b;
}

static tl_status update_box(tl_fdtd *f, int sd, int which, const tl_fdtd_box *b)
{
    if (tl_fdtd_box_empty(b)) return TL_OK;
    if (tl_fdtd_kernels[f->cfg.kernel].fused && f->cfg.backend == TL_FDTD_BACKEND_CUDA)
        return f->be->update(f, sd, which, b, f->cfg.cpml > 0); /* fused: one launch, per-point branch */
    tl_fdtd_box parts[7];
    int cls[7], n;
    tl_fdtd_grid_classify(f, sd, b, parts, cls, &n);
    for (int i = 0; i < n; i++)
        if (!tl_fdtd_box_empty(&parts[i])) TL_TRY(f->be->update(f, sd, which, &parts[i], cls[i]));
    return TL_OK;
}

/* Add the source where box b of sd (just updated) holds it, periodic images included. */
static tl_status source_in(tl_fdtd *f, int sd, const tl_fdtd_box *b, int64_t step)
{
    const tl_fdtd_config *c = &f->cfg;
    if (!c->source) return TL_OK;
    const tl_fdtd_sub *s = &f->sub[sd];
    double value = c->amp * f->dt * tl_fdtd_ricker(((double)step + 0.5) * f->dt, c->f0);
    int nw = c->periodic ? 3 : 1;
    for (int wz = 0; wz < nw; wz++)
        for (int wy = 0; wy < nw; wy++)
            for (int wx = 0; wx < nw; wx++) {
                int w[3] = {wx, wy, wz};
                int64_t l[3];
                int in = 1;
                for (int d = 0; d < 3; d++) {
                    l[d] = c->src[d] - s->o[d] + (w[d] == 1 ? c->n[d] : w[d] == 2 ? -c->n[d] : 0);
                    in = in && l[d] >= b->lo[d] && l[d] < b->hi[d];
                }
                if (in) TL_TRY(f->be->add_source(f, sd, tl_fdtd_index(&s->full, l[0], l[1], l[2]), value));
            }
    return TL_OK;
}

/* Each phase's exchange as traces name it. */
static const char *const exchange_what[3] = {"exchange_x", "exchange_y", "exchange_z"};

int tl_fdtd_phase_ranks(const tl_fdtd *f, int d, int *rank)
{
    int n = 0;
    for (int k = 0; k < f->nmsg[d]; k++) {
        const tl_fdtd_msg *m = &f->msg[d][k];
        if (m->from == f->own || m->to == f->own) rank[n++] = m->from == f->own ? m->to : m->from;
    }
    return n;
}

/* For traces: the host's exchange of each phase (a mark on every rank,
 * messages of its own or not) involves the ranks of its messages alone,
 * so that the analysis pairs it with those (runtime/marks.h). */
static tl_status exchange_declare_peers(tl_fdtd *f)
{
    tl_status st = TL_OK;
    int *rank = malloc((size_t)(f->nmsg[0] + f->nmsg[1] + f->nmsg[2] + 1) * sizeof *rank);
    TL_CHECK(rank, TL_ERR_NOMEM, "the exchange's peers");
    for (int d = 0; d < 3 && st == TL_OK; d++) {
        if (f->nmsg[d] == 0) continue; /* no exchange of that phase */
        const tl_mark_peerset peers = {.rank = rank, .n = tl_fdtd_phase_ranks(f, d, rank)};
        st = tl_mark_peers(f->ctx, TL_ROLE_P2P, exchange_what[d], &peers, 1);
    }
    free(rank);
    return st;
}

static tl_status exchange(tl_fdtd *f)
{
    for (int d = 0; d < 3; d++) {
        if (f->nmsg[d] == 0) continue;
        const char *what = exchange_what[d];
        if (f->be->exchange_on_host)
            tl_mark_begin(f->ctx, TL_ROLE_P2P, what);
        else
            tl_probe_push(f->ctx, TL_CAT_P2P, what);
        for (int k = 0; k < f->nmsg[d]; k++)
            if (tl_fdtd_mine(f, f->msg[d][k].from)) TL_TRY(f->be->pack(f, &f->msg[d][k]));
        TL_TRY(f->st->transfer(f, d));
        for (int k = 0; k < f->nmsg[d]; k++)
            if (tl_fdtd_mine(f, f->msg[d][k].to)) TL_TRY(f->be->unpack(f, &f->msg[d][k]));
        tl_probe_pop(f->ctx); /* a mark's end, or the range's */
    }
    return TL_OK;
}

/* The pressure box of the last local step cut into the shell the
 * neighbours need (within g of a face with a neighbour) and the inner
 * rest, which is updated while the exchange runs. */
static int shell_of(const tl_fdtd *f, int sd, const tl_fdtd_box *b, tl_fdtd_box shell[6], tl_fdtd_box *inner)
{
    const tl_fdtd_sub *s = &f->sub[sd];
    tl_fdtd_box rest = *b;
    int n = 0;
    for (int d = 0; d < 3; d++) {
        int64_t lo = s->nbr[d][0] >= 0 ? f->g : 0, hi = s->n[d] - (s->nbr[d][1] >= 0 ? f->g : 0);
        if (hi < lo) hi = lo;
        tl_fdtd_box a = rest, c = rest;
        a.hi[d] = lo;
        c.lo[d] = hi;
        if (!tl_fdtd_box_empty(&a)) shell[n++] = a;
        if (!tl_fdtd_box_empty(&c)) shell[n++] = c;
        rest.lo[d] = lo;
        rest.hi[d] = hi;
    }
    *inner = rest;
    return n;
}

static tl_status one_step(tl_fdtd *f, int t, int64_t step)
{
    const tl_fdtd_config *c = &f->cfg;
    int last = t == c->s;
    int overlap = last && c->overlap;
    tl_probe_iter_begin(f->ctx, step);
    tl_probe_push(f->ctx, TL_CAT_COMPUTE, "update_v");
    for (int i = 0; i < f->nsub; i++) {
        if (!tl_fdtd_mine(f, i)) continue;
        tl_fdtd_box b = region_of(f, i, 0, t);
        TL_TRY(update_box(f, i, 0, &b));
    }
    tl_probe_pop(f->ctx);
    tl_probe_push(f->ctx, TL_CAT_COMPUTE, "update_p");
    tl_fdtd_box *inner = f->inner;
    for (int i = 0; i < f->nsub; i++) {
        if (!tl_fdtd_mine(f, i)) continue;
        tl_fdtd_box b = region_of(f, i, 1, t);
        if (overlap) {
            tl_fdtd_box sh[6];
            int n = shell_of(f, i, &b, sh, &inner[i]);
            for (int k = 0; k < n; k++) {
                TL_TRY(update_box(f, i, 1, &sh[k]));
                TL_TRY(source_in(f, i, &sh[k], step));
            }
        } else {
            TL_TRY(update_box(f, i, 1, &b));
            TL_TRY(source_in(f, i, &b, step));
        }
    }
    tl_probe_pop(f->ctx);
    if (last) {
        TL_TRY(f->be->mark(f, TL_FDTD_MARK_XCH_BEGIN));
        if (overlap) {
            tl_probe_push(f->ctx, TL_CAT_COMPUTE, "update_p_inner");
            for (int i = 0; i < f->nsub; i++) {
                if (!tl_fdtd_mine(f, i)) continue;
                TL_TRY(update_box(f, i, 1, &inner[i]));
                TL_TRY(source_in(f, i, &inner[i], step));
            }
            tl_probe_pop(f->ctx);
        }
        TL_TRY(exchange(f));
        TL_TRY(f->be->mark(f, TL_FDTD_MARK_XCH_END));
    }
    if (c->nrec > 0)
        for (int i = 0; i < f->nsub; i++)
            if (tl_fdtd_mine(f, i)) TL_TRY(f->be->sample(f, i, step));
    tl_probe_iter_end(f->ctx);
    return TL_OK;
}

/* Per rank: every rank's first bad point, so all ranks stop at the same
 * step; rank 0 names the point one process would: the first in the whole
 * grid's order (z, then y, then x), whichever subdomain holds it (up to
 * c834e8e the lowest subdomain's first, another point than one domain's). */
typedef struct bad_point {
    int64_t idx;
    double value;
} bad_point;

/* the subdomain-local linear index of a bad point as the whole grid's */
static int64_t global_index(const tl_fdtd *f, int sd, int64_t bad)
{
    const tl_fdtd_sub *s = &f->sub[sd];
    int64_t x = bad % s->n[0], y = bad / s->n[0] % s->n[1], z = bad / (s->n[0] * s->n[1]);
    const int64_t *n = f->cfg.n;
    return ((s->o[2] + z) * n[1] + s->o[1] + y) * n[0] + s->o[0] + x;
}

static tl_status check_fields(tl_fdtd *f, int64_t step)
{
    bad_point *all = NULL;
    if (f->comm) {
        bad_point mine = {-1, 0};
        TL_TRY(f->be->check(f, f->own, &mine.idx, &mine.value));
        TL_ALLOC(all, (size_t)f->nsub);
        tl_status st = tl_comm_allgather(f->comm, &mine, all, sizeof mine);
        if (st != TL_OK) {
            free(all);
            return tl_error_frame(st, __FILE__, __LINE__);
        }
    }
    int owner = -1;
    bad_point first = {-1, 0};
    for (int i = 0; i < f->nsub; i++) {
        bad_point b = {-1, 0};
        if (all) b = all[i];
        else TL_TRY(f->be->check(f, i, &b.idx, &b.value));
        if (b.idx < 0) continue;
        b.idx = global_index(f, i, b.idx);
        if (owner < 0 || b.idx < first.idx) {
            owner = i;
            first = b;
        }
    }
    free(all);
    if (owner < 0) return TL_OK;
    if (f->comm && f->comm->rank != 0) return TL_ERR_REMOTE; /* rank 0 says why */
    const int64_t *n = f->cfg.n;
    return TL_FAIL(TL_ERR_NUMERIC,
                   "step %" PRId64 ": p = %g at (%" PRId64 ", %" PRId64 ", %" PRId64 ") (subdomain %d) is %s; "
                   "the run is unstable (lower --dt or --cfl) or the source too strong",
                   step, first.value, first.idx % n[0], first.idx / n[0] % n[1], first.idx / (n[0] * n[1]), owner,
                   isfinite(first.value) ? "beyond the blow-up limit" : "not finite");
}

tl_status tl_fdtd_energy_now(tl_fdtd *f, double *e)
{
    double sum = 0;
    if (f->comm) {
        /* every subdomain's sum on every rank, added in subdomain order as
         * one process adds them: the same energy to the last bit */
        double mine = 0, *all;
        TL_TRY(f->be->energy(f, f->own, &mine));
        TL_ALLOC(all, (size_t)f->nsub);
        tl_status st = tl_comm_allgather(f->comm, &mine, all, sizeof mine);
        for (int i = 0; i < f->nsub; i++) sum += all[i];
        free(all);
        TL_TRY(st);
    } else
        for (int i = 0; i < f->nsub; i++) {
            double x = 0;
            TL_TRY(f->be->energy(f, i, &x));
            sum += x;
        }
    *e = sum * f->cfg.h * f->cfg.h * f->cfg.h;
    return TL_OK;
}

static tl_status write_slice(tl_fdtd *f, int64_t step)
{
    const tl_fdtd_config *c = &f->cfg;
    int64_t N = c->n[0] * c->n[1] * c->n[2];
    double *g = NULL;
    char *text = NULL;
    tl_status st = TL_OK;
    int root = !f->comm || f->comm->rank == 0;
    if (root && !(g = malloc((size_t)N * sizeof *g))) st = TL_FAIL(TL_ERR_NOMEM, "%" PRId64 " doubles for a slice", N);
    if (f->comm) st = tl_comm_agree(f->comm, st);
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(tl_fdtd_gather(f, TL_FDTD_P, g), st, done);
    if (!root) goto done; /* rank 0 writes */
    int a = c->slice_axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
    const int digits = tl_fdtd_digits(c); /* values read back exactly (before: %.6e, 7 digits) */
    size_t cap = (size_t)(c->n[u] * c->n[v]) * (size_t)(digits + 9) + 256, len = 0;
    text = malloc(cap);
    TL_CHECKGOTO(text != NULL, TL_ERR_NOMEM, st, done, "slice text");
    len += (size_t)snprintf(text + len, cap - len, "# p at step %" PRId64 ", t = %.*g s, %c = %" PRId64 "; rows %c, columns %c\n",
                            step, digits, (double)step * f->dt, axis_name[a], c->slice_index, axis_name[v], axis_name[u]);
    for (int64_t j = 0; j < c->n[v]; j++) {
        for (int64_t i = 0; i < c->n[u]; i++) {
            int64_t q[3];
            q[a] = c->slice_index;
            q[u] = i;
            q[v] = j;
            len += (size_t)snprintf(text + len, cap - len, i ? " %.*g" : "%.*g", digits,
                                    g[(q[2] * c->n[1] + q[1]) * c->n[0] + q[0]]);
        }
        len += (size_t)snprintf(text + len, cap - len, "\n");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/p-%06" PRId64 ".txt", c->slice_dir, step);
    TL_TRYGOTO(tl_mkdir_p(c->slice_dir), st, done);
    TL_TRYGOTO(tl_file_write_atomic(path, text, len), st, done);
    if (f->nslices++ == 0) f->slice_first = step;
done:
    free(g);
    free(text);
    return st;
}

/* A run that fails keeps the slices written before (whole files, each
 * renamed into place: where a blow-up began); rank 0, which wrote them,
 * says which, after the error line (up to 58a8851 they stayed unsaid,
 * beside no manifest and no row). They were taken every slice_every
 * steps from the first. */
static void say_slices_kept(const tl_fdtd *f)
{
    const tl_fdtd_config *c = &f->cfg;
    if (f->nslices == 0) return;
    int64_t last = f->slice_first + (f->nslices - 1) * c->slice_every;
    if (f->nslices == 1) {
        tl_log("note: the slice written before the failure stays: %s/p-%06" PRId64 ".txt (step %" PRId64 ")",
               c->slice_dir, f->slice_first, f->slice_first);
        return;
    }
    tl_log("note: the %" PRId64 " slices written before the failure stay in %s: steps %" PRId64 " to %" PRId64
           ", every %" PRId64 " (p-%06" PRId64 ".txt to p-%06" PRId64 ".txt)",
           f->nslices, c->slice_dir, f->slice_first, last, c->slice_every, f->slice_first, last);
}

static void memory_of(const tl_fdtd *f, tl_fdtd_stats *S);

/* --breakdown per rank: every rank timed its own subdomain; the sums over
 * ranks are the one process's sums over subdomains (counts, totals; the
 * least minimum, the greatest maximum). */
static tl_status ranks_breakdown(tl_fdtd *f)
{
    tl_fdtd_stats *S = &f->stats;
    enum { NOP = sizeof S->op / sizeof S->op[0] };
    double sum[2 * NOP], lo[NOP], hi[NOP];
    for (int k = 0; k < S->nops; k++) {
        sum[2 * k] = (double)S->op[k].count;
        sum[2 * k + 1] = S->op[k].total_s;
        lo[k] = S->op[k].count ? S->op[k].min_s : INFINITY;
        hi[k] = S->op[k].max_s;
    }
    TL_TRY(tl_comm_allreduce(f->comm, sum, (size_t)(2 * S->nops), TL_DOUBLE, TL_SUM));
    TL_TRY(tl_comm_allreduce(f->comm, lo, (size_t)S->nops, TL_DOUBLE, TL_MIN));
    TL_TRY(tl_comm_allreduce(f->comm, hi, (size_t)S->nops, TL_DOUBLE, TL_MAX));
    for (int k = 0; k < S->nops; k++) {
        S->op[k].count = (int64_t)sum[2 * k];
        S->op[k].total_s = sum[2 * k + 1];
        S->op[k].min_s = S->op[k].count ? lo[k] : 0;
        S->op[k].max_s = hi[k];
    }
    return TL_OK;
}

/* Per rank, at the end of a run: the receivers' traces gathered on rank 0
 * (each from its owner), the slowest rank's time and the fullest rank's
 * memory in the stats, the breakdown summed over ranks. */
static tl_status ranks_finish(tl_fdtd *f)
{
    const tl_fdtd_config *c = &f->cfg;
    tl_ctx *ctx = f->comm;
    int64_t total = c->warmup + c->steps;
    tl_status st = TL_OK;
    double *send = NULL, *recv = NULL;
    size_t *counts = NULL;
    if (c->nrec > 0 && total > 0) {
        int mine = 0;
        for (int r = 0; r < c->nrec; r++) mine += f->rec_sub[r] == f->own;
        send = malloc((size_t)(mine * total + 1) * sizeof *send);
        if (ctx->rank == 0) {
            recv = malloc((size_t)(c->nrec * total) * sizeof *recv);
            counts = calloc((size_t)ctx->size, sizeof *counts);
        }
        int ok = send && (ctx->rank != 0 || (recv && counts));
        TL_TRYGOTO(tl_comm_agree(ctx, ok ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "receiver traces")), st, done);
        /* owner-major, receivers in order, each its whole series */
        int64_t k = 0;
        for (int r = 0; r < c->nrec; r++)
            if (f->rec_sub[r] == f->own)
                for (int64_t n = 0; n < total; n++) send[k++] = f->traces[n * c->nrec + r];
        if (counts)
            for (int r = 0; r < c->nrec; r++) counts[f->rec_sub[r]] += (size_t)total * sizeof(double);
        TL_TRYGOTO(tl_comm_gatherv(ctx, send, (size_t)k * sizeof *send, recv, counts, 0), st, done);
        if (ctx->rank == 0) {
            k = 0;
            for (int o = 0; o < f->nsub; o++)
                for (int r = 0; r < c->nrec; r++)
                    if (f->rec_sub[r] == o)
                        for (int64_t n = 0; n < total; n++) f->traces[n * c->nrec + r] = recv[k++];
        }
    }
    tl_fdtd_stats S = f->stats;
    memory_of(f, &S);
    double v[3] = {f->stats.seconds, S.mem_bytes, S.paper_mem_bytes};
    TL_TRYGOTO(tl_comm_allreduce(ctx, v, 3, TL_DOUBLE, TL_MAX), st, done);
    f->stats.seconds = v[0];
    f->stats.mem_bytes = v[1];
    f->stats.paper_mem_bytes = v[2];
    if (f->stats.nops > 0) TL_TRYGOTO(ranks_breakdown(f), st, done); /* nops: the same on every rank (the config's) */
done:
    free(send);
    free(recv);
    free(counts);
    return st;
}

tl_status tl_fdtd_run(tl_fdtd *f, tl_ctx *ctx)
{
    const tl_fdtd_config *c = &f->cfg;
    tl_status st = TL_OK;
    int64_t total = c->warmup + c->steps, t0 = 0;
    f->ctx = ctx;
    int traced = 0;
    const tl_probes_session session = {.cupti = -1};
    /* collective and agreed: a rank that cannot trace stops them all
     * before the first exchange */
    if (c->trace && ctx) TL_TRY(tl_probes_session_open(ctx, &session, &traced));
    if (f->comm && f->be->exchange_on_host) TL_TRYGOTO(exchange_declare_peers(f), st, done);
    if (f->st->start) TL_TRYGOTO(f->st->start(f), st, done); /* collective: every rank is here */
    TL_TRYGOTO(f->be->mark(f, TL_FDTD_MARK_REGISTER), st, done); /* register streams with the probes */
    if (c->energy_every > 0 && f->step == 0) {
        double e;
        TL_TRYGOTO(tl_fdtd_energy_now(f, &e), st, done);
        f->energy[0] = 0;
        f->energy[1] = e;
        f->nenergy = 1;
    }
    for (int64_t n = 0; n < total; n++) {
        if (n == c->warmup) {
            TL_TRYGOTO(f->be->sync(f), st, done);
            TL_TRYGOTO(f->be->timers(f, 1), st, done);
            tl_probe_window_start(ctx);
            t0 = tl_clock_ns();
        }
        int t = (int)(f->step % c->s) + 1;
        TL_TRYGOTO(one_step(f, t, f->step), st, done);
        f->step++;
        if (c->check_every > 0 && f->step % c->check_every == 0) TL_TRYGOTO(check_fields(f, f->step), st, done);
        if (c->energy_every > 0 && f->step % c->energy_every == 0) {
            double e;
            TL_TRYGOTO(tl_fdtd_energy_now(f, &e), st, done);
            f->energy[2 * f->nenergy] = (double)f->step;
            f->energy[2 * f->nenergy + 1] = e;
            f->nenergy++;
        }
        if (c->slice_every > 0 && c->slice_dir && f->step % c->slice_every == 0) TL_TRYGOTO(write_slice(f, f->step), st, done);
        if (c->progress) tl_progress_update(c->progress, (double)(n + 1));
    }
    if (total == c->warmup) t0 = tl_clock_ns();
    TL_TRYGOTO(f->be->sync(f), st, done);
    f->stats.seconds = (double)(tl_clock_ns() - t0) * 1e-9;
    tl_probe_window_stop(ctx);
    TL_TRYGOTO(f->be->timers(f, 0), st, done);
    TL_TRYGOTO(check_fields(f, f->step), st, done);
    TL_TRYGOTO(f->be->fetch_traces(f), st, done);
    if (f->comm) TL_TRYGOTO(ranks_finish(f), st, done);
    {
        double pts = (double)c->n[0] * (double)c->n[1] * (double)c->n[2] * (double)c->steps;
        tl_fdtd_stats *S = &f->stats;
        S->steps = c->steps;
        S->dt = f->dt;
        S->min_bytes_per_point = (double)((12 + (tl_fdtd_heterogeneous(c) ? 4 : 0)) * f->esz);
        S->mpoints_s = S->seconds > 0 ? pts / (1e6 * S->seconds) : 0;
        S->gbs = S->seconds > 0 ? S->min_bytes_per_point * pts / S->seconds / 1e9 : 0;
    }
done:
    if (traced) {
        tl_status s2 = tl_probes_session_close(ctx);
        if (st == TL_OK) st = s2;
    }
    if (st != TL_OK) say_slices_kept(f);
    f->ctx = NULL;
    return st;
}

/* The owned points of a subdomain's padded array h into doubles, x fastest. */
static void owned_points(const tl_fdtd *f, const tl_fdtd_sub *s, const void *h, double *dst)
{
    int64_t k = 0;
    for (int64_t z = 0; z < s->n[2]; z++)
        for (int64_t y = 0; y < s->n[1]; y++)
            for (int64_t x = 0; x < s->n[0]; x++) {
                int64_t j = tl_fdtd_index(&s->full, x, y, z);
                dst[k++] = f->esz == 4 ? (double)((const float *)h)[j] : ((const double *)h)[j];
            }
}

/* Per rank: every rank's owned points to rank 0, placed there. */
static tl_status gather_ranks(tl_fdtd *f, int field, double *out)
{
    const tl_fdtd_config *c = &f->cfg;
    tl_ctx *ctx = f->comm;
    const tl_fdtd_sub *me = &f->sub[f->own];
    int64_t npts = me->n[0] * me->n[1] * me->n[2], N = c->n[0] * c->n[1] * c->n[2];
    void *h = malloc(me->full.count * f->esz);
    double *pts = malloc((size_t)npts * sizeof *pts), *all = NULL;
    size_t *counts = NULL;
    tl_status st = TL_OK;
    if (ctx->rank == 0) {
        all = malloc((size_t)N * sizeof *all);
        counts = calloc((size_t)f->nsub, sizeof *counts);
    }
    int ok = h && pts && (ctx->rank != 0 || (all && counts && out));
    TL_TRYGOTO(tl_comm_agree(ctx, ok ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "%" PRId64 " points to gather a field", N)), st, done);
    TL_TRYGOTO(f->be->download(f, f->own, field, h), st, done);
    owned_points(f, me, h, pts);
    if (counts)
        for (int i = 0; i < f->nsub; i++)
            counts[i] = (size_t)(f->sub[i].n[0] * f->sub[i].n[1] * f->sub[i].n[2]) * sizeof(double);
    TL_TRYGOTO(tl_comm_gatherv(ctx, pts, (size_t)npts * sizeof *pts, all, counts, 0), st, done);
    if (ctx->rank == 0) {
        int64_t k = 0;
        for (int i = 0; i < f->nsub; i++) {
            const tl_fdtd_sub *s = &f->sub[i];
            for (int64_t z = 0; z < s->n[2]; z++)
                for (int64_t y = 0; y < s->n[1]; y++)
                    for (int64_t x = 0; x < s->n[0]; x++)
                        out[((s->o[2] + z) * c->n[1] + s->o[1] + y) * c->n[0] + s->o[0] + x] = all[k++];
        }
    }
done:
    free(h);
    free(pts);
    free(all);
    free(counts);
    return st;
}

tl_status tl_fdtd_gather(tl_fdtd *f, int field, double *out)
{
    const tl_fdtd_config *c = &f->cfg;
    TL_TRY(f->be->sync(f));
    if (f->comm) return gather_ranks(f, field, out);
    for (int i = 0; i < f->nsub; i++) {
        const tl_fdtd_sub *s = &f->sub[i];
        void *h = malloc(s->full.count * f->esz);
        TL_CHECK(h != NULL, TL_ERR_NOMEM, "%zu bytes to gather a field", s->full.count * f->esz);
        tl_status st = f->be->download(f, i, field, h);
        if (st != TL_OK) {
            free(h);
            return tl_error_frame(st, __FILE__, __LINE__);
        }
        for (int64_t z = 0; z < s->n[2]; z++)
            for (int64_t y = 0; y < s->n[1]; y++)
                for (int64_t x = 0; x < s->n[0]; x++) {
                    int64_t j = tl_fdtd_index(&s->full, x, y, z);
                    double v = f->esz == 4 ? (double)((float *)h)[j] : ((double *)h)[j];
                    out[((s->o[2] + z) * c->n[1] + s->o[1] + y) * c->n[0] + s->o[0] + x] = v;
                }
        free(h);
    }
    return TL_OK;
}

const double *tl_fdtd_traces(const tl_fdtd *f) { return f->traces; }
const double *tl_fdtd_energy(const tl_fdtd *f, int64_t *count)
{
    *count = f->nenergy;
    return f->energy;
}
double tl_fdtd_dt(const tl_fdtd *f) { return f->dt; }

/* Memory per device from the layouts: fields, memory variables, material
 * arrays, profiles and message buffers of the subdomains it holds. */
static void memory_of(const tl_fdtd *f, tl_fdtd_stats *S)
{
    double per[64] = {0}, pts[64] = {0};
    for (int i = 0; i < f->nsub; i++) {
        if (!tl_fdtd_mine(f, i)) continue;
        const tl_fdtd_sub *s = &f->sub[i];
        int dv = s->device < 0 ? 0 : s->device % 64;
        double b = 4.0 * (double)s->full.count;
        if (tl_fdtd_heterogeneous(&f->cfg)) b += 4.0 * (double)s->full.count;
        for (int m = 0; m < TL_FDTD_NPSI; m++)
            for (int side = 0; side < 2; side++) b += (double)s->psi[m][side].count;
        b += (double)tl_fdtd_profiles_count(f);
        per[dv] += b * (double)f->esz;
        /* the paper's Table 14: 10 fields of (N/px + 16)(N/py + 16)(N/pz + 16)
         * points per GPU, which reproduces its nine values exactly */
        pts[dv] += (double)(s->n[0] + 16) * (double)(s->n[1] + 16) * (double)(s->n[2] + 16);
    }
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            const tl_fdtd_msg *m = &f->msg[d][k];
            int a = f->sub[m->from].device, b = f->sub[m->to].device;
            if (tl_fdtd_mine(f, m->from)) per[a < 0 ? 0 : a % 64] += (double)m->count * (double)f->esz;
            if (tl_fdtd_mine(f, m->to)) per[b < 0 ? 0 : b % 64] += (double)m->count * (double)f->esz;
        }
    int best = 0;
    for (int i = 1; i < 64; i++)
        if (per[i] > per[best]) best = i;
    S->mem_bytes = per[best];
    S->paper_mem_bytes = 10.0 * pts[best] * (double)f->esz;
}

tl_fdtd_stats tl_fdtd_stats_of(const tl_fdtd *f)
{
    tl_fdtd_stats S = f->stats;
    if (!f->comm) memory_of(f, &S); /* per rank: the fullest rank's, from the end of the run */
    return S;
}
