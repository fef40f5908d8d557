/* trilap-fdtd verify's options: the table that parses them and prints
 * --help, each experiment's own, and the options refused as typed, before
 * the launch. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "stencil/verify_impl.h"

#define V(f) offsetof(verify_opts, f)
const tl_option tl_verify_options[] = {
    {.name = "backend", .type = TL_OPT_ENUM, .offset = V(backend), .def = "cpu", TABLE(backend_names), .help = "backend"},
    {.name = "kernel", .type = TL_OPT_ENUM, .offset = V(kernel), .def = "vec4-band", TABLE(tl_fdtd_kernels),
     .help = "cuda: the kernel (--backend cpu runs its one reference kernel)"},
    {.name = "precision", .type = TL_OPT_ENUM, .offset = V(precision), .def = "double", TABLE(precision_names),
     .help = "floating point precision"},
    {.name = "decomp", .type = TL_OPT_STRING, .offset = V(decomp), .def = "1x1x1", .metavar = "PXxPYxPZ",
     .help = "convergence, time, energy: decomposition"},
    {.name = "decomps", .type = TL_OPT_STRING, .offset = V(decomps), .metavar = "LIST",
     .help = "reflection: decompositions [1x1x1: decomposed runs equal the single domain bit for bit, which "
             "verify decomp checks]; decomp: [1x1x1,slab-z,block-xy,pencil-yz]"},
    {.name = "strategy", .type = TL_OPT_STRING, .offset = V(strategy), .metavar = "NAME",
     .help = "convergence, time, reflection, energy: exchange strategy"},
    {.name = "strategies", .type = TL_OPT_STRING, .offset = V(strategies), .metavar = "LIST",
     .help = "decomp: strategies (default: the backend's: copy, or host,peer,nccl; on several ranks ranks, or devcomm)"},
    {.name = "s", .type = TL_OPT_INT, .offset = V(s), .def = "1", .metavar = "S",
     .help = "convergence, time, reflection, energy: local steps between exchanges", .min = 1, .max = 64},
    {.name = "ss", .type = TL_OPT_STRING, .offset = V(ss), .def = "1,2", .metavar = "LIST",
     .help = "decomp: values of s (subdomains must be at least g = 2 r s thick)"},
    {.name = "orders", .type = TL_OPT_STRING, .offset = V(orders), .def = "2,4,8", .metavar = "LIST",
     .help = "convergence: orders"},
    {.name = "sizes", .type = TL_OPT_STRING, .offset = V(sizes), .def = "8,16,32", .metavar = "LIST",
     .help = "convergence: grid sizes"},
    {.name = "cfl", .type = TL_OPT_DOUBLE, .offset = V(cfl), .def = "0.5", .metavar = "F",
     .help = "convergence: CFL fraction", .min = 1e-6, .max = 1},
    {.name = "cfls", .type = TL_OPT_STRING, .offset = V(cfls), .def = "0.8,0.4,0.2,0.1", .metavar = "LIST",
     .help = "time: CFL fractions, a row each, each row's rate against the row before whatever the ratio of their "
             "time steps (the default halves it)"},
    {.name = "grid", .type = TL_OPT_INT, .offset = V(n), .def = "0", .metavar = "N", .aliases = "n",
     .help = "time: grid points per axis [16]; energy: [64]; decomp: [64]", .min = 0, .max = VERIFY_GRID_MAX},
    {.name = "cells", .type = TL_OPT_STRING, .offset = V(cells), .metavar = "LIST",
     .help = "reflection: CPML thicknesses [0,8,12,16,24]; energy: the one thickness run against none [20]"},
    {.name = "n-int", .type = TL_OPT_INT, .offset = V(n_int), .def = "40", .metavar = "N",
     .help = "reflection: interior points per axis", .min = 8, .max = VERIFY_GRID_MAX},
    {.name = "f0", .type = TL_OPT_DOUBLE, .offset = V(f0), .def = "0.05", .metavar = "F",
     .help = "reflection: Ricker peak frequency (c = h = 1)", .min = 1e-6, .max = 0.5},
    {.name = "steps", .type = TL_OPT_INT, .offset = V(steps), .def = "0", .metavar = "N",
     .help = "energy: steps [600]; decomp: [24]", .min = 0, .max = 1e9},
    {.name = "every", .type = TL_OPT_INT, .offset = V(every), .def = "10", .metavar = "N",
     .help = "energy: sampling period in steps", .min = 1, .max = 1e9},
    {.name = "slices", .type = TL_OPT_STRING, .offset = V(slices), .metavar = "DIR",
     .help = "energy: pressure slices every --every steps into DIR/cpml and DIR/none"},
    {.name = "gpus", .short_name = 'g', .type = TL_OPT_INT, .offset = V(gpus), .def = "0", .metavar = "N",
     .help = "cuda: GPUs to spread the subdomains over (0: every visible one)", .min = 0, .max = 64},
    {.name = "progress", .type = TL_OPT_FLAG, .offset = V(progress),
     .help = "reflection, energy, decomp: a progress line on stderr (runs or steps done, time left) even when "
             "it is not a terminal"},
};
#undef V
const size_t tl_verify_noptions = sizeof tl_verify_options / sizeof tl_verify_options[0];

/* Each experiment and the options it reads, beside those every one takes
 * (verify_common_options, and the launcher's): another one typed is
 * refused, not ignored (before, `verify convergence --grid 99` printed the
 * table it prints without it, and `verify reflection --decomp 2x1x1` rows
 * of 1x1x1). */
typedef struct verify_experiment {
    const char *name;
    const char *options; /* "a|b|c", names in tl_verify_options */
} verify_experiment;
static const verify_experiment verify_experiments[] = {
    {"convergence", "orders|sizes|cfl|decomp|strategy|s"},
    {"time", "cfls|grid|decomp|strategy|s"},
    {"reflection", "n-int|f0|cells|decomps|strategy|s|progress"},
    {"energy", "grid|cells|steps|every|slices|decomp|strategy|s|progress"},
    {"decomp", "decomps|strategies|ss|grid|steps|progress"},
};
static const char verify_common_options[] = "backend|kernel|precision|gpus";

static const verify_experiment *verify_experiment_named(const char *name)
{
    for (size_t i = 0; i < sizeof verify_experiments / sizeof verify_experiments[0]; i++)
        if (!strcmp(name, verify_experiments[i].name)) return &verify_experiments[i];
    return NULL;
}

/* The verify options typed that experiment x does not read: one line
 * naming them and the ones it takes, 2; 0 when there are none. */
static int refuse_foreign_options(const verify_experiment *x, const verify_opts *o, const tl_optresult *res)
{
    enum { NOPTS = sizeof tl_verify_options / sizeof tl_verify_options[0] };
    const char *foreign[NOPTS], *own[NOPTS];
    char typed[NOPTS][64]; /* as typed: an old name stays the one the line names */
    int nforeign = 0, nown = 0;
    for (int i = 0; i < NOPTS; i++) {
        const tl_option *t = &tl_verify_options[i];
        const void *at = (const char *)o + t->offset;
        int its = tl_opts_choice_index(verify_common_options, t->name) >= 0 ||
                  tl_opts_choice_index(x->options, t->name) >= 0;
        if (!its && tl_opts_given(res, at)) {
            foreign[nforeign] = tl_opts_typed_name(res, at, t->name, typed[nforeign], sizeof typed[nforeign]);
            nforeign++;
        }
    }
    if (nforeign == 0) return 0;
    /* the experiment's own options in its table's order */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", x->options);
    char *save = NULL;
    for (char *t = strtok_r(buf, "|", &save); t && nown < NOPTS; t = strtok_r(NULL, "|", &save)) own[nown++] = t;
    char theirs[1024], takes[512];
    tl_fdtd_cli_join_options(theirs, sizeof theirs, foreign, nforeign);
    tl_fdtd_cli_join_options(takes, sizeof takes, own, nown);
    fprintf(stderr, PROG ": %s %s verify %s (it takes %s)\n", theirs,
            nforeign == 1 ? "is not an option of" : "are not options of", x->name, takes);
    return 2;
}

/* --grid 0 and --steps 0 stand for the experiment's default when not
 * typed; typed, each ran that default without a word (verify time --grid
 * 0 printed the 16^3 table, exit 0). One line, 2; 0 when neither is. */
static int refuse_typed_zero(const verify_opts *o, const tl_optresult *res)
{
    if (o->n == 0 && tl_opts_given(res, &o->n))
        return tl_fdtd_cli_bad("--grid", "0", "a grid needs points (leave --grid out for the experiment's default)");
    if (o->steps == 0 && tl_opts_given(res, &o->steps))
        return tl_fdtd_cli_bad("--steps", "0", "no step would run (leave --steps out for the experiment's default)");
    return 0;
}

/* --strategy ranks (cuda: devcomm) puts one subdomain on each rank, and
 * every experiment but decomp runs on one rank: verify time printed its
 * header, then "strategy 'ranks' needs a rank context (inside
 * tl_launch_run)", exit 1. One line, 2, or 0. */
static int refuse_per_rank_strategy(const verify_args *va)
{
    tl_fdtd_backend_kind b = (tl_fdtd_backend_kind)va->o.backend;
    if (!strcmp(va->what, "decomp") || tl_fdtd_strategy_per_rank(va->o.strategy, b) != 1) return 0;
    fprintf(stderr,
            PROG ": --strategy %s puts one subdomain on each rank, and verify %s runs on one (verify decomp takes "
                 "several: --strategies %s with --ranks N or mpirun -np N; or drop --strategy)\n",
            va->o.strategy, va->what, va->o.strategy);
    return 2;
}

/* The first refusal is the one said: the experiment, then what it takes */
int tl_verify_options_refused(verify_args *va, const tl_optresult *res, const tl_launch_opts *lo)
{
    const verify_experiment *x = verify_experiment_named(va->what);
    int refused = !x ? tl_fdtd_cli_bad("experiment", va->what, "expected " VERIFY_EXPERIMENTS)
                     : refuse_foreign_options(x, &va->o, res);
    if (!refused) refused = tl_fdtd_cli_refuse_cuda_only(res, va->o.backend, &va->o.kernel, &va->o.gpus, lo);
    if (!refused) refused = refuse_typed_zero(&va->o, res);
    if (!refused) refused = tl_fdtd_cli_bad_strategy(va->o.strategy, va->o.backend);
    if (!refused) refused = refuse_per_rank_strategy(va);
    return refused;
}
