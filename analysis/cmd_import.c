/* trilap-analyze import FILE.sqlite -o DIR: an Nsight Systems export
 * converted to trilap trace files, DIR/trace.rank<R>.csv, one per process
 * with CUDA activity (analysis/nsys.c says how rows map). The files are
 * written into a temporary folder inside DIR and moved into place when
 * every rank is written, so a failure leaves DIR as it was. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/cli.h"
#include "runtime/results.h"
#include "runtime/tmpfile.h"

typedef struct imp_opts {
    const char *out;
    tl_an_common c;
} imp_opts;

static tl_status put_meta(void *user, const char *key, const char *value)
{
    return tl_trace_writer_meta(user, key, value);
}

static tl_status put_record(void *user, const tl_trace_record *r)
{
    return tl_trace_writer_record(user, r);
}

/* A trace file of a rank the export does not have would be read as part of
 * the run: refuse a folder holding one. */
static tl_status check_no_stale(const char *dir, int nranks)
{
    DIR *d = opendir(dir);
    if (!d) return TL_OK;
    struct dirent *e;
    tl_status st = TL_OK;
    while ((e = readdir(d))) {
        int r = -1, n = 0;
        if (sscanf(e->d_name, "trace.rank%d.csv%n", &r, &n) == 1 && e->d_name[n] == '\0' && r >= nranks) {
            st = TL_FAIL(TL_ERR_INVAL, "%s: holds %s, a rank the export (%d rank%s) does not have; import into an "
                                       "empty folder", dir, e->d_name, nranks, nranks == 1 ? "" : "s");
            break;
        }
    }
    closedir(d);
    return st;
}

int tl_an_cmd_import(int argc, char **argv)
{
    imp_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "output", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(imp_opts, out),
         .metavar = "DIR", .help = "folder for trace.rank<R>.csv (required; made if missing)"},
    };
    const tl_optgroup groups[] = {
        {.title = "import", .opts = own, .nopts = 1, .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze import", .usage = "[options] FILE.sqlite|TRACE.json[.gz]|DIR -o DIR",
                             .purpose = "Convert an Nsight Systems export (nsys export --type sqlite) or PyTorch "
                                        "profiler traces to trilap trace files, one per process (rank).",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if (!o.out) {
        fprintf(stderr, "trilap-analyze import: -o DIR is required (try --help)\n");
        free(pr.positional);
        return 2;
    }
    const char *in = pr.positional[0];
    tl_status st = TL_OK;
    tl_trace_writer *w = NULL;
    int nr = 0, written = 0;
    char tmpdir[1100] = "";
    /* a PyTorch profiler (Kineto) trace or a folder of them: one file per rank */
    char **kfiles = NULL;
    size_t nk = 0;
    int kineto = 0;
    TL_TRYGOTO(tl_an_kineto_run_files(in, &kfiles, &nk, &kineto), st, fail);
    if (!kineto && !tl_an_is_nsys(in)) TL_TRYGOTO(tl_an_input_kind(in), st, fail);
    TL_CHECKGOTO(kineto || tl_an_is_nsys(in), TL_ERR_PARSE, st, fail, "%s: not an SQLite file (nsys export "
                 "--type sqlite makes one), nor a PyTorch profiler trace (.json, .json.gz or a folder of them)", in);
    if (kineto) nr = (int)nk;
    else TL_TRYGOTO(tl_an_nsys_ranks(in, &nr), st, fail);
    TL_TRYGOTO(check_no_stale(o.out, nr), st, fail);
    TL_TRYGOTO(tl_mkdir_p(o.out), st, fail); /* registered: removed again if the import fails */
    /* every rank into a folder of its own first, moved into DIR when all
     * are written: a failure leaves DIR as it was */
    snprintf(tmpdir, sizeof tmpdir, "%s/.import.%ld", o.out, (long)getpid());
    TL_CHECKGOTO(mkdir(tmpdir, 0777) == 0, TL_ERR_IO, st, fail, "%s: cannot create: %s", tmpdir, strerror(errno));
    TL_TRYGOTO(tl_tmpfile_add(tmpdir, TL_TMP_FOLDER), st, fail); /* an interrupt removes it too */
    for (int r = 0; r < nr; r++) {
        char path[2200];
        tl_an_meta meta;
        snprintf(path, sizeof path, "%s/trace.rank%d.csv", tmpdir, r);
        TL_TRYGOTO(tl_trace_writer_open(&w, path), st, fail);
        if (kineto) TL_TRYGOTO(tl_an_kineto_scan(kfiles[r], put_record, w, &meta, put_meta), st, fail);
        else TL_TRYGOTO(tl_an_nsys_scan(in, r, put_record, w, &meta, put_meta), st, fail);
        TL_TRYGOTO(tl_trace_writer_close(&w, 1), st, fail);
        written = r + 1;
        printf("trilap-analyze import: %s rank %d (device %d, %s) -> %s/trace.rank%d.csv\n", in, r, meta.device,
               meta.device_name, o.out, r);
    }
    for (int r = 0; r < nr; r++) {
        char from[2200], to[2200];
        snprintf(from, sizeof from, "%s/trace.rank%d.csv", tmpdir, r);
        snprintf(to, sizeof to, "%s/trace.rank%d.csv", o.out, r);
        TL_CHECKGOTO(rename(from, to) == 0, TL_ERR_IO, st, fail, "%s: cannot move into place: %s", to, strerror(errno));
    }
fail:
    tl_an_run_files_free(&kfiles, nk);
    if (w) tl_trace_writer_close(&w, 0);
    if (tmpdir[0]) {
        for (int r = 0; r < written; r++) {
            char p[2200];
            snprintf(p, sizeof p, "%s/trace.rank%d.csv", tmpdir, r);
            remove(p); /* gone already where moved */
        }
        rmdir(tmpdir);
    }
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
