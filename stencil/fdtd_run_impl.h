/* Internal to trilap-fdtd run (stencil/fdtd_main.c and fdtd_run_*.c): the
 * options as parsed, the run they make, the results row's header; then
 * what each part gives the others. Named *_impl.h so that make install
 * leaves it out. */
#ifndef TL_FDTD_RUN_IMPL_H
#define TL_FDTD_RUN_IMPL_H

#include <stdint.h>

#include "runtime/launch.h"
#include "runtime/options.h"
#include "runtime/results.h"
#include "stencil/fdtd.h"
#include "stencil/fdtd_cli.h"

/* The options as parsed (the tables of fdtd_main.c write them) */
typedef struct fdtd_opts {
    const char *grid;
    int64_t order, steps, warmup;
    double dt, cfl, h;
    int64_t cpml;
    double cpml_r, kappa_max, alpha_frac;
    int periodic;
    int precision;
    const char *source;
    double f0, amp;
    const char *receivers;
    double K, rho, K2, rho2;
    int64_t layer_k;
    int backend, kernel;
    const char *decomp, *strategy;
    int64_t s, gpus;
    int overlap;
    int64_t check_every;
    double blowup;
    int64_t energy_every;
    const char *slice;
    int64_t slice_every;
    const char *slice_dir;
    const char *seismogram, *energy_out, *results, *trace, *label, *breakdown;
    int compare_cpml;
    int progress;
} fdtd_opts;

/* The run: the model and execution options turned into a configuration. */
typedef struct run_args {
    fdtd_opts o;
    tl_fdtd_config c;
    int64_t (*rec)[3];
    int nrec;
    int usage_error;     /* a rank found the ranks and the decomposition at odds: exit 2 */
    int device_comm_typed; /* --device-comm given: only a run of ranks (devcomm) uses it */
    int gpus_typed;        /* --gpus given: only a run in one process uses it */
    char note[2048];     /* notes on the input (a default adapted to it, a source or receiver
                            the run can hardly hear), a line each, said before the header */
} run_args;

/* The results row's columns: the header printed and written above the rows */
static const char results_header[] =
    "label,backend,kernel,strategy,decomp,s,overlap,order,precision,nx,ny,nz,steps,cpml,dt,time_s,mpoints_s,gbs,"
    "min_bytes_per_point,mem_bytes,paper_mem_bytes,cpml_overhead";

/* fdtd_run_config.c: the options turned into the run's configuration,
 * each refused as typed (one line, 2), the notes on the input kept in
 * ra->note; 0 when the run may start */
int tl_fdtd_cli_build_config(run_args *ra, const tl_launch_opts *lo, const tl_optspec *spec,
                             const tl_optresult *res);

/* fdtd_run_refusals.c: options typed that would do nothing in this run,
 * or contradict others; each 2 after one line, or 0 */
int tl_fdtd_cli_refuse_half_pairs(const fdtd_opts *o, const tl_optresult *res);
int tl_fdtd_cli_refuse_options_without_effect(const fdtd_opts *o, const tl_fdtd_config *c,
                                              const tl_optresult *res);
int tl_fdtd_cli_refuse_without_exchange(const fdtd_opts *o, const tl_fdtd_config *c);

/* fdtd_run_outputs.c: the files and folders the run writes: a name left
 * empty (2 after one line, or 0), two on one path (TL_ERR_INVAL, said),
 * each checked before the run (tl_fdtd_cli_check_output for every one),
 * their folders made (collective) */
int tl_fdtd_cli_output_name_empty(const tl_optspec *spec, const fdtd_opts *o);
tl_status tl_fdtd_cli_check_output_clashes(const fdtd_opts *o);
tl_status tl_fdtd_cli_check_outputs(const fdtd_opts *o, const tl_fdtd_config *c);
tl_status tl_fdtd_cli_make_output_folders(tl_ctx *ctx, const fdtd_opts *o);

/* fdtd_run_rank.c: each rank's entry (arg: the run_args), the launcher's
 * tl_rank_main_fn */
tl_status tl_fdtd_cli_run_rank(tl_ctx *ctx, void *arg);

/* fdtd_run_one.c: one simulation, its row and files; none_s: the
 * reference run's seconds (--compare-cpml), 0 without one */
tl_status tl_fdtd_cli_one_run(tl_ctx *ctx, run_args *ra, const tl_fdtd_config *c_in, double none_s, double *seconds,
                              tl_results_rows *rows);

#endif
