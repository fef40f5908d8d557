/* stencil/: the CPU reference FDTD, its verification and decompositions. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/launch.h"
#include "stencil/cpml_cut.h"
#include "stencil/fast_div.h"
#include "stencil/fdtd.h"
#include "stencil/fdtd_impl.h"
#include "stencil/verify.h"
#include "tests/tl_test.h"

static tl_fdtd_config small(int64_t n)
{
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    c.n[0] = c.n[1] = c.n[2] = n;
    c.steps = 10;
    c.cpml = 0;
    return c;
}

TL_TEST(cfl_limit_is_an_error)
{
    tl_fdtd_config c = small(16);
    double dtmax = tl_fdtd_dt_max(&c);
    /* sqrt(3) sum|c_m| for order 8 is 2.2280 */
    TL_ASSERT_NEAR(dtmax, 1.0 / 2.22798, 1e-4);
    c.dt = 1.01 * dtmax;
    tl_fdtd *f = NULL;
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    TL_ASSERT(f == NULL);
    c.dt = 0.99 * dtmax;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    tl_fdtd_destroy(&f);
    TL_ASSERT(f == NULL);
    /* the fastest layer sets the limit */
    c.dt = 0;
    c.layer_k = 8;
    c.K2 = 4;
    TL_ASSERT_NEAR(tl_fdtd_dt_max(&c), dtmax / 2, 1e-12);
}

TL_TEST(bad_configurations)
{
    tl_fdtd *f = NULL;
    tl_fdtd_config c = small(16);
    c.order = 6;
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    c = small(16);
    c.cpml = 8; /* 16 < 2 * 8 + 2 */
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    c = small(16);
    c.periodic = 1;
    c.cpml = 4;
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    c = small(16);
    c.pd[2] = 4; /* 4 points per subdomain < g = 8 */
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    c = small(16);
    c.strategy = "peer"; /* a cuda strategy on the cpu backend */
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    c = small(16);
    c.source = 1;
    c.src[1] = 16;
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    TL_ASSERT(f == NULL);
}

/* The vector kernels' block walk divides by numbers fixed at launch with
 * a multiply and a shift (stencil/fast_div.h): the quotient equals `/`
 * for every block index below 2^31, at the edges of each quotient and at
 * random, for small, power-of-two, odd and large divisors. */
TL_TEST(fast_division_equals_division)
{
    uint32_t ds[] = {1, 2, 3, 5, 7, 13, 14, 32, 33, 439, 440, 1000, 1023, 1024, 1025, 7462, 65535, 65536,
                     753664, 1u << 20, (1u << 20) + 1, 99999989, (1u << 30) - 1, 1u << 30, (1u << 31) - 1,
                     1u << 31};
    uint64_t seed = 88172645463325252ull;
    long checked = 0, wrong = 0;
    for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
        tl_fast_div f = tl_fast_div_of(ds[k]);
        uint32_t d = ds[k];
        for (uint64_t q = 0; q * d < (1ull << 31) && q < 2000; q++)
            for (int e = -1; e <= 1; e++) {
                int64_t n = (int64_t)(q * d) + e;
                if (n < 0 || n >= (1ll << 31)) continue;
                wrong += tl_fast_div_quot(f, (uint32_t)n) != (uint32_t)n / d, checked++;
            }
        for (int i = 0; i < 20000; i++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            uint32_t n = (uint32_t)(seed & 0x7fffffffu);
            wrong += tl_fast_div_quot(f, n) != n / d, checked++;
        }
        wrong += tl_fast_div_quot(f, 0x7fffffffu) != 0x7fffffffu / d, checked++;
    }
    TL_ASSERT_MSG(wrong == 0, "%ld of %ld quotients wrong", wrong, checked);
    TL_ASSERT(checked > 500000);
}

TL_TEST(cpml_profiles)
{
    tl_fdtd_config c = small(48);
    c.cpml = 20;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    for (int d = 0; d < 3; d++) {
        const double *p = f->prof_host[d];
        int64_t n = 48;
        for (int64_t i = 0; i < n; i++) {
            double a = p[TL_FDTD_PROF_A * n + i], b = p[TL_FDTD_PROF_B * n + i], ik = p[TL_FDTD_PROF_IK * n + i];
            double ah = p[TL_FDTD_PROF_AH * n + i], ikh = p[TL_FDTD_PROF_IKH * n + i];
            TL_ASSERT(a <= 0 && ah <= 0 && b >= 0 && b <= 1 && ik > 0 && ik <= 1 && ikh <= 1);
            if (i >= 20 && i < n - 21) TL_ASSERT(a == 0 && ah == 0 && ik == 1 && ikh == 1);
        }
        /* the outer face: depth 1, kappa = kappa_max */
        TL_ASSERT_NEAR(p[TL_FDTD_PROF_IK * n + 0], 1.0 / 5.0, 1e-12);
        TL_ASSERT_NEAR(p[TL_FDTD_PROF_IKH * n + n - 1], 1.0 / (1.0 + 4.0 * pow(20.5 / 20.0 > 1 ? 1 : 20.5 / 20.0, 3)), 1e-12);
        /* sigma / kappa grows towards the face: b falls */
        TL_ASSERT(p[TL_FDTD_PROF_B * n + 0] < p[TL_FDTD_PROF_B * n + 10]);
        TL_ASSERT(p[TL_FDTD_PROF_B * n + 10] < p[TL_FDTD_PROF_B * n + 19]);
        TL_ASSERT(p[TL_FDTD_PROF_B * n + n - 1] < p[TL_FDTD_PROF_B * n + n - 12]);
    }
    tl_fdtd_destroy(&f);
}

static void rates_of(int order, const int64_t *n, int k, double *rate_fine)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    double e[4], li;
    for (int i = 0; i < k; i++) TL_ASSERT_OK(tl_fdtd_verify_wave(&v, order, n[i], 0.5, 1, &e[i], &li));
    *rate_fine = log(e[k - 2] / e[k - 1]) / log((double)n[k - 1] / (double)n[k - 2]);
}

TL_TEST(spatial_convergence)
{
    const int64_t n[3] = {8, 16, 32};
    double r2, r4, r8;
    rates_of(2, n, 3, &r2);
    rates_of(4, n, 3, &r4);
    rates_of(8, n, 3, &r8);
    TL_ASSERT_MSG(fabs(r2 - 2) < 0.15, "order 2 rate %.3f", r2);
    TL_ASSERT_MSG(fabs(r4 - 4) < 0.2, "order 4 rate %.3f", r4);
    TL_ASSERT_MSG(fabs(r8 - 8) < 0.4, "order 8 rate %.3f", r8);
}

TL_TEST(temporal_convergence)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    double e[3], li;
    const double cfl[3] = {0.4, 0.2, 0.1};
    for (int i = 0; i < 3; i++) TL_ASSERT_OK(tl_fdtd_verify_wave(&v, 8, 16, cfl[i], 0, &e[i], &li));
    for (int i = 1; i < 3; i++) {
        double r = log(e[i - 1] / e[i]) / log(2.0);
        TL_ASSERT_MSG(fabs(r - 2) < 0.1, "temporal rate %.3f", r); /* dt halves to within a step */
    }
}

TL_TEST(cpml_reflection)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    const int64_t cells[3] = {0, 5, 8};
    double r[3];
    TL_ASSERT_OK(tl_fdtd_verify_reflection(&v, 1, 10, 0.15, cells, 3, r));
    TL_ASSERT_MSG(r[0] > 0.1, "no CPML: ratio %.3e", r[0]);
    TL_ASSERT_MSG(r[1] < 0.02, "5 cells: ratio %.3e", r[1]);
    TL_ASSERT_MSG(r[2] < 0.6 * r[1], "8 cells (%.3e) not clearly better than 5 (%.3e)", r[2], r[1]);
    /* the same, decomposed along z and x: bit for bit */
    tl_fdtd_vopts w[2] = {v, v};
    w[0].pd[2] = 2;
    w[1].pd[0] = 2;
    w[1].pd[1] = 2;
    double q[4];
    TL_ASSERT_OK(tl_fdtd_verify_reflection(w, 2, 10, 0.15, cells + 1, 2, q));
    TL_ASSERT(q[0] == r[1] && q[1] == r[2] && q[2] == r[1] && q[3] == r[2]);
}

TL_TEST(energy_decays_only_with_cpml)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    v.dbl = 0;
    tl_fdtd_energy_run a, b;
    TL_ASSERT_OK(tl_fdtd_verify_energy(&v, 36, 8, 280, 20, NULL, &a));
    TL_ASSERT_OK(tl_fdtd_verify_energy(&v, 36, 0, 280, 20, NULL, &b));
    TL_ASSERT_EQ(a.count, 15);
    TL_ASSERT_EQ(b.count, 15);
    TL_ASSERT_MSG(a.last / a.max < 1e-2, "with CPML: %.3e of the maximum", a.last / a.max);
    /* without, it stays at what the source left (0.44 of the peak the
     * source's first lobes reach) */
    TL_ASSERT_MSG(b.last / b.max > 0.3, "without: %.3e of the maximum", b.last / b.max);
    free(a.samples);
    free(b.samples);
}

/* The maximum the energy is normalised by is the one over every step: the
 * same whatever the sampling period (a peak between two samples counts),
 * and never below a sampled value. */
TL_TEST(energy_maximum_over_every_step)
{
    tl_fdtd_vopts v;
    tl_fdtd_vopts_defaults(&v);
    v.dbl = 0;
    const int64_t every[3] = {1, 10, 50};
    tl_fdtd_energy_run r[3];
    for (int k = 0; k < 3; k++) TL_ASSERT_OK(tl_fdtd_verify_energy(&v, 36, 0, 200, every[k], NULL, &r[k]));
    for (int k = 0; k < 3; k++) {
        TL_ASSERT_EQ(r[k].count, 200 / every[k] + 1);
        TL_ASSERT_MSG(r[k].max == r[0].max && r[k].last == r[0].last, "--every %d: maximum %.9e, last %.9e; every "
                      "step: %.9e, %.9e", (int)every[k], r[k].max, r[k].last, r[0].max, r[0].last);
        for (int64_t i = 0; i < r[k].count; i++) {
            TL_ASSERT_EQ((int64_t)r[k].samples[2 * i], i * every[k]);
            TL_ASSERT(r[k].samples[2 * i + 1] == r[0].samples[2 * i * every[k] + 1]);
        }
    }
    /* after the loop: every k reads r[0]'s (freed inside it, k = 1 read
     * freed memory, and failed where malloc had reused it) */
    for (int k = 0; k < 3; k++) free(r[k].samples);
}

/* A decomposed case: noise, a source, two receivers (rec, which c points to). */
static tl_fdtd_config case_config(int64_t nx, int64_t ny, int64_t nz, int px, int py, int pz, int s, int boundary,
                                  int dbl, int layered, int64_t rec[2][3])
{
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    c.n[0] = nx;
    c.n[1] = ny;
    c.n[2] = nz;
    c.pd[0] = px;
    c.pd[1] = py;
    c.pd[2] = pz;
    c.s = s;
    c.dbl = dbl;
    c.steps = 9; /* not a multiple of s: the last window is short */
    c.cpml = boundary == 1 ? 5 : 0;
    c.periodic = boundary == 2;
    c.init = tl_fdtd_init_noise;
    c.source = 1;
    c.f0 = 0.2;
    c.src[0] = nx / 2;
    c.src[1] = ny / 3;
    c.src[2] = nz - 2;
    const int64_t r[2][3] = {{1, 2, 3}, {nx - 1, ny / 2, nz / 2}};
    memcpy(rec, r, sizeof r);
    c.nrec = 2;
    c.rec = (const int64_t(*)[3])rec;
    if (layered) {
        c.layer_k = nz / 2 + 1;
        c.K2 = 2.5;
        c.rho2 = 1.7;
    }
    return c;
}

static void decomp_case(int64_t nx, int64_t ny, int64_t nz, int px, int py, int pz, int s, int boundary, int dbl,
                        int layered)
{
    int64_t rec[2][3];
    tl_fdtd_config c = case_config(nx, ny, nz, px, py, pz, s, boundary, dbl, layered, rec);
    double m = -1;
    TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
    TL_ASSERT_MSG(m == 0, "%dx%dx%d s=%d boundary %d: max |diff| %g", px, py, pz, s, boundary, m);
}

TL_TEST(decomposed_equals_single_domain)
{
    /* slab-z, block-xy, pencil-yz and an odd shape; zero outer faces, CPML, periodic; s = 1, 2, 3 */
    for (int b = 0; b < 3; b++) {
        decomp_case(20, 18, 40, 1, 1, 4, 1, b, 1, 0);
        decomp_case(36, 34, 17, 2, 2, 1, 2, b, 0, 0);
        decomp_case(18, 36, 33, 1, 2, 2, 2, b, 1, b == 1);
        decomp_case(25, 26, 27, 2, 3, 1, 1, b, 0, 0);
    }
    decomp_case(18, 36, 33, 1, 2, 2, 2, 2, 1, 1); /* layered and periodic: the ghost planes' material wraps */
    decomp_case(50, 16, 16, 2, 1, 1, 3, 1, 0, 1);
}

/* A lossless layered box for the energy tests: 16^3, double, rho2 = 4
 * from plane layer_k, a Ricker (f0 = 0.1, gone by t = 2.4 / f0 = 24) at
 * (8, 8, 4), no CPML */
static tl_fdtd_config layered_box(int periodic, int64_t layer_k)
{
    tl_fdtd_config c = small(16);
    c.periodic = periodic;
    c.dbl = 1;
    c.layer_k = layer_k;
    c.rho2 = 4.0;
    c.source = 1;
    c.f0 = 0.1;
    c.src[0] = c.src[1] = 8;
    c.src[2] = 4;
    return c;
}

/* The least and largest energy of c's run from time t_from on; samples:
 * how many the monitor took */
static void energy_range(const tl_fdtd_config *c, double t_from, double *lo, double *hi, int64_t *samples)
{
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    const double *e = tl_fdtd_energy(f, samples);
    double dt = tl_fdtd_dt(f);
    *lo = INFINITY;
    *hi = 0;
    for (int64_t i = 0; i < *samples; i++)
        if (e[2 * i] * dt >= t_from) {
            *lo = fmin(*lo, e[2 * i + 1]);
            *hi = fmax(*hi, e[2 * i + 1]);
        }
    tl_fdtd_destroy(&f);
}

/* A periodic layered medium is a stack of two layers repeating along z:
 * without a source or CPML its energy stays put. The vz between the last
 * plane and plane 0 once had one buoyancy where it is owned and another in
 * its ghost image (the material clamped, not wrapped), and the energy grew
 * by 3x in 2,000 steps at 24^3 (rho2 = 4). */
TL_TEST(layered_periodic_keeps_its_energy)
{
    tl_fdtd_config c = layered_box(1, 10);
    c.steps = 1200;
    c.energy_every = 100;
    double lo, hi;
    int64_t n;
    energy_range(&c, 199.5 * c.cfl * tl_fdtd_dt_max(&c), &lo, &hi, &n); /* from step 200, the source off */
    TL_ASSERT_EQ(n, 13);
    /* the leapfrog energy (p^n with v^(n - 1/2)) wobbles by a few per cent */
    TL_ASSERT_MSG(lo > 0 && hi / lo < 1.1, "energy from step 200 to 1200 between %.6e and %.6e", lo, hi);
}

/* The energy monitor's wobble in the layered box (rho2 = 4 below plane
 * 8): (max - min) / max from t = 30 to 90 */
static double layered_energy_wobble(int periodic, double cfl)
{
    tl_fdtd_config c = layered_box(periodic, 8);
    c.cfl = cfl;
    c.steps = (int64_t)ceil(90.0 / (cfl * tl_fdtd_dt_max(&c)));
    c.energy_every = 1;
    double lo, hi;
    int64_t n;
    energy_range(&c, 30, &lo, &hi, &n);
    TL_ASSERT(lo > 0);
    return (hi - lo) / hi;
}

/* vz = 1 on the interface's plane (layer_k - 1 = 5) and 2 on the last
 * (15), every other field 0 */
static double vz_on_two_planes(void *arg, int field, int64_t i, int64_t j, int64_t k)
{
    (void)arg;
    (void)i;
    (void)j;
    return field != TL_FDTD_VZ ? 0 : k == 5 ? 1 : k == 15 ? 2 : 0;
}

/* The monitor weighs vz by the density its update divides by (fill.c): the
 * vz above plane k by (rho_k + rho_k+1) / 2; above the last plane by its
 * own density, or with --periodic by the mean with plane 0's. With rho = 1
 * above plane 6 and 4 from it, 16^2 points a plane: (1/2) 256 (2.5 + 4 x 4)
 * = 2368 with walls, (1/2) 256 (2.5 + 4 x 2.5) = 1600 periodic (before:
 * 2176 for both, each vz weighted by its own plane's density). One domain
 * and two subdomains along z (the planes in different ones). */
TL_TEST(energy_weighs_vz_by_its_buoyancy)
{
    for (int periodic = 0; periodic < 2; periodic++)
        for (int pz = 1; pz <= 2; pz++) {
            tl_fdtd_config c = small(16);
            c.periodic = periodic;
            c.pd[2] = pz;
            c.dbl = 1;
            c.layer_k = 6;
            c.rho2 = 4.0;
            c.K2 = 3.0;
            c.source = 0;
            c.init = vz_on_two_planes;
            tl_fdtd *f = NULL;
            TL_ASSERT_OK(tl_fdtd_create(&f, &c));
            double e = 0;
            TL_ASSERT_OK(tl_fdtd_energy_now(f, &e));
            tl_fdtd_destroy(&f);
            TL_ASSERT_MSG(e == (periodic ? 1600.0 : 2368.0), "%s, %d subdomain(s) along z: energy %.17g, not %g",
                          periodic ? "periodic" : "walls", pz, e, periodic ? 1600.0 : 2368.0);
        }
}

/* Without losses the scheme conserves a discrete energy; the monitor
 * (p^n with v^(n - 1/2)) differs from it by O(dt), so its wobble halves
 * with dt. Each velocity must be weighted by the density its update
 * divides by: the interface's vz by the mean of the two layers'. Weighted
 * by its own plane's density, the monitor missed by an amount that does
 * not shrink with dt (wobble 2.40e-2 at CFL 0.1, 2.19e-2 at 0.05 with
 * walls; 3.53e-2, 3.58e-2 periodic; after the fix 8.4e-3, 4.2e-3 and
 * 1.67e-2, 8.4e-3). */
TL_TEST(layered_energy_wobble_halves_with_dt)
{
    for (int periodic = 0; periodic < 2; periodic++) {
        double w1 = layered_energy_wobble(periodic, 0.1), w2 = layered_energy_wobble(periodic, 0.05);
        TL_ASSERT_MSG(w2 < 0.6 * w1, "%s: energy wobble %.3e at CFL 0.1, %.3e at CFL 0.05 (ratio %.3f, not 0.5)",
                      periodic ? "periodic" : "rigid/free faces", w1, w2, w2 / w1);
    }
}

TL_TEST(overlap_schedule_same_result)
{
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    c.n[0] = 34;
    c.n[1] = 34;
    c.n[2] = 40;
    c.pd[1] = 2;
    c.pd[2] = 2;
    c.s = 1;
    c.overlap = 1;
    c.cpml = 4;
    c.steps = 7;
    c.init = tl_fdtd_init_noise;
    double m = -1;
    TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
    TL_ASSERT(m == 0);
}

/* One subdomain per thread rank (strategy ranks, host messages through
 * runtime/comm.h) against one domain: fields and receivers bit for bit. */
typedef struct ranks_case {
    tl_fdtd_config c;
    int64_t rec[2][3];
    double m;     /* rank 0's */
    tl_status st; /* rank 0's */
} ranks_case;

static tl_status ranks_case_rank(tl_ctx *ctx, void *arg)
{
    ranks_case *rc = arg;
    double m = -1;
    tl_status st = tl_fdtd_verify_decomp_on(ctx, &rc->c, &m);
    if (ctx->rank == 0) {
        rc->m = m;
        rc->st = st;
    }
    return st;
}

static void ranks_case_run(int64_t nx, int64_t ny, int64_t nz, int px, int py, int pz, int s, int boundary, int dbl,
                           int layered, int overlap)
{
    ranks_case rc;
    memset(&rc, 0, sizeof rc);
    rc.c = case_config(nx, ny, nz, px, py, pz, s, boundary, dbl, layered, rc.rec);
    rc.c.strategy = "ranks";
    rc.c.overlap = overlap;
    rc.m = -1;
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = px * py * pz, .no_gpu = 1, .timeout_s = 60};
    TL_ASSERT_EQ(tl_launch_run("test_fdtd", &lo, 0, NULL, ranks_case_rank, &rc), 0);
    TL_ASSERT_OK(rc.st);
    TL_ASSERT_MSG(rc.m == 0, "ranks %dx%dx%d s=%d boundary %d overlap %d: max |diff| %g", px, py, pz, s, boundary, overlap,
                  rc.m);
}

static tl_status ranks_mismatch_rank(tl_ctx *ctx, void *arg)
{
    tl_fdtd *f = NULL;
    tl_status st = tl_fdtd_create_on(&f, arg, ctx);
    tl_fdtd_destroy(&f);
    return st == TL_ERR_INVAL ? TL_OK : TL_FAIL(TL_ERR_INVAL, "create with 3 ranks for 4 subdomains gave %d", (int)st);
}

TL_TEST(ranks_equal_single_domain)
{
    for (int b = 0; b < 3; b++) {
        ranks_case_run(20, 18, 40, 1, 1, 4, 1, b, 1, 0, 0);  /* slab-z */
        ranks_case_run(36, 34, 17, 2, 2, 1, 2, b, 0, 0, 0);  /* block-xy */
        ranks_case_run(18, 36, 33, 1, 2, 2, 2, b, 1, b == 1, 0); /* pencil-yz */
    }
    ranks_case_run(25, 26, 27, 2, 3, 1, 1, 1, 0, 0, 0);  /* 6 ranks, uneven cuts */
    ranks_case_run(50, 16, 16, 2, 1, 1, 3, 1, 0, 1, 1);  /* 2 ranks, both sides to one peer when periodic: s 3, overlap */
    ranks_case_run(50, 16, 16, 2, 1, 1, 1, 2, 1, 0, 0);
    ranks_case_run(16, 16, 16, 1, 1, 1, 1, 2, 0, 0, 0);  /* one rank: every message to itself */
    /* the library's own check: ranks must equal px py pz */
    int64_t rec[2][3];
    tl_fdtd_config c = case_config(20, 18, 40, 1, 2, 2, 1, 0, 0, 0, rec);
    c.strategy = "ranks";
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 3, .no_gpu = 1, .timeout_s = 60};
    TL_ASSERT_EQ(tl_launch_run("test_fdtd", &lo, 0, NULL, ranks_mismatch_rank, &c), 0);
}

static double nan_at_point(void *arg, int field, int64_t i, int64_t j, int64_t k)
{
    return field == TL_FDTD_P && i == 5 && j == 6 && k == 7 ? NAN : 0.0;
}

TL_TEST(blowup_and_nan_stop_the_run)
{
    tl_fdtd_config c = small(16);
    c.init = nan_at_point;
    c.check_every = 3;
    c.pd[2] = 2;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_EQ(tl_fdtd_run(f, NULL), TL_ERR_NUMERIC);
    TL_ASSERT_EQ(f->step, 3); /* stopped at the first check */
    tl_fdtd_destroy(&f);
    c = small(16);
    c.source = 1;
    c.src[0] = c.src[1] = c.src[2] = 8;
    c.f0 = 0.2;
    c.amp = 1e6;
    c.blowup = 1.0;
    c.check_every = 1;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_EQ(tl_fdtd_run(f, NULL), TL_ERR_NUMERIC);
    TL_ASSERT(f->step < 10);
    tl_fdtd_destroy(&f);
}

TL_TEST(receivers_and_source)
{
    tl_fdtd_config c = small(20);
    c.source = 1;
    c.src[0] = c.src[1] = c.src[2] = 10;
    c.f0 = 0.2;
    c.steps = 30;
    const int64_t rec[2][3] = {{10, 10, 10}, {13, 10, 10}};
    c.nrec = 2;
    c.rec = rec;
    c.pd[0] = 2;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    const double *t = tl_fdtd_traces(f);
    double *p = malloc(20 * 20 * 20 * sizeof *p);
    TL_ASSERT_OK(tl_fdtd_gather(f, TL_FDTD_P, p));
    /* the last samples are the final field at the receivers */
    TL_ASSERT(t[29 * 2 + 0] == p[(10 * 20 + 10) * 20 + 10]);
    TL_ASSERT(t[29 * 2 + 1] == p[(10 * 20 + 10) * 20 + 13]);
    /* the first sample at the source is the first injection, dt * ricker(dt / 2) */
    double dt = tl_fdtd_dt(f);
    TL_ASSERT_NEAR(t[0], dt * tl_fdtd_ricker(0.5 * dt, 0.2), 1e-7 * fabs(t[0]) + 1e-12);
    /* the receiver 3 points away hears it later */
    TL_ASSERT(t[0 * 2 + 1] == 0 && t[29 * 2 + 1] != 0);
    free(p);
    tl_fdtd_destroy(&f);
}

/* Single precision flushes subnormal floats to zero in the CPU updates:
 * the tails of a pulse spread by the order-8 stencil fall below FLT_MIN
 * within a few steps, and x86 computes on subnormals about 100 times
 * slower, which made a 64^3 run with a source 7 to 15 times slower than
 * one without (3.5-8 against 56-64 Mpoints/s on 2 cores) and slower than
 * double precision. */
TL_TEST(single_precision_keeps_no_subnormals)
{
    tl_fdtd_config c = small(40);
    c.cpml = 4;
    c.source = 1;
    c.src[0] = c.src[1] = c.src[2] = 20;
    c.steps = 6; /* the pulse's front still inside the grid */
    const int64_t N3 = 40 * 40 * 40;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    double *u = malloc(N3 * sizeof *u);
    TL_ASSERT(u != NULL);
    int64_t sub = 0, nonzero = 0;
    for (int field = TL_FDTD_P; field <= TL_FDTD_VZ; field++) {
        TL_ASSERT_OK(tl_fdtd_gather(f, field, u));
        for (int64_t i = 0; i < N3; i++) {
            sub += u[i] != 0 && fabs(u[i]) < FLT_MIN;
            nonzero += u[i] != 0;
        }
    }
    TL_ASSERT_MSG(sub == 0, "%lld subnormal values of %lld nonzero", (long long)sub, (long long)nonzero);
    TL_ASSERT(nonzero > 1000); /* the pulse has spread */
    free(u);
    tl_fdtd_destroy(&f);
}

/* Least-squares factor of trace t (minus the direct wave) on the image
 * source's wave at distance di: the face's reflection coefficient, over
 * the steps before any other face's reflection arrives (t < t_end). */
static double face_reflection(const double *t, int nrec, int r, int64_t steps, double dt, double f0, double d,
                              double di, double t_end)
{
    double num = 0, den = 0, e = 1e-4;
    for (int64_t n = 0; n < steps && (double)(n + 1) * dt < t_end; n++) {
        double s = (double)(n + 1) * dt; /* the sample after step n is p at (n + 1) dt */
        /* p = ricker'(t - d / c) / (4 pi c^2 d) from p += dt ricker (c = h = 1) */
        double direct = (tl_fdtd_ricker(s - d + e, f0) - tl_fdtd_ricker(s - d - e, f0)) / (2 * e) / (4 * M_PI * d);
        double image = (tl_fdtd_ricker(s - di + e, f0) - tl_fdtd_ricker(s - di - e, f0)) / (2 * e) / (4 * M_PI * di);
        num += (t[n * nrec + r] - direct) * image;
        den += image * image;
    }
    return num / den;
}

/* Without CPML, p = v = 0 outside the grid: v just below point 0 is a
 * ghost held at 0 (a rigid wall at -h/2: pressure reflects with +1) while
 * v just above point N - 1 is updated against p(N) = 0 (a pressure-release
 * face at N h: -1), on every axis. stencil/README.md says so. */
TL_TEST(zero_faces_low_rigid_high_free)
{
    tl_fdtd_config c = small(32);
    c.dbl = 1;
    c.source = 1;
    c.f0 = 0.1;
    c.src[0] = c.src[1] = c.src[2] = 16;
    c.steps = 200;
    const int64_t rec[6][3] = {{8, 16, 16}, {24, 16, 16}, {16, 8, 16}, {16, 24, 16}, {16, 16, 8}, {16, 16, 24}};
    c.nrec = 6;
    c.rec = rec;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    const double *t = tl_fdtd_traces(f);
    /* source image in the low face (-1/2) at -17, 25 from the receiver at 8;
     * in the high face (32) at 48, 24 from the one at 24; the side faces'
     * images are 34 away: the window ends at 34 + 1.2 / f0 - 1.2 / f0 / 2 */
    for (int d = 0; d < 3; d++) {
        double lo = face_reflection(t, 6, 2 * d, c.steps, tl_fdtd_dt(f), c.f0, 8, 25, 40);
        double hi = face_reflection(t, 6, 2 * d + 1, c.steps, tl_fdtd_dt(f), c.f0, 8, 24, 40);
        TL_ASSERT_MSG(lo > 0.8 && lo < 1.2 && hi < -0.8 && hi > -1.2,
                      "axis %c: reflection %.3f at the low face (rigid: +1), %.3f at the high face (free: -1)", "xyz"[d], lo,
                      hi);
    }
    tl_fdtd_destroy(&f);
}

/* Each backend's per-rank strategy (cpu ranks, cuda devcomm) and its
 * one-process ones, by name; devcomm checks ranks = px py pz before it
 * needs a GPU (this runs without one). */
TL_TEST(per_rank_strategies)
{
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("ranks", TL_FDTD_BACKEND_CPU), 1);
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("copy", TL_FDTD_BACKEND_CPU), 0);
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("devcomm", TL_FDTD_BACKEND_CUDA), 1);
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("peer", TL_FDTD_BACKEND_CUDA), 0);
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("nccl", TL_FDTD_BACKEND_CUDA), 0);
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("ranks", TL_FDTD_BACKEND_CUDA), -1);
    TL_ASSERT_EQ(tl_fdtd_strategy_per_rank("devcomm", TL_FDTD_BACKEND_CPU), -1);
    TL_ASSERT_STREQ(tl_fdtd_strategy_default(TL_FDTD_BACKEND_CPU, 0), "copy");
    TL_ASSERT_STREQ(tl_fdtd_strategy_default(TL_FDTD_BACKEND_CPU, 1), "ranks");
    TL_ASSERT_STREQ(tl_fdtd_strategy_default(TL_FDTD_BACKEND_CUDA, 0), "peer");
    TL_ASSERT_STREQ(tl_fdtd_strategy_default(TL_FDTD_BACKEND_CUDA, 1), "devcomm");
    int64_t rec[2][3];
    tl_fdtd_config c = case_config(20, 18, 40, 1, 2, 2, 1, 0, 0, 0, rec);
    c.backend = TL_FDTD_BACKEND_CUDA;
    c.strategy = "devcomm";
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 3, .no_gpu = 1, .timeout_s = 60};
    TL_ASSERT_EQ(tl_launch_run("test_fdtd", &lo, 0, NULL, ranks_mismatch_rank, &c), 0);
    tl_fdtd *f = NULL; /* and without a rank context at all */
    TL_ASSERT_EQ(tl_fdtd_create(&f, &c), TL_ERR_INVAL);
    TL_ASSERT(f == NULL);
}

/* the multiple of 32 at or below v */
static int64_t floor32(int64_t v)
{
    return v >= 0 ? v / 32 * 32 : -((-v + 31) / 32 * 32);
}

/* whether point p lies in box b */
static int in_cut_box(const tl_fdtd_cut_box *b, const int64_t p[3])
{
    for (int e = 0; e < 3; e++)
        if (p[e] < b->lo[e] || p[e] >= b->hi[e]) return 0;
    return 1;
}

/* The CPML cut of the vector kernels (cpml_cut.h), on boxes of every kind
 * a decomposed run updates (halo coordinates below 0, boxes inside one
 * slab, thin subdomains, slabs cut by the box's edge) and each fold: every
 * point in exactly one of the interior and the shell; the interior
 * without a point in an unfolded axis's slab, its x edges the box's or on
 * a 32-element row; in_slabs set exactly where the interior holds a
 * folded slab's point; no interior only where an unfolded axis leaves
 * none. The GPU tests then check the fields bit for bit on a few cuts;
 * this checks the partition on thousands. */
TL_TEST(cpml_cut_partitions_the_box)
{
    static const unsigned folds[] = {0, 2, 4, 6};
    uint64_t seed = 12345;
    int cuts = 0, with_interior = 0, with_slabs = 0;
    for (int trial = 0; trial < 400; trial++)
        for (size_t f = 0; f < sizeof folds / sizeof folds[0]; f++) {
            int64_t lo[3], hi[3], se[3], ss[3];
            for (int e = 0; e < 3; e++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                const uint64_t r = seed >> 11;
                const int64_t n = (e == 0 ? 40 : 12) + (int64_t)(r % (e == 0 ? 120 : 40)), L = (int64_t)(r >> 8 & 7);
                const int64_t o = (int64_t)(r >> 12) % n; /* the subdomain's first global point */
                const int64_t width = 1 + (int64_t)(r >> 20) % (e == 0 ? 90 : 30);
                lo[e] = (int64_t)(r >> 30) % 9 - 4; /* a halo's local coordinates may be negative */
                hi[e] = lo[e] + width;
                se[e] = L - o;
                ss[e] = n - 1 - L - o;
            }
            tl_fdtd_cpml_cut c;
            tl_fdtd_cpml_cut_of(lo, hi, se, ss, folds[f], &c);
            cuts++;
            with_interior += c.interior;
            with_slabs += c.in_slabs;
            int unfolded_empty = 0, folded_slab = 0;
            for (int e = 0; e < 3; e++) {
                if (folds[f] >> e & 1u) {
                    folded_slab |= lo[e] < se[e] || hi[e] > ss[e];
                    continue;
                }
                int64_t l = lo[e] < se[e] ? se[e] : lo[e], h = hi[e] > ss[e] ? ss[e] : hi[e];
                if (e == 0 && l > lo[0]) l = -floor32(-l);
                if (e == 0 && h < hi[0]) h = floor32(h);
                unfolded_empty |= h <= l;
            }
            TL_ASSERT_EQ(c.interior, !unfolded_empty);
            if (!c.interior) {
                TL_ASSERT_EQ(c.nshell, 0);
                TL_ASSERT_EQ(c.in_slabs, 0);
                continue;
            }
            TL_ASSERT_EQ(c.in_slabs, folded_slab);
            for (int e = 0; e < 3; e++) {
                TL_ASSERT(c.in.lo[e] >= lo[e] && c.in.hi[e] <= hi[e] && c.in.lo[e] < c.in.hi[e]);
                if (!(folds[f] >> e & 1u)) TL_ASSERT(c.in.lo[e] >= se[e] && c.in.hi[e] <= ss[e]);
                else TL_ASSERT(c.in.lo[e] == lo[e] && c.in.hi[e] == hi[e]);
            }
            TL_ASSERT(c.in.lo[0] == lo[0] || c.in.lo[0] % 32 == 0);
            TL_ASSERT(c.in.hi[0] == hi[0] || c.in.hi[0] % 32 == 0);
            TL_ASSERT(c.nshell <= 6);
            for (int k = 0; k < c.nshell; k++)
                for (int e = 0; e < 3; e++)
                    TL_ASSERT(c.shell[k].lo[e] >= lo[e] && c.shell[k].hi[e] <= hi[e] &&
                              c.shell[k].lo[e] < c.shell[k].hi[e]);
            int64_t p[3];
            for (p[2] = lo[2]; p[2] < hi[2]; p[2]++)
                for (p[1] = lo[1]; p[1] < hi[1]; p[1]++)
                    for (p[0] = lo[0]; p[0] < hi[0]; p[0]++) {
                        int n = in_cut_box(&c.in, p);
                        for (int k = 0; k < c.nshell; k++) n += in_cut_box(&c.shell[k], p);
                        TL_ASSERT_MSG(n == 1, "fold %u: point (%lld,%lld,%lld) in %d boxes", folds[f],
                                      (long long)p[0], (long long)p[1], (long long)p[2], n);
                    }
        }
    /* the draws reach every case */
    TL_ASSERT(with_interior > cuts / 4 && with_interior < cuts);
    TL_ASSERT(with_slabs > 0);
}

TL_TEST_MAIN(fast_division_equals_division, single_precision_keeps_no_subnormals, cpml_cut_partitions_the_box, cfl_limit_is_an_error, bad_configurations, cpml_profiles, spatial_convergence, temporal_convergence,
             cpml_reflection, energy_decays_only_with_cpml, energy_maximum_over_every_step, decomposed_equals_single_domain, layered_periodic_keeps_its_energy, layered_energy_wobble_halves_with_dt,
             energy_weighs_vz_by_its_buoyancy, overlap_schedule_same_result,
             blowup_and_nan_stop_the_run, receivers_and_source, zero_faces_low_rigid_high_free, ranks_equal_single_domain, per_rank_strategies)
