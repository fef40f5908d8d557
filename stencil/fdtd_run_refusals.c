/* trilap-fdtd run: the options refused as typed where, accepted, they
 * would do nothing or contradict others: half of a pair, a CPML's shape
 * without a CPML, a lower layer's medium without the layer, the pulse
 * without a source, --s and --overlap without an exchange. Internal to
 * the program. */
#include <inttypes.h>
#include <stdio.h>

#include "stencil/fdtd_run_impl.h"

/* Options that only mean something together: alone, one would be accepted
 * and do nothing (no file, or a monitor whose figures go nowhere; a
 * monitor alone is taken where --breakdown or --trace measure its cost). */
int tl_fdtd_cli_refuse_half_pairs(const fdtd_opts *o, const tl_optresult *res)
{
    static const char fmt[] = PROG ": %s without %s: %s\n";
    const char *alone = NULL, *missing = NULL, *why = NULL;
    int measured = o->breakdown || o->trace;
    if (o->energy_out && o->energy_every == 0)
        alone = "--energy-out", missing = "--energy-every N", why = "the energy monitor is off, nothing to write";
    else if (o->energy_every > 0 && !o->energy_out && !measured)
        alone = "--energy-every", missing = "--energy-out FILE",
        why = "the energy series would go nowhere (to time the monitor alone: --breakdown or --trace)";
    else if (o->seismogram && !o->receivers)
        alone = "--seismogram", missing = "--receivers I,J,K", why = "no receiver, nothing to write";
    else if (o->receivers && !o->seismogram && !measured)
        alone = "--receivers", missing = "--seismogram FILE",
        why = "the receivers' traces would go nowhere (to time them alone: --breakdown or --trace)";
    else if (o->slice_every == 0 && (tl_opts_given(res, &o->slice) || tl_opts_given(res, &o->slice_dir)))
        alone = tl_opts_given(res, &o->slice) ? "--slice" : "--slice-dir", missing = "--slice-every N",
        why = "no slice is written";
    if (alone) {
        fprintf(stderr, fmt, alone, missing, why);
        return 2;
    }
    int64_t total = o->warmup + o->steps; /* slices and energies are taken in warm-up steps too */
    if (o->slice_every > total) {
        fprintf(stderr, PROG ": --slice-every %" PRId64 " beyond the run's %" PRId64
                             " steps (--warmup and --steps): no slice would be written (give N <= %" PRId64 ")\n",
                o->slice_every, total, total);
        return 2;
    }
    /* before, --energy-out held the initial state's 0 alone, exit 0 */
    if (o->energy_every > total) {
        fprintf(stderr, PROG ": --energy-every %" PRId64 " beyond the run's %" PRId64
                             " steps (--warmup and --steps): no step's energy would be taken (give N <= %" PRId64 ")\n",
                o->energy_every, total, total);
        return 2;
    }
    return 0;
}

/* Options typed (fields[i], names[i] without "--") where what they set is
 * absent: accepted, each would do nothing while the preamble printed its
 * value. One line, "trilap-fdtd: --f0 and --amp with --source none:
 * there is no source to shape (give --source center or I,J,K, or drop
 * --f0 and --amp)"; 2, or 0 when none of them was typed. give: the other
 * way out, or NULL. */
static int refuse_idle(const tl_optresult *res, const char *const names[], const void *const fields[], int n,
                       const char *with, const char *why, const char *give)
{
    const char *typed[8];
    int k = 0;
    for (int i = 0; i < n && k < 8; i++)
        if (tl_opts_given(res, fields[i])) typed[k++] = names[i];
    if (k == 0) return 0;
    char list[256];
    tl_fdtd_cli_join_options(list, sizeof list, typed, k);
    fprintf(stderr, PROG ": %s %s: %s (%s%sdrop %s)\n", list, with, why, give ? give : "", give ? ", or " : "",
            list);
    return 2;
}

/* Options that contradict others or set what this run does not have,
 * each refused where typed (a default never is): --dt with --cfl (--dt
 * won), the CPML's shape or --compare-cpml without a CPML (its row had an
 * empty overhead), the lower layer's medium without --layer-k, a lower
 * layer below the grid (a homogeneous run paying for material arrays),
 * the pulse with --source none, or of amplitude 0; --compare-cpml with slices, which are
 * written inside the timed steps (its reference run would write them
 * too, or not and be timed without them). */
int tl_fdtd_cli_refuse_options_without_effect(const fdtd_opts *o, const tl_fdtd_config *c,
                                              const tl_optresult *res)
{
    if (o->dt > 0 && tl_opts_given(res, &o->dt) && tl_opts_given(res, &o->cfl)) {
        fprintf(stderr, PROG ": --dt %g and --cfl %g both set the time step (--dt would win); give one of them\n",
                o->dt, o->cfl);
        return 2;
    }
    if (c->cpml == 0) {
        /* what leaves the run without a CPML, and what would give it one */
        char by[160];
        const char *give = NULL, *has = "has none";
        if (o->periodic) snprintf(by, sizeof by, "--periodic");
        else if (tl_opts_given(res, &o->cpml)) snprintf(by, sizeof by, "--cpml 0"), give = "give --cpml N";
        else /* the default shrunk to nothing (resolve_cpml) */
            snprintf(by, sizeof by, "--grid %s", o->grid), give = "give a larger --grid", has = "has no room for one";
        if (o->compare_cpml) {
            fprintf(stderr, PROG ": --compare-cpml needs a CPML: %s %s (%s%sdrop --compare-cpml)\n", by, has,
                    give ? give : "", give ? ", or " : "");
            return 2;
        }
        static const char *const shape[] = {"cpml-r", "kappa-max", "alpha-frac"};
        const void *const shape_fields[] = {&o->cpml_r, &o->kappa_max, &o->alpha_frac};
        char with[192];
        snprintf(with, sizeof with, "with %s", by);
        if (refuse_idle(res, shape, shape_fields, 3, with, "there is no CPML to shape", give)) return 2;
    }
    if (o->compare_cpml && o->slice_every > 0) {
        fprintf(stderr, PROG ": --compare-cpml times a run with CPML against one without, and --slice-every %" PRId64
                             " writes files inside the timed steps of both (take slices in a run of their own, or "
                             "drop --compare-cpml)\n",
                o->slice_every);
        return 2;
    }
    if (o->layer_k == 0) {
        static const char *const lower[] = {"K2", "rho2"};
        const void *const lower_fields[] = {&o->K2, &o->rho2};
        const char *with = tl_opts_given(res, &o->layer_k) ? "with --layer-k 0" : "without --layer-k K";
        if (refuse_idle(res, lower, lower_fields, 2, with, "there is no lower layer to set", "give --layer-k K"))
            return 2;
    }
    if (o->layer_k >= c->n[2]) {
        fprintf(stderr,
                PROG ": --layer-k %" PRId64 " lies beyond the grid's %" PRId64 " points along z (k = 0 to %" PRId64
                     "): the lower layer would be empty (give K below %" PRId64 ", or drop --layer-k)\n",
                o->layer_k, c->n[2], c->n[2] - 1, c->n[2]);
        return 2;
    }
    if (!c->source) {
        static const char *const pulse[] = {"f0", "amp"};
        const void *const pulse_fields[] = {&o->f0, &o->amp};
        if (refuse_idle(res, pulse, pulse_fields, 2, "with --source none", "there is no source to shape",
                        "give --source center or I,J,K"))
            return 2;
        /* run starts from zero fields: without a source they stay 0, and so
         * did every trace, energy and slice written (exit 0); the monitors
         * alone stay, timed by --breakdown or --trace */
        const char *out[3];
        const void *out_fields[3];
        int n = 0;
        if (o->seismogram) out[n] = "seismogram", out_fields[n++] = &o->seismogram;
        if (o->energy_out) out[n] = "energy-out", out_fields[n++] = &o->energy_out;
        if (o->slice_every > 0) out[n] = "slice-every", out_fields[n++] = &o->slice_every;
        if (refuse_idle(res, out, out_fields, n, "with --source none",
                        "the run starts from zero fields and, without a source, what it records would be 0 throughout",
                        "give --source center or I,J,K"))
            return 2;
    }
    /* a source that adds nothing: the run went ahead with zero fields and
     * a preamble naming the source (--source none is that run, said) */
    if (c->source && o->amp == 0)
        return tl_fdtd_cli_bad("--amp", "0", "a source of amplitude 0 adds nothing (for a run without one: --source "
                                             "none)");
    return 0;
}

/* One subdomain without --periodic exchanges no ghosts: --s S > 1 and
 * --overlap change nothing but the row's columns and the preamble's
 * ghost depth (up to e2e0d87 accepted: "s: 2  ghost: 16" for a run with
 * no ghost, at the same memory and the same result). 2 after one line,
 * or 0. */
int tl_fdtd_cli_refuse_without_exchange(const fdtd_opts *o, const tl_fdtd_config *c)
{
    if (c->pd[0] * c->pd[1] * c->pd[2] > 1 || c->periodic || (o->s <= 1 && !o->overlap)) return 0;
    char s[48], list[128];
    const char *typed[2];
    int k = 0;
    snprintf(s, sizeof s, "s %" PRId64, o->s);
    if (o->s > 1) typed[k++] = s;
    if (o->overlap) typed[k++] = "overlap";
    tl_fdtd_cli_join_options(list, sizeof list, typed, k);
    fprintf(stderr, PROG ": %s with one subdomain (--decomp %s) and no --periodic: there is no ghost exchange to %s "
                         "(give --decomp PXxPYxPZ or --periodic, or drop %s)\n",
            list, o->decomp, o->s > 1 ? (o->overlap ? "space out or overlap" : "space out") : "overlap", list);
    return 2;
}
