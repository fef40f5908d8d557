/* Internal to trilap-fdtd verify (stencil/fdtd_verify_main.c and
 * verify_*.c): the bound of its grids, the options every part reads and
 * what each experiment receives; then what each part gives the others.
 * Named *_impl.h, as runtime's internal headers are, so that make install
 * leaves it out. */
#ifndef TL_VERIFY_IMPL_H
#define TL_VERIFY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "stencil/fdtd_cli.h"
#include "stencil/verify.h"

/* The most points per axis of any grid verify builds: --grid's and
 * --n-int's bound, and that of the grids verify reflection derives from
 * them (--cells, and the reference run's margin from --f0). Beyond it a
 * double run needs over 2 TiB: a value past it is a mistake in the
 * command line (exit 2); below it, a grid the host cannot hold is the
 * machine's lack (exit 1). */
enum { VERIFY_GRID_MAX = 4096 };

/* The experiments, as a line naming them says them */
#define VERIFY_EXPERIMENTS "convergence, time, reflection, energy or decomp"

/* The options as parsed (the table of verify_opts.c writes them) */
typedef struct verify_opts {
    int backend, kernel, precision;
    const char *decomp, *decomps, *strategy, *strategies, *orders, *sizes, *cfls,
        *cells, *ss;
    int64_t s, n_int, n, steps, every, gpus;
    double f0, cfl;
    const char *slices;
    int progress;
} verify_opts;

/* What the rank entry and every experiment receive: the options, the
 * experiment named, the library's options made of them, and whether a
 * refusal of the input was said (main exits 2) */
typedef struct verify_args {
    verify_opts o;
    const char *what;
    tl_fdtd_vopts v;
    int usage_error;
    int every_typed; /* --every given: beyond --steps it is refused, the default shortened */
} verify_args;

/* A table whose rows take a rate against the row before (convergence
 * along n, time along dt), and its rows at the rounding floor */
typedef struct verify_rated {
    double l2, li, x; /* the row before: its errors, its n or 1 / dt */
    int floor;        /* the row before was at the floor */
    int nat;          /* rows at the floor, named in at */
    char at[256];
    double lo, hi;    /* their floors */
} verify_rated;

/* One standing-wave run of verify convergence or time */
typedef struct verify_wave_run {
    int order;
    int64_t n;
    double cfl;
} verify_wave_run;

/* verify_opts.c: the option table (Verification group); the options
 * typed that the command refuses before the launch: an unknown
 * experiment, another experiment's options, CUDA's with --backend cpu, a
 * typed 0 that means the default, a strategy of another backend, one
 * subdomain per rank outside verify decomp. 2 after one line, else 0. */
extern const tl_option tl_verify_options[];
extern const size_t tl_verify_noptions;
int tl_verify_options_refused(verify_args *va, const tl_optresult *res, const tl_launch_opts *lo);

/* verify_lists.c: a comma list of integers 0 or more, of numbers above 0,
 * of names (split in s): the count (up to max), or -1 for a malformed
 * entry, a comma at the end or more than max entries. */
int tl_verify_parse_ints(const char *s, int64_t *out, int max);
int tl_verify_parse_doubles(const char *s, double *out, int max);
int tl_verify_split_names(char *s, char **out, int max);
/* An entry of list (option opt) given twice refused: TL_ERR_REMOTE, or TL_OK */
tl_status tl_verify_refuse_repeated_ints(verify_args *va, const char *opt, const char *list, const int64_t *v, int n);
tl_status tl_verify_refuse_repeated_names(verify_args *va, const char *opt, const char *list, char *const *names,
                                          int n);
/* --decomps list into names (split in buf) and their decompositions pd:
 * the count, or -1 after a refusal (malformed, or a decomposition twice) */
int tl_verify_parse_decomps(verify_args *va, const char *list, char *buf, size_t nbuf, char **names, int pd[][3],
                            int max);

/* verify_refusals.c: the input refused (a line naming opt, val and why;
 * main exits 2): TL_ERR_REMOTE, the line said. */
tl_status tl_verify_refuse(verify_args *va, const char *opt, const char *val, const char *why);
/* Ends the error context k of a run's configuration check, whose status
 * st it returns: a refusal marked as the input's, memory the machine's. */
tl_status tl_verify_end_run_check(verify_args *va, const tl_error_context *k, tl_status st);
/* --s above 1 where each of the nd decompositions pd is one subdomain */
tl_status tl_verify_refuse_idle_s(verify_args *va, const int (*pd)[3], int nd, const char *opt);
/* --backend cuda without a GPU on this rank: TL_ERR_REMOTE after the line, else TL_OK */
tl_status tl_verify_gpu_lacking(tl_ctx *ctx, const verify_args *va);

/* verify_report.c: one row of r's table, "KEY,l2,linf,rate_l2,rate_linf"
 * (x: the row's n or 1 / dt; name: the row as the footer names it; steps:
 * the run's, which set its rounding floor); the footer after the table
 * (what: "# order 8, n =", "# dt =") when rows reached the floor */
void tl_verify_rated_row(const verify_args *va, verify_rated *r, const char *key, const char *name, double x, double l2,
                         double li, int64_t steps);
void tl_verify_floor_note(const verify_args *va, const char *what, const verify_rated *r);

/* verify_wave_steps.c: the nr runs' time steps to t = 0.5, by the value
 * val of option opt (--cfl, --cfls): a run of too many refused
 * (TL_ERR_REMOTE after the line, or TL_OK), and a note on stderr when
 * they add up to many */
tl_status tl_verify_wave_steps_refused(verify_args *va, const char *opt, const char *val, const verify_wave_run *runs,
                                       int nr);
void tl_verify_wave_steps_note(const verify_args *va, const char *opt, const char *val, const verify_wave_run *runs,
                               int nr);

/* The experiments (verify_<name>.c), each printing its table on stdout
 * once its input is checked: a refusal of the input is TL_ERR_REMOTE with
 * usage_error set (exit 2). energy adds its summary on stderr; decomp runs
 * on every rank of the launch (rank 0 prints), the others on one. */
tl_status tl_verify_convergence(verify_args *va);
tl_status tl_verify_time(verify_args *va);
tl_status tl_verify_reflection(verify_args *va);
tl_status tl_verify_energy(verify_args *va);
tl_status tl_verify_decomp(tl_ctx *ctx, verify_args *va);

#endif
