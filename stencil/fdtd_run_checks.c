/* trilap-fdtd: run's checks of a configuration that parses but would
 * run without effect or without meaning (fdtd_run_config.c's
 * tl_fdtd_cli_build_config): the physics of the source, the medium and
 * the receivers, apart from the options' own checks. Internal to the
 * program. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stencil/fdtd_cli.h"

void tl_fdtd_cli_note_add(char *notes, size_t n, const char *line)
{
    size_t len = strlen(notes);
    snprintf(notes + len, n - len, "%s" PROG ": note: %s", len ? "\n" : "", line);
}

/* The largest (up) or smallest (!up) 3-digit value on the safe side of x:
 * a bound said in a message that, typed back, passes the same check. */
static double round3(double x, int up)
{
    double p = pow(10.0, floor(log10(x)) - 2);
    return (up ? ceil(x / p) : floor(x / p)) * p;
}

/* A Ricker pulse the run's steps cannot hear. It stays under 0.1% of its
 * peak until t = 0.2 / f0 (|pi f0 (t - 1.2 / f0)| >= pi), so a run whose
 * last source sample, t = (steps - 1/2) dt, comes before got next to
 * nothing from it (--f0 1e-300 ran, adding 1.8e-5 of the amplitude a step,
 * without a word); and a pulse whose peak frequency is above 1 / (2 dt)
 * falls between the steps (--f0 100 at dt 0.22: a seismogram of zeros;
 * --f0 1e300: p = NaN, blamed on the time step). A typed --f0 is refused,
 * as other options without effect; the default pulse gets a note (a short
 * run that times the kernels needs no pulse). 2 after one line, or 0. */
int tl_fdtd_cli_pulse_unheard(const tl_fdtd_config *c, int typed, char *notes, size_t n)
{
    if (!c->source || c->dt > tl_fdtd_dt_max(c)) return 0; /* a --dt past the CFL limit: its refusal comes first */
    double f0 = c->f0, dt = c->dt > 0 ? c->dt : c->cfl * tl_fdtd_dt_max(c);
    int64_t total = c->warmup + c->steps;
    double t_last = ((double)total - 0.5) * dt;
    char why[512], fix[128];
    if (f0 * dt > 0.5) {
        snprintf(why, sizeof why, "--f0 %g is above 1 / (2 dt) = %.3g Hz, the highest frequency time steps of %g s "
                 "sample: the Ricker pulse would fall between the steps", f0, 0.5 / dt, dt);
        snprintf(fix, sizeof fix, "--f0 %.3g or less, or a smaller --dt or --cfl", round3(0.5 / dt, 0));
    } else if (0.2 / f0 > t_last) {
        snprintf(why, sizeof why, "--f0 %g puts the Ricker pulse's peak at step %.3g (delay 1.2 / f0 = %g s, dt = %g "
                 "s); below 0.1%% of its peak until step %.3g, it would add next to nothing in the run's %" PRId64
                 " step%s (--warmup and --steps)", f0, 1.2 / (f0 * dt), 1.2 / f0, dt, 0.2 / (f0 * dt), total,
                 total == 1 ? "" : "s");
        snprintf(fix, sizeof fix, "--f0 %.3g or more, or more --steps", round3(0.2 / t_last, 1));
    } else
        return 0;
    char line[768];
    snprintf(line, sizeof line, "%s%s (give %s)", typed ? "" : "the default ", why, fix);
    if (!typed) {
        tl_fdtd_cli_note_add(notes, n, line);
        return 0;
    }
    fprintf(stderr, PROG ": %s\n", line);
    return 2;
}

/* The medium's update coefficients, K dt at p points and dt / rho at v
 * points (fill.c), must be normal numbers of the precision: --K 1e80 in
 * single made K dt 2.2e39, infinite as a float, and every p NaN at the
 * first check ("the run is unstable (lower --dt or --cfl)", exit 1, even
 * with --source none); below the smallest normal float a coefficient
 * loses its digits. Each layer's, naming the options that set it. 2
 * after one line, or 0. */
int tl_fdtd_cli_medium_refused(const tl_fdtd_config *c)
{
    double dt = c->dt > 0 ? c->dt : c->cfl * tl_fdtd_dt_max(c);
    if (c->dt > tl_fdtd_dt_max(c)) return 0; /* its CFL refusal comes first */
    double lo = c->dbl ? DBL_MIN : FLT_MIN, hi = c->dbl ? DBL_MAX : FLT_MAX;
    const char *prec = c->dbl ? "double" : "single";
    int layers = c->layer_k > 0 ? 2 : 1;
    char medium[160]; /* dt follows the fastest layer: every one is named */
    if (layers == 2)
        snprintf(medium, sizeof medium, "--K %g, --rho %g, --K2 %g, --rho2 %g", c->K, c->rho, c->K2, c->rho2);
    else
        snprintf(medium, sizeof medium, "--K %g, --rho %g", c->K, c->rho);
    for (int layer = 0; layer < layers; layer++) {
        double K = layer ? c->K2 : c->K, rho = layer ? c->rho2 : c->rho;
        const double v[2] = {K * dt, dt / rho};
        for (int i = 0; i < 2; i++) {
            if (v[i] >= lo && v[i] <= hi) continue;
            fprintf(stderr, PROG ": %s and --h %g make the update's %s%s = %.3g (dt = %.3g s), %s %s precision's "
                                 "%.3g: the fields would be %s (give %sa medium and spacing nearer 1)\n",
                    medium, c->h, i ? "dt / rho" : "K dt", layers == 1 ? "" : layer ? " (lower layer)" : " (upper layer)",
                    v[i], dt, v[i] > hi ? "beyond" : "below", prec, v[i] > hi ? hi : lo,
                    v[i] > hi ? "NaN" : "updated with lost digits", c->dbl ? "" : "--precision double, or ");
            return 2;
        }
    }
    return 0;
}

/* The first axis along which pressure point p lies in the CPML, or -1.
 * Sources and receivers sit on p points, and p point i is damped when its
 * depth (model.c's depth_of) is above 0: i < L or i > n - 1 - L. That is
 * one point fewer at the high face than grid.c's slab_range (n - 1 - L to
 * n - 1), which also stores the psi of v at n - 1 - L + 1/2 (depth 0.5 / L)
 * while p at n - 1 - L has depth 0 (sigma = 0, a = 0, kappa = 1: its psi
 * stays 0). */
static int cpml_axis(const tl_fdtd_config *c, const int64_t p[3])
{
    for (int d = 0; d < 3; d++)
        if (c->cpml > 0 && (p[d] < c->cpml || p[d] > c->n[d] - 1 - c->cpml)) return d;
    return -1;
}

/* "4-cell CPML along x (its pressure points 0 to 3 and 12 to 15)" */
static void cpml_where(const tl_fdtd_config *c, int d, char *buf, size_t n)
{
    int64_t L = c->cpml;
    snprintf(buf, n, "%" PRId64 "-cell CPML along %c (its pressure points 0 to %" PRId64 " and %" PRId64 " to %" PRId64
             ")", L, "xyz"[d], L - 1, c->n[d] - L, c->n[d] - 1);
}

/* A source or receiver in the CPML: a valid run, but the layer damps what
 * the source adds and what the receiver records (before: without a word).
 * A note each (the first receiver in it, with how many). */
void tl_fdtd_cli_note_cpml_points(const tl_fdtd_config *c, char *notes, size_t n)
{
    char line[640], where[160];
    int d = c->source ? cpml_axis(c, c->src) : -1;
    if (d >= 0) {
        cpml_where(c, d, where, sizeof where);
        snprintf(line, sizeof line, "the source at (%" PRId64 ", %" PRId64 ", %" PRId64 ") lies in the %s: the layer "
                 "absorbs what it adds", c->src[0], c->src[1], c->src[2], where);
        tl_fdtd_cli_note_add(notes, n, line);
    }
    int first = -1, count = 0;
    for (int r = 0; r < c->nrec; r++)
        if (cpml_axis(c, c->rec[r]) >= 0) count++, first = first < 0 ? r : first;
    if (count == 0) return;
    char more[48] = "";
    if (count > 1) snprintf(more, sizeof more, " (and %d more)", count - 1);
    cpml_where(c, cpml_axis(c, c->rec[first]), where, sizeof where);
    snprintf(line, sizeof line, "receiver %d at (%" PRId64 ", %" PRId64 ", %" PRId64 ")%s lies in the %s: it records "
             "the field the layer damps, not the medium's", first, c->rec[first][0], c->rec[first][1],
             c->rec[first][2], more, where);
    tl_fdtd_cli_note_add(notes, n, line);
}

/* A receiver typed twice: a second column of the same trace (accepted,
 * without a word). 2 after one line, or 0. */
int tl_fdtd_cli_receiver_repeated(const int64_t (*rec)[3], int nrec, const char *typed)
{
    for (int r = 1; r < nrec; r++)
        for (int q = 0; q < r; q++)
            if (!memcmp(rec[r], rec[q], sizeof rec[r])) {
                char why[160];
                snprintf(why, sizeof why, "receiver %d repeats receiver %d, (%" PRId64 ", %" PRId64 ", %" PRId64
                         "): its trace would be a second copy", r, q, rec[r][0], rec[r][1], rec[r][2]);
                return tl_fdtd_cli_bad("--receivers", typed, why);
            }
    return 0;
}
