/* trilap-solve: solve A x = b with the Krylov methods of the triple-overlap
 * study on host (MPI or thread) ranks, or with PETSc for comparison.
 *
 *   trilap-solve [options] A.mtx[.gz]|A.tlcsr|gen:KIND:N[:PECLET] [b.mtx] [x0.mtx]
 *
 * Exit status: 0 converged (or fixed-iteration mode ran all its iterations),
 * 3 stopped without converging (the reason is printed), 1 error, 2 bad
 * arguments.
 *
 * main: the options parsed, every refusal made before the launch, then the
 * ranks launched. The parts it calls (solve_impl.h): the option table
 * (solve_opts.c), the lists (solve_lists.c), the refusals
 * (solve_refusals.c), and in the ranks rank 0's inputs (solve_inputs.c)
 * and the runs (solve_runs.c, their names and paths solve_run_paths.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"
#include "runtime/gpu.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "runtime/results.h"
#include "runtime/tmpfile.h"
#include "solvers/matrix/gen.h"
#include "solvers/driver/solve_impl.h"

int main(int argc, char **argv)
{
    solve_opts o;
    tl_launch_opts lo;
    memset(&o, 0, sizeof o);
    memset(&lo, 0, sizeof lo);
    const tl_optgroup groups[] = {
        {"Solver", tl_solve_cli_options, tl_solve_cli_noptions, &o},
        {"Launch", tl_launch_options, tl_launch_noptions, &lo},
    };
    const tl_optspec spec = {
        .program = PROGRAM,
        .usage = "[options] A.mtx[.gz]|A.tlcsr|gen:KIND:N[:PECLET] [b.mtx] [x0.mtx]",
        .purpose = "Solve A x = b with (pipelined) CG/BiCGStab on host ranks, or PETSc, and report "
                   "iterations, residuals and times.",
        .groups = groups,
        .ngroups = 2,
        .min_positional = 1,
        .max_positional = 3,
    };
    tl_log_set_prefix(PROGRAM, -1);
    if (tl_tmpfile_handle_signals(PROGRAM) != TL_OK) return 1;
    tl_launch_quiet quiet; /* under mpirun, a refusal before the launch once per host */
    tl_launch_quiet_begin(&quiet);
    tl_optresult res = {0};
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) {
        free(res.positional);
        return 0;
    }
    o.matrix = res.positional[0];
    o.rhs = res.npositional > 1 ? res.positional[1] : NULL;
    o.x0 = res.npositional > 2 ? res.positional[2] : NULL;
    if (tl_solve_cli_file_name_empty(&spec, &o) || tl_solve_cli_output_named_binary(&o) ||
        tl_solve_cli_fixed_iterations_refused(&o)) {
        free(res.positional);
        return 2;
    }
    const solve_backend *sb = &solve_backends[o.backend];
    /* a malformed list first, then what this backend or these runs do not act on */
    char no_gpu[32];
    snprintf(no_gpu, sizeof no_gpu, "--backend %s", sb->name);
    int refused = tl_solve_cli_parse_lists(&o) != 0 || tl_solve_cli_device_options_refused(&o, &res, sb) ||
                  tl_solve_cli_run_options_refused(&o, &res, sb) ||
                  tl_launch_opts_refused(PROGRAM, &lo, &res, sb->device ? NULL : no_gpu);
    free(res.positional); /* and what tl_opts_given reads */
    if (refused) return 2;
    o.matrix_name = o.matrix;
    if (strncmp(o.matrix, "gen:", 4) == 0) {
        tl_gen spec_check;
        if (tl_gen_parse_spec(o.matrix, &spec_check) != TL_OK) return 2;
        tl_gen_spec_name(o.matrix, &spec_check, o.gen_name, sizeof o.gen_name);
        o.matrix_name = o.gen_name;
    }
    const int missing = tl_solve_cli_partition_missing(o.partition);
    if (missing) return missing;
    /* here, exit 2, for the variable; tl_petsc_init refuses the same in a
     * .petscrc, in the run (exit 1) */
    char optname[128];
    const char *why = sb->options_env ? sb->option_refused(getenv(sb->options_env), optname, sizeof optname) : NULL;
    if (why) {
        fprintf(stderr, "%s: %s: ", PROGRAM, sb->options_env);
        fprintf(stderr, why, optname);
        fprintf(stderr, "\n");
        return 2;
    }
    const char *unfit = o.results ? tl_results_unfit(o.results) : NULL;
    if (unfit) {
        fprintf(stderr, "%s: invalid --results '%s': %s (try --help)\n", PROGRAM, o.results, unfit);
        return 2;
    }
    if (sb->no_warmup_iterations && o.warmup_iterations > 0) {
        fprintf(stderr, "%s: --warmup-iterations: not with --backend %s (%s)\n", PROGRAM, sb->name,
                sb->no_warmup_iterations);
        return 2;
    }
    /* a backend that needs MPI ranks refuses the thread launcher here, in
     * one line: refused in each thread rank, it printed a line per rank */
    const int launcher = lo.launcher == TL_LAUNCH_AUTO ? (int)tl_launch_detect() : lo.launcher;
    if (sb->mpi_only && launcher == TL_LAUNCH_THREADS) {
        fprintf(stderr, "%s: --backend %s: %s\n", PROGRAM, sb->name, sb->mpi_only);
        return 2;
    }
    if (sb->ops) {
        if (sb->ops->unavailable) {
            fprintf(stderr, "%s: --backend %s: %s\n", PROGRAM, sb->name, sb->ops->unavailable);
            return 1;
        }
        if (sb->device && (lo.no_gpu || tl_gpu_count() == 0)) {
            /* the way on, as trilap-bench's refusal gives one: a user on a
             * laptop met "no GPU visible" and nothing more */
            fprintf(stderr, "%s: --backend cuda: %s (--backend host runs the same methods on the CPU)\n", PROGRAM,
                    lo.no_gpu ? "--no-gpu was given" : "no GPU visible");
            return 1;
        }
    }
    const int outputs_rc = tl_solve_cli_outputs_refused(&o);
    if (outputs_rc) return outputs_rc;
    /* trilap's NVTX ranges reach an attached tool (nsys) in every run */
    solve_job job = {.o = &o};
    tl_probes_main pm = {.fn = tl_solve_cli_rank_main, .arg = &job, .trace = {.dir = o.trace, .cupti = o.cupti}};
    tl_launch_quiet_end(&quiet);
    int rc = tl_launch_run(PROGRAM, &lo, argc, argv, tl_probes_rank_main, &pm);
    if (rc != 0) tl_tmpfile_cleanup(); /* temporary outputs, folders made for them */
    if (rc == 0 && job.not_converged) rc = 3;
    return rc;
}
