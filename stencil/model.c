/* The numerical model: difference coefficients, the stability limit, the
 * Ricker wavelet and the CPML profiles. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/fdtd_impl.h"

void tl_fdtd_config_defaults(tl_fdtd_config *c)
{
    memset(c, 0, sizeof *c);
    c->n[0] = c->n[1] = c->n[2] = 64;
    c->order = 8;
    c->h = 1.0;
    c->cfl = 0.5;
    c->steps = 100;
    c->cpml = 20;
    c->cpml_r = 1e-8;
    c->kappa_max = 5.0;
    c->alpha_frac = 0.05;
    c->K = 1.0;
    c->rho = 1.0;
    c->K2 = 1.0;
    c->rho2 = 1.0;
    c->f0 = 0.05;
    c->amp = 1.0;
    c->pd[0] = c->pd[1] = c->pd[2] = 1;
    c->s = 1;
    c->blowup = 1e30;
    c->slice_axis = 2;
    c->kernel = TL_FDTD_KERNEL_VEC4_BAND; /* the fastest on one H200 with and without CPML (stencil/README.md) */
}

/* FLT_DECIMAL_DIG, DBL_DECIMAL_DIG: a float or a double printed with as
 * many significant digits reads back to itself. */
int tl_fdtd_digits(const tl_fdtd_config *c) { return c->dbl ? DBL_DECIMAL_DIG : FLT_DECIMAL_DIG; }

/* Staggered (half-point) centred differences: the derivative at i + 1/2 is
 * sum_m c_m (u(i + m) - u(i + 1 - m)) / h (Fornberg's staggered weights). */
void tl_fdtd_coefficients(int order, double c[4])
{
    c[0] = c[1] = c[2] = c[3] = 0;
    switch (order) {
    case 2: c[0] = 1.0; break;
    case 4: c[0] = 9.0 / 8.0; c[1] = -1.0 / 24.0; break;
    default:
        c[0] = 1225.0 / 1024.0;
        c[1] = -245.0 / 3072.0;
        c[2] = 49.0 / 5120.0;
        c[3] = -5.0 / 7168.0;
        break;
    }
}

static double cmax_of(const tl_fdtd_config *c)
{
    double c1 = sqrt(c->K / c->rho);
    double c2 = c->layer_k > 0 ? sqrt(c->K2 / c->rho2) : 0;
    return c1 > c2 ? c1 : c2;
}

/* Leapfrog with these differences is stable for
 * c dt / h * sqrt(3) * sum |c_m| <= 1 (the von Neumann bound of the
 * fastest mode, (pi, pi, pi)). */
double tl_fdtd_dt_max(const tl_fdtd_config *c)
{
    double w[4], s = 0;
    tl_fdtd_coefficients(c->order, w);
    for (int m = 0; m < 4; m++) s += fabs(w[m]);
    return c->h / (cmax_of(c) * sqrt(3.0) * s);
}

double tl_fdtd_ricker(double t, double f0)
{
    double a = M_PI * f0 * (t - 1.2 / f0);
    a *= a;
    return (1.0 - 2.0 * a) * exp(-a);
}

/* Depth into the layer, 0 at its inner edge and 1 at the outer face, of a
 * point at x (grid units) on an axis of n points and thickness L. */
static double depth_of(double x, int64_t n, int64_t L)
{
    double d = 0;
    if (x < (double)L) d = ((double)L - x) / (double)L;
    else if (x > (double)(n - 1 - L)) d = (x - (double)(n - 1 - L)) / (double)L;
    return d > 1 ? 1 : d;
}

/* CFS / Roden-Gedney: sigma = sigma_max d^3, kappa = 1 + (kappa_max - 1) d^3,
 * alpha = alpha_max (1 - d), b = exp(-(sigma / kappa + alpha) dt),
 * a = sigma (b - 1) / (kappa (sigma + kappa alpha)).
 * sigma_max = -(m + 1) c_max ln(R) / (2 L h) with m = 3: the paper's
 * -4 log(R) / (2 L h) scaled by the largest wave speed, so the profile is
 * in 1/s for any medium. */
tl_status tl_fdtd_model_profiles(tl_fdtd *f)
{
    const tl_fdtd_config *c = &f->cfg;
    int64_t L = c->cpml;
    double smax = L > 0 ? -4.0 * cmax_of(c) * log(c->cpml_r) / (2.0 * (double)L * c->h) : 0;
    double amax = c->alpha_frac * smax;
    for (int d = 0; d < 3; d++) {
        int64_t n = c->n[d];
        TL_ALLOC(f->prof_host[d], (size_t)(TL_FDTD_PROF_N * n));
        double *p = f->prof_host[d];
        for (int64_t i = 0; i < n; i++) {
            for (int half = 0; half < 2; half++) {
                double a = 0, b = 0, ik = 1;
                if (L > 0 && (i < L || i >= n - 1 - L)) {
                    double dd = depth_of((double)i + 0.5 * half, n, L);
                    double d3 = dd * dd * dd;
                    double sigma = smax * d3, kappa = 1.0 + (c->kappa_max - 1.0) * d3;
                    double alpha = amax * (1.0 - dd);
                    b = exp(-(sigma / kappa + alpha) * f->dt);
                    a = sigma > 0 ? sigma * (b - 1.0) / (kappa * (sigma + kappa * alpha)) : 0.0;
                    ik = 1.0 / kappa;
                }
                int base = half ? TL_FDTD_PROF_AH : TL_FDTD_PROF_A;
                p[(base + 0) * n + i] = a;
                p[(base + 1) * n + i] = b;
                p[(base + 2) * n + i] = ik;
            }
        }
    }
    return TL_OK;
}
