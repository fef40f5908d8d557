/* The verification experiments of the paper (Tables 6-9, Figs. 2-3), as
 * library calls used by `trilap-fdtd verify` and the tests:
 *
 *   convergence  standing wave in a periodic unit cube, p = cos(W t)
 *                sin(2 pi x) sin(2 pi y) sin(2 pi z), K = rho = 1; the
 *                reference is the leapfrog solution of the continuous-space
 *                problem (sin(W dt / 2) = w dt / 2, w = 2 pi sqrt 3), so
 *                the error is the spatial one alone: rates 2, 4, 8;
 *   time         the same wave against the exact solution of the
 *                semi-discrete problem (w from the differences' symbol),
 *                so the error is the temporal one alone: rate 2;
 *   reflection   a Ricker pulse recorded near the CPML, against the same
 *                interior in a grid large enough that nothing returns in
 *                the window: max |p - p_ref| / max |p_ref|;
 *   energy       field energy with and without CPML after the source;
 *   decomp       every decomposition / strategy / s against one domain. */
#ifndef TL_FDTD_VERIFY_H
#define TL_FDTD_VERIFY_H

#include "stencil/fdtd.h"

/* What the experiments share: backend, precision, kernel, strategy, decomposition. */
typedef struct tl_fdtd_vopts {
    tl_fdtd_backend_kind backend;
    tl_fdtd_kernel_kind kernel;
    int dbl;
    const char *strategy;
    int pd[3], s, gpus;
    int order_fixed; /* the experiment takes no order option (tl_fdtd_config's) */
    const char *grid_option; /* the option that sets the experiment's cubic grid (--sizes, --grid),
                                named by a ghost-depth refusal's remedies (tl_fdtd_config's) */
    struct tl_progress *progress; /* NULL, or a line advanced one unit per run (reflection) or per
                                     step (energy) */
} tl_fdtd_vopts;

void tl_fdtd_vopts_defaults(tl_fdtd_vopts *v);

/* Standing-wave error at t = 0.5 on an n^3 periodic grid. spatial = 1:
 * against the time-discrete reference; 0: against the semi-discrete one. */
tl_status tl_fdtd_verify_wave(const tl_fdtd_vopts *v, int order, int64_t n, double cfl, int spatial,
                              double *l2, double *linf);

/* What every experiment's *_check asks of a run it would make: the
 * solver's refusal (tl_fdtd_config_check: one line, TL_ERR_INVAL), then
 * the host's memory (tl_fdtd_check_host_memory_early: one line,
 * TL_ERR_NOMEM), before anything runs or prints. */
tl_status tl_fdtd_verify_config_check(const tl_fdtd_config *c);

/* The standing wave's steps to t = 0.5 at cfl times the limit, and
 * their dt (NULL: not wanted): two CFL fractions can give one step. */
int64_t tl_fdtd_verify_wave_steps(int order, int64_t n, double cfl, double *dt);
/* The standing wave's time to t = 0.5 in steps at the CFL limit (not
 * rounded): a run at fraction f takes ceil(span / f) steps, a count that
 * can be said before it is cast to an integer. */
double tl_fdtd_verify_wave_span(int order, int64_t n);

/* The refusal (tl_fdtd_verify_config_check) of a configuration the
 * experiment below it would run, before anything runs. */
tl_status tl_fdtd_verify_wave_check(const tl_fdtd_vopts *v, int order, int64_t n, double cfl);

/* Reflection ratio for CPMLs of cells[k] (0: none) around an interior of
 * n_int^3 points, order 8, Ricker of peak frequency f0 (cycles per time
 * unit; c = h = 1), for each of the ndecomp settings v[d] (decompositions),
 * into ratio[d * ncells + k]. The receiver sits 4 points inside the
 * interior's upper x face, level with the source at the centre; one
 * single-domain reference run serves them all. */
tl_status tl_fdtd_verify_reflection(const tl_fdtd_vopts *v, int ndecomp, int64_t n_int, double f0, const int64_t *cells,
                                    int ncells, double *ratio);

/* Points per axis of the reflection experiment's reference run: the
 * interior and, around it, a margin the pulse does not cross there and
 * back within the window (it grows as 1 / f0). */
int64_t tl_fdtd_verify_reflection_reference_n(int64_t n_int, double f0);

/* The refusal of the reference run tl_fdtd_verify_reflection would
 * make, and of any other run (every decomposition and thickness). */
tl_status tl_fdtd_verify_reflection_reference_check(const tl_fdtd_vopts *v, int64_t n_int, double f0);
tl_status tl_fdtd_verify_reflection_check(const tl_fdtd_vopts *v, int ndecomp, int64_t n_int, double f0,
                                          const int64_t *cells, int ncells);

/* What the energy experiment returns: the series sampled every `every`
 * steps, and the figures taken over every step (sampled or not), so that
 * they do not change with the sampling period. */
typedef struct tl_fdtd_energy_run {
    double *samples; /* (step, energy) pairs, step 0 first (malloc'd; the caller frees) */
    int64_t count;   /* pairs in samples */
    double max;      /* the largest energy after any step */
    double last;     /* the energy after the last step */
    double dt;       /* the run's time step */
    double source_end; /* when the source stops: the Ricker's end, twice its delay 1.2 / f0, where it
                          has fallen below 2e-5 of its peak */
} tl_fdtd_energy_run;

/* Energy for `steps` steps on an n^3 grid with a centred Ricker source,
 * with a CPML of `cells` (0: none), into *out. slices: write pressure
 * slices there every `every` steps (NULL: none). */
tl_status tl_fdtd_verify_energy(const tl_fdtd_vopts *v, int64_t n, int64_t cells, int64_t steps, int64_t every,
                                const char *slices, tl_fdtd_energy_run *out);

/* The refusal of the run tl_fdtd_verify_energy would make. */
tl_status tl_fdtd_verify_energy_check(const tl_fdtd_vopts *v, int64_t n, int64_t cells, int64_t steps, int64_t every);

/* Deterministic pseudo-random initial values of size 1e-3 at every point
 * (CPML slabs and subdomain interfaces included), for comparisons. */
double tl_fdtd_init_noise(void *arg, int field, int64_t i, int64_t j, int64_t k);

/* Largest |a - b| over every field after `steps` steps of config c run
 * as given and run again on one domain (s = 1, same backend and kernel). */
tl_status tl_fdtd_verify_decomp(const tl_fdtd_config *c, double *maxdiff);
/* The same with a per-rank strategy ("ranks") over the ranks of ctx
 * (collective; ctx->size = px py pz): the decomposed run spread over the
 * ranks, the single domain on rank 0, *maxdiff on every rank. */
tl_status tl_fdtd_verify_decomp_on(tl_ctx *ctx, const tl_fdtd_config *c, double *maxdiff);

#endif
