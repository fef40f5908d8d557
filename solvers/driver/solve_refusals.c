/* trilap-solve's refusals before any work, each one line and its exit
 * status: outputs that cannot be written or clash, options that no run
 * of this command acts on, a --partition that names nothing, empty file
 * names, text outputs under a binary name, fixed-iteration mode of no
 * iteration. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "probes/trace.h"
#include "runtime/out.h"
#include "runtime/results.h"
#include "solvers/dist/partition.h"
#include "solvers/matrix/outfile.h"
#include "solvers/methods/pipecg_async.h"
#include "solvers/driver/solve_impl.h"

/* --results or the manifest.txt beside it over an input: the clash every
 * other output gets, before the results file is read (--results A.mtx
 * A.mtx said the matrix's header was not the results', exit 1); 1 after
 * its line, else 0. */
static int results_replace_input(const char *results, const char *const *inputs, size_t ninputs)
{
    char manifest[4096];
    tl_results_manifest_path(results, manifest, sizeof manifest);
    return tl_out_replaces_input(PROGRAM, "--results", results, inputs, ninputs) ||
           tl_out_replaces_input(PROGRAM, "--results (its manifest)", manifest, inputs, ninputs);
}

/* Every file and folder the runs will write, checked before any work: a
 * bad one is one line naming the option and the path here, instead of an
 * error after the runs with the results half-written. 1 where a path
 * cannot be written (the file system's answer), 2 where the options
 * themselves clash (two outputs at one path, an output over an input, a
 * stream for several runs: they exited 1, as if the machine had failed). */
int tl_solve_cli_outputs_refused(const solve_opts *o)
{
    char path[4096];
    tl_out_set seen = {0};
    /* what the runs read, which no output may replace (a solution written
     * over the matrix it came from, A.cg.mtx, ran without a word) */
    const char *part = o->partition;
    const int part_file = strcmp(part, "auto") && tl_partition_spec_is_file(part);
    const char *const inputs[] = {strncmp(o->matrix, "gen:", 4) ? o->matrix : NULL, o->rhs, o->x0,
                                  part_file ? part : NULL};
    const size_t ninputs = sizeof inputs / sizeof inputs[0];
    const int runs = o->nschedules * o->nspmvs * o->nmethods;
    const struct {
        const char *option, *path;
    } files[] = {{"--history", o->history}, {"--solution", o->solution}};
    if (o->results && results_replace_input(o->results, inputs, ninputs)) return 2;
    if (o->results && tl_out_check_as("--results", tl_solve_results_check, o->results) != TL_OK) return 1;
    if (o->results && tl_results_set_add(&seen, PROGRAM, o->results)) return 2;
    /* the results and their manifest, for the trace folders alone: a run's
     * folder where the results file goes (--trace HC --results HC/cg with
     * a run cg) failed after the first run, "HC/cg is not a folder",
     * naming no option; kept apart from `seen`, whose room the history
     * and solution files of many runs need */
    tl_out_set beside = {0};
    if (o->results && o->trace && tl_results_set_add(&beside, PROGRAM, o->results)) return 2;
    /* the folder above the runs' (HC/cg could not be made under a file HC) */
    if (o->results && o->trace && runs > 1 && tl_out_set_meets(&beside, PROGRAM, "--trace", o->trace)) return 2;
    /* the names given, once: several runs name a file each after them
     * (tl_solve_cli_run_file_path), which a stream has not (`-` made -.cg, -.pcg)
     * and a folder should not (it made sub/.cg, sub/.pcg) */
    for (size_t f = 0; runs > 1 && f < sizeof files / sizeof files[0]; f++) {
        if (!files[f].path || !strcmp(files[f].path, "/dev/null")) continue;
        if (tl_out_in_place(files[f].path)) {
            fprintf(stderr,
                    "%s: %s %s: a stream or device takes one run's output, and this command makes %d runs; give a "
                    "file name (each run's name goes before its extension)\n",
                    PROGRAM, files[f].option, files[f].path, runs);
            return 2;
        }
        if (tl_out_check_as(files[f].option, tl_out_check, files[f].path) != TL_OK) return 1;
    }
    for (int c = 0; c < o->nschedules; c++)
        for (int v = 0; v < o->nspmvs; v++)
            for (int k = 0; k < o->nmethods; k++) {
                const solve_run run = {.method = o->methods[k], .schedule = o->schedules[c], .spmv = &o->spmvs[v]};
                if (o->trace) {
                    tl_solve_cli_run_trace_folder(path, sizeof path, o, &run);
                    if (tl_out_check_as("--trace", tl_out_check_folder, path) != TL_OK) return 1;
                    char name[256], what[64];
                    tl_solve_cli_run_name(name, sizeof name, o, &run);
                    snprintf(what, sizeof what, name[0] ? "--trace (run %.30s's folder)" : "--trace", name);
                    /* each folder against the results only */
                    if (o->results && tl_out_set_meets(&beside, PROGRAM, what, path)) return 2;
                    /* and against the rank files the folder gets (--results HC/trace.rank0.csv
                     * failed after the run on the trace's header) */
                    const char *slash = o->results ? strrchr(o->results, '/') : NULL;
                    const char *base = slash ? slash + 1 : o->results;
                    if (base && tl_trace_rank_of_name(base) >= 0) {
                        char file[4400];
                        snprintf(file, sizeof file, "%s/%s", path, base);
                        snprintf(what, sizeof what, name[0] ? "--trace (run %.30s's rank file)" : "--trace (its rank file)",
                                 name);
                        if (tl_out_set_meets(&beside, PROGRAM, what, file)) return 2;
                    }
                }
                for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
                    if (!files[f].path) continue;
                    tl_solve_cli_run_file_path(path, sizeof path, files[f].path, o, &run);
                    if (tl_out_check_as(files[f].option, tl_out_check, path) != TL_OK) return 1;
                    if (tl_out_replaces_input(PROGRAM, files[f].option, path, inputs, ninputs) ||
                        tl_out_set_add(&seen, PROGRAM, files[f].option, path))
                        return 2;
                }
            }
    return 0;
}

/* The options the CUDA backend alone acts on, given to another backend
 * (where they used to be taken and do nothing), and --cupti without a
 * trace to put its records in: one line, 1 when refused. */
int tl_solve_cli_device_options_refused(const solve_opts *o, const tl_optresult *res, const solve_backend *sb)
{
    if (o->cupti && !o->trace) {
        fprintf(stderr, "%s: --cupti without --trace DIR: the kernel records would go nowhere\n", PROGRAM);
        return 1;
    }
    if (sb->device) return 0;
    const struct {
        const char *name;
        const void *field;
    } device_only[] = {
        {"cupti", &o->cupti},
        {"spmv", &o->spmv},
        {"cusparse-alg", &o->cusparse_alg},
        {"spmv-threads-per-row", &o->spmv_tpr},
        {"stream-priorities", &o->stream_priorities},
        {"split-max-ctas", &o->split_max_ctas},
        {"split-min-ctas", &o->split_min_ctas},
        {"op-timer", &o->op_timer},
        {"op-timer-every", &o->op_timer_every},
        {"fuse", &o->fuse},
        {"fuse-tail", &o->fuse_tail},
        {"prefetch", &o->prefetch},
        {"pdl", &o->pdl},
        {"persistent", &o->persistent},
        {"regs-copy", &o->regs_copy},
    };
    for (size_t i = 0; i < sizeof device_only / sizeof device_only[0]; i++)
        if (tl_opts_given(res, device_only[i].field)) {
            fprintf(stderr, "%s: --%s acts only with --backend cuda (this run: --backend %s)\n", PROGRAM,
                    device_only[i].name, sb->name);
            return 1;
        }
    return 0;
}

/* Whether method m is one a message lists: its scalar program is
 * `program` (NULL: any scalar program); with `replaces`, it replaces its
 * residual periodically instead. */
typedef struct method_filter {
    tl_method_fn program;
    int replaces;
} method_filter;

static int method_kept(const tl_method *m, method_filter f)
{
    if (f.replaces) return m->periodic_replacement;
    tl_method_fn fn = m->variants[TL_VARIANT_PROGRAM];
    return fn && (!f.program || fn == f.program);
}

/* "a, b and c": the methods the filter keeps, in the table's order. */
static const char *methods_where(char *buf, size_t n, method_filter f)
{
    const tl_method *with[8];
    int k = 0;
    for (int i = 0; i < tl_nmethods && k < 8; i++)
        if (method_kept(&tl_methods[i], f)) with[k++] = &tl_methods[i];
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i == 0 ? "" : i + 1 == k ? " and " : ", ", with[i]->name);
    return buf;
}

/* A replacement interval above every solve's iteration limit: the run is
 * pipebicgstab's without replacement, which its output ("residual
 * replacement: every N iterations") did not say. pipebicgstab replaces
 * after iterations N, 2N, 3N, ... (its `(it + 1) % N`). */
static void note_replacement_unreached(const solve_opts *o)
{
    int64_t limit = o->max_iterations;
    const char *which = "--max-iterations";
    if (o->warmup > 0 && o->warmup_iterations > limit) {
        limit = o->warmup_iterations;
        which = "--warmup-iterations";
    }
    if (o->residual_replacement <= limit) return;
    fprintf(stderr, "%s: note: --residual-replacement %lld is above %s %lld: no solve reaches its first "
            "replacement, so it has no effect\n", PROGRAM, (long long)o->residual_replacement, which,
            (long long)limit);
}

/* Options that act on some runs only, typed where none of this invocation's
 * runs would act on them (before: taken and ignored): trilap's method
 * options with a backend that runs a solver of its own (--backend petsc:
 * PETSc's KSP), --warmup-iterations with no warm-up solve, --check-every
 * where no run is a scalar program, --spmv-dot where no cg or pcg run is,
 * --residual-replacement where no run replaces its residual periodically.
 * A run is a scalar program when its method has one and --scalars is
 * program, or auto on a backend with device scalars (cuda), as
 * tl_method_choose decides. One line, 1 when refused. */
int tl_solve_cli_run_options_refused(const solve_opts *o, const tl_optresult *res, const solve_backend *sb)
{
    const char *spmv_dot = o->spmv_dot ? "spmv-dot" : "no-spmv-dot"; /* as typed: the last one counts */
    if (sb->own_solver) {
        const struct {
            const char *name;
            const void *field;
            const char *why;
        } trilap_only[] = {
            {"schedule", &o->schedule, "trilap's schedules do not apply"},
            {"scalars", &o->scalars, "trilap's scalar programs do not apply"},
            {"check-every", &o->check_every, "trilap's scalar programs do not apply"},
            {spmv_dot, &o->spmv_dot, "trilap's (p, A p) in the product's pass does not apply"},
            {"omp-threads", &o->omp_threads, "trilap's OpenMP loops do not apply"},
            {"residual-replacement", &o->residual_replacement,
             "its KSPPIPEBCGS replaces the residual on its own (every 100 iterations up to 1000)"},
            {"history", &o->history, "it gives trilap no residual history (the file held a header only)"},
            {"monitor", &o->monitor, "it gives trilap no residual history to print"},
            {"trace", &o->trace, "it records no trilap operation ranges (the trace held no records)"},
        };
        for (size_t i = 0; i < sizeof trilap_only / sizeof trilap_only[0]; i++)
            if (tl_opts_given(res, trilap_only[i].field)) {
                fprintf(stderr, "%s: --%s: --backend %s %s; %s\n", PROGRAM, trilap_only[i].name, sb->name,
                        sb->own_solver, trilap_only[i].why);
                return 1;
            }
    }
    if (o->warmup == 0 && tl_opts_given(res, &o->warmup_iterations)) {
        fprintf(stderr, "%s: --warmup-iterations acts only on warm-up solves (this run: --warmup 0)\n", PROGRAM);
        return 1;
    }
    if (sb->own_solver) return 0;
    if (tl_opts_given(res, &o->residual_replacement)) {
        int acts = 0;
        for (int k = 0; k < o->nmethods; k++) acts |= o->methods[k]->periodic_replacement;
        if (!acts) {
            char names[128];
            fprintf(stderr, "%s: --residual-replacement acts only on %s (this run: --solver %s)\n", PROGRAM,
                    methods_where(names, sizeof names, (method_filter){.replaces = 1}), o->solver);
            return 1;
        }
        note_replacement_unreached(o);
    }
    /* the device backend is the one with device scalars (ops->scalars):
     * named by its row, so that a build without CUDA refuses the same */
    int program = o->scalars == TL_ASK_SCALARS_PROGRAM || (o->scalars == TL_ASK_SCALARS_AUTO && sb->device);
    char scalars[96];
    if (o->scalars == TL_ASK_SCALARS_AUTO && !program)
        snprintf(scalars, sizeof scalars, "auto: host with --backend %s", sb->name);
    else
        snprintf(scalars, sizeof scalars, "%s", scalars_names[o->scalars]);
    const struct {
        const char *name;
        const void *field;
        tl_method_fn program; /* NULL: any scalar program */
    } program_only[] = {
        {"check-every", &o->check_every, NULL},
        {spmv_dot, &o->spmv_dot, tl_method_cg_async},
    };
    for (size_t i = 0; i < sizeof program_only / sizeof program_only[0]; i++) {
        if (!tl_opts_given(res, program_only[i].field)) continue;
        int acts = 0;
        for (int k = 0; k < o->nmethods && program && !acts; k++) {
            tl_method_fn fn = o->methods[k]->variants[TL_VARIANT_PROGRAM];
            acts = fn && (!program_only[i].program || fn == program_only[i].program);
        }
        if (acts) continue;
        char names[128];
        fprintf(stderr, "%s: --%s acts only on the scalar programs of %s (this run: --solver %s, --scalars %s)\n",
                PROGRAM, program_only[i].name, methods_where(names, sizeof names, (method_filter){.program = program_only[i].program}),
                o->solver, scalars);
        return 1;
    }
    return 0;
}

/* A --partition that names no method and no file that exists, before the
 * launch (it was refused in the run, exit 1): a name with a folder or an
 * extension (part.mtx, dir/part) is a missing input, exit 1 in the words
 * of a missing matrix; another (metsi) a typo of a method, exit 2. 0 when
 * the spec is a method or a file that exists. */
int tl_solve_cli_partition_missing(const char *spec)
{
    if (!strcmp(spec, "auto") || !tl_partition_spec_is_file(spec) || access(spec, F_OK) == 0) return 0;
    const int err = errno;
    if (strchr(spec, '/') || strchr(spec, '.')) {
        fprintf(stderr, "%s: --partition: %s: cannot open: %s\n", PROGRAM, spec, strerror(err));
        return 1;
    }
    fprintf(stderr, "%s: invalid --partition '%s': not block, metis or metis-recursive, and no file of that name "
            "(try --help)\n", PROGRAM, spec);
    return 2;
}

/* An empty name for an input or an output is the command line's fault,
 * said as trilap-matgen and trilap-bench say it (an input's was ": cannot
 * open", exit 1, naming none; an output's "--results: an output file name
 * is empty", exit 1); 0, or 2 after the line. */
int tl_solve_cli_file_name_empty(const tl_optspec *spec, const solve_opts *o)
{
    const struct {
        const char *what, *name;
    } in[] = {{"matrix", o->matrix}, {"b", o->rhs}, {"x0", o->x0}, {"--partition", o->partition}};
    char what[68], name[64];
    const char *empty = NULL;
    for (size_t k = 0; k < sizeof in / sizeof in[0] && !empty; k++)
        if (in[k].name && !in[k].name[0]) empty = in[k].what;
    if (!empty && tl_opts_empty_output(spec, "results|history|solution", "trace", NULL, name)) {
        snprintf(what, sizeof what, "--%s", name);
        empty = what;
    }
    if (!empty) return 0;
    fprintf(stderr, "%s: invalid %s '': an empty file name (try --help)\n", PROGRAM, empty);
    return 2;
}

/* An output of text under a .tlcsr name: every reader took the file for a
 * broken binary matrix (--solution x.tlcsr wrote Matrix Market text so,
 * exit 0), as trilap-matgen refuses its --rhs; 2 after one line, else 0. */
int tl_solve_cli_output_named_binary(const solve_opts *o)
{
    int rc = tl_path_refuse_text_binary(PROGRAM, "--solution", o->solution, "x", TL_TEXT_MATRIX_MARKET);
    return rc ? rc : tl_path_refuse_text_binary(PROGRAM, "--history", o->history, "the history", TL_TEXT_CSV);
}

/* Fixed-iteration mode runs exactly --max-iterations iterations: 0 timed
 * no iteration, and its results row said 0 us an iteration (exit 0); 2
 * after one line, else 0. */
int tl_solve_cli_fixed_iterations_refused(const solve_opts *o)
{
    if (o->rtol != 0 || o->atol != 0 || o->max_iterations != 0) return 0;
    fprintf(stderr, "%s: --max-iterations 0 with --rtol 0 --atol 0: fixed-iteration mode runs exactly "
            "--max-iterations iterations, and 0 times none (give N >= 1)\n", PROGRAM);
    return 2;
}
