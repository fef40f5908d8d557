/* trilap-fdtd verify energy: the field energy of a run with a CPML of
 * --cells and of one without, step by step, each normalised by its
 * maximum, the input and the slice folders checked before the runs. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/progress.h"
#include "stencil/verify_impl.h"

/* The energy experiment's input, checked before its two runs: the CPML
 * the grid holds, both runs' configurations, the slice folders. */
static tl_status energy_check(verify_args *va, int64_t n, int64_t L, int64_t steps, const char *d1, const char *d2)
{
    if (n < 2 * L + 2) { /* said as run says it: what to change */
        char grid[32];
        snprintf(grid, sizeof grid, "%" PRId64, n);
        tl_fdtd_cli_cpml_too_thick(grid, L, n >= 2 ? (n - 2) / 2 : 0, "--cells", 0);
        va->usage_error = 1;
        return TL_ERR_REMOTE; /* said */
    }
    if (va->o.every > steps && !va->every_typed) va->o.every = steps; /* the last step, not step 0 alone */
    if (va->o.every > steps) { /* the table held step 0's zeros alone, exit 0, and --slices nothing */
        char val[32], why[160];
        snprintf(val, sizeof val, "%" PRId64, va->o.every);
        snprintf(why, sizeof why,
                 "beyond the run's %" PRId64 " steps: no step after 0 would be sampled (give N <= %" PRId64 ")",
                 steps, steps);
        return tl_verify_refuse(va, "--every", val, why);
    }
    tl_error_context k;
    tl_error_context_begin(&k, "verify energy");
    tl_status st = tl_fdtd_verify_energy_check(&va->v, n, L, steps, va->o.every);
    if (st == TL_OK) st = tl_fdtd_verify_energy_check(&va->v, n, 0, steps, va->o.every);
    TL_TRY(tl_verify_end_run_check(va, &k, st));
    if (!d1) return TL_OK;
    /* "" made /cpml and /none at the root of the file system; the command
     * line's fault, exit 2 (it was exit 1, as a folder that cannot be made) */
    if (!*va->o.slices) return tl_verify_refuse(va, "--slices", "", "an empty folder name");
    char first[64]; /* the first slice each run writes */
    snprintf(first, sizeof first, "p-%06" PRId64 ".txt", va->o.every);
    st = tl_fdtd_cli_check_output("--slices", d1, first);
    if (st == TL_OK) st = tl_fdtd_cli_check_output("--slices", d2, first);
    return st; /* a file error: exit 1, as for run's outputs */
}

/* The energy table and its summary on stderr. The source's end is said
 * as the run has it: up to b81cb7b the header read "source stops
 * near t = 48.0" after any --steps, and a run shorter than that (--steps
 * 50: t = 11.2) reported the energy at the end / maximum, 1.000e+00 in
 * both, as if the CPML had absorbed nothing. */
static void energy_table(const tl_fdtd_energy_run *a, const tl_fdtd_energy_run *b, int64_t L, int64_t n,
                         int64_t steps)
{
    double dt = a->dt, t_end = (double)steps * dt;
    int64_t step_off = (int64_t)ceil(a->source_end / dt);
    char source[160];
    if (t_end >= a->source_end)
        snprintf(source, sizeof source, "source stops near t = %.1f (step %" PRId64 ")", a->source_end, step_off);
    else
        snprintf(source, sizeof source, "source still on at the last step (t = %.1f; it stops near t = %.1f, step %"
                 PRId64 ")", t_end, a->source_end, step_off);
    printf("# energy normalised by its maximum over every step; CPML %" PRId64 " cells; grid %" PRId64 "^3; %s\n", L,
           n, source);
    printf("step,time_s,energy_cpml,energy_none\n");
    for (int64_t i = 0; i < a->count && i < b->count; i++) {
        double step = a->samples[2 * i];
        printf("%.0f,%.6g,%.6e,%.6e\n", step, step * dt, a->max > 0 ? a->samples[2 * i + 1] / a->max : 0,
               b->max > 0 ? b->samples[2 * i + 1] / b->max : 0);
    }
    char on[128] = "";
    if (t_end < a->source_end)
        snprintf(on, sizeof on, " (the source is still on: --steps %" PRId64 " or more to see the CPML absorb)",
                 step_off);
    if (a->max > 0 && b->max > 0)
        fprintf(stderr, PROG ": energy at the end / maximum: %.3e with CPML, %.3e without%s\n", a->last / a->max,
                b->last / b->max, on);
}

tl_status tl_verify_energy(verify_args *va)
{
    int64_t cells[16];
    const char *list = va->o.cells ? va->o.cells : "20";
    int nc = tl_verify_parse_ints(list, cells, 16);
    if (nc <= 0) return tl_verify_refuse(va, "--cells", list, "expected up to 16 CPML thicknesses, comma-separated");
    /* the table has one column with CPML: a list would run its first
     * non-zero entry and drop the rest (before, --cells 4,8,0 was --cells 4) */
    if (nc != 1 || cells[0] == 0)
        return tl_verify_refuse(va, "--cells", list, "verify energy runs one CPML thickness, above 0, against none");
    int64_t L = cells[0];
    int64_t n = va->o.n > 0 ? va->o.n : 64, steps = va->o.steps > 0 ? va->o.steps : 600;
    char d1[4096], d2[4096];
    if (va->o.slices) {
        snprintf(d1, sizeof d1, "%s/cpml", va->o.slices);
        snprintf(d2, sizeof d2, "%s/none", va->o.slices);
    }
    TL_TRY(tl_verify_refuse_idle_s(va, (const int(*)[3])&va->v.pd, 1, "--decomp"));
    TL_TRY(energy_check(va, n, L, steps, va->o.slices ? d1 : NULL, va->o.slices ? d2 : NULL));
    tl_fdtd_energy_run a = {0}, b = {0};
    tl_status st = TL_OK;
    /* a line per run, one unit per step (the two runs take as long) */
    tl_fdtd_vopts vo = va->v;
    tl_progress bar;
    vo.progress = &bar;
    tl_progress_begin(&bar, "verify energy, with CPML", (double)steps, "steps", tl_progress_mode_of(va->o.progress));
    st = tl_fdtd_verify_energy(&vo, n, L, steps, va->o.every, va->o.slices ? d1 : NULL, &a);
    tl_progress_end(&bar);
    TL_TRYGOTO(st, st, done);
    tl_progress_begin(&bar, "verify energy, no CPML", (double)steps, "steps", tl_progress_mode_of(va->o.progress));
    st = tl_fdtd_verify_energy(&vo, n, 0, steps, va->o.every, va->o.slices ? d2 : NULL, &b);
    tl_progress_end(&bar);
    TL_TRYGOTO(st, st, done);
    energy_table(&a, &b, L, n, steps);
done:
    free(a.samples);
    free(b.samples);
    return st;
}
