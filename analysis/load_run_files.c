/* A run's rank files: a trilap run folder listed and its rank set checked
 * (one file per rank, of one run, complete, something recorded), an
 * Nsight Systems export's ranks, a PyTorch profiler folder's traces
 * (kineto_files.c), and an input that is none of them said as what it is. */
#include "analysis/analysis.h"
#include "analysis/grow.h"
#include "analysis/load_impl.h"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_files(const void *a, const void *b)
{
    const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
    int d = tl_trace_rank_of_name(x) - tl_trace_rank_of_name(y);
    return d ? d : strcmp(x, y); /* trace.rank1.csv before trace.rank1.csv.gz */
}

/* What a rank file's header says about the run it belongs to. */
typedef struct rank_head {
    const char *base;       /* its name in the folder */
    int rank;               /* of its name */
    int64_t meta_rank, nranks, declared; /* rank=, nranks=, records=; -1 when not said */
    int subset;             /* rank_subset=yes: the source held only some of the run's ranks (import) */
    int has_rows;           /* at least one record */
    char clock[64];         /* clock=, "" when not said */
    char domain[256];       /* rank 0's clock when its window is put on it, else "" */
    int64_t w0, w1;         /* window_start_ns..window_end_ns on that clock */
    char host_clock[256];   /* its own raw clock, named by host and clock kind ("" when the host is not named) */
    int64_t r0, r1;         /* the window as recorded, on that clock */
} rank_head;

/* The clocks a rank's window can be compared on, as names: rank 0's when
 * the probes measured the offset or for rank 0 itself; else the raw clock
 * of its host, which every rank on that host shares. A measured offset
 * says the clocks may differ (tests play other hosts on one host), so a
 * measured rank is compared on rank 0's clock only. Neither for a host
 * not named without a measured offset. */
static void clock_domains(const tl_trace_reader *rd, const tl_an_meta *m, int flags, rank_head *h)
{
    const char *host = tl_trace_reader_meta(rd, "host"), *clock = tl_trace_reader_meta(rd, "clock");
    int reference = !strcmp(m->clock_sync, "reference");
    h->domain[0] = h->host_clock[0] = '\0';
    if (m->clock_aligned || m->clock_shared[0] || (reference && !(flags & TL_AN_RAW_CLOCK)))
        snprintf(h->domain, sizeof h->domain, "rank 0's clock (offsets measured by the probes)");
    if (!m->clock_aligned && host && host[0] && strcmp(host, "?") != 0)
        snprintf(h->host_clock, sizeof h->host_clock, "%s of host %s", clock ? clock : "the clock", host);
}

/* A rank file's header, and whether a first row follows; its window on
 * the clock the analysis puts it on (the flags' --raw-clock). */
static tl_status read_head(const char *path, int flags, rank_head *h)
{
    tl_trace_reader *rd = NULL;
    tl_trace_record rec;
    tl_an_meta m;
    int found = 0, fw0 = 0, fw1 = 0;
    tl_status st = TL_OK;
    memset(&m, 0, sizeof m);
    h->base = strrchr(path, '/') + 1;
    h->rank = tl_trace_rank_of_name(h->base);
    h->meta_rank = h->nranks = h->declared = -1;
    TL_TRY(tl_trace_reader_open(&rd, path, TL_TRACE_ACCEPT_INCOMPLETE));
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "rank", &h->meta_rank, &found), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "nranks", &h->nranks, &found), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "records", &h->declared, &found), st, fail);
    const char *s = tl_trace_reader_meta(rd, "rank_subset");
    h->subset = s && !strcmp(s, "yes");
    s = tl_trace_reader_meta(rd, "clock");
    snprintf(h->clock, sizeof h->clock, "%s", s ? s : "");
    /* whether ranks are of one run does not depend on how the analysis
     * shows their times: measured offsets place the windows, --raw-clock
     * or not */
    flags &= ~TL_AN_RAW_CLOCK;
    TL_TRYGOTO(tl_an_clock_meta_read(rd, path, flags, &m), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "window_start_ns", &h->w0, &fw0), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "window_end_ns", &h->w1, &fw1), st, fail);
    if (fw0 && fw1) {
        clock_domains(rd, &m, flags, h);
        h->r0 = h->w0, h->r1 = h->w1;
        if (m.clock_aligned) h->w0 = tl_an_on_rank0_clock(&m, h->w0), h->w1 = tl_an_on_rank0_clock(&m, h->w1);
    }
    TL_TRYGOTO(tl_trace_reader_next(rd, &rec, &h->has_rows), st, fail); /* one row tells */
fail:
    tl_trace_reader_close(&rd);
    return st;
}

/* A rank's window on one of the clocks it can be compared on. */
typedef struct clock_window {
    const char *domain; /* "" when on none */
    int64_t w0, w1;
    const char *base;
} clock_window;

static clock_window on_rank0(const rank_head *h) { return (clock_window){h->domain, h->w0, h->w1, h->base}; }
static clock_window on_host(const rank_head *h) { return (clock_window){h->host_clock, h->r0, h->r1, h->base}; }

/* The windows of the ranks that lie on one clock overlap: the latest start
 * is before the earliest end. */
static tl_status check_windows(const char *dir, const rank_head *h, size_t n, clock_window (*on)(const rank_head *))
{
    for (size_t k = 0; k < n; k++) {
        clock_window c = on(&h[k]), late = c, early = c;
        if (!c.domain[0]) continue;
        size_t first = k, il = k, ie = k;
        for (size_t j = 0; j < n; j++) {
            clock_window x = on(&h[j]);
            if (strcmp(x.domain, c.domain) != 0) continue;
            if (j < first) first = j;
            if (x.w0 > late.w0) late = x, il = j;
            if (x.w1 < early.w1) early = x, ie = j;
        }
        if (first < k) continue; /* this clock was checked */
        if (late.w0 <= early.w1) continue;
        clock_window a = ie < il ? early : late, b = ie < il ? late : early; /* in rank order */
        return TL_FAIL(TL_ERR_PARSE,
                       "%s: %s and %s are not of one run: their windows do not overlap (%.6f..%.6f s and %.6f..%.6f s "
                       "on %s); analyse each run in its own folder",
                       dir, a.base, b.base, (double)a.w0 / 1e9, (double)a.w1 / 1e9, (double)b.w0 / 1e9,
                       (double)b.w1 / 1e9, c.domain);
    }
    return TL_OK;
}

/* Ranks of one run share nranks= and clock=, and their measured windows
 * overlap wherever two lie on one clock (a run's ranks measure one region
 * together): on rank 0's clock after measured offsets, and on a host's raw
 * clock, with or without --raw-clock. Refused whatever the flags: no run
 * has such ranks. */
static tl_status check_one_run(const char *dir, const rank_head *h, size_t n)
{
    const rank_head *nr = NULL, *ck = NULL; /* the first to say nranks=, clock= */
    for (size_t k = 0; k < n; k++) {
        const rank_head *x = &h[k];
        TL_CHECK(!nr || x->nranks < 0 || x->nranks == nr->nranks, TL_ERR_PARSE,
                 "%s: %s and %s are not of one run: nranks=%lld and nranks=%lld", dir, nr ? nr->base : "", x->base,
                 nr ? (long long)nr->nranks : 0LL, (long long)x->nranks);
        TL_CHECK(!ck || !x->clock[0] || !strcmp(x->clock, ck->clock), TL_ERR_PARSE,
                 "%s: %s and %s are not of one run: clock=%s and clock=%s", dir, ck ? ck->base : "", x->base,
                 ck ? ck->clock : "", x->clock);
        if (!nr && x->nranks >= 0) nr = x;
        if (!ck && x->clock[0]) ck = x;
    }
    TL_TRY(check_windows(dir, h, n, on_host));
    TL_TRY(check_windows(dir, h, n, on_rank0));
    return TL_OK;
}

/* Two files of one rank (rank= in the metadata, else the name) are one
 * rank's trace twice, a copy under another rank's name, not a run with a
 * rank missing: reading both would match that rank's operations with
 * themselves (no waiting) and print its rows twice. Refused whatever the
 * flags, as two files named for one rank are. */
static tl_status check_distinct_ranks(const char *dir, const rank_head *h, size_t n)
{
    for (size_t k = 1; k < n; k++)
        for (size_t j = 0; j < k; j++) {
            int64_t a = h[j].meta_rank >= 0 ? h[j].meta_rank : h[j].rank;
            int64_t b = h[k].meta_rank >= 0 ? h[k].meta_rank : h[k].rank;
            if (a == b)
                return TL_FAIL(TL_ERR_PARSE,
                               "%s: %s and %s are both rank %lld (rank= in their metadata): one rank's trace twice, "
                               "not the ranks of one run; keep the file of each rank",
                               dir, h[j].base, h[k].base, (long long)a);
        }
    return TL_OK;
}

/* files[k] is trace.rank<k>.csv for k = 0..n-1, each file's rank= is its
 * name's and nranks= is n; a folder whose every file says rank_subset=yes
 * (an import of some of a run's ranks, as a PyTorch profiler trace set
 * may be) may skip ranks. A gap or a disagreement is refused; with
 * TL_TRACE_ACCEPT_INCOMPLETE it is accepted and said on stderr. */
static tl_status check_complete(const char *dir, const rank_head *h, size_t n, int flags)
{
    char why[512] = "";
    int subset = 1;
    for (size_t k = 0; k < n; k++) subset = subset && h[k].subset;
    for (size_t k = 0; k < n && !why[0]; k++) {
        if (!subset && (size_t)h[k].rank != k)
            snprintf(why, sizeof why, "rank %zu missing (the next file is %s)", k, h[k].base);
        else if (h[k].meta_rank >= 0 && h[k].meta_rank != h[k].rank)
            snprintf(why, sizeof why, "%s says rank=%lld in its metadata", h[k].base, (long long)h[k].meta_rank);
    }
    if (!why[0] && !subset && n && h[0].nranks >= 0 && (size_t)h[0].nranks != n)
        snprintf(why, sizeof why, "the metadata says nranks=%lld, the folder has %zu rank file%s",
                 (long long)h[0].nranks, n, n == 1 ? "" : "s");
    if (!why[0]) return TL_OK;
    if (!(flags & TL_TRACE_ACCEPT_INCOMPLETE))
        return TL_FAIL(TL_ERR_PARSE, "%s: incomplete run: %s; --accept-incomplete reads it anyway", dir, why);
    if (!(flags & TL_AN_QUIET)) tl_log("%s: incomplete run accepted: %s", dir, why);
    return TL_OK;
}

/* A run none of whose ranks recorded anything has nothing to analyse
 * (its figures would be 0 / 0). A file cut before its first row is left
 * to the reader, which says so, unless cut files are accepted. */
static tl_status check_activity(const char *dir, const rank_head *h, size_t n, int flags)
{
    int cut = 0;
    for (size_t k = 0; k < n; k++) {
        if (h[k].has_rows) return TL_OK;
        cut = cut || h[k].declared > 0;
    }
    if (cut && !(flags & TL_TRACE_ACCEPT_INCOMPLETE)) return TL_OK;
    if (n == 1)
        return TL_FAIL(TL_ERR_PARSE, "%s: no GPU or host activity recorded (%s holds no records): nothing to analyse",
                       dir, h[0].base);
    return TL_FAIL(TL_ERR_PARSE, "%s: no GPU or host activity recorded (none of its %zu rank files holds a record): "
                   "nothing to analyse", dir, n);
}

/* The rank set of a run folder (files sorted by rank): one file per rank,
 * the ranks of one run, complete (or accepted as not), something recorded. */
static tl_status check_rank_set(const char *dir, char **f, size_t n, int flags)
{
    for (size_t k = 1; k < n; k++) {
        const char *a = strrchr(f[k - 1], '/') + 1, *b = strrchr(f[k], '/') + 1;
        int r = tl_trace_rank_of_name(b);
        if (r == tl_trace_rank_of_name(a))
            return TL_FAIL(TL_ERR_PARSE, "%s: rank %d has two trace files, %s and %s; keep one", dir, r, a, b);
    }
    rank_head *h = calloc(n ? n : 1, sizeof *h);
    TL_CHECK(h, TL_ERR_NOMEM, "%zu rank files", n);
    tl_status st = TL_OK;
    for (size_t k = 0; k < n; k++) TL_TRYGOTO(read_head(f[k], flags, &h[k]), st, fail);
    TL_TRYGOTO(check_one_run(dir, h, n), st, fail);
    TL_TRYGOTO(check_distinct_ranks(dir, h, n), st, fail);
    TL_TRYGOTO(check_complete(dir, h, n, flags), st, fail);
    TL_TRYGOTO(check_activity(dir, h, n, flags), st, fail);
fail:
    free(h);
    return st;
}

tl_status tl_an_input_kind(const char *path)
{
    size_t n = strlen(path);
    if (tl_an_is_special(path))
        return TL_FAIL(TL_ERR_PARSE, "%s: a pipe or a device: traces are read from files (the readers open them more "
                                     "than once)", path);
    if (tl_an_is_gzip_nsys(path))
        return TL_FAIL(TL_ERR_PARSE, "%s: an Nsight Systems export compressed with gzip (SQLite reads files in place): "
                                     "gunzip -c %s > PLAIN.sqlite, then give PLAIN.sqlite", path, path);
    if (n > 7 && !strcmp(path + n - 7, ".sqlite"))
        return TL_FAIL(TL_ERR_PARSE, "%s: not an SQLite file (nsys export --type sqlite makes one)", path);
    /* a run is its folder (the ranks are read together), so one rank's file
     * given alone is named as what it is, with the input to give instead */
    const char *base = strrchr(path, '/');
    int rank = tl_trace_rank_of_name(base ? base + 1 : path);
    if (rank >= 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: one rank's file (rank %d) of a trilap run: give the run's folder, %.*s",
                       path, rank, base ? (int)(base - path) + (base == path) : 1, base ? path : ".");
    struct stat sb; /* a trace cut to nothing (a full disk, a copy stopped at once) */
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: empty file: no trace in it", path);
    return TL_OK;
}

/* An input that cannot be opened, said as what it is: the name may be a
 * file (a trace, an export) as well as a folder, and a link whose target
 * is gone is named with that target. */
static tl_status missing_input(const char *path, int err)
{
    struct stat sb;
    char target[PATH_MAX];
    ssize_t len;
    if (err == ENOENT && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) &&
        (len = readlink(path, target, sizeof target - 1)) > 0) {
        target[len] = '\0';
        return TL_FAIL(TL_ERR_IO, "%s: a link to %s, which does not exist", path, target);
    }
    if (err == ENOENT)
        return TL_FAIL(TL_ERR_IO, "%s: no such file or folder (a trilap run's folder, a PyTorch profiler trace or an "
                                  "Nsight Systems sqlite export)", path);
    return TL_FAIL(TL_ERR_IO, "%s: cannot open: %s", path, strerror(err));
}

tl_status tl_an_run_files(const char *dir, int flags, char ***files, size_t *nfiles)
{
    return tl_an_run_files_nvtx(dir, flags, NULL, files, nfiles);
}

/* An export's ranks: FILE#R, with --iter-nvtx FILE#R#iter-nvtx=SPEC */
static tl_status nsys_rank_files(const char *dir, const char *iter_nvtx, char ***files, size_t *nfiles)
{
    int nr = 0;
    TL_TRY(tl_an_nsys_ranks(dir, &nr));
    char **f = calloc((size_t)nr, sizeof *f);
    TL_CHECK(f, TL_ERR_NOMEM, "%d ranks", nr);
    const char *tag = iter_nvtx ? TL_AN_NSYS_ITER_NVTX : "", *spec = iter_nvtx ? iter_nvtx : "";
    for (int r = 0; r < nr; r++) {
        size_t len = strlen(dir) + strlen(tag) + strlen(spec) + 16;
        f[r] = malloc(len);
        if (!f[r]) {
            tl_an_run_files_free(&f, (size_t)r);
            return TL_FAIL(TL_ERR_NOMEM, "path");
        }
        snprintf(f[r], len, "%s#%d%s%s", dir, r, tag, spec);
    }
    *files = f;
    *nfiles = (size_t)nr;
    return TL_OK;
}

tl_status tl_an_run_files_nvtx(const char *dir, int flags, const char *iter_nvtx, char ***files, size_t *nfiles)
{
    *files = NULL;
    *nfiles = 0;
    if (tl_an_is_nsys(dir)) return nsys_rank_files(dir, iter_nvtx, files, nfiles);
    int kineto = 0;
    TL_TRY(tl_an_kineto_run_files(dir, files, nfiles, &kineto));
    if (kineto) return TL_OK;
    DIR *d = opendir(dir);
    if (!d && errno == ENOTDIR) {
        TL_TRY(tl_an_input_kind(dir));
        /* what its contents are instead, where they say (a gzip of a gzip
         * was "neither ..." and no more) */
        TL_TRY(tl_an_kineto_refuse_other(dir));
        return TL_FAIL(TL_ERR_PARSE, "%s: neither a run folder, a PyTorch profiler trace nor an Nsight Systems sqlite export",
                       dir);
    }
    if (!d) return missing_input(dir, errno);
    tl_status st = TL_OK;
    size_t n = 0, cap = 0;
    char **f = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        int r = tl_trace_rank_of_name(e->d_name);
        TL_CHECKGOTO(r != -2, TL_ERR_PARSE, st, fail,
                     "%s/%s: not a rank file name (trace.rank<R>.csv, R without leading zeros)", dir,
                     e->d_name);
        if (r < 0) continue;
        TL_TRYGOTO(TL_AN_GROW(f, n, cap, "file names"), st, fail);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        f[n] = malloc(len);
        TL_CHECKGOTO(f[n], TL_ERR_NOMEM, st, fail, "path");
        snprintf(f[n], len, "%s/%s", dir, e->d_name);
        n++;
        TL_CHECKGOTO(!tl_an_is_special(f[n - 1]), TL_ERR_PARSE, st, fail,
                     "%s: a pipe or a device: traces are read from files (the readers open them more than once)",
                     f[n - 1]);
    }
    /* a folder of JSON files none of which is a Kineto trace: why, rather
     * than that it holds no rank files */
    if (!n) TL_TRYGOTO(tl_an_kineto_refuse_other(dir), st, fail);
    TL_CHECKGOTO(n > 0, TL_ERR_IO, st, fail, "%s: no trace.rank<R>.csv%s files", dir,
                 TL_HAVE_ZLIB ? "[.gz]" : "");
    qsort(f, n, sizeof *f, cmp_files);
    closedir(d);
    d = NULL;
    TL_TRYGOTO(check_rank_set(dir, f, n, flags), st, fail);
    *files = f;
    *nfiles = n;
    return TL_OK;
fail:
    if (d) closedir(d);
    tl_an_run_files_free(&f, n);
    return st;
}

void tl_an_run_files_free(char ***files, size_t nfiles)
{
    if (!files || !*files) return;
    for (size_t i = 0; i < nfiles; i++) free((*files)[i]);
    free(*files);
    *files = NULL;
}
