/* Verification experiments: standing waves, reflection, energy, decompositions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "stencil/memneed.h"
#include "stencil/verify.h"

#include "runtime/progress.h"

void tl_fdtd_vopts_defaults(tl_fdtd_vopts *v)
{
    memset(v, 0, sizeof *v);
    v->dbl = 1;
    v->pd[0] = v->pd[1] = v->pd[2] = 1;
    v->s = 1;
    v->kernel = TL_FDTD_KERNEL_VEC4_BAND;
}

tl_status tl_fdtd_verify_config_check(const tl_fdtd_config *c)
{
    TL_TRY(tl_fdtd_config_check(c));
    return tl_fdtd_check_host_memory_early(c);
}

static void apply_vopts(tl_fdtd_config *c, const tl_fdtd_vopts *v)
{
    c->backend = v->backend;
    c->kernel = v->kernel;
    c->dbl = v->dbl;
    c->strategy = v->strategy;
    for (int d = 0; d < 3; d++) c->pd[d] = v->pd[d];
    c->s = v->s;
    c->gpus = v->gpus;
    c->order_fixed = v->order_fixed;
    c->grid_option = v->grid_option;
}

typedef struct wave {
    double h, dt, W, B; /* B: velocity amplitude at t = -dt/2, times C S S */
} wave;

static double wave_init(void *arg, int field, int64_t i, int64_t j, int64_t k)
{
    const wave *w = arg;
    double q[3] = {(double)i * w->h, (double)j * w->h, (double)k * w->h};
    double s[3], c[3];
    for (int d = 0; d < 3; d++) {
        s[d] = sin(2 * M_PI * q[d]);
        c[d] = cos(2 * M_PI * (q[d] + 0.5 * w->h)); /* v_d sits half a cell up along d */
    }
    if (field == TL_FDTD_P) return s[0] * s[1] * s[2];
    double amp = w->B * sin(-0.5 * w->W * w->dt);
    if (field == TL_FDTD_VX) return amp * c[0] * s[1] * s[2];
    if (field == TL_FDTD_VY) return amp * s[0] * c[1] * s[2];
    return amp * s[0] * s[1] * c[2];
}

/* The standing wave's run (its initial fields aside): the periodic unit
 * cube on n^3 points, to t = 0.5 in steps of at most cfl times the limit. */
static const double wave_t_end = 0.5;

static void wave_config(tl_fdtd_config *c, const tl_fdtd_vopts *v, int order, int64_t n, double cfl)
{
    tl_fdtd_config_defaults(c);
    apply_vopts(c, v);
    c->n[0] = c->n[1] = c->n[2] = n;
    c->order = order;
    c->h = 1.0 / (double)n;
    c->periodic = 1;
    c->cpml = 0;
    c->source = 0;
    c->steps = (int64_t)ceil(wave_t_end / (cfl * tl_fdtd_dt_max(c)));
    c->dt = wave_t_end / (double)c->steps;
}

int64_t tl_fdtd_verify_wave_steps(int order, int64_t n, double cfl, double *dt)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    tl_fdtd_config c;
    wave_config(&c, &v, order, n, cfl);
    if (dt) *dt = c.dt;
    return c.steps;
}

double tl_fdtd_verify_wave_span(int order, int64_t n)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    tl_fdtd_config c;
    wave_config(&c, &v, order, n, 1.0);
    return wave_t_end / tl_fdtd_dt_max(&c);
}

tl_status tl_fdtd_verify_wave_check(const tl_fdtd_vopts *v, int order, int64_t n, double cfl)
{
    tl_fdtd_config c;
    wave_config(&c, v, order, n, cfl);
    return tl_fdtd_verify_config_check(&c);
}

tl_status tl_fdtd_verify_wave(const tl_fdtd_vopts *v, int order, int64_t n, double cfl, int spatial, double *l2,
                              double *linf)
{
    tl_fdtd_config c;
    wave_config(&c, v, order, n, cfl);
    double k = 2 * M_PI, w;
    if (spatial) {
        w = k * sqrt(3.0);
    } else {
        double cm[4], kt = 0;
        tl_fdtd_coefficients(order, cm);
        for (int m = 0; m < 4; m++) kt += 2.0 / c.h * cm[m] * sin((2 * m + 1) * k * c.h / 2);
        k = kt;
        w = k * sqrt(3.0);
    }
    wave wv = {.h = c.h, .dt = c.dt};
    wv.W = spatial ? 2.0 / c.dt * asin(w * c.dt / 2) : w;
    wv.B = -k / w; /* rho = 1: -k / (rho w), the same for both references */
    c.init = wave_init;
    c.init_arg = &wv;
    tl_fdtd *f = NULL;
    double *p = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_fdtd_create(&f, &c));
    TL_TRYGOTO(tl_fdtd_run(f, NULL), st, done);
    p = malloc((size_t)(n * n * n) * sizeof *p);
    TL_CHECKGOTO(p != NULL, TL_ERR_NOMEM, st, done, "%lld doubles", (long long)(n * n * n));
    TL_TRYGOTO(tl_fdtd_gather(f, TL_FDTD_P, p), st, done);
    double amp = cos(wv.W * wave_t_end), s2 = 0, mx = 0;
    for (int64_t z = 0; z < n; z++)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                double ref = amp * sin(2 * M_PI * x * c.h) * sin(2 * M_PI * y * c.h) * sin(2 * M_PI * z * c.h);
                double e = fabs(p[(z * n + y) * n + x] - ref);
                s2 += e * e;
                if (e > mx) mx = e;
            }
    *l2 = sqrt(s2 / (double)(n * n * n));
    *linf = mx;
done:
    free(p);
    tl_fdtd_destroy(&f);
    return st;
}

/* The reflection experiment's pulse: Ricker of peak frequency f0 (0.05:
 * 20 cells a wavelength at the peak, 8 at 2.5 f0), c = 1, h = 1, order 8,
 * CFL 0.5, source at the centre; the window ends
 * when the pulse has crossed the interior once more after its emission. */
static void pulse_config(tl_fdtd_config *c, const tl_fdtd_vopts *v, int64_t n_int, int64_t margin, int64_t cells,
                         double f0)
{
    tl_fdtd_config_defaults(c);
    apply_vopts(c, v);
    c->order = 8;
    c->cpml = cells;
    int64_t N = n_int + 2 * margin;
    c->n[0] = c->n[1] = c->n[2] = N;
    c->grid_option = "--n-int";
    c->grid_option_less = 2 * margin;
    c->source = 1;
    c->f0 = f0;
    c->amp = 1.0;
    for (int d = 0; d < 3; d++) c->src[d] = margin + n_int / 2;
    double t_end = 2.4 / c->f0 + (double)n_int;
    c->steps = (int64_t)ceil(t_end / (c->cfl * tl_fdtd_dt_max(c)));
}

/* The reference run of the reflection experiment: the same interior in a
 * grid so large that nothing returns from its faces to the receiver, which
 * sits 4 points inside the interior's upper x face, within the window;
 * rr its position in that grid. */
static void reflection_reference(tl_fdtd_config *r, int64_t rr[3], const tl_fdtd_vopts *v, int64_t n_int, double f0)
{
    tl_fdtd_config c;
    pulse_config(&c, v, n_int, 0, 0, f0);
    double reach = (double)c.steps * c.cfl * tl_fdtd_dt_max(&c); /* there and back from the receiver */
    int64_t margin = (int64_t)ceil(reach / 2) + 8;
    tl_fdtd_vopts one = *v;
    one.pd[0] = one.pd[1] = one.pd[2] = 1;
    one.s = 1;
    pulse_config(r, &one, n_int, margin, 0, f0);
    rr[0] = margin + n_int - 1 - 4;
    rr[1] = rr[2] = margin + n_int / 2;
}

int64_t tl_fdtd_verify_reflection_reference_n(int64_t n_int, double f0)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    tl_fdtd_config c;
    int64_t rr[3];
    reflection_reference(&c, rr, &v, n_int, f0);
    return c.n[0];
}

tl_status tl_fdtd_verify_reflection_reference_check(const tl_fdtd_vopts *v, int64_t n_int, double f0)
{
    tl_fdtd_config c;
    int64_t rr[3];
    reflection_reference(&c, rr, v, n_int, f0);
    return tl_fdtd_verify_config_check(&c);
}

tl_status tl_fdtd_verify_reflection_check(const tl_fdtd_vopts *v, int ndecomp, int64_t n_int, double f0,
                                          const int64_t *cells, int ncells)
{
    tl_fdtd_config c;
    int64_t thinnest = cells[0];
    for (int k = 1; k < ncells; k++) thinnest = cells[k] < thinnest ? cells[k] : thinnest;
    for (int d = 0; d < ndecomp; d++) {
        /* the thinnest CPML's run first: its grid is the smallest, so the
         * --n-int a ghost-depth refusal names mends every thickness's run */
        pulse_config(&c, &v[d], n_int, thinnest, thinnest, f0);
        TL_TRY(tl_fdtd_verify_config_check(&c));
        for (int k = 0; k < ncells; k++) {
            pulse_config(&c, &v[d], n_int, cells[k], cells[k], f0);
            TL_TRY(tl_fdtd_verify_config_check(&c));
        }
    }
    return TL_OK;
}

static tl_status receiver_trace(tl_fdtd_config *c, const int64_t rec[3], double **out)
{
    const int64_t r1[1][3] = {{rec[0], rec[1], rec[2]}};
    c->nrec = 1;
    c->rec = r1;
    tl_fdtd *f = NULL;
    tl_status st = TL_OK;
    *out = NULL;
    TL_TRY(tl_fdtd_create(&f, c));
    TL_TRYGOTO(tl_fdtd_run(f, NULL), st, done);
    *out = malloc((size_t)c->steps * sizeof **out);
    TL_CHECKGOTO(*out != NULL, TL_ERR_NOMEM, st, done, "trace of %lld steps", (long long)c->steps);
    memcpy(*out, tl_fdtd_traces(f), (size_t)c->steps * sizeof **out);
done:
    tl_fdtd_destroy(&f);
    c->nrec = 0;
    c->rec = NULL;
    return st;
}

tl_status tl_fdtd_verify_reflection(const tl_fdtd_vopts *v, int ndecomp, int64_t n_int, double f0, const int64_t *cells,
                                    int ncells, double *ratio)
{
    tl_fdtd_config c, r;
    int64_t rr[3];
    reflection_reference(&r, rr, v, n_int, f0);
    double *a = NULL, *b = NULL;
    tl_status st = TL_OK;
    TL_TRYGOTO(receiver_trace(&r, rr, &b), st, done);
    if (v->progress) tl_progress_update(v->progress, 1);
    for (int k = 0; k < ncells * ndecomp; k++) {
        tl_fdtd_vopts vk = v[k / ncells];
        int64_t L = cells[k % ncells];
        pulse_config(&c, &vk, n_int, L, L, f0);
        int64_t rc[3] = {L + n_int - 1 - 4, L + n_int / 2, L + n_int / 2};
        TL_TRYGOTO(receiver_trace(&c, rc, &a), st, done);
        double num = 0, den = 0;
        for (int64_t t = 0; t < c.steps; t++) {
            double d = fabs(a[t] - b[t]), m = fabs(b[t]);
            if (d > num) num = d;
            if (m > den) den = m;
        }
        free(a);
        a = NULL;
        TL_CHECKGOTO(den > 0, TL_ERR_NUMERIC, st, done, "the reference trace is zero");
        ratio[k] = num / den;
        if (v->progress) tl_progress_update(v->progress, 2.0 + k);
    }
done:
    free(a);
    free(b);
    return st;
}

/* The energy experiment's run: order 8, Ricker (f0 = 0.05) at the centre of
 * an n^3 grid, a CPML of `cells`; the energy after every step (for its
 * true maximum; the series returned keeps every `every`-th and the last,
 * whose figure the closing line gives), slices every `every` steps. */
static void energy_config(tl_fdtd_config *c, const tl_fdtd_vopts *v, int64_t n, int64_t cells, int64_t steps,
                          int64_t every, const char *slices)
{
    tl_fdtd_config_defaults(c);
    apply_vopts(c, v);
    c->order = 8;
    c->n[0] = c->n[1] = c->n[2] = n;
    c->cpml = cells;
    c->source = 1;
    c->f0 = 0.05;
    for (int d = 0; d < 3; d++) c->src[d] = n / 2;
    c->steps = steps;
    c->energy_every = 1;
    c->progress = v->progress; /* one unit per step */
    if (slices) {
        c->slice_dir = slices;
        c->slice_every = every;
        c->slice_axis = 2;
        c->slice_index = n / 2;
    }
}

tl_status tl_fdtd_verify_energy_check(const tl_fdtd_vopts *v, int64_t n, int64_t cells, int64_t steps, int64_t every)
{
    tl_fdtd_config c;
    energy_config(&c, v, n, cells, steps, every, NULL);
    return tl_fdtd_verify_config_check(&c);
}

tl_status tl_fdtd_verify_energy(const tl_fdtd_vopts *v, int64_t n, int64_t cells, int64_t steps, int64_t every,
                                const char *slices, tl_fdtd_energy_run *out)
{
    tl_fdtd_config c;
    energy_config(&c, v, n, cells, steps, every, slices);
    tl_fdtd *f = NULL;
    tl_status st = TL_OK;
    memset(out, 0, sizeof *out);
    TL_TRY(tl_fdtd_create(&f, &c));
    out->dt = tl_fdtd_dt(f);
    out->source_end = 2.4 / c.f0;
    TL_TRYGOTO(tl_fdtd_run(f, NULL), st, done);
    int64_t all;
    const double *e = tl_fdtd_energy(f, &all); /* (step, energy) after every step, step 0 first */
    out->samples = malloc((size_t)(2 * (all / every + 2)) * sizeof *out->samples);
    TL_CHECKGOTO(out->samples != NULL, TL_ERR_NOMEM, st, done, "energy series");
    /* a peak between two samples counts: the normalised figures must not
     * depend on the sampling period; the last step is a row whatever the
     * period, as the closing line's "at the end" is that step's (up to
     * c834e8e --steps 35 --every 10 ended the table at step 30) */
    for (int64_t i = 0; i < all; i++) {
        double step = e[2 * i], energy = e[2 * i + 1];
        if (energy > out->max) out->max = energy;
        out->last = energy;
        if ((int64_t)step % every != 0 && i != all - 1) continue;
        out->samples[2 * out->count] = step;
        out->samples[2 * out->count + 1] = energy;
        out->count++;
    }
done:
    tl_fdtd_destroy(&f);
    return st;
}

double tl_fdtd_init_noise(void *arg, int field, int64_t i, int64_t j, int64_t k)
{
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ULL ^ (uint64_t)j * 0xC2B2AE3D27D4EB4FULL ^
                 (uint64_t)k * 0x165667B19E3779F9ULL ^ (uint64_t)(field + 1) * 0xD6E8FEB86659FD93ULL;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return ((double)(h >> 11) / 9007199254740992.0 - 0.5) * 1e-3;
}

/* A run's four fields and receiver traces into out (rank 0's; NULL on the
 * others). ctx: the ranks of a per-rank strategy (collective), or NULL. */
static tl_status run_fields(tl_ctx *ctx, const tl_fdtd_config *c, double *out)
{
    tl_fdtd *f = NULL;
    tl_status st = TL_OK;
    int64_t N = c->n[0] * c->n[1] * c->n[2];
    st = tl_fdtd_create_on(&f, c, ctx);
    if (ctx) st = tl_comm_agree(ctx, st);
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(tl_fdtd_run(f, NULL), st, done);
    for (int k = 0; k < TL_FDTD_NFIELDS; k++) TL_TRYGOTO(tl_fdtd_gather(f, k, out ? out + k * N : NULL), st, done);
    if (c->nrec > 0 && out)
        memcpy(out + 4 * N, tl_fdtd_traces(f), (size_t)(c->nrec * (c->steps + c->warmup)) * sizeof *out);
done:
    tl_fdtd_destroy(&f);
    return st;
}

tl_status tl_fdtd_verify_decomp(const tl_fdtd_config *c, double *maxdiff) { return tl_fdtd_verify_decomp_on(NULL, c, maxdiff); }

tl_status tl_fdtd_verify_decomp_on(tl_ctx *ctx, const tl_fdtd_config *c, double *maxdiff)
{
    tl_fdtd_config one = *c;
    one.pd[0] = one.pd[1] = one.pd[2] = 1;
    one.s = 1;
    one.strategy = NULL;
    one.overlap = 0;
    int root = !ctx || ctx->rank == 0;
    int64_t N = c->n[0] * c->n[1] * c->n[2];
    size_t len = (size_t)(4 * N + c->nrec * (c->steps + c->warmup));
    double *a = NULL, *b = NULL, m = 0;
    tl_status st = TL_OK;
    if (root) {
        a = malloc(len * sizeof *a);
        b = malloc(len * sizeof *b);
        if (!a || !b) st = TL_FAIL(TL_ERR_NOMEM, "%zu doubles", 2 * len);
    }
    if (ctx) st = tl_comm_agree(ctx, st);
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(run_fields(ctx, c, a), st, done);
    if (root) st = run_fields(NULL, &one, b); /* the single domain, in this process */
    if (ctx) st = tl_comm_agree(ctx, st);
    TL_TRYGOTO(st, st, done);
    for (size_t i = 0; root && i < len; i++) {
        double d = a[i] == b[i] ? 0 : isnan(a[i]) || isnan(b[i]) ? INFINITY : fabs(a[i] - b[i]);
        if (d > m) m = d;
    }
    if (ctx) TL_TRYGOTO(tl_comm_bcast(ctx, &m, sizeof m, 0), st, done);
    *maxdiff = m;
done:
    free(a);
    free(b);
    return st;
}
