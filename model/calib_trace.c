/* The cost of a dependency between two streams, measured in the two-H200
 * tristream traces (CUPTI kernel times, NVTX host ranges). A kernel that
 * waits for a kernel of another stream starts later after it than one that
 * follows on the same stream: the event is recorded, the waiting stream's
 * front end sees it, then launches. The op costs the model uses already
 * hold the same-stream gap (they are back-to-back loops on one stream), so
 * the model charges the excess:
 *
 *   same  = two-stream trace: allreduce end -> DAXPY start (compute stream)
 *   cross = three-naive trace: allreduce end -> ring start (the ring waits
 *           for the allreduce through NCCL's ordering of one communicator,
 *           across the coll and p2p streams)
 *   xstream_us = median(cross) - median(same), pooled over both ranks
 *
 * Only iterations whose waiting operation the host had issued before the
 * kernel it waits for ended count: otherwise the gap is the host's. */
#include "model/calib.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probes/trace.h"

typedef struct span {
    int64_t a, b;
} span;

typedef struct spans {
    span *v;
    int n, cap;
} spans;

static tl_status spans_add(spans *s, int64_t a, int64_t b)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        span *v = realloc(s->v, (size_t)cap * sizeof *v);
        TL_CHECK(v, TL_ERR_NOMEM, "trace spans");
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (span){a, b};
    return TL_OK;
}

/* One rank's trace: the kernels and host issue ranges of the allreduce,
 * the ring and the DAXPY, in start order (the probes write them so). */
enum { OP_AR, OP_RING, OP_DAXPY, OP_N };
static const char *const op_names[OP_N] = {"allreduce", "ring", "DAXPY"};
static const char *const host_names[OP_N] = {"coll:allreduce", "p2p:ring", "compute:daxpy"};
typedef struct rank_trace {
    spans kernel[OP_N], host[OP_N];
    char program[64], cupti[32]; /* the trace's own metadata, to say what it lacks */
} rank_trace;

static void rank_trace_free(rank_trace *t)
{
    for (int o = 0; o < OP_N; o++) {
        free(t->kernel[o].v);
        free(t->host[o].v);
    }
    memset(t, 0, sizeof *t);
}

static int op_of_host(const char *name)
{
    for (int o = 0; o < OP_N; o++)
        if (strcmp(name, host_names[o]) == 0) return o;
    return -1;
}

static int cmp_span(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->a > b->a) - (a->a < b->a);
}

static tl_status read_rank(const char *path, rank_trace *t)
{
    memset(t, 0, sizeof *t);
    tl_trace_reader *rd = NULL;
    TL_TRY(tl_trace_reader_open(&rd, path, 0));
    const char *prog = tl_trace_reader_meta(rd, "program"), *cupti = tl_trace_reader_meta(rd, "cupti_status");
    snprintf(t->program, sizeof t->program, "%s", prog ? prog : "not said");
    snprintf(t->cupti, sizeof t->cupti, "%s", cupti ? cupti : "not said");
    tl_status st = TL_OK;
    tl_trace_record rec;
    int got = 0;
    for (;;) {
        TL_TRYGOTO(tl_trace_reader_next(rd, &rec, &got), st, fail);
        if (!got) break;
        int op = -1;
        if (rec.kind == TL_KIND_KERNEL)
            op = rec.cat == TL_CAT_COLL ? OP_AR : rec.cat == TL_CAT_P2P ? OP_RING : rec.cat == TL_CAT_COMPUTE ? OP_DAXPY : -1;
        else if (rec.kind == TL_KIND_HOST)
            op = op_of_host(rec.name);
        if (op < 0) continue;
        TL_TRYGOTO(spans_add(rec.kind == TL_KIND_KERNEL ? &t->kernel[op] : &t->host[op], rec.start_ns, rec.end_ns), st,
                   fail);
    }
    for (int o = 0; o < OP_N; o++) {
        qsort(t->kernel[o].v, (size_t)t->kernel[o].n, sizeof(span), cmp_span);
        qsort(t->host[o].v, (size_t)t->host[o].n, sizeof(span), cmp_span);
    }
fail:
    tl_trace_reader_close(&rd);
    if (st != TL_OK) rank_trace_free(t);
    return st;
}

/* Gaps (us) from the end of `from`'s i-th kernel to the start of `to`'s
 * i-th, where `to` was issued before `from` ended; appended to *g. */
static tl_status gaps(const rank_trace *t, int from, int to, spans *g)
{
    int n = t->kernel[from].n;
    if (t->kernel[to].n < n) n = t->kernel[to].n;
    if (t->host[to].n < n) n = t->host[to].n;
    for (int i = 0; i < n; i++) {
        int64_t end = t->kernel[from].v[i].b;
        if (t->host[to].v[i].b < end) TL_TRY(spans_add(g, t->kernel[to].v[i].a - end, 0));
    }
    return TL_OK;
}

static double median_ns(spans *g)
{
    qsort(g->v, (size_t)g->n, sizeof(span), cmp_span);
    return g->n % 2 ? (double)g->v[g->n / 2].a : 0.5 * (double)(g->v[g->n / 2 - 1].a + g->v[g->n / 2].a);
}

static const char *const variants[] = {"two-stream", "three-naive"};

static void trace_file(const char *dir, const char *variant, int rank, char *path, size_t n)
{
    char vdir[4150];
    snprintf(vdir, sizeof vdir, "%s/%s", dir, variant);
    tl_trace_rank_path(vdir, rank, path, n); /* plain or, as results/ keeps them, gzipped */
}

void tl_mcalib_trace_files(const char *dir, char paths[TL_MCALIB_TRACE_FILES][4200])
{
    for (int k = 0; k < TL_MCALIB_TRACE_FILES; k++) trace_file(dir, variants[k / 2], k % 2, paths[k], sizeof paths[k]);
}

/* A trace of another program, or one without CUPTI, has none of the
 * kernels or host ranges the gaps are read from: said as such, rather
 * than as "0 gaps" of traces the user did give. */
static tl_status trace_usable(const char *path, const rank_trace *t, int from, int to)
{
    char lacks[96] = "";
    if (!t->kernel[from].n || !t->kernel[to].n)
        snprintf(lacks, sizeof lacks, "no kernel records of the %s and the %s", op_names[from], op_names[to]);
    else if (!t->host[to].n)
        snprintf(lacks, sizeof lacks, "no host range '%s'", host_names[to]);
    TL_CHECK(!lacks[0], TL_ERR_PARSE,
             "%s: %s (program %s, cupti_status %s): the cost of a wait across streams is read from the traces of "
             "trilap-bench tristream --trace DIR on two GPUs, which hold CUPTI's kernel times",
             path, lacks, t->program, t->cupti);
    return TL_OK;
}

/* The ranks a variant's folder holds trace files of (have[r] for r below
 * MAXR; *top: the highest rank seen, -1 for none) and the largest nranks
 * their metadata declares (0: none declares it, as hand-made traces). */
enum { MAXR = 4096 };
static tl_status run_ranks(const char *vdir, char have[MAXR], int *top, int *nranks)
{
    memset(have, 0, MAXR);
    *top = -1;
    *nranks = 0;
    DIR *d = opendir(vdir);
    TL_CHECK(d, TL_ERR_IO, "%s: %s", vdir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int r = tl_trace_rank_of_name(e->d_name);
        if (r < 0 || r >= MAXR || have[r]) continue; /* a rank's plain and gzipped file: one rank */
        have[r] = 1;
        if (r > *top) *top = r;
    }
    closedir(d);
    for (int r = 0; r <= *top; r++) {
        if (!have[r]) continue;
        char path[4200];
        tl_trace_rank_path(vdir, r, path, sizeof path);
        tl_trace_reader *rd = NULL;
        TL_TRY(tl_trace_reader_open(&rd, path, 0));
        const char *n = tl_trace_reader_meta(rd, "nranks");
        int v = n ? atoi(n) : 0; /* the reader has checked it is a count above the rank */
        if (v > *nranks) *nranks = v;
        tl_trace_reader_close(&rd);
    }
    return TL_OK;
}

/* "0, 1" of the ranks below n whose have[] is want (eight named, then a
 * count). */
static void rank_list(const char have[MAXR], int n, int want, char *out, size_t size)
{
    int k = 0;
    size_t len = 0;
    out[0] = 0;
    for (int r = 0; r < n && r < MAXR; r++) {
        if (!have[r] != !want) continue;
        if (k++ < 8) len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%d", k > 1 ? ", " : "", r);
    }
    if (k > 8 && len < size) snprintf(out + len, size - len, " and %d more", k - 8);
}

/* calibrate fits its costs on a two-GPU platform beside the tristream and
 * comm results of two GPUs, and pools the gaps of both ranks: a run of
 * another size is not the run it rests on, and one whose metadata counts
 * more ranks than it holds files of is a truncated run. Before, ranks 0
 * and 1 of any run were read (a 4-rank run, or nranks = 4 with two files,
 * calibrated as a two-GPU one) and a one-rank run was "trace.rank1.csv:
 * cannot open". */
static tl_status two_rank_run(const char *vdir)
{
    char have[MAXR], found[128], missing[128];
    int top, nranks;
    TL_TRY(run_ranks(vdir, have, &top, &nranks));
    int n = nranks > top + 1 ? nranks : top + 1;
    rank_list(have, n, 1, found, sizeof found);
    rank_list(have, n, 0, missing, sizeof missing);
    TL_CHECK(top >= 0, TL_ERR_PARSE, "%s: no trace.rank<R>.csv: calibrate reads the traces of a two-GPU run "
             "(trilap-bench tristream --gpus 2 --trace DIR)", vdir);
    char why[64];
    if (nranks) snprintf(why, sizeof why, "nranks = %d in its metadata", nranks);
    else snprintf(why, sizeof why, "trace files up to rank %d", top);
    const char *s = strchr(missing, ',') || strstr(missing, " more") ? "s" : "", *fs = strchr(found, ',') ? "s" : "";
    TL_CHECK(!missing[0], TL_ERR_PARSE, "%s: a truncated run of %d ranks (%s): no trace file of rank%s %s (found: "
             "rank%s %s); calibrate reads every rank of a two-GPU run", vdir, n, why, s, missing, fs, found);
    TL_CHECK(n == 2, TL_ERR_PARSE, "%s: a run of %d rank%s (rank%s %s): calibrate reads a two-GPU run, as the "
             "tristream and comm results it is fitted beside on two simulated GPUs (trilap-bench tristream --gpus 2 "
             "--trace DIR)", vdir, n, n == 1 ? "" : "s", fs, found);
    return TL_OK;
}

static tl_status variant_gaps(const char *dir, const char *variant, int from, int to, spans *g)
{
    char vdir[4150];
    snprintf(vdir, sizeof vdir, "%s/%s", dir, variant);
    TL_TRY(two_rank_run(vdir));
    for (int r = 0; r < 2; r++) {
        char path[4200];
        trace_file(dir, variant, r, path, sizeof path);
        rank_trace t;
        TL_TRY(read_rank(path, &t));
        tl_status st = trace_usable(path, &t, from, to);
        if (st == TL_OK) st = gaps(&t, from, to, g);
        rank_trace_free(&t);
        TL_TRY(st);
    }
    return TL_OK;
}

tl_status tl_mcalib_read_traces(tl_mcalib *c, const char *dir)
{
    spans same = {0}, cross = {0};
    tl_status st = TL_OK;
    /* the folder itself first: a missing one was said as the first trace
     * file under it, "nowhere/two-stream/trace.rank0.csv.gz: cannot open" */
    struct stat sb;
    TL_CHECK(stat(dir, &sb) == 0, TL_ERR_IO, "%s: %s", dir, strerror(errno));
    TL_CHECK(S_ISDIR(sb.st_mode), TL_ERR_IO,
             "%s: a file, where a folder of traces is read (%s/two-stream, %s/three-naive)", dir, dir, dir);
    TL_TRYGOTO(variant_gaps(dir, variants[0], OP_AR, OP_DAXPY, &same), st, fail);
    TL_TRYGOTO(variant_gaps(dir, variants[1], OP_AR, OP_RING, &cross), st, fail);
    TL_CHECKGOTO(same.n >= 10 && cross.n >= 10, TL_ERR_PARSE, st, fail,
                 "%s: %d same-stream and %d cross-stream gaps with the waiting operation issued in time (10 of each "
                 "needed: traces of two-stream and three-naive on two GPUs)",
                 dir, same.n, cross.n);
    c->xstream_same_us = 1e-3 * median_ns(&same);
    c->xstream_cross_us = 1e-3 * median_ns(&cross);
    c->xstream_us = c->xstream_cross_us > c->xstream_same_us ? c->xstream_cross_us - c->xstream_same_us : 0;
    size_t len = strlen(c->source);
    snprintf(c->source + len, sizeof c->source - len, "%s%s/{two-stream,three-naive}", len ? " " : "", dir);
fail:
    free(same.v);
    free(cross.v);
    return st;
}
