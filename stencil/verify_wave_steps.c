/* The time steps of trilap-fdtd verify convergence's and time's
 * standing-wave runs: a run of too many refused, naming the CFL fraction
 * that fits, and a study of many said in a note before the table. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "stencil/verify_impl.h"

/* A standing-wave run's steps to t = 0.5 grow as 1 / CFL: --cfl 1e-6, the
 * option's bound, made verify convergence's run at order 8, n = 32 take
 * 3.6e7 steps without a word (1.7e6 in all at --cfl 1e-4 ran past a
 * minute on one core), and verify time --cfls 1e-300 said "steps must be
 * >= 0". A run of more than WAVE_STEPS_MAX steps
 * (10^4 times the defaults' largest, 72 and 179) is refused, naming the
 * fraction that fits: its time error, O(dt^2), is then under 1e-8 of the
 * default's, nothing either table can show. A study over WAVE_STEPS_NOTE
 * steps in all (30 times the defaults', 339 and 337) says its count before
 * the header. */
enum { WAVE_STEPS_MAX = 1000000, WAVE_STEPS_NOTE = 10000 };

tl_status tl_verify_wave_steps_refused(verify_args *va, const char *opt, const char *val, const verify_wave_run *runs,
                                       int nr)
{
    double most = 0, span_max = 0; /* the longest run is named; the fraction given fits every run */
    int at = 0;
    for (int i = 0; i < nr; i++) {
        double span = tl_fdtd_verify_wave_span(runs[i].order, runs[i].n), steps = ceil(span / runs[i].cfl);
        if (steps > most) most = steps, at = i;
        if (span > span_max) span_max = span;
    }
    if (most <= WAVE_STEPS_MAX) return TL_OK;
    char why[256];
    double p = pow(10.0, floor(log10(span_max / WAVE_STEPS_MAX)) - 2); /* 3 digits, rounded up: it fits */
    snprintf(why, sizeof why, "order %d, n = %" PRId64 " would take %.4g time steps to t = 0.5 at CFL %g, beyond the "
             "%d a run may take (give %g or more)", runs[at].order, runs[at].n, most, runs[at].cfl, WAVE_STEPS_MAX,
             ceil(span_max / WAVE_STEPS_MAX / p) * p);
    return tl_verify_refuse(va, opt, val, why);
}

/* after every refusal, before the header */
void tl_verify_wave_steps_note(const verify_args *va, const char *opt, const char *val, const verify_wave_run *runs,
                               int nr)
{
    double total = 0, most = 0;
    int at = 0;
    for (int i = 0; i < nr; i++) {
        double steps = ceil(tl_fdtd_verify_wave_span(runs[i].order, runs[i].n) / runs[i].cfl);
        total += steps;
        if (steps > most) most = steps, at = i;
    }
    if (total > WAVE_STEPS_NOTE)
        fprintf(stderr, PROG ": note: %s %s makes verify %s's %d run%s take %.0f time steps to t = 0.5 (the most, "
                        "%.0f, at order %d, n = %" PRId64 ", CFL %g)\n", opt, val, va->what, nr, nr == 1 ? "" : "s",
                total, most, runs[at].order, runs[at].n, runs[at].cfl);
}
