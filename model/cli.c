#include "model/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"

void tl_mcli_preamble(FILE *out, const tl_mcli *cli, const char *sub, const tl_mcalib *c, const char *calib_path)
{
    fprintf(out, "# program: trilap-model %s\n", sub);
    fprintf(out, "# version: %s\n# commit: %s\n", TL_VERSION, TL_GIT_COMMIT);
    fprintf(out, "# engine: SimGrid (CM02 network model: latency + size / shared bandwidth, max-min sharing)\n");
    fprintf(out, "# PREDICTION: every time below is simulated, not measured\n");
    if (calib_path) fprintf(out, "# calibration: %s\n", calib_path);
    if (c && c->source[0]) fprintf(out, "# calibrated on: %s\n", c->source);
    if (c) tl_mcalib_print(c, out, "# calib: ");
    if (c) tl_mcalib_print_origins(c, out, "# from: ");
    if (cli->spec) tl_opts_echo(cli->spec, out, "# opt: ");
}

const char *tl_mcli_tree_path(const char *path, int given, char *buf, size_t n)
{
    snprintf(buf, n, "%s", path);
    /* a default is this program's tree's file first: from inside another
     * checkout, that checkout's results/ were read in silence */
    if (path[0] == '/' || (given && access(path, F_OK) == 0)) return buf;
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return buf;
    exe[k] = '\0';
    for (int up = 0; up < 2; up++) { /* .../bin/trilap-model -> ... */
        char *slash = strrchr(exe, '/');
        if (!slash) return buf;
        *slash = '\0';
    }
    char tree[8300];
    snprintf(tree, sizeof tree, "%s/%s", exe, path);
    if (access(tree, F_OK) != 0) /* installed: PREFIX/share/trilap holds what make install copies */
        snprintf(tree, sizeof tree, "%s/share/trilap/%s", exe, path);
    struct stat here, there;
    /* run from the tree itself: the name as given, which reports print */
    const int same = stat(path, &here) == 0 && stat(tree, &there) == 0 && here.st_dev == there.st_dev &&
                     here.st_ino == there.st_ino;
    if (!same && access(tree, F_OK) == 0) snprintf(buf, n, "%s", tree);
    return buf;
}

tl_status tl_mcsv_begin(tl_mcsv *w, const tl_mcli *cli, const char *path, const char *header, const char *extra)
{
    memset(w, 0, sizeof *w);
    if (!path) return TL_OK;
    TL_CHECK(cli->ctx, TL_ERR_INVAL, "--results %s: no rank context for its manifest", path);
    w->path = path;
    w->header = header;
    w->ctx = cli->ctx;
    /* its folder made now and said, as the measuring programs' are: it
     * was made in silence as the manifest began */
    TL_TRY(tl_results_make_folder(w->ctx, "--results", path, TL_OUT_FOLDER_OF_FILE));
    return tl_manifest_begin(w->ctx, path, header, extra, &w->mr);
}

tl_status tl_mcsv_row(tl_mcsv *w, const char *fmt, ...)
{
    if (!w->path) return TL_OK;
    char row[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(row, sizeof row, fmt, ap);
    va_end(ap);
    TL_CHECK(n >= 0 && (size_t)n < sizeof row, TL_ERR_INVAL, "%s: a row of %d bytes, more than %zu", w->path, n,
             sizeof row - 1);
    return tl_results_append(w->path, w->header, row, &w->rows);
}

tl_status tl_mcsv_end(tl_mcsv *w, int ok)
{
    if (!w->path) return TL_OK;
    tl_status st = TL_OK;
    if (ok)
        st = tl_manifest_end(w->ctx, &w->mr, &w->rows, NULL);
    else
        tl_manifest_abort(w->ctx, &w->mr, &w->rows);
    w->path = NULL;
    return st;
}

int tl_mcli_int_list(const char *text, int *out, int max, int hi, char *why, size_t n)
{
    int k = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (len == 0) {
            snprintf(why, n, "an empty entry");
            return 0;
        }
        if (end != p + len || p[0] == ' ' || p[0] == '+') {
            snprintf(why, n, "'%.*s' is not a whole number", (int)len, p);
            return 0;
        }
        if (errno == ERANGE || v < 1 || v > hi) {
            snprintf(why, n, "%.*s is out of range [1, %d]", (int)len, p, hi);
            return 0;
        }
        if (k == max) {
            snprintf(why, n, "more than %d entries", max);
            return 0;
        }
        /* as --schedules: a repeated count was simulated twice */
        for (int i = 0; i < k; i++)
            if (out[i] == v) {
                snprintf(why, n, "%ld is listed twice: each count once", v);
                return 0;
            }
        out[k++] = (int)v;
        if (!p[len]) break;
        p += len + 1;
    }
    return k;
}

/* An empty file name, output or input; stdout for --results, which
 * carries the table (a CSV there would be shuffled into it): 2, said in
 * one line; else 0. */
static int file_names_refused(const tl_optspec *spec)
{
    /* the command line's fault, as trilap-solve, trilap-fdtd and
     * trilap-bench say it (an output was "--out: an output file name is
     * empty", exit 1, as if the work had failed; an input such as --calib
     * '' was looked for as the tree's own folder: "calibration
     * /work/trilap/: a folder, not a calibration file", exit 1) */
    char name[64];
    if (tl_opts_empty_output(spec, "out|results|calib|matrix|platform-file|tristream|traces|comm|stream", "", NULL,
                             name)) {
        tl_mcli_error("invalid --%s '': an empty file name", name);
        return 2;
    }
    const char *v = tl_opts_string_of(spec, "results");
    if (v && (!strcmp(v, "-") || !strcmp(v, "/dev/stdout"))) {
        tl_mcli_error("invalid --results '%s': stdout carries the table; give the CSV a file name", v);
        return 2;
    }
    return 0;
}

int tl_mcli_parse(tl_mcli *cli, const tl_optspec *spec, int argc, char **argv)
{
    tl_optresult res;
    if (tl_opts_parse(spec, argc, argv, &res) != TL_OK) return 2;
    cli->ngiven = 0;
    for (int i = 0; i < res.ngiven && cli->ngiven < (int)(sizeof cli->given / sizeof cli->given[0]); i++)
        cli->given[cli->ngiven++] = res.given[i];
    free(res.positional);
    if (res.exit_now) return 0;
    int bad = file_names_refused(spec);
    if (bad) return bad;
    /* before the simulations: not an error after them */
    if (tl_opts_outputs_refused(spec, "out|results", "")) return 1;
    cli->spec = spec;
    return -1;
}

int tl_mcli_outputs_refused(const tl_mcli *cli, const char *results_header, const char *const *inputs,
                            size_t ninputs)
{
    const char *program = cli->spec->program;
    const char *out = tl_opts_string_of(cli->spec, "out");
    if (out && tl_out_replaces_input(program, "--out", out, inputs, ninputs)) return 1;
    /* a calibration or a platform is read back by --calib or
     * --platform-file as plain text: c.txt.gz held plain text */
    if (out && tl_out_names_gzip(out)) {
        tl_mcli_error("invalid --out '%s': a gzip name, and this file is read back as plain text (--calib, "
                      "--platform-file); give it a plain name",
                      out);
        return 2;
    }
    const char *results = results_header ? tl_opts_string_of(cli->spec, "results") : NULL;
    if (!results) return 0;
    char manifest[4096];
    tl_results_manifest_path(results, manifest, sizeof manifest);
    if (tl_out_replaces_input(program, "--results", results, inputs, ninputs) ||
        tl_out_replaces_input(program, "--results (its manifest.txt)", manifest, inputs, ninputs))
        return 1;
    /* rows of another header are refused here, not after the simulations */
    tl_error_context k;
    tl_error_context_begin(&k, "--results");
    tl_status st = tl_results_check(results, results_header);
    tl_error_context_end(&k);
    return st != TL_OK;
}

int tl_mcli_out_folder_unmade(const tl_mcli *cli, const char *out)
{
    tl_error_context k;
    tl_error_context_begin(&k, "--out");
    tl_status st = tl_out_make_folder(cli->spec->program, "--out", out, TL_OUT_FOLDER_OF_FILE);
    tl_error_context_end(&k);
    return st != TL_OK;
}

int tl_mcli_given(const tl_mcli *cli, const void *field)
{
    for (int i = 0; i < cli->ngiven; i++)
        if (cli->given[i] == field) return 1;
    return 0;
}
