/* trilap-fdtd run: the options turned into the run's configuration
 * (tl_fdtd_cli_build_config): the grid, the CPML the grid allows, the
 * source, the receivers, the decomposition, the slices, each checked as
 * typed, then the refusals of fdtd_run_refusals.c and fdtd_run_outputs.c
 * and the checks of fdtd_run_checks.c. Internal to the program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/fdtd_run_impl.h"

/* The CPML the grid allows. The default (20 cells) needs 2 x 20 + 2 = 42
 * points per axis; on a smaller grid it shrinks to a quarter of the
 * smallest axis (half the grid stays interior) with a note, and --periodic
 * has none. A thickness the user typed is kept or refused, before anything
 * is printed: silently changing what was asked would mislabel the row. */
static int resolve_cpml(fdtd_opts *o, tl_fdtd_config *c, int given, char *note, size_t nnote)
{
    int64_t nmin = c->n[0] < c->n[1] ? c->n[0] : c->n[1];
    nmin = nmin < c->n[2] ? nmin : c->n[2];
    int64_t fits = nmin >= 2 ? (nmin - 2) / 2 : 0; /* largest L with n >= 2 L + 2 */
    if (o->periodic && !given) o->cpml = 0;
    if (given && o->periodic && o->cpml > 0) {
        fprintf(stderr, PROG ": --periodic has no outer boundary for a CPML; drop --cpml %" PRId64 " (or use --cpml 0)\n",
                o->cpml);
        return 2;
    }
    if (o->cpml > fits && given) return tl_fdtd_cli_cpml_too_thick(o->grid, o->cpml, fits, "--cpml", 1);
    if (o->cpml > fits) {
        /* said by rank 0 once the run is known to start: a refusal of
         * something else stays the one line it should be */
        int64_t L = nmin / 4;
        snprintf(note, nnote,
                 PROG ": note: a CPML of %" PRId64 " cell%s (a quarter of the %" PRId64 "-point axis), not the default "
                      "%" PRId64 ", which needs %" PRId64 " points per axis; --cpml N sets it",
                 L, L == 1 ? "" : "s", nmin, o->cpml, 2 * o->cpml + 2);
        o->cpml = L;
    }
    c->cpml = o->cpml;
    return 0;
}

/* --receivers I,J,K[;I,J,K...] into ra->rec and c; 2 (said) on a bad list */
static int parse_receivers(run_args *ra, const char *list, tl_fdtd_config *c)
{
    int n = 1;
    for (const char *q = list; *q; q++) n += *q == ';';
    ra->rec = calloc((size_t)n, sizeof *ra->rec);
    if (!ra->rec) return tl_fdtd_cli_bad("--receivers", list, "out of memory");
    char *dup = strdup(list), *save = NULL;
    if (!dup) return tl_fdtd_cli_bad("--receivers", list, "out of memory");
    for (char *t = strtok_r(dup, ";", &save); t; t = strtok_r(NULL, ";", &save))
        if (tl_fdtd_cli_parse_triple(t, ',', ra->rec[ra->nrec++], 0) != 0) {
            free(dup);
            return tl_fdtd_cli_bad("--receivers", list, "expected I,J,K[;I,J,K...]");
        }
    free(dup);
    /* '' or ';': no receiver, and --seismogram was silently not written */
    if (ra->nrec == 0) return tl_fdtd_cli_bad("--receivers", list, "no receiver; expected I,J,K[;I,J,K...]");
    /* strtok_r skips empty entries: '1,2,3;;4,5,6' and '1,2,3;' ran
     * without a word, as verify's lists ending in a comma did */
    if (ra->nrec != n)
        return tl_fdtd_cli_bad("--receivers", list,
                               "an empty entry (two ';' together, or one at an end); expected I,J,K[;I,J,K...]");
    c->nrec = ra->nrec;
    c->rec = (const int64_t(*)[3])ra->rec;
    return 0;
}

int tl_fdtd_cli_build_config(run_args *ra, const tl_launch_opts *lo, const tl_optspec *spec,
                             const tl_optresult *res)
{
    fdtd_opts *o = &ra->o;
    tl_fdtd_config *c = &ra->c;
    tl_fdtd_config_defaults(c);
    if (tl_fdtd_cli_parse_triple(o->grid, 'x', c->n, 1) != 0) return tl_fdtd_cli_bad("--grid", o->grid, "expected N or NXxNYxNZ");
    /* the solver's bounds (tl_fdtd_config_check), said as the option typed:
     * before, --grid 1 was "grid size 1 along x: must be 2 to 2^20", and
     * --grid 0 "every axis needs at least one point" */
    for (int d = 0; d < 3; d++)
        if (c->n[d] < 2 || c->n[d] > (1 << 20))
            return tl_fdtd_cli_bad("--grid", o->grid, "every axis needs 2 to 2^20 points");
    if (tl_fdtd_cli_refuse_cuda_only(res, o->backend, &o->kernel, &o->gpus, lo) != 0) return 2;
    if (o->breakdown && o->backend != TL_FDTD_BACKEND_CUDA) {
        /* was the solver's "the per-kernel breakdown times GPU work ...", naming no option */
        fprintf(stderr, PROG ": --breakdown %s times GPU kernels and copies with CUDA events; --backend cpu has "
                             "none (add --backend cuda, or drop --breakdown)\n", o->breakdown);
        return 2;
    }
    if (resolve_cpml(o, c, tl_opts_given(res, &o->cpml), ra->note, sizeof ra->note) != 0) return 2;
    if (o->order != 2 && o->order != 4 && o->order != 8) {
        char b[32];
        snprintf(b, sizeof b, "%" PRId64, o->order);
        return tl_fdtd_cli_bad("--order", b, "must be 2, 4 or 8");
    }
    c->order = (int)o->order;
    c->steps = o->steps;
    c->warmup = o->warmup;
    c->dt = o->dt;
    c->cfl = o->cfl;
    c->h = o->h;
    c->cpml_r = o->cpml_r;
    c->kappa_max = o->kappa_max;
    c->alpha_frac = o->alpha_frac;
    c->periodic = o->periodic;
    c->dbl = o->precision == 1;
    c->K = o->K;
    c->rho = o->rho;
    c->K2 = o->K2;
    c->rho2 = o->rho2;
    c->layer_k = o->layer_k;
    c->f0 = o->f0;
    c->amp = o->amp;
    if (!strcmp(o->source, "none")) c->source = 0;
    else if (!strcmp(o->source, "center")) {
        c->source = 1;
        for (int d = 0; d < 3; d++) c->src[d] = c->n[d] / 2;
    } else {
        c->source = 1;
        if (tl_fdtd_cli_parse_triple(o->source, ',', c->src, 0) != 0) return tl_fdtd_cli_bad("--source", o->source, "expected center, none or I,J,K");
    }
    if (o->receivers && parse_receivers(ra, o->receivers, c) != 0) return 2;
    c->backend = (tl_fdtd_backend_kind)o->backend;
    c->kernel = (tl_fdtd_kernel_kind)o->kernel;
    if (tl_fdtd_cli_parse_decomp(o->decomp, c->pd) != 0)
        return tl_fdtd_cli_bad("--decomp", o->decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    if (tl_fdtd_cli_bad_strategy(o->strategy, o->backend)) return 2;
    c->strategy = o->strategy;
    ra->device_comm_typed = tl_opts_given(res, &lo->device_comm);
    ra->gpus_typed = tl_opts_given(res, &o->gpus);
    c->s = (int)o->s;
    c->gpus = (int)o->gpus;
    c->overlap = o->overlap;
    c->check_every = o->check_every;
    c->blowup = o->blowup;
    c->energy_every = o->energy_every;
    if (o->slice_every > 0) {
        const char *s = o->slice;
        int a = s[0] == 'x' ? 0 : s[0] == 'y' ? 1 : s[0] == 'z' ? 2 : -1;
        if (a < 0 || s[1] != '=') return tl_fdtd_cli_bad("--slice", s, "expected x=I, y=I or z=I (I a number or mid)");
        c->slice_axis = a;
        if (!strcmp(s + 2, "mid")) c->slice_index = c->n[a] / 2;
        else {
            char *end;
            long long v = strtoll(s + 2, &end, 10);
            /* "z=mid,x=1" (two planes where one is meant) was "index outside the grid" */
            if (end == s + 2 || *end) return tl_fdtd_cli_bad("--slice", s, "expected one plane, x=I, y=I or z=I (I a number or mid)");
            if (v < 0 || v >= c->n[a]) return tl_fdtd_cli_bad("--slice", s, "index outside the grid");
            c->slice_index = v;
        }
        c->slice_every = o->slice_every;
        c->slice_dir = o->slice_dir;
    }
    c->trace = o->trace != NULL;
    c->breakdown = o->breakdown != NULL;
    if (tl_fdtd_cli_output_name_empty(spec, o)) return 2;
    if (o->results && tl_results_unfit(o->results)) return tl_fdtd_cli_bad("--results", o->results, tl_results_unfit(o->results));
    if (tl_fdtd_cli_check_output_clashes(o) != TL_OK) return 2;
    /* it wrote a row whose first column was blank, which names no run */
    if (!o->label[0]) return tl_fdtd_cli_bad("--label", "", "an empty label; the results row's first column names the run");
    if (strlen(o->label) > 200) { /* the row's field was cut at 511 bytes without a word */
        fprintf(stderr, PROG ": --label is %zu characters long; the results row takes at most 200 (try --help)\n",
                strlen(o->label));
        return 2;
    }
    if (tl_fdtd_cli_refuse_options_without_effect(o, c, res) != 0 || tl_fdtd_cli_refuse_without_exchange(o, c) != 0)
        return 2;
    if (tl_fdtd_cli_refuse_half_pairs(o, res) != 0 ||
        tl_fdtd_cli_receiver_repeated(ra->rec, ra->nrec, o->receivers) != 0)
        return 2;
    if (tl_fdtd_cli_medium_refused(c) != 0) return 2;
    tl_fdtd_cli_note_cpml_points(c, ra->note, sizeof ra->note);
    return tl_fdtd_cli_pulse_unheard(c, tl_opts_given(res, &o->f0), ra->note, sizeof ra->note);
}
