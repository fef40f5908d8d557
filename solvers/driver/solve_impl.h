/* Internal to trilap-solve (solvers/driver/solve_*.c): the options every
 * part reads, the names of their choices, a run's description, what each
 * rank thread receives and the backends' table; then what each part gives
 * the others. The tables are static const: immutable, each part holds its
 * own copy, as trilap-fdtd's fdtd_cli.h holds its names. Named *_impl.h,
 * as runtime's internal headers are, so that make install leaves it out. */
#ifndef TL_SOLVE_IMPL_H
#define TL_SOLVE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "runtime/ctx.h"
#include "runtime/options.h"
#include "runtime/results.h"
#include "solvers/matrix/csr.h"
#include "solvers/methods/method.h"
#include "solvers/methods/petsc_solve.h"
#include "solvers/methods/solve.h"

#define PROGRAM "trilap-solve"
enum { MAX_SOLVERS = 8 };

typedef struct solve_opts {
    const char *solver, *schedule, *partition;
    int precond;   /* PRECOND_* */
    int rtol_base; /* tl_rtol_base */
    int backend; /* index into solve_backends */
    double rtol, atol;
    int64_t max_iterations, warmup, warmup_iterations, repeat, residual_replacement, omp_threads;
    const char *results, *trace, *history, *solution;
    int monitor, stats, progress;
    /* CUDA backend */
    const char *spmv;
    int cusparse_alg; /* CUSPARSE_ALG_* */
    int64_t spmv_tpr, split_max_ctas, split_min_ctas;
    int stream_priorities, op_timer, op_timer_every, cupti, fuse, fuse_tail, regs_copy, prefetch, pdl, persistent;
    int spmv_dot;
    int scalars; /* tl_ask_scalars */
    int64_t check_every;
    const char *matrix, *rhs, *x0; /* positional */
    /* the matrix as the reports name it: a gen: spec with its parameter,
     * default or given (tl_gen_spec_name), else `matrix` */
    const char *matrix_name;
    char gen_name[160];
    const tl_method *methods[MAX_SOLVERS];
    int nmethods;
    const tl_schedule *schedules[TL_SCHED_COUNT];
    int nschedules;
    struct spmv_choice {
        int impl, tpr, alg; /* tpr, alg: -2 when the entry leaves them to the options */
        char label[32];
    } spmvs[8];
    int nspmvs;
} solve_opts;

/* the names of the choice options' values, indexed by what the code switches on */
enum { PRECOND_AUTO, PRECOND_NONE, PRECOND_JACOBI };
static const char *const precond_names[] = {[PRECOND_AUTO] = "auto", [PRECOND_NONE] = "none",
                                            [PRECOND_JACOBI] = "jacobi"};
static const char *const rtol_base_names[] = {[TL_BASE_B] = "b", [TL_BASE_R0] = "r0"};
enum { CUSPARSE_ALG_DEFAULT, CUSPARSE_ALG_CSR1, CUSPARSE_ALG_CSR2 };
static const char *const cusparse_alg_names[] = {
    [CUSPARSE_ALG_DEFAULT] = "default", [CUSPARSE_ALG_CSR1] = "csr1", [CUSPARSE_ALG_CSR2] = "csr2"};
static const char *const scalars_names[] = {
    [TL_ASK_SCALARS_AUTO] = "auto", [TL_ASK_SCALARS_HOST] = "host", [TL_ASK_SCALARS_PROGRAM] = "program"};

/* One run of the lists given (schedule x SpMV x method): an immutable
 * description made by each rank from the read-only options and passed
 * down; no rank writes shared state to say what it runs. */
typedef struct solve_run {
    const tl_method *method;
    const tl_schedule *schedule;
    const struct spmv_choice *spmv;
} solve_run;

/* What every rank thread receives: the options, read only, and the one
 * result rank 0 hands back to main (read after the launcher joined). */
typedef struct solve_job {
    const solve_opts *o;
    int not_converged;    /* written by rank 0 only */
    tl_results_rows rows; /* rank 0: the lines the runs' rows took in --results, for the manifest */
    tl_manifest_run mr;   /* rank 0: this command's block in manifest.txt */
} solve_job;

/* --backend: what runs a configuration, as rows. host and cuda run
 * trilap's methods on a backend's operations (ops); petsc runs a solver of
 * its own (run: PETSc's KSP, solvers/methods/petsc_solve.h), set up once
 * per process. Nothing else in trilap-solve names a backend. */
typedef enum { SOLVE_HOST, SOLVE_CUDA, SOLVE_PETSC, SOLVE_NBACKENDS } solve_backend_id;
typedef tl_status (*solve_run_fn)(tl_ctx *ctx, const tl_dist_matrix *m, const tl_solve_config *cfg,
                                  const double *b, const double *x0, double *x,
                                  tl_solve_report *rep);
typedef struct solve_backend {
    const char *name; /* first: the option table reads it */
    const tl_backend_ops *ops;
    solve_run_fn run;                     /* instead of ops */
    tl_status (*setup)(tl_ctx *ctx);      /* once per process, before the runs */
    tl_status (*teardown)(tl_ctx *ctx);   /* after them, also after a failure */
    const char *schedule_label;           /* the results' schedule column; NULL: the run's */
    int device;                           /* one GPU per rank: GPU setup, SpMV label, choices */
    const char *no_warmup_iterations;     /* why --warmup-iterations cannot be honoured */
    const char *own_solver;               /* runs a solver of its own: trilap's method options refused */
    const char *mpi_only;                 /* needs MPI ranks: why the thread launcher is refused */
    int omp;                              /* runs trilap's OpenMP loops: --omp-threads acts */
    const char *options_env;              /* its own options' variable, checked before the launch */
    /* the first of those options refused (into name): its line's format, NULL when none */
    const char *(*option_refused)(const char *options, char *name, size_t nname);
} solve_backend;
/* a build without PETSc says so in the run (its stub's message) */
#if TL_HAVE_PETSC && TL_HAVE_MPI
#define SOLVE_PETSC_MPI_ONLY \
    "PETSc needs MPI ranks (mpirun -np N trilap-solve --backend petsc ...); the thread launcher is not supported"
#else
#define SOLVE_PETSC_MPI_ONLY NULL
#endif
static const solve_backend solve_backends[SOLVE_NBACKENDS] = {
    [SOLVE_HOST] = {.name = "host", .ops = &tl_backend_host_ops, .omp = 1},
    [SOLVE_CUDA] = {.name = "cuda", .ops = &tl_backend_cuda_ops, .device = 1},
    [SOLVE_PETSC] = {.name = "petsc",
                     .run = tl_petsc_solve_run,
                     .setup = tl_petsc_init,
                     .teardown = tl_petsc_finalize,
                     .schedule_label = "petsc",
                     .no_warmup_iterations = "its warm-up solves run --max-iterations",
                     .own_solver = "runs PETSc's own KSP",
                     .mpi_only = SOLVE_PETSC_MPI_ONLY,
                     .options_env = "PETSC_OPTIONS",
                     .option_refused = tl_petsc_option_refused},
};

/* solve_opts.c: the option table (Solver group) */
extern const tl_option tl_solve_cli_options[];
extern const size_t tl_solve_cli_noptions;
/* The preconditioner method m runs with under these options. */
tl_precond tl_solve_cli_run_precond(const solve_opts *o, const tl_method *m);
/* cusparseSpMVAlg_t's value of a --cusparse-alg choice (CUSPARSE_ALG_*) */
int tl_solve_cli_cusparse_alg_value(int alg);

/* solve_lists.c: --solver, --spmv and --schedule into o's runs; 0, or 2
 * after one line naming the option, the list and what is wrong with it */
int tl_solve_cli_parse_lists(solve_opts *o);

/* solve_run_paths.c: a run's name, "SCHEDULE.SOLVER.SPMV" with a part for
 * each list of several entries ("" for the one run there is); the path
 * of its file of a --history or --solution path (x.mtx, x.RUN.mtx); its
 * --trace folder (DIR, DIR/RUN) */
void tl_solve_cli_run_name(char *buf, size_t n, const solve_opts *o, const solve_run *run);
void tl_solve_cli_run_file_path(char *buf, size_t n, const char *path, const solve_opts *o, const solve_run *run);
void tl_solve_cli_run_trace_folder(char *buf, size_t n, const solve_opts *o, const solve_run *run);

/* solve_refusals.c: what is refused before any work, each after one line
 * on stderr: every output the runs will write (1 where the file system
 * refuses a path, 2 where the options clash; else 0); the options only
 * CUDA acts on given to another backend, --cupti without --trace (1); the
 * options none of this command's runs act on (1); a --partition naming no
 * method and no file (1 for a missing file, 2 for a typo); an empty file
 * name (2); a text output under a .tlcsr name (2); fixed-iteration mode
 * with --max-iterations 0 (2) */
int tl_solve_cli_outputs_refused(const solve_opts *o);
int tl_solve_cli_device_options_refused(const solve_opts *o, const tl_optresult *res, const solve_backend *sb);
int tl_solve_cli_run_options_refused(const solve_opts *o, const tl_optresult *res, const solve_backend *sb);
int tl_solve_cli_partition_missing(const char *spec);
int tl_solve_cli_file_name_empty(const tl_optspec *spec, const solve_opts *o);
int tl_solve_cli_output_named_binary(const solve_opts *o);
int tl_solve_cli_fixed_iterations_refused(const solve_opts *o);

/* solve_inputs.c, on rank 0: the matrix, b (ones without a file), x0
 * (a file's or none), checked before any run, and the partition into
 * nparts parts, described into partdesc; then its warnings on stderr */
tl_status tl_solve_cli_load_inputs(const solve_opts *o, int nparts, tl_csr *a, double **b, double **x0, int **part,
                                   char *partdesc, size_t ndesc);
void tl_solve_cli_warn_nonsymmetric(const solve_opts *o, const tl_csr *a);
void tl_solve_cli_warn_omp_threads(const tl_ctx *ctx, const solve_opts *o);

/* solve_runs.c: a rank's work (arg: its solve_job): rank 0 reads the
 * inputs, every rank gets its rows, then every run of the lists in turn;
 * rank 0 writes the reports, the results and the manifest. Collective. */
tl_status tl_solve_cli_rank_main(tl_ctx *ctx, void *arg);

#endif
