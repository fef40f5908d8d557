/* A PyTorch profiler run's traces: which inputs are Kineto traces (by
 * their text, and the names a folder's traces go by), a folder's traces
 * listed and ordered by rank (one run: each rank once, one world size,
 * some GPU activity), and why an input that is none is no trace. */
#include "analysis/kineto_impl.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "analysis/grow.h"
#include "probes/trace.h" /* tl_trace_rank_of_name */
#include "runtime/out.h"

int tl_an_json_name(const char *name)
{
    /* in any case, as .gz is everywhere in trilap: a folder of RANK0.JSON
     * or x.JSON.GZ read as holding no trace */
    size_t len = strlen(name);
    if (tl_out_names_gzip(name)) len -= 3;
    return len > 5 && !strncasecmp(name + len - 5, ".json", 5);
}

/* A Kineto trace: a file whose (decompressed) text starts with '{'. */
int tl_an_is_kineto(const char *path)
{
    if (tl_an_is_special(path)) return 0; /* opening a FIFO would wait for a writer */
    /* gzip whatever the name: torch.profiler writes X.json.gz, and a copy
     * renamed X.json was refused as "not a trace" */
    char head[4096];
    int gz = 0;
    long got = tl_gzin_peek(path, head, sizeof head, &gz);
    for (long i = 0; i < got; i++)
        if (head[i] != ' ' && head[i] != '\n' && head[i] != '\r' && head[i] != '\t') return head[i] == '{';
    /* gzip unreadable from the start (or in a build without zlib): the
     * name decides, and loading says what is wrong */
    return gz && tl_an_json_name(path);
}

typedef struct rank_file {
    int rank, world, activity; /* tl_an_kineto_head */
    char *path;
} rank_file;

static int cmp_rank_file(const void *a, const void *b)
{
    const rank_file *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->path, y->path);
}

#define KT_NO_ACTIVITY "no GPU or host activity recorded (traceEvents hold no kernel, copy, memset, sync, " \
                       "ProfilerStep or collective): nothing to analyse"
#define KT_NO_GPU "no GPU activity recorded (traceEvents hold steps or CPU operators but no kernel, copy or " \
                  "memset: a profile of the CPU only): nothing to analyse; profile with " \
                  "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"

/* A trace (or a run's traces) the analysis can give figures of: GPU
 * activity somewhere (tl_kt_activity). */
static tl_status check_activity(const char *what, int activity)
{
    TL_CHECK(activity != TL_KT_NONE, TL_ERR_PARSE, "%s: %s", what, KT_NO_ACTIVITY);
    TL_CHECK(activity == TL_KT_GPU, TL_ERR_PARSE, "%s: %s", what, KT_NO_GPU);
    return TL_OK;
}

/* A folder entry that is a trilap rank file (the folder is then a trilap
 * run, whose JSON files are Perfetto exports and manifests); a rank claim
 * an injected process left (trace.rank<R>.claim) is none. */
static int trilap_rank_file(const char *name) { return tl_trace_rank_of_name(name) != -1; }

/* Why a file's text is no Kineto trace, as its first bytes say: 1 with why
 * filled (gzip inside gzip, text that is no JSON object), else 0. */
static int file_why_not(const char *path, char *why, size_t n)
{
    unsigned char head[4096];
    int gz = 0;
    long got = tl_gzin_peek(path, head, sizeof head, &gz);
    if (tl_gzin_inside(head, got, gz)) {
        tl_gzin_twice_why(path, why, n); /* the words of every reader (runtime/gzin.c) */
        return 1;
    }
    /* the text: said of a file named as a trace (a CSV given to overlap is
     * not told about JSON) */
    const char *slash = strrchr(path, '/');
    if (!tl_an_json_name(slash ? slash + 1 : path)) return 0;
    long i = 0;
    while (i < got && tl_json_blank(head[i])) i++;
    if (i >= got || head[i] == '{') return 0;
    char first[16] = "binary data";
    if (head[i] >= 0x20 && head[i] < 0x7f) snprintf(first, sizeof first, "'%c'", head[i]);
    snprintf(why, n, "its %stext begins with %s, not '{': a PyTorch profiler (Kineto) trace is one JSON object holding "
                     "traceEvents", gz == 1 ? "decompressed " : "", first);
    return 1;
}

static tl_status why_not(const char *path, char *why, size_t n, int *is)
{
    *is = 0;
    struct stat sb;
    if (stat(path, &sb) != 0 || tl_an_is_special(path)) return TL_OK;
    if (S_ISREG(sb.st_mode)) {
        *is = file_why_not(path, why, n);
        return TL_OK;
    }
    DIR *d = S_ISDIR(sb.st_mode) ? opendir(path) : NULL;
    if (!d) return TL_OK;
    /* the first .json by name (readdir's order is the file system's) */
    size_t njson = 0;
    char first[256] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (trilap_rank_file(e->d_name)) { /* a trilap run: its own reader says what is wrong */
            njson = 0;
            break;
        }
        if (!tl_an_json_name(e->d_name)) continue;
        njson++;
        if (!first[0] || strcmp(e->d_name, first) < 0) snprintf(first, sizeof first, "%s", e->d_name);
    }
    closedir(d);
    if (!njson) return TL_OK;
    char file[4352], one[320];
    snprintf(file, sizeof file, "%s/%s", path, first);
    if (!file_why_not(file, one, sizeof one)) {
        /* read for what it is instead of a trace; a file the reader
         * refuses (empty, no JSON) is refused in the reader's line, which
         * names it and why, and no line of the folder's follows */
        int rank, world, activity;
        const char *other = NULL;
        TL_TRY(tl_kt_head_read(file, &rank, &world, &activity, &other));
        if (!other) return TL_OK;
        snprintf(one, sizeof one, "%s", other);
    }
    snprintf(why, n, "no PyTorch profiler (Kineto) trace among its %zu .json file%s (%s: %s)", njson,
             njson == 1 ? "" : "s", first, one);
    *is = 1;
    return TL_OK;
}

tl_status tl_an_kineto_refuse_other(const char *path)
{
    char why[512];
    int is = 0;
    TL_TRY(why_not(path, why, sizeof why, &is));
    TL_CHECK(!is, TL_ERR_PARSE, "%s: %s", path, why);
    return TL_OK;
}

int tl_an_is_kineto_run(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return 0;
    if (S_ISREG(sb.st_mode)) return tl_an_is_kineto(path);
    DIR *d = S_ISDIR(sb.st_mode) ? opendir(path) : NULL;
    if (!d) return 0;
    int kineto = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (trilap_rank_file(e->d_name)) {
            kineto = 0;
            break;
        }
        if (kineto || !tl_an_json_name(e->d_name)) continue;
        char file[4096];
        if (snprintf(file, sizeof file, "%s/%s", path, e->d_name) < (int)sizeof file) kineto = tl_an_is_kineto(file);
    }
    closedir(d);
    return kineto;
}

/* A folder's .json that no reader can open (a dangling link, a folder, a
 * pipe or a device, no permission) or that holds nothing refused, in the
 * reader's own line: it may be a rank's trace (an empty one: a rank killed
 * before its profiler wrote), and the run read without it would be a run
 * short. */
static tl_status refuse_unreadable(const char *path)
{
    if (tl_an_is_special(path)) return TL_FAIL(TL_ERR_PARSE, "%s: a pipe or a device: traces are read from files", path);
    tl_gzin *in = NULL;
    TL_TRY(tl_gzin_open(path, &in));
    char c;
    size_t got = 0;
    tl_status st = tl_gzin_read(in, &c, 1, &got, NULL); /* damage: the reader's line */
    tl_gzin_close(in);
    TL_TRY(st);
    TL_CHECK(got, TL_ERR_PARSE, "%s: empty file: not a Kineto JSON trace", path);
    return TL_OK; /* readable after all (it changed since the listing): left out, as a file that is no trace */
}

/* Whether a folder's .json that is no Kineto trace cannot be read at all
 * or is empty (rather than holding other text). */
static int unreadable(const char *path)
{
    char c;
    int gz = 0;
    return tl_an_is_special(path) || tl_gzin_peek(path, &c, 1, &gz) <= 0;
}

/* The Kineto traces of a folder, unordered (*n = 0: none, or the folder
 * is a trilap run). A .json that cannot be read is refused once the
 * listing has found the folder to be no trilap run, whose reader says what
 * is wrong with it instead. */
static tl_status list_json(const char *dir, DIR *d, rank_file **out, size_t *nout)
{
    tl_status st = TL_OK;
    rank_file *rf = NULL;
    size_t n = 0, cap = 0;
    char *bad = NULL; /* the first .json that cannot be read */
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (trilap_rank_file(e->d_name)) {
            for (size_t i = 0; i < n; i++) free(rf[i].path);
            n = 0;
            free(bad);
            bad = NULL;
            break;
        }
        if (!tl_an_json_name(e->d_name)) continue;
        char *p = malloc(strlen(dir) + len + 2);
        TL_CHECKGOTO(p, TL_ERR_NOMEM, st, fail, "path");
        sprintf(p, "%s/%s", dir, e->d_name);
        if (tl_an_is_special(p) || !tl_an_is_kineto(p)) { /* opening a FIFO would wait for a writer */
            if (!bad && unreadable(p)) bad = p;
            else free(p);
            continue;
        }
        st = TL_AN_GROW(rf, n, cap, "files");
        if (st != TL_OK) {
            free(p);
            goto fail;
        }
        rf[n++] = (rank_file){.rank = -1, .world = -1, .path = p};
    }
    if (bad) TL_TRYGOTO(refuse_unreadable(bad), st, fail);
    free(bad);
    *out = rf;
    *nout = n;
    return TL_OK;
fail:
    free(bad);
    for (size_t i = 0; i < n; i++) free(rf[i].path);
    free(rf);
    return st;
}

/* The traces of one run, ordered by rank: each rank once, one world size
 * (a sample of a run's ranks is a run, as HTA's trace sets are), and some
 * activity in one of them; a Perfetto export trilap-analyze wrote into the
 * folder, and any other JSON object without traceEvents (a config, a
 * manifest), is left out (*n: the traces kept). */
static tl_status order_ranks(const char *dir, rank_file *rf, size_t *np)
{
    /* X.json beside X.json.gz is one trace kept twice: with distributedInfo
     * one rank twice (refused below), without it two ranks of one */
    for (size_t i = 0; i < *np; i++) {
        size_t li = strlen(rf[i].path);
        for (size_t j = 0; j < *np; j++)
            TL_CHECK(!(strlen(rf[j].path) == li + 3 && !strncmp(rf[j].path, rf[i].path, li) &&
                       tl_out_names_gzip(rf[j].path)),
                     TL_ERR_PARSE, "%s: %s and %s are one trace, plain and gzipped; keep one", dir,
                     strrchr(rf[i].path, '/') + 1, strrchr(rf[j].path, '/') + 1);
    }
    int activity = 0;
    for (size_t i = 0; i < *np; i++) {
        const char *other = NULL;
        TL_TRY(tl_kt_head_read(rf[i].path, &rf[i].rank, &rf[i].world, &rf[i].activity, &other));
        if (other) rf[i].rank = -2;
        else if (rf[i].rank < 0) rf[i].rank = 1 << 30; /* without distributedInfo: after those with it */
        if (rf[i].activity > activity) activity = rf[i].activity;
    }
    size_t n = 0;
    for (size_t i = 0; i < *np; i++) {
        if (rf[i].rank == -2) free(rf[i].path);
        else rf[n++] = rf[i];
    }
    *np = n;
    if (!n) return TL_OK;
    qsort(rf, n, sizeof *rf, cmp_rank_file);
    const rank_file *w = NULL; /* the first trace that states its world size */
    for (size_t i = 0; i < n; i++) {
        TL_CHECK(i == 0 || rf[i].rank != rf[i - 1].rank || rf[i].rank == 1 << 30, TL_ERR_PARSE,
                 "%s and %s: both are rank %d (distributedInfo): one folder holds one run", rf[i - 1].path,
                 rf[i].path, rf[i].rank);
        if (rf[i].world < 0) continue;
        TL_CHECK(!w || rf[i].world == w->world, TL_ERR_PARSE,
                 "%s and %s are not of one run: distributedInfo says world_size %d and %d", w ? w->path : "",
                 rf[i].path, w ? w->world : 0, rf[i].world);
        if (!w) w = &rf[i];
    }
    TL_TRY(check_activity(dir, activity));
    /* in the order of the ranks the readers give them (tl_an_rank_unclaimed
     * for those without distributedInfo, which come last), so every table
     * lists its ranks in order and the readers find each rank from the
     * files before it */
    for (size_t i = 0; i < n; i++)
        if (rf[i].rank == 1 << 30) rf[i].rank = tl_an_rank_unclaimed(&rf[0].rank, i, sizeof *rf);
    qsort(rf, n, sizeof *rf, cmp_rank_file);
    return TL_OK;
}

static tl_status one_file(const char *path, char ***files, size_t *nfiles, int *found)
{
    int rank, world, activity;
    TL_TRY(tl_an_kineto_head(path, &rank, &world, &activity));
    TL_TRY(check_activity(path, activity));
    char **f = calloc(1, sizeof *f);
    TL_CHECK(f, TL_ERR_NOMEM, "path");
    f[0] = strdup(path);
    if (!f[0]) {
        free(f);
        return TL_FAIL(TL_ERR_NOMEM, "path");
    }
    *files = f;
    *nfiles = 1;
    *found = 1;
    return TL_OK;
}

tl_status tl_an_kineto_run_files(const char *dir, char ***files, size_t *nfiles, int *found)
{
    *files = NULL;
    *nfiles = 0;
    *found = 0;
    struct stat sb;
    if (stat(dir, &sb) != 0) return TL_OK;
    if (S_ISREG(sb.st_mode)) return tl_an_is_kineto(dir) ? one_file(dir, files, nfiles, found) : TL_OK;
    if (!S_ISDIR(sb.st_mode)) return TL_OK;
    DIR *d = opendir(dir);
    if (!d) return TL_OK;
    rank_file *rf = NULL;
    size_t n = 0;
    tl_status st = list_json(dir, d, &rf, &n);
    closedir(d);
    if (st != TL_OK || !n) goto done;
    st = order_ranks(dir, rf, &n);
    if (st != TL_OK || !n) goto done;
    char **f = calloc(n, sizeof *f);
    TL_CHECKGOTO(f, TL_ERR_NOMEM, st, done, "%zu files", n);
    for (size_t i = 0; i < n; i++) {
        f[i] = rf[i].path;
        rf[i].path = NULL;
    }
    *files = f;
    *nfiles = n;
    *found = 1;
done:
    for (size_t i = 0; i < n; i++) free(rf[i].path);
    free(rf);
    return st;
}
