/* trilap-analyze import FILE.sqlite|TRACE.json[.gz]|DIR -o DIR: an Nsight
 * Systems export or PyTorch profiler traces converted to trilap trace
 * files, DIR/trace.rank<R>.csv, one per process with CUDA activity
 * (analysis/nsys.c says how rows map) or per trace. The files are
 * written into a temporary folder (inside DIR, or where DIR is not there
 * yet, in the nearest folder above it) and moved into place when every
 * rank is written, DIR made and said then: a failure leaves DIR as it
 * was, or not there. */
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

/* The rank a written file carries and is named by, and its run's size:
 * the source's rank (a PyTorch profiler trace set may hold some ranks of a
 * run: ranks 0 and 1 of 128), or the file's place where the source does
 * not say. */
typedef struct imp_rank {
    int rank, nranks;
    int device;            /* what the written file says, for the line naming it */
    char device_name[128];
} imp_rank;

/* What the trace writer is given: the source's metadata and records with
 * the rank of the plan, and rank_subset=yes where the files hold only some
 * of the run's ranks, so the folder reads back as the source reads. */
typedef struct imp_sink {
    tl_trace_writer *w;
    imp_rank r;
    int subset;
} imp_sink;

static tl_status put_meta(void *user, const char *key, const char *value)
{
    imp_sink *k = user;
    char v[32];
    if (!strcmp(key, "rank") || !strcmp(key, "nranks")) {
        snprintf(v, sizeof v, "%d", !strcmp(key, "rank") ? k->r.rank : k->r.nranks);
        value = v;
    }
    TL_TRY(tl_trace_writer_meta(k->w, key, value));
    if (!strcmp(key, "nranks") && k->subset) TL_TRY(tl_trace_writer_meta(k->w, "rank_subset", "yes"));
    return TL_OK;
}

static tl_status put_record(void *user, const tl_trace_record *r)
{
    const imp_sink *k = user;
    tl_trace_record x = *r;
    x.rank = k->r.rank;
    return tl_trace_writer_record(k->w, &x);
}

/* The ranks of the Kineto traces (those that name theirs first, by rank):
 * their own, and the numbers left for those that name none, as every
 * command reads them (tl_an_rank_unclaimed); *subset when they are not all
 * of the run's ranks. */
static tl_status plan_kineto(char **files, size_t n, imp_rank *plan, int *subset)
{
    int world = -1, top = -1;
    for (size_t i = 0; i < n; i++) {
        int activity = 0, rank = -1, size = -1;
        TL_TRY(tl_an_kineto_head(files[i], &rank, &size, &activity));
        plan[i].rank = rank >= 0 ? rank : tl_an_rank_unclaimed(&plan[0].rank, i, sizeof *plan);
        if (size > world) world = size;
        if (plan[i].rank > top) top = plan[i].rank;
    }
    int nranks = world > top ? world : top + 1;
    *subset = (size_t)nranks != n;
    for (size_t i = 0; i < n; i++) {
        plan[i].nranks = nranks;
        *subset = *subset || plan[i].rank != (int)i;
    }
    return TL_OK;
}

static int planned(const imp_rank *plan, int n, int rank)
{
    for (int i = 0; i < n; i++)
        if (plan[i].rank == rank) return 1;
    return 0;
}

/* A rank file in DIR that the import does not replace would be read as
 * part of the run (another rank, a second file of one rank, a name the
 * reader refuses): refuse a folder holding one, before anything is
 * written. */
static tl_status check_no_conflict(const char *dir, const imp_rank *plan, int n, const char *what)
{
    DIR *d = opendir(dir);
    if (!d) return TL_OK;
    struct dirent *e;
    tl_status st = TL_OK;
    while ((e = readdir(d)) && st == TL_OK) {
        int r = tl_trace_rank_of_name(e->d_name);
        char mine[64];
        snprintf(mine, sizeof mine, "trace.rank%d.csv", r);
        if (r == -1 || (r >= 0 && planned(plan, n, r) && !strcmp(e->d_name, mine))) continue;
        if (r == -2)
            st = TL_FAIL(TL_ERR_INVAL, "%s: holds %s, a name the reader refuses beside the imported files; import "
                                       "into an empty folder", dir, e->d_name);
        else if (planned(plan, n, r))
            st = TL_FAIL(TL_ERR_INVAL, "%s: holds %s, which would be a second file of rank %d beside the imported %s; "
                                       "import into an empty folder", dir, e->d_name, r, mine);
        else
            st = TL_FAIL(TL_ERR_INVAL, "%s: holds %s, a rank %s; import into an empty folder", dir, e->d_name, what);
    }
    closedir(d);
    return st;
}

/* -o naming the input itself, or the folder of a Kineto trace given (by
 * the file, whatever the spelling): the rank files written among the
 * traces they come from would make the folder read as a trilap run (a folder holding a rank file is no Kineto
 * folder), and an export cannot be a folder. An output over an input, as
 * every program refuses one: 2 after one line; -1 to go on. */
static int refuse_out_over_in(const char *out, const char *in)
{
    struct stat so, si, sd;
    if (stat(out, &so) != 0 || stat(in, &si) != 0) return -1;
    const char *where = S_ISDIR(si.st_mode)
                            ? "among the traces they come from (the folder would then read as a trilap run)"
                            : "over the export they come from";
    const char *is = "the input";
    if (so.st_dev != si.st_dev || so.st_ino != si.st_ino) {
        /* the folder holding a Kineto trace: the rank files beside it make
         * that folder read as a trilap run, no longer a Kineto folder */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", in);
        char *slash = strrchr(dir, '/');
        if (slash) slash[slash == dir] = '\0';
        else snprintf(dir, sizeof dir, ".");
        if (!S_ISREG(si.st_mode) || stat(dir, &sd) != 0 || so.st_dev != sd.st_dev || so.st_ino != sd.st_ino ||
            !tl_an_is_kineto(in))
            return -1;
        is = "the folder of the input";
        where = "among the traces they come from (the folder would then read as a trilap run)";
    }
    fprintf(stderr,
            "trilap-analyze: -o %s is %s %s: the trace files would be written %s; give another folder "
            "(try --help)\n",
            out, is, in, where);
    return 2;
}

/* The temporary folder the ranks are written into, in tmp: inside dir
 * where it is there, else in the nearest folder above it, where dir's
 * missing folders will be made (one file system: the files are renamed
 * into dir), so that dir is made only once every rank is written. */
static tl_status staging_folder(const char *dir, char *tmp, size_t n)
{
    struct stat sb;
    char at[4096];
    if (stat(dir, &sb) == 0) {
        snprintf(at, sizeof at, "%s", dir);
    } else {
        int err = tl_out_nearest_folder(dir, at, sizeof at);
        if (err) return TL_FAIL(TL_ERR_IO, "%s: cannot write there: %s: %s", dir, at, strerror(err));
    }
    int len = snprintf(tmp, n, "%s/.import.%ld", at, (long)getpid());
    TL_CHECK(len > 0 && (size_t)len < n, TL_ERR_INVAL, "%s: a path too long", dir);
    return TL_OK;
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
    const tl_optspec spec = {.program = "trilap-analyze",
                             .command = "import",
                             .usage = "[options] FILE.sqlite|TRACE.json[.gz]|DIR -o DIR",
                             .purpose = "Convert an Nsight Systems export (nsys export --type sqlite) or PyTorch "
                                        "profiler traces to trilap trace files, one per process (rank).",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if (!o.out) {
        fprintf(stderr, "trilap-analyze: import needs -o DIR (try --help)\n");
        free(pr.positional);
        return 2;
    }
    if ((rc = refuse_out_over_in(o.out, pr.positional[0])) >= 0) {
        free(pr.positional);
        return rc;
    }
    const char *in = pr.positional[0];
    tl_status st = TL_OK;
    imp_sink sink = {0};
    imp_rank *plan = NULL;
    int nr = 0, written = 0;
    char tmpdir[4200] = "", what[96];
    /* a PyTorch profiler (Kineto) trace or a folder of them: one file per rank */
    char **kfiles = NULL;
    size_t nk = 0;
    int kineto = 0;
    TL_TRYGOTO(tl_an_kineto_run_files(in, &kfiles, &nk, &kineto), st, fail);
    if (!kineto && !tl_an_is_nsys(in)) {
        TL_TRYGOTO(tl_an_input_kind(in), st, fail);
        TL_TRYGOTO(tl_an_kineto_refuse_other(in), st, fail);
        st = TL_FAIL(TL_ERR_PARSE, "%s: not an SQLite file (nsys export --type sqlite makes one), nor a PyTorch "
                                   "profiler trace (.json, .json.gz or a folder of them)", in);
        goto fail;
    }
    if (kineto) nr = (int)nk;
    else TL_TRYGOTO(tl_an_nsys_ranks(in, &nr), st, fail);
    plan = calloc((size_t)nr, sizeof *plan);
    TL_CHECKGOTO(plan, TL_ERR_NOMEM, st, fail, "%d ranks", nr);
    for (int r = 0; r < nr; r++) plan[r] = (imp_rank){.rank = r, .nranks = nr};
    if (kineto) TL_TRYGOTO(plan_kineto(kfiles, nk, plan, &sink.subset), st, fail);
    snprintf(what, sizeof what, "the %s (%d rank%s) %s not have", kineto ? "traces" : "export", nr, nr == 1 ? "" : "s",
             kineto ? "do" : "does");
    TL_TRYGOTO(check_no_conflict(o.out, plan, nr, what), st, fail);
    /* every rank into a folder of its own first, moved into DIR when all
     * are written: a failure leaves DIR as it was */
    TL_TRYGOTO(staging_folder(o.out, tmpdir, sizeof tmpdir), st, fail);
    TL_CHECKGOTO(mkdir(tmpdir, 0777) == 0, TL_ERR_IO, st, fail, "%s: cannot create: %s", tmpdir, strerror(errno));
    TL_TRYGOTO(tl_tmpfile_add(tmpdir, TL_TMP_FOLDER), st, fail); /* an interrupt removes it too */
    for (int r = 0; r < nr; r++) {
        char path[4300];
        tl_an_meta meta;
        snprintf(path, sizeof path, "%s/trace.rank%d.csv", tmpdir, plan[r].rank);
        sink.r = plan[r];
        TL_TRYGOTO(tl_trace_writer_open(&sink.w, path), st, fail);
        if (kineto) TL_TRYGOTO(tl_an_kineto_scan(kfiles[r], put_record, &sink, &meta, put_meta, &sink, NULL), st, fail);
        else TL_TRYGOTO(tl_an_nsys_scan(in, r, o.c.iter_nvtx, put_record, &sink, &meta, put_meta), st, fail);
        TL_TRYGOTO(tl_trace_writer_close(&sink.w, 1), st, fail);
        written = r + 1;
        plan[r].device = meta.device;
        snprintf(plan[r].device_name, sizeof plan[r].device_name, "%s", meta.device_name);
    }
    /* every rank read and written: DIR's folders made now, and said
     * (made before the conversion, a refused input said the note too) */
    TL_TRYGOTO(tl_an_out_folder("--output", o.out, TL_OUT_FOLDER_ITSELF), st, fail);
    /* each file named once it is in place: a later rank's failure left
     * these lines naming files that were never there */
    for (int r = 0; r < nr; r++) {
        char from[4300], to[4300];
        snprintf(from, sizeof from, "%s/trace.rank%d.csv", tmpdir, plan[r].rank);
        snprintf(to, sizeof to, "%s/trace.rank%d.csv", o.out, plan[r].rank);
        TL_CHECKGOTO(rename(from, to) == 0, TL_ERR_IO, st, fail, "%s: cannot move into place: %s", to, strerror(errno));
        printf("trilap-analyze import: %s rank %d (device %d, %s) -> %s\n", in, plan[r].rank, plan[r].device,
               plan[r].device_name, to);
    }
fail:
    tl_an_run_files_free(&kfiles, nk);
    if (sink.w) tl_trace_writer_close(&sink.w, 0);
    if (tmpdir[0]) {
        for (int r = 0; r < written; r++) {
            char p[4300];
            snprintf(p, sizeof p, "%s/trace.rank%d.csv", tmpdir, plan[r].rank);
            remove(p); /* gone already where moved */
        }
        rmdir(tmpdir);
    }
    free(plan);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
