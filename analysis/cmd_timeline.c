/* trilap-analyze timeline RUN_DIR -o FILE.csv: the GPU activity of a few
 * iterations as gnuplot-ready rows, one row per (rank, lane), times in µs
 * from the start of the first selected iteration (earliest rank). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "analysis/grow.h"
#include "runtime/out.h"

typedef struct tl_opts_t {
    const char *out;
    int64_t count;
    tl_an_common c;
} tl_opts_t;

typedef struct kept {
    int rank;
    int64_t clock_unc;  /* the rank's clock uncertainty against rank 0, ns (0: rank 0 or unmeasured) */
    int64_t work_start; /* where its work begins: a communication kernel waits before for a late peer */
    tl_an_ival v;
} kept;

typedef struct tl_state {
    kept *k;
    size_t n, cap;
    int64_t origin, end; /* the selection of the first rank with activity: one time span for every rank */
    int span_rank;       /* that rank (-1: none yet) */
} tl_state;

/* Row of a lane within its rank: Compute, P2P, Collective, then copy/other.
 * A CPU rank's compute ranges (on the host lane) are its compute row. */
static int lane_pos(const tl_an_ival *v)
{
    if (tl_an_ival_is_host_compute(v)) return 0;
    switch (v->lane) {
    case TL_ROLE_COMPUTE: return 0;
    case TL_ROLE_P2P: return 1;
    case TL_ROLE_COLL: return 2;
    default: return 3;
    }
}
/* The iterations lo..hi of the first rank that recorded any (-1: none
 * did): a first, cheap pass, rank by rank (what a rank would warn of is
 * said by the reading after it). A rank that recorded nothing (a Kineto
 * rank0.json of its header only) is passed over. *first: the first
 * rank's metadata, for the refusal of --count on a run without any. */
static tl_status first_iterations(const char *dir, const tl_an_overlap_opts *oo, tl_an_names *names, int64_t *lo,
                                  int64_t *hi, tl_an_meta *first)
{
    char **files = NULL;
    size_t nf = 0;
    tl_status st = TL_OK;
    *lo = *hi = -1;
    int flags = oo->flags;
    TL_TRY(tl_an_run_files_nvtx(dir, flags | TL_AN_QUIET, oo->iter_nvtx, &files, &nf));
    for (size_t f = 0; f < nf && *lo < 0; f++) {
        tl_an_rank rk;
        TL_TRYGOTO(tl_an_rank_load(files[f], flags | TL_AN_QUIET, names, &rk), st, fail);
        if (!f) *first = rk.meta; /* what a refusal names: the steps it could take (tl_an_no_iters_say) */
        for (size_t k = 0; k < rk.niter; k++)
            if (rk.iter_start[k] != INT64_MAX) {
                if (*lo < 0) *lo = (int64_t)k;
                *hi = (int64_t)k;
            }
        tl_an_rank_free(&rk);
    }
fail:
    tl_an_run_files_free(&files, nf);
    return st;
}

static const char *const lane_label[4] = {"Compute", "P2P", "Collective", "Copy/other"};

/* Activity in the rank's selection [w0, w1), GPU or the host's own
 * compute and communication (a host-backend rank has only those): a rank
 * that recorded nothing there cannot give the span. */
static int active(const tl_an_rank *rk, int64_t w0, int64_t w1)
{
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (tl_an_ival_activity(v) != TL_AN_ACT_NONE && v->end > w0 && v->start < w1) return 1;
    }
    return 0;
}

static tl_status keep(void *user, const tl_an_rank *rk, const tl_an_rank_result *res)
{
    tl_state *s = user;
    /* Every rank is drawn over one rank's selection, the first with GPU
     * activity in it: ranks run their iterations at different times (a late
     * rank makes the others' NCCL kernels wait), and one time span shows
     * that; the selections of unattributed runs (host iteration ranges) can
     * lie far apart. A rank that recorded nothing has no span to give. */
    if (s->span_rank < 0 && active(rk, res->meta.w0, res->meta.w1)) {
        s->origin = res->meta.w0;
        s->end = res->meta.w1;
        s->span_rank = rk->meta.rank;
    }
    /* match.c split each communication kernel at its last rank's arrival
     * (the overlap figures' waiting and transfer): its two parts make one
     * row again, the work beginning at the split. last_wait: per stream,
     * the row of the last waiting part */
    size_t *last_wait = malloc((rk->nstreams ? rk->nstreams : 1) * sizeof *last_wait);
    TL_CHECK(last_wait, TL_ERR_NOMEM, "%zu streams", rk->nstreams);
    for (size_t q = 0; q < rk->nstreams; q++) last_wait[q] = SIZE_MAX;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (v->end <= s->origin || v->start >= s->end) continue;
        size_t w = v->stream < rk->nstreams ? last_wait[v->stream] : SIZE_MAX;
        if ((v->flags & TL_AN_F_SPLIT) && w != SIZE_MAX && s->k[w].v.end == v->start) {
            s->k[w].v.end = v->end;
            last_wait[v->stream] = SIZE_MAX;
            continue;
        }
        tl_status st = TL_AN_GROW(s->k, s->n, s->cap, "timeline rows");
        if (st != TL_OK) {
            free(last_wait);
            return st;
        }
        s->k[s->n].rank = rk->meta.rank;
        s->k[s->n].clock_unc = rk->meta.clock_aligned ? rk->meta.clock_unc : 0;
        s->k[s->n].v = *v;
        /* a waiting part's work begins where it ends, when its rest lies
         * beyond the span too */
        s->k[s->n].work_start = v->flags & TL_AN_F_WAIT ? v->end : v->start;
        if (v->flags & TL_AN_F_WAIT) last_wait[v->stream] = s->n;
        s->n++;
    }
    free(last_wait);
    return TL_OK;
}

/* --count N: N iterations from the middle of lo..hi, the iterations of
 * the first rank that has any; clip: what a count beyond them was cut to,
 * said as --iter-range's clipping is (it drew 0:239 of --count 1000 unsaid). */
static void count_middle(int64_t lo, int64_t hi, int64_t count, tl_an_overlap_opts *oo, char *clip, size_t n)
{
    int64_t mid = lo + (hi - lo + 1 - count) / 2;
    oo->iter_lo = mid > lo ? mid : lo;
    oo->iter_hi = oo->iter_lo + count - 1 < hi ? oo->iter_lo + count - 1 : hi;
    if (count > hi - lo + 1)
        snprintf(clip, n, " (--count %lld clipped: the run has iterations %lld..%lld)", (long long)count, (long long)lo,
                 (long long)hi);
}

/* Index in res of the rank numbered rank (its files' order otherwise). */
static size_t rank_index(const tl_an_rank_result *res, size_t nr, int rank)
{
    for (size_t r = 0; r < nr; r++)
        if (res[r].meta.rank == rank) return r;
    return 0;
}

/* The ranks drawn over less than the range, and why: a file cut short
 * (--accept-incomplete) has no rows past its last iteration, and a rank
 * may have none in the span of the rank that gave it. Before, a rank cut
 * short drew part of the range, or nothing, unsaid. */
static void short_ranks_say(const tl_an_rank_result *res, size_t nr, const size_t *rows)
{
    int64_t hi = -1;
    for (size_t r = 0; r < nr; r++)
        if (res[r].nslices && res[r].iters[res[r].nslices - 1] > hi) hi = res[r].iters[res[r].nslices - 1];
    int said = 0;
    for (size_t r = 0; r < nr; r++) {
        const tl_an_rank_result *x = &res[r];
        int64_t last = x->nslices ? x->iters[x->nslices - 1] : -1;
        if (rows[r] && last >= hi) continue;
        char why[320] = "";
        if (x->meta.window_cut || !x->meta.complete)
            snprintf(why, sizeof why, "%s", x->meta.window_cut ? "its file cut short, read with --accept-incomplete"
                                                                : "incomplete, read with --accept-incomplete");
        if (x->have.n)
            snprintf(why + strlen(why), sizeof why - strlen(why), "%sit has iterations %lld..%lld", *why ? ": " : "",
                     (long long)x->have.lo, (long long)x->have.hi);
        if (!rows[r])
            printf("%s rank %d no rows (%s%sno activity in the span)", said++ ? ";" : "# ranks short of the range:",
                   x->meta.rank, why, *why ? "; " : "");
        else
            printf("%s rank %d rows through iteration %lld only (%s)", said++ ? ";" : "# ranks short of the range:",
                   x->meta.rank, (long long)last, why);
    }
    if (said) putchar('\n');
}

/* What was drawn, on stdout after the rows are written: the iterations,
 * the ranks short of them, the clock, the span and the rows. */
static void report_say(const char *input, const tl_an_rank_result *res, size_t nr, const tl_an_overlap_opts *oo,
                       const char *clip, int no_iters, const tl_state *s, const size_t *rows, size_t written,
                       const char *out)
{
    if (no_iters)
        printf("# program: trilap-analyze timeline\n# input: %s\n# iterations: none recorded (iter -1 everywhere): "
               "the whole window\n# ranks: %zu\n", input, nr);
    else {
        /* the iterations used: --iter-range clipped to the run's (it said
         * "150:250" of a run of 200), or --count */
        char sel[800];
        printf("# program: trilap-analyze timeline\n# input: %s\n# iterations: %s%s\n# ranks: %zu\n",
               input, tl_an_results_selection_say(res, nr, oo->iter_lo, oo->iter_hi, sel, sizeof sel), clip,
               nr);
    }
    short_ranks_say(res, nr, rows);
    char clock[512];
    tl_an_clock_say(&res[0].meta, nr, sizeof *res, clock, sizeof clock);
    printf("# clock: %s\n", clock);
    if (s->span_rank >= 0)
        printf("# span: %.1f us, the selection on rank %d (the first with activity in it); every rank drawn over it, "
               "activity clipped\n",
               (double)(s->end - s->origin) / 1e3, s->span_rank);
    else /* it said "the selection on rank -1" */
        printf("# span: none: no rank has GPU activity or its host's compute or communication in the selection\n");
    /* a run without iterations is drawn from its window's start (it said
     * "the first selected iteration's start" of a run that has none, and
     * still did with --iter-range 0:, which reads it whole) */
    int have = 0;
    for (size_t r = 0; r < nr; r++) have |= res[r].have.n > 0;
    printf("# rows: %zu written to %s (times in us from %s)\n", written, out,
           no_iters || !have ? "the window's start" : "the first selected iteration's start");
}

int tl_an_cmd_timeline(int argc, char **argv)
{
    tl_opts_t o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "output", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(tl_opts_t, out),
         .metavar = "FILE.csv", .help = "timeline rows (required)"},
        {.name = "count", .type = TL_OPT_INT, .offset = offsetof(tl_opts_t, count), .def = "3", .metavar = "N",
         .help = "without --iter-range: N iterations from the middle of the run", .min = 1, .max = 1e6},
    };
    const tl_optgroup groups[] = {
        {.title = "timeline", .opts = own, .nopts = 2, .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze",
                             .command = "timeline",
                             .usage = "[options] RUN_DIR -o FILE.csv",
                             .purpose = "Gnuplot-ready timeline rows (rank, lane row, category, name, start/end in "
                                        "us) for a window of iterations.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if (!o.out) {
        fprintf(stderr, "trilap-analyze: timeline needs -o FILE.csv (try --help)\n");
        free(pr.positional);
        return 2;
    }
    const tl_an_given count[] = {{&o.count, "count", 0}};
    rc = o.c.iters ? tl_an_refuse_given(spec.program, &pr, count, 1, "with --iter-range: the range says which "
                                                                       "iterations")
                   : -1;
    if (rc >= 0) {
        free(pr.positional);
        return rc;
    }
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_state s = {.origin = INT64_MAX, .end = INT64_MIN, .span_rank = -1};
    tl_out out = {0};
    size_t *rows = NULL; /* rows written per rank, in res's order */
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    oo.match = 1; /* work_start_us: the waits overlap and diagnose report (match.c) */
    int no_iters = 0;
    char clip[160] = ""; /* --count beyond the run (count_middle) */
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    if (!o.c.iters) {
        int64_t lo = -1, hi = -1;
        tl_an_meta first = {0};
        TL_TRYGOTO(first_iterations(pr.positional[0], &oo, names, &lo, &hi, &first), st, fail);
        if (lo >= 0) {
            count_middle(lo, hi, o.count, &oo, clip, sizeof clip);
        } else {
            /* a program that marks no iterations (injection, nsys of a
             * foreign program): the whole window, whatever --count says */
            no_iters = 1;
            char why[1200];
            tl_an_no_iters_say(&first, pr.positional[0], "the timeline is its whole window", why, sizeof why);
            if ((rc = tl_an_refuse_given(spec.program, &pr, count, 1, why)) >= 0) goto fail;
        }
    }
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, keep, &s, &res, &nr), st, fail);
    FILE *f = NULL;
    /* its folder made and said once every rank is read and accepted */
    TL_TRYGOTO(tl_an_out_folder("--output", o.out, TL_OUT_FOLDER_OF_FILE), st, fail);
    TL_TRYGOTO(tl_out_open_text(&out, o.out, &f), st, fail); /* gzip'd for a .gz name */
    fprintf(f, "rank,row,row_label,lane,cat,category,cat_id,name,start_us,end_us,iter,work_start_us,clock_unc_us,full_name\n");
    size_t written = 0;
    rows = calloc(nr ? nr : 1, sizeof *rows);
    TL_CHECKGOTO(rows, TL_ERR_NOMEM, st, fail, "%zu ranks", nr);
    for (size_t j = 0; j < s.n; j++) {
        const tl_an_ival *v = &s.k[j].v;
        if (v->end <= s.origin || v->start >= s.end) continue;
        int64_t a = v->start > s.origin ? v->start : s.origin, b = v->end < s.end ? v->end : s.end;
        written++;
        rows[rank_index(res, nr, s.k[j].rank)]++;
        int lp = lane_pos(v);
        const char *nm = tl_an_names_short(names, v->name);
        /* the names always in quotes, as the plot scripts have read them */
        fprintf(f, "%d,%d,r%d %s,%s,%s,%s,%d,", s.k[j].rank, s.k[j].rank * 4 + lp, s.k[j].rank, lane_label[lp],
                tl_role_name((tl_role)v->lane), tl_cat_name((tl_cat)v->cat), tl_an_group_name(v->group), v->group);
        TL_TRYGOTO(tl_an_csv_put(f, nm, 1), st, fail);
        int64_t ws = s.k[j].work_start;
        ws = ws < a ? a : ws > b ? b : ws;
        fprintf(f, ",%.3f,%.3f,%d,%.3f,%.3f,", (double)(a - s.origin) / 1e3, (double)(b - s.origin) / 1e3, v->iter,
                (double)(ws - s.origin) / 1e3, (double)s.k[j].clock_unc / 1e3);
        TL_TRYGOTO(tl_an_csv_put(f, tl_an_names_full(names, v->name), 1), st, fail);
        fputc('\n', f);
    }
    TL_TRYGOTO(tl_out_close(&out, 1), st, fail);
    report_say(pr.positional[0], res, nr, &oo, clip, no_iters, &s, rows, written, o.out);
fail:
    tl_out_close(&out, 0);
    free(rows);
    free(s.k);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return rc >= 0 ? rc : st == TL_OK ? 0 : 1;
}
