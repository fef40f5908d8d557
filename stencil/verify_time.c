/* trilap-fdtd verify time: the standing wave's temporal error and rate
 * at order 8 for each CFL fraction of --cfls, each run's configuration
 * checked and their time steps told apart before the table. */
#include <inttypes.h>
#include <stdio.h>

#include "stencil/verify_impl.h"

/* verify time's step for a CFL fraction: a whole number of steps to
 * t = 0.5, so two fractions can round to one step (and one rate of 0 / 0) */
static double time_dt(int64_t n, double cfl)
{
    double dt;
    tl_fdtd_verify_wave_steps(8, n, cfl, &dt);
    return dt;
}

/* --cfls given twice, or two that round to one time step */
static tl_status time_steps_distinct(verify_args *va, int64_t n, const double *cfls, int nc)
{
    for (int j = 1; j < nc; j++)
        for (int i = 0; i < j; i++) {
            char why[160];
            double dt = time_dt(n, cfls[j]);
            if (cfls[i] == cfls[j]) snprintf(why, sizeof why, "%g is given twice", cfls[j]);
            else if (time_dt(n, cfls[i]) == dt)
                snprintf(why, sizeof why,
                         "%g and %g give one time step at n = %" PRId64 " (%.0f steps to t = 0.5), so no rate "
                         "between them",
                         cfls[i], cfls[j], n, 0.5 / dt);
            else continue;
            return tl_verify_refuse(va, "--cfls", va->o.cfls, why);
        }
    return TL_OK;
}

tl_status tl_verify_time(verify_args *va)
{
    double cfls[16];
    int nc = tl_verify_parse_doubles(va->o.cfls, cfls, 16);
    if (nc <= 0)
        return tl_verify_refuse(va, "--cfls", va->o.cfls, "expected up to 16 positive CFL fractions, comma-separated");
    int64_t n = va->o.n > 0 ? va->o.n : 16;
    verify_wave_run runs[16];
    for (int j = 0; j < nc; j++) runs[j] = (verify_wave_run){8, n, cfls[j]};
    TL_TRY(tl_verify_wave_steps_refused(va, "--cfls", va->o.cfls, runs, nc));
    for (int j = 0; j < nc; j++) {
        char what[96];
        if (cfls[j] > 1) {
            snprintf(what, sizeof what, "%g is above 1, the stability limit", cfls[j]);
            return tl_verify_refuse(va, "--cfls", va->o.cfls, what);
        }
        snprintf(what, sizeof what, "verify time, n = %" PRId64 ", CFL %g", n, cfls[j]);
        tl_error_context k;
        tl_error_context_begin(&k, what);
        TL_TRY(tl_verify_end_run_check(va, &k, tl_fdtd_verify_wave_check(&va->v, 8, n, cfls[j])));
    }
    TL_TRY(time_steps_distinct(va, n, cfls, nc));
    tl_verify_wave_steps_note(va, "--cfls", va->o.cfls, runs, nc);
    printf("dt,l2,linf,rate_l2,rate_linf\n");
    verify_rated r = {0};
    for (int j = 0; j < nc; j++) {
        double l2, li, dt;
        int64_t steps = tl_fdtd_verify_wave_steps(8, n, cfls[j], &dt);
        TL_TRY(tl_fdtd_verify_wave(&va->v, 8, n, cfls[j], 0, &l2, &li));
        char key[24], name[24];
        snprintf(key, sizeof key, "%.6e", dt);
        snprintf(name, sizeof name, "%.2e", dt);
        tl_verify_rated_row(va, &r, key, name, 1 / dt, l2, li, steps);
    }
    tl_verify_floor_note(va, "# dt =", &r);
    return TL_OK;
}
