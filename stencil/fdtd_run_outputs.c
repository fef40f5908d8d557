/* trilap-fdtd run: the files and folders the run writes (--results and
 * its manifest, --seismogram, --energy-out, --breakdown, --trace,
 * --slice-dir): a name left empty, two outputs on one path, each checked
 * before the run, their folders made. Internal to the program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/trace.h"
#include "runtime/out.h"
#include "stencil/fdtd_run_impl.h"

/* An output named by an empty string: the command line's fault, exit 2
 * (it was "--seismogram: an output file name is empty", exit 1, and for
 * --results a clash with its own manifest); 0, or 2 after one line. The
 * slice folder only where slices are taken (--slice-dir alone is refused
 * as half a pair). */
int tl_fdtd_cli_output_name_empty(const tl_optspec *spec, const fdtd_opts *o)
{
    char name[64], opt[68];
    int folder;
    if (!tl_opts_empty_output(spec, "results|seismogram|energy-out|breakdown",
                              o->slice_every > 0 ? "trace|slice-dir" : "trace", &folder, name))
        return 0;
    snprintf(opt, sizeof opt, "--%s", name);
    return tl_fdtd_cli_bad(opt, "", folder ? "an empty folder name" : "an empty file name");
}

/* The files the run writes outside its folders: --results and the
 * manifest.txt beside it, the seismogram, the energy, the breakdown (a
 * NULL path: not asked for) */
enum { RUN_NFILES = 5 };
typedef struct run_file {
    const char *option, *path;
} run_file;

static void run_files(const fdtd_opts *o, run_file f[RUN_NFILES], char *manifest, size_t nmanifest)
{
    if (o->results) tl_results_manifest_path(o->results, manifest, nmanifest);
    f[0] = (run_file){"--results", o->results};
    /* a folder's name has no manifest beside it: "--results d/" was "--results
     * (its manifest) d/manifest.txt lies under the file --results names";
     * tl_fdtd_cli_check_outputs says "a folder; give a file name" */
    int folder = o->results && *o->results && o->results[strlen(o->results) - 1] == '/';
    f[1] = (run_file){"--results (its manifest)", o->results && !folder ? manifest : NULL};
    f[2] = (run_file){"--seismogram", o->seismogram};
    f[3] = (run_file){"--energy-out", o->energy_out};
    f[4] = (run_file){"--breakdown", o->breakdown};
}

/* Every output's folder made now, and said (tl_results_make_folder, one
 * line for each that was missing): a typo in a path shows before the
 * work, not as a tree made in silence. Before, only --results' and
 * --trace's were; --seismogram, --energy-out, --breakdown and --slice-dir
 * had theirs made by the writers after the run without a word.
 * Collective. */
tl_status tl_fdtd_cli_make_output_folders(tl_ctx *ctx, const fdtd_opts *o)
{
    char manifest[4096];
    run_file f[RUN_NFILES];
    run_files(o, f, manifest, sizeof manifest); /* f[1], the manifest, goes in --results' folder */
    TL_TRY(tl_results_make_folder(ctx, f[0].option, f[0].path, TL_OUT_FOLDER_OF_FILE));
    TL_TRY(tl_results_make_folder(ctx, "--trace", o->trace, TL_OUT_FOLDER_ITSELF));
    for (int k = 2; k < RUN_NFILES; k++)
        TL_TRY(tl_results_make_folder(ctx, f[k].option, f[k].path, TL_OUT_FOLDER_OF_FILE));
    return tl_results_make_folder(ctx, "--slice-dir", o->slice_every > 0 ? o->slice_dir : NULL,
                                  TL_OUT_FOLDER_ITSELF);
}

/* A folder the run fills (out.path: the folder): the slices
 * (p-<step>.txt, every `every` steps up to `last`) or the trace
 * (trace.rank<R>.csv; every: 0) */
typedef struct run_folder {
    run_file out;
    int64_t every, last;
} run_folder;

/* Whether folder d writes a file called `name`, and its label for the
 * line that names it. The trace folder's are every name the analysis
 * reads as a rank's trace (tl_trace_rank_of_name), whatever the ranks:
 * trilap-analyze would read another file of that name as one. */
static int folder_writes(const run_folder *d, const char *name, char *label, size_t n)
{
    if (d->every == 0) {
        int rank = tl_trace_rank_of_name(name);
        if (rank >= 0) snprintf(label, n, "--trace (the trace of rank %d)", rank);
        else snprintf(label, n, "--trace (a rank trace's name)");
        return rank != -1;
    }
    char *end, own[64];
    if (strncmp(name, "p-", 2) || name[2] < '0' || name[2] > '9') return 0;
    long long step = strtoll(name + 2, &end, 10);
    snprintf(own, sizeof own, "p-%06lld.txt", step); /* the name solver.c gives it: one spelling */
    if (strcmp(own, name) || step < d->every || step > d->last || step % d->every) return 0;
    snprintf(label, n, "--slice-dir (its slice of step %lld)", step);
    return 1;
}

/* Output b on output a's path, or under it (a a file there): one line
 * naming both (runtime/out.h), 1. one: room for a set of one. */
static int lands_on(tl_out_set *one, const run_file *a, const run_file *b)
{
    one->n = 0;
    return tl_out_set_add(one, PROG, a->option, a->path) == 0 && tl_out_set_meets(one, PROG, b->option, b->path);
}

/* Output b on, or under, a file that folder d writes: one line naming
 * both (runtime/out.h, as for two files), 1. Each name in b's path is
 * tried as one of the folder's files: d/p-000010.txt, ./d/x/../p-000010.txt
 * and dlink/p-000010.txt alike. one: room for a set of one. */
static int meets_folder_files(tl_out_set *one, const run_folder *d, const run_file *b)
{
    char part[256], label[96], at[4608];
    for (const char *p = b->path, *next; *p; p = next) {
        size_t len = strcspn(p, "/");
        next = p + len + (p[len] == '/');
        if (len == 0 || len >= sizeof part) continue;
        memcpy(part, p, len);
        part[len] = '\0';
        if (!folder_writes(d, part, label, sizeof label)) continue;
        snprintf(at, sizeof at, "%s/%s", d->out.path, part);
        if (lands_on(one, &(run_file){label, at}, b)) return 1;
    }
    return 0;
}

/* Two of the run's outputs that land on one path: the command line's
 * fault (exit 2; before, 1, as if the file system had refused), said
 * before the file system is asked about any. A file on another, or under
 * it (--results r.csv --seismogram r.csv/s.csv failed after the run with
 * "r.csv is not a folder"); the trace or slice folder on or under a file
 * (--results x --trace x printed the preamble, wrote x, then failed with
 * "x is not a folder", exit 1); any output on or under a file one of
 * those folders writes (--seismogram d/p-000010.txt --slice-dir d: the
 * slice of step 10 replaced by the seismogram after the run, exit 0). */
tl_status tl_fdtd_cli_check_output_clashes(const fdtd_opts *o)
{
    char manifest[4096], at[RUN_NFILES][4096], label[RUN_NFILES][128];
    run_file files[RUN_NFILES];
    const run_folder folders[2] = {{{"--trace", o->trace}, 0, 0},
                                   {{"--slice-dir", o->slice_every > 0 ? o->slice_dir : NULL}, o->slice_every,
                                    o->warmup + o->steps}};
    tl_out_set one;
    run_files(o, files, manifest, sizeof manifest);
    for (int f = 0; f < RUN_NFILES; f++) {
        if (!files[f].path) continue;
        const char *path = tl_out_written_at(files[f].path, at[f], sizeof at[f]);
        if (strcmp(path, files[f].path)) {
            snprintf(label[f], sizeof label[f], "%s (a link to it)", files[f].option);
            files[f] = (run_file){label[f], path};
        }
        for (int e = 0; e < f; e++)
            if (files[e].path && (lands_on(&one, &files[e], &files[f]) || lands_on(&one, &files[f], &files[e])))
                return TL_ERR_INVAL;
    }
    for (int d = 0; d < 2; d++)
        for (int f = 0; f < RUN_NFILES && folders[d].out.path; f++)
            if (files[f].path && lands_on(&one, &files[f], &folders[d].out)) return TL_ERR_INVAL;
    for (int d = 0; d < 2; d++) {
        const run_file *other = &folders[1 - d].out;
        /* an empty name: tl_fdtd_cli_check_outputs says it */
        if (!folders[d].out.path || !*folders[d].out.path) continue;
        for (int f = 0; f < RUN_NFILES; f++)
            if (files[f].path && meets_folder_files(&one, &folders[d], &files[f])) return TL_ERR_INVAL;
        if (other->path && meets_folder_files(&one, &folders[d], other)) return TL_ERR_INVAL;
    }
    return TL_OK;
}

/* The files the run will write, each checked before anything runs: one
 * line naming the option and the path (an option without its partner was
 * refused already: tl_fdtd_cli_refuse_half_pairs; two on one path:
 * tl_fdtd_cli_check_output_clashes). */
tl_status tl_fdtd_cli_check_outputs(const fdtd_opts *o, const tl_fdtd_config *c)
{
    char manifest[4096];
    run_file files[RUN_NFILES];
    run_files(o, files, manifest, sizeof manifest);
    for (int f = 0; f < RUN_NFILES; f++)
        if (files[f].path) TL_TRY(tl_fdtd_cli_check_output(files[f].option, files[f].path, NULL));
    if (c->slice_every > 0) {
        char first[64];
        snprintf(first, sizeof first, "p-%06" PRId64 ".txt", c->slice_every);
        TL_TRY(tl_fdtd_cli_check_output("--slice-dir", c->slice_dir, first));
    }
    if (o->trace) TL_TRY(tl_fdtd_cli_check_output("--trace", o->trace, "trace.rank0.csv"));
    return TL_OK;
}
