/* trilap-fdtd's command-line pieces shared by its two commands: run
 * (fdtd_main.c, fdtd_run_*.c) and verify (fdtd_verify_main.c). Internal to
 * the program. */
#ifndef TL_FDTD_CLI_H
#define TL_FDTD_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/launch.h"
#include "runtime/options.h"
#include "stencil/fdtd.h"

/* Every line trilap-fdtd writes to stderr (errors, notes, warnings,
 * progress) begins PROG ": ", then "rank R: " where one of several ranks
 * speaks for itself, whichever command (run, verify) or layer (options,
 * launcher, solver, file checks) says it: as in trilap-solve, trilap-bench
 * and trilap-matgen, and the runtime's own lines, so that `grep
 * '^trilap-fdtd: '` finds all of a job log's. What the line is about
 * ("verify reflection", "--grid") follows the prefix. */
#define PROG "trilap-fdtd"

/* The values of the enumerated options, indexed by the library's enums. */
typedef struct named {
    const char *name;
} named;
static const named backend_names[] = {[TL_FDTD_BACKEND_CPU] = {"cpu"}, [TL_FDTD_BACKEND_CUDA] = {"cuda"}};
static const named precision_names[] = {{"single"}, {"double"}};
#define TABLE(t) .table = t, .table_stride = sizeof t[0], .table_count = (int)(sizeof t / sizeof t[0])

/* "invalid OPT 'VAL': WHY (try --help)" on stderr; returns 2, the usage exit */
int tl_fdtd_cli_bad(const char *opt, const char *val, const char *why);
/* --strategy NAME not of the backend: one line naming it and the accepted ones, 2; else 0 */
int tl_fdtd_cli_bad_strategy(const char *name, int backend);
/* "AxBxC" (sep 'x') into out; allow_one: "N" means N, N, N. 0, or -1 if malformed */
int tl_fdtd_cli_parse_triple(const char *s, char sep, int64_t out[3], int allow_one);
/* PXxPYxPZ or slab-z, block-xy, pencil-yz; 0, or -1 */
int tl_fdtd_cli_parse_decomp(const char *s, int pd[3]);
/* "--grid GRID is too small for a L-cell CPML on each side ..." on
 * stderr, with what would fit: opt (--cpml, --cells) FITS or less, or
 * where none fits opt 0 (zero_ok: a run without CPML) or only a larger
 * grid. Returns 2. */
int tl_fdtd_cli_cpml_too_thick(const char *grid, int64_t L, int64_t fits, const char *opt, int zero_ok);
/* Option names (without "--") as "--a", "--a and --b", "--a, --b and --c" */
void tl_fdtd_cli_join_options(char *buf, size_t n, const char *const names[], int count);

/* --kernel, --gpus or --device-comm typed with --backend cpu (run,
 * verify): each acts on the CUDA backend alone, so accepted it would do
 * nothing. The line naming the first of them, e.g. "trilap-fdtd: --gpus 7
 * spreads the subdomains over GPUs; --backend cpu runs on the host (add
 * --backend cuda, or drop --gpus)"; 2, or 0 when the backend is cuda or
 * none of them was typed. */
int tl_fdtd_cli_refuse_cuda_only(const tl_optresult *res, int backend, const int *kernel,
                                 const int64_t *gpus, const tl_launch_opts *lo);

/* The launcher's options both commands take (--launcher, --ranks, --no-gpu,
 * --device-comm); ranks_help: what --ranks does in this command, which
 * differs (run: one subdomain each of --decomp; verify: decomp's alone). */
enum { TL_FDTD_CLI_LAUNCH_NOPTS = 4 };
void tl_fdtd_cli_launch_group(tl_option out[TL_FDTD_CLI_LAUNCH_NOPTS], const char *ranks_help);
/* fn on each rank, inside the probes' rank main, which holds the trace
 * request (trace_dir NULL: no traces; CUPTI on the GPU); returns the exit
 * status */
int tl_fdtd_cli_launch(tl_launch_opts *lo, tl_launch_quiet *quiet, int argc, char **argv, tl_rank_main_fn fn, void *arg, int cuda,
                       const char *trace_dir);


/* Whether output `path` of option `opt` can be written (runtime/out.h
 * tl_out_check), before the work: the refusal in one line naming both,
 * "trilap-fdtd: --energy-out: a/e.csv: cannot write there: a is not a
 * folder". file: NULL when path is the file; else path is the folder that
 * receives `file` (the first one the run writes there). */
tl_status tl_fdtd_cli_check_output(const char *opt, const char *path, const char *file);

/* trilap-fdtd verify (fdtd_verify_main.c) */
int tl_fdtd_cli_verify(int argc, char **argv, int full_argc, char **full_argv, tl_launch_quiet *quiet);

/* --backend cuda where there is no CUDA in the build or no GPU to run on:
 * rank 0 says so in one line, before anything is printed; returns 1 (the
 * caller stops every rank and exits 1, as trilap-solve and trilap-bench
 * do: the machine lacks it, the command line is not wrong), else 0. */
int tl_fdtd_cli_no_cuda(const tl_ctx *ctx, int cuda);

/* trilap-fdtd run's checks of its configuration (fdtd_run_checks.c). A
 * note is a line appended to notes (n bytes), which rank 0 says once the
 * run is known to start; a refusal is one line on stderr and returns 2. */
void tl_fdtd_cli_note_add(char *notes, size_t n, const char *line);
/* A Ricker pulse the run's steps cannot hear: refused where --f0 was
 * typed, a note for the default; 2 or 0 */
int tl_fdtd_cli_pulse_unheard(const tl_fdtd_config *c, int typed, char *notes, size_t n);
/* The medium's update coefficients beyond the precision's normal numbers: 2 or 0 */
int tl_fdtd_cli_medium_refused(const tl_fdtd_config *c);
/* A note for the source, and one for the receivers, lying in the CPML */
void tl_fdtd_cli_note_cpml_points(const tl_fdtd_config *c, char *notes, size_t n);
/* A receiver typed twice (typed: --receivers as given): 2 or 0 */
int tl_fdtd_cli_receiver_repeated(const int64_t (*rec)[3], int nrec, const char *typed);

#endif
