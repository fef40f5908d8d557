/* trilap-analyze breakdown RUN_DIR...: GPU time per kernel name and per
 * category (table in analysis/README.md), per rank and max/mean over ranks.
 * Each rank file is read once, as overlap loads it: the totals from its
 * intervals, the bytes handed over in the same pass; the iterations, their
 * count and --iter-range's span, are overlap's (tl_an_rank_slices). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "analysis/kineto.h"
#include "analysis/kineto_report.h"
#include "analysis/grow.h"

typedef struct stat_acc {
    int64_t count, total, min, max, bytes, nbytes; /* nbytes: records with bytes known */
    uint8_t group;
} stat_acc;

typedef struct bd_opts {
    const char *stack_csv;
    tl_an_common c;
} bd_opts;

/* A record's bytes where it carries them (copies, memsets, NCCL kernels):
 * the intervals keep none (32 bytes each), so the loader hands each record
 * here too in its one pass over the file. */
typedef struct bd_bytes {
    int64_t start, bytes;
    uint32_t name;
} bd_bytes;

typedef struct bd_side {
    tl_an_names *names;
    bd_bytes *b;
    size_t n, cap;
} bd_side;

static int is_gpu_kind(int kind)
{
    return kind == TL_KIND_KERNEL || kind == TL_KIND_MEMCPY || kind == TL_KIND_MEMSET;
}

static tl_status keep_bytes(void *user, const tl_trace_record *r)
{
    bd_side *s = user;
    if (!is_gpu_kind(r->kind) || r->bytes < 0) return TL_OK;
    TL_TRY(TL_AN_GROW(s->b, s->n, s->cap, "records with bytes"));
    bd_bytes *b = &s->b[s->n];
    b->start = r->start_ns;
    b->bytes = r->bytes;
    TL_TRY(tl_an_names_intern(s->names, r->name ? r->name : "", &b->name));
    s->n++;
    return TL_OK;
}

/* The records a rank's rows count: those starting in [w0, w1), or all. */
typedef struct bd_window {
    int all;
    int64_t w0, w1;
} bd_window;

static int in_window(const bd_window *w, int64_t start) { return w->all || (start >= w->w0 && start < w->w1); }

typedef struct rank_bd {
    int rank;
    int by_place; /* the trace names no rank: tl_an_rank_unclaimed gives it one */
    int active;    /* what it recorded, in the range or not: TL_AN_ACT_* */
    int host_only; /* no device: no kernel or copy to break down, its host computing and communicating */
    int64_t w, niter;
    tl_an_iter_span have, used; /* the iterations it has, and of them those --iter-range selected */
    char clock[64];             /* its source's clock: how its program would mark iterations */
    char steps[64];             /* an export's NVTX ranges that look like steps, and how many (tl_an_meta) */
    int64_t nsteps;
    char cut[256];              /* its window shortened, its file cut short (tl_an_window_cut_say); "" */
    int64_t owner_guess;        /* records whose rank the probes guessed (tl_an_meta) */
    stat_acc *by_name; /* owned */
    size_t nname;
    stat_acc group[TL_AN_G_COUNT];
} rank_bd;

static void acc_merge(stat_acc *g, const stat_acc *a)
{
    if (!a->count) return;
    if (!g->count || a->min < g->min) g->min = a->min;
    if (!g->count || a->max > g->max) g->max = a->max;
    g->count += a->count;
    g->total += a->total;
    g->bytes += a->bytes;
    g->nbytes += a->nbytes;
}

static tl_status row(tl_an_table *t, const char *run, const char *rank, const char *level, const char *cat,
                     const char *name, const char *full, const stat_acc *a, double w, double niter,
                     double scale)
{
    /* scale: 1 for one rank; for "mean" rows the totals are sums over ranks */
    TL_TRY(tl_an_table_row(t));
    TL_TRY(tl_an_table_str(t, run));
    TL_TRY(tl_an_table_str(t, rank));
    TL_TRY(tl_an_table_str(t, level));
    TL_TRY(tl_an_table_str(t, cat));
    TL_TRY(tl_an_table_str(t, name));
    /* a mean of counts: whole as the other rows print it ("10", it said
     * "10.0"), a fraction only where the ranks' counts differ */
    double count = (double)a->count / scale;
    TL_TRY(tl_an_table_num(t, count, count == (double)(int64_t)count ? 0 : 1));
    double tot = (double)a->total / scale / 1e3;
    TL_TRY(tl_an_table_num(t, tot, 1));
    TL_TRY(tl_an_table_num(t, a->count ? (double)a->total / (double)a->count / 1e3 : NAN, 2));
    TL_TRY(tl_an_table_num(t, a->count ? (double)a->min / 1e3 : NAN, 2));
    TL_TRY(tl_an_table_num(t, a->count ? (double)a->max / 1e3 : NAN, 2));
    TL_TRY(tl_an_table_num(t, w > 0 ? 100.0 * tot / (w / 1e3) : NAN, 1));
    TL_TRY(tl_an_table_num(t, niter > 0 ? tot / niter : NAN, 2));
    /* bandwidth only where every record of the row carried its bytes */
    int bw = a->nbytes == a->count && a->count > 0;
    TL_TRY(tl_an_table_num(t, bw ? (double)a->bytes / scale : NAN, 0));
    TL_TRY(tl_an_table_num(t, bw && a->total > 0 ? (double)a->bytes / (double)a->total : NAN, 3));
    TL_TRY(tl_an_table_str(t, full));
    return TL_OK;
}

static void acc_add(stat_acc *a, const tl_an_ival *v)
{
    int64_t d = v->end - v->start;
    if (a->count == 0) {
        a->min = d;
        a->max = d;
        a->group = v->group;
    }
    a->count++;
    a->total += d;
    if (d < a->min) a->min = d;
    if (d > a->max) a->max = d;
}

/* A rank's totals per name over w: its GPU activities from the loaded
 * intervals, their bytes from beside them; *first, *last: the span of the
 * activities counted. A rank without GPU activity (host_only) has its
 * host's ranges counted instead, its compute:* and its communication: a
 * CPU run's work (it printed "# 0 rows"). A GPU rank's host ranges on a
 * p2p or coll lane (the host-staged provider's exchanges, host-comm) are
 * its communication too, as overlap counts them in U_comm (it showed only
 * their staging copies: 3311.8 us of rank 0's 32755.0 us of U_comm). */
static tl_status count_rank(const tl_an_rank *rk, const bd_side *side, const bd_window *w, const tl_an_names *names,
                            rank_bd *out, int64_t *first, int64_t *last)
{
    size_t cap = tl_an_names_count(names); /* every name of the file is interned by now */
    out->by_name = calloc(cap ? cap : 1, sizeof *out->by_name);
    TL_CHECK(out->by_name, TL_ERR_NOMEM, "%zu names", cap);
    out->nname = cap;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        int counted = is_gpu_kind(v->kind) ||
                      (v->kind == TL_KIND_HOST && (out->host_only || v->group == TL_AN_G_HOST_COMM));
        if (!counted || !in_window(w, v->start)) continue;
        acc_add(&out->by_name[v->name], v);
        if (v->start < *first) *first = v->start;
        if (v->end > *last) *last = v->end;
    }
    for (size_t j = 0; j < side->n; j++) {
        if (!in_window(w, side->b[j].start)) continue;
        out->by_name[side->b[j].name].bytes += side->b[j].bytes;
        out->by_name[side->b[j].name].nbytes++;
    }
    return TL_OK;
}

/* What the loaded rank says besides its totals: its iterations (all, and
 * those selected), its clock, whether it recorded GPU activity at all. */
static void rank_facts(const tl_an_rank *rk, const int64_t *its, size_t nb, rank_bd *out)
{
    out->rank = rk->meta.rank;
    out->by_place = rk->meta.rank_by_place;
    out->have = tl_an_rank_iter_span(rk);
    if (nb) out->used = (tl_an_iter_span){its[0], its[nb - 1], nb};
    out->niter = (int64_t)nb;
    snprintf(out->clock, sizeof out->clock, "%s", rk->meta.clock);
    snprintf(out->steps, sizeof out->steps, "%s", rk->meta.nvtx_steps_name);
    out->nsteps = rk->meta.nvtx_steps;
    out->owner_guess = rk->meta.owner_guess;
    tl_an_window_cut_say(&rk->meta, out->cut, sizeof out->cut);
    out->active = tl_an_rank_activity(rk);
    out->host_only = out->active == TL_AN_ACT_HOST && rk->meta.device < 0;
}

/* One rank's file, read once: its totals per name and group, its window
 * and iteration count, exactly as overlap computes them (with
 * --iter-range, the selection's, by time, so activity the probes could
 * not attribute (iter -1) counts too; the open range 0: on a rank that
 * marks no iteration, its whole window, as overlap reads it): a loop run
 * again (trilap-solve's --repeat) counts each run's iterations, where the
 * span of the iteration numbers counted one run's (per_iter three times
 * too large on a traced solve of three). */
static tl_status scan_rank(const char *file, const bd_opts *o, tl_an_names *names, rank_bd *out)
{
    int flags = tl_an_overlap_opts_of(&o->c).flags & ~TL_AN_ALIGN_ENDS;
    tl_an_rank rk;
    bd_side side = {.names = names};
    int64_t *bounds = NULL, *its = NULL, first = INT64_MAX, last = INT64_MIN;
    size_t nb = 0;
    tl_status st = TL_OK;
    memset(&rk, 0, sizeof rk);
    TL_TRYGOTO(tl_an_rank_load_also(file, flags, names, &rk, keep_bytes, &side), st, fail);
    bd_window w = {.all = !rk.meta.window_from_meta, .w0 = rk.meta.w0, .w1 = rk.meta.w1};
    TL_TRYGOTO(tl_an_rank_slices(&rk, o->c.iter_lo, o->c.iter_hi, &bounds, &its, &nb, &w.w0, &w.w1), st, fail);
    rank_facts(&rk, its, nb, out);
    int by_iter = o->c.iters && (nb || !tl_an_iters_all(o->c.iter_lo, o->c.iter_hi));
    /* a file cut short before the range: its activity there is lost, not
     * none, and counted as none it halved the mean; refused as overlap
     * refuses it (run.c), in the same words */
    if (by_iter && !nb && rk.meta.window_cut) {
        char sel[48], had[640], said[1100];
        st = TL_FAIL(TL_ERR_INVAL, "%s: no %s in iterations %s (%s)", tl_an_file_said(file, said, sizeof said),
                     tl_an_activity_name(out->active), tl_an_iters_str(o->c.iter_lo, o->c.iter_hi, sel, sizeof sel),
                     tl_an_iters_had(out->have, &rk.meta, had, sizeof had));
        goto fail;
    }
    if (by_iter) w.all = 0;
    if (by_iter && !nb) w.w0 = w.w1 = 0; /* this rank has none of them: empty selection */
    if (!by_iter) w.w0 = rk.meta.w0, w.w1 = rk.meta.w1;
    TL_TRYGOTO(count_rank(&rk, &side, &w, names, out, &first, &last), st, fail);
    for (size_t k = 0; k < out->nname; k++) acc_merge(&out->group[out->by_name[k].group], &out->by_name[k]);
    if (by_iter) out->w = w.w1 - w.w0;
    else if (!rk.meta.window_from_meta) out->w = last > first ? last - first : 0;
    else out->w = rk.meta.w1 - rk.meta.w0;
fail:
    tl_an_rank_free(&rk);
    free(side.b);
    free(bounds);
    free(its);
    return st;
}

/* The selection --iter-range made on a run's ranks, in words for the
 * preamble (selection[n]: the iterations used, clipped to the ones the run
 * has: "150:199 (--iter-range 150:250 clipped: ...)", where it said
 * "150:250"); a range selecting nothing on any rank is refused, as overlap
 * refuses it (run.c), rather than tabled as 0 rows, naming the iterations
 * the run has or that it marks none. A rank without those iterations
 * beside others that have them adds nothing, and a run that recorded no
 * GPU activity at all is read empty. */
static tl_status run_selection(const char *dir, const bd_opts *o, const rank_bd *rb, size_t nf, char *selection,
                               size_t n)
{
    snprintf(selection, n, "records starting in the window");
    if (!o->c.iters) return TL_OK;
    int active = TL_AN_ACT_NONE;
    tl_an_iter_span have = {-1, -1, 0}, used = {-1, -1, 0};
    for (size_t f = 0; f < nf; f++) {
        if (rb[f].active > active) active = rb[f].active;
        have = tl_an_iter_span_join(have, rb[f].have);
        used = tl_an_iter_span_join(used, rb[f].used);
    }
    char sel[48], had[640], ranks[48] = "its rank";
    if (nf > 1) snprintf(ranks, sizeof ranks, "any of its %zu ranks", nf);
    tl_an_meta m = {0};
    snprintf(m.clock, sizeof m.clock, "%s", nf ? rb[0].clock : "?");
    if (nf) snprintf(m.nvtx_steps_name, sizeof m.nvtx_steps_name, "%s", rb[0].steps), m.nvtx_steps = rb[0].nsteps;
    TL_CHECK(tl_an_iters_all(o->c.iter_lo, o->c.iter_hi) || used.n || active == TL_AN_ACT_NONE, TL_ERR_INVAL,
             "%s: no %s in iterations %s on %s (%s)", dir, tl_an_activity_name(active), tl_an_iters_str(o->c.iter_lo, o->c.iter_hi, sel, sizeof sel), ranks,
             tl_an_iters_had(have, &m, had, sizeof had));
    tl_an_selection_say(o->c.iter_lo, o->c.iter_hi, used, have, selection, n);
    return TL_OK;
}

/* The run's ranks whose files hold records of a guessed rank, said once
 * (tl_an_guessed_owners_say), its label first. */
static tl_status guessed_note(tl_an_table *t, const char *label, const rank_bd *rb, size_t nf)
{
    tl_an_meta *m = calloc(nf ? nf : 1, sizeof *m);
    TL_CHECK(m, TL_ERR_NOMEM, "%zu ranks", nf);
    for (size_t f = 0; f < nf; f++) {
        m[f].rank = rb[f].rank;
        m[f].owner_guess = rb[f].owner_guess;
    }
    char say[1024];
    tl_status st = TL_OK;
    if (tl_an_guessed_owners_say(m, nf, sizeof *m, say, sizeof say)) st = tl_an_table_meta(t, "note", "%s: %s", label, say);
    free(m);
    return st;
}

static tl_status do_run(const char *dir, const char *label, const bd_opts *o, tl_an_names *names, tl_an_table *t,
                        tl_an_table *stack, char *selection, size_t nsel)
{
    tl_status st = TL_OK;
    char **files = NULL;
    size_t nf = 0;
    rank_bd *rb = NULL;
    TL_TRYGOTO(tl_an_run_files_nvtx(dir, o->c.accept_incomplete ? TL_TRACE_ACCEPT_INCOMPLETE : 0, o->c.iter_nvtx,
                                    &files, &nf),
               st, fail);
    rb = calloc(nf, sizeof *rb);
    TL_CHECKGOTO(rb, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    for (size_t f = 0; f < nf; f++) {
        TL_TRYGOTO(scan_rank(files[f], o, names, &rb[f]), st, fail);
        if (rb[f].by_place) rb[f].rank = tl_an_rank_unclaimed(&rb[0].rank, f, sizeof *rb);
    }
    TL_TRYGOTO(run_selection(dir, o, rb, nf, selection, nsel), st, fail);
    for (size_t f = 0; f < nf; f++) /* its share is of the window it measured */
        if (rb[f].cut[0])
            TL_TRYGOTO(tl_an_table_meta(t, "window",
                                        "%s rank %d: %s; its rows, max and mean count its records starting there, as "
                                        "overlap's window",
                                        label, rb[f].rank, rb[f].cut),
                       st, fail);
    TL_TRYGOTO(guessed_note(t, label, rb, nf), st, fail);
    for (size_t f = 0; f < nf; f++) /* its rows are none, and not for want of activity */
        if (rb[f].host_only)
            TL_TRYGOTO(tl_an_table_meta(t, "gpu_lanes",
                                        "%s rank %d: none (a host-only trace: no device, no kernels or copies "
                                        "recorded): its rows are its host's ranges, its compute (compute:*) and "
                                        "its communication",
                                        label, rb[f].rank),
                       st, fail);
    char rk[32];
    for (size_t f = 0; f < nf; f++) {
        snprintf(rk, sizeof rk, "%d", rb[f].rank);
        for (int g = 0; g < TL_AN_G_COUNT; g++)
            if (rb[f].group[g].count)
                TL_TRYGOTO(row(t, label, rk, "category", tl_an_group_name(g), "*", "*", &rb[f].group[g], (double)rb[f].w,
                               (double)rb[f].niter, 1),
                           st, fail);
        for (size_t k = 0; k < rb[f].nname; k++)
            if (rb[f].by_name[k].count)
                TL_TRYGOTO(row(t, label, rk, "name", tl_an_group_name(rb[f].by_name[k].group),
                               tl_an_names_short(names, (uint32_t)k), tl_an_names_full(names, (uint32_t)k),
                               &rb[f].by_name[k], (double)rb[f].w,
                               (double)rb[f].niter, 1),
                           st, fail);
    }
    /* max and mean over ranks, per category: max takes the slowest rank's total */
    double wmean = 0, imean = 0;
    for (size_t f = 0; f < nf; f++) {
        wmean += (double)rb[f].w / (double)nf;
        imean += (double)rb[f].niter / (double)nf;
    }
    double per_iter[TL_AN_G_COUNT] = {0};
    for (int g = 0; g < TL_AN_G_COUNT; g++) {
        stat_acc sum = {0}, mx = {0};
        size_t fm = 0;
        for (size_t f = 0; f < nf; f++) {
            acc_merge(&sum, &rb[f].group[g]);
            if (rb[f].group[g].total > rb[fm].group[g].total) fm = f;
        }
        mx = rb[fm].group[g];
        if (!sum.count) continue;
        per_iter[g] = imean > 0 ? (double)sum.total / (double)nf / 1e3 / imean : NAN;
        if (nf > 1) {
            TL_TRYGOTO(row(t, label, "max", "category", tl_an_group_name(g), "*", "*", &mx, (double)rb[fm].w,
                           (double)rb[fm].niter, 1),
                       st, fail);
            TL_TRYGOTO(row(t, label, "mean", "category", tl_an_group_name(g), "*", "*", &sum, wmean, imean,
                           (double)nf),
                       st, fail);
        }
    }
    /* the same per kernel name (ids are shared by all ranks of all runs) */
    size_t maxname = 0;
    for (size_t f = 0; f < nf; f++)
        if (rb[f].nname > maxname) maxname = rb[f].nname;
    for (size_t k = 0; k < maxname && nf > 1; k++) {
        stat_acc sum = {0};
        size_t fm = nf;
        for (size_t f = 0; f < nf; f++) {
            if (k >= rb[f].nname || !rb[f].by_name[k].count) continue;
            acc_merge(&sum, &rb[f].by_name[k]);
            sum.group = rb[f].by_name[k].group;
            if (fm == nf || rb[f].by_name[k].total > rb[fm].by_name[k].total) fm = f;
        }
        if (!sum.count) continue;
        const char *nm = tl_an_names_short(names, (uint32_t)k), *cat = tl_an_group_name(sum.group);
        const char *full = tl_an_names_full(names, (uint32_t)k);
        TL_TRYGOTO(row(t, label, "max", "name", cat, nm, full, &rb[fm].by_name[k], (double)rb[fm].w, (double)rb[fm].niter, 1),
                   st, fail);
        TL_TRYGOTO(row(t, label, "mean", "name", cat, nm, full, &sum, wmean, imean, (double)nf), st, fail);
    }
    if (stack) {
        TL_TRYGOTO(tl_an_table_row(stack), st, fail);
        TL_TRYGOTO(tl_an_table_str(stack, label), st, fail);
        TL_TRYGOTO(tl_an_table_fmt(stack, "%zu", nf), st, fail);
        TL_TRYGOTO(tl_an_table_num(stack, imean, 0), st, fail);
        TL_TRYGOTO(tl_an_table_num(stack, imean > 0 ? wmean / 1e3 / imean : NAN, 2), st, fail);
        for (int g = 0; g < TL_AN_G_COUNT; g++) TL_TRYGOTO(tl_an_table_num(stack, per_iter[g], 2), st, fail);
    }
fail:
    for (size_t f = 0; rb && f < nf; f++) free(rb[f].by_name);
    free(rb);
    tl_an_run_files_free(&files, nf);
    return st;
}

/* Each run's label and the selection used on it (run_selection) */
typedef struct run_sel {
    char label[256], sel[800];
} run_sel;

/* The preamble's selection line, once, or one per run where the runs'
 * selections differ (each clipped to its own iterations), then what the
 * share is of: after the runs are read, since they say what was used. */
static tl_status selection_meta(tl_an_table *t, const run_sel *s, size_t n)
{
    int same = 1;
    for (size_t i = 1; i < n; i++) same &= !strcmp(s[i].sel, s[0].sel);
    for (size_t i = 0; i < (same ? 1 : n); i++)
        TL_TRY(same ? tl_an_table_meta(t, "selection", "%s", s[i].sel)
                    : tl_an_table_meta(t, "selection", "%s: %s", s[i].label, s[i].sel));
    return tl_an_table_meta(t, "share", "total / window (the --iter-range span when given); categories by the name "
                                        "table of analysis/README.md; eff_bw = bytes / total time");
}

int tl_an_cmd_breakdown(int argc, char **argv)
{
    bd_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "stack-csv", .type = TL_OPT_STRING, .offset = offsetof(bd_opts, stack_csv), .metavar = "FILE",
         .help = "write one row per run with each category's mean time per iteration (for stacked bars)"},
    };
    const tl_optgroup groups[] = {
        {.title = "breakdown", .opts = own, .nopts = 1, .dst = &o},
        {.title = "HTA", .opts = &tl_an_hta_opt, .nopts = 1, .dst = &o.c},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze", .command = "breakdown", .usage = "[options] RUN_DIR...",
                             .purpose = "GPU time per kernel name and category, per rank and max/mean over ranks.",
                             .groups = groups, .ngroups = 3, .min_positional = 1, .max_positional = -1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if ((rc = tl_an_refuse_repeated(spec.program, &pr, "its rows would be printed twice", 1)) >= 0) {
        free(pr.positional);
        return rc;
    }
    if (o.c.hta) { /* Kineto traces: HTA's temporal breakdown (analysis/kineto_hta.c) */
        const tl_an_given stack[] = {{&o.stack_csv, "stack-csv", 0}};
        rc = tl_an_hta_refuse(spec.program, &pr, &o.c, stack, 1);
        if (rc < 0) rc = tl_kt_hta_report(1, pr.positional, (size_t)pr.npositional, &o.c);
        free(pr.positional);
        return rc;
    }
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_table *t = NULL, *stack = NULL;
    run_sel *sels = NULL;
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    TL_TRYGOTO(tl_an_table_create(&t, "breakdown"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "breakdown", pr.positional[0]), st, fail);
    for (int i = 1; i < pr.npositional; i++) TL_TRYGOTO(tl_an_table_meta(t, "input", "%s", pr.positional[i]), st, fail);
    static const char *const cols[][2] = {{"run", ""}, {"rank", ""}, {"level", ""}, {"category", ""}, {"name", ""},
                                          {"count", ""}, {"total", "us"}, {"mean", "us"}, {"min", "us"},
                                          {"max", "us"}, {"share", "%"}, {"per_iter", "us"}, {"bytes", "B"},
                                          {"eff_bw", "GB/s"}, {"full_name", ""}};
    /* name: the short name (Nsight Systems' way); full_name, the demangled
     * one, only in the CSV */
    for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(t, cols[j][0], cols[j][1],
                                   j == 0 ? 3 : j < 5 ? 1 : !strcmp(cols[j][0], "full_name") ? 2 : 0),
                   st, fail); /* run: a label, quoted when it holds a blank */
    if (o.stack_csv) {
        TL_TRYGOTO(tl_an_table_create(&stack, "breakdown per iteration"), st, fail);
        TL_TRYGOTO(tl_an_table_col(stack, "run", "", 1), st, fail);
        TL_TRYGOTO(tl_an_table_col(stack, "nranks", "", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(stack, "iters", "", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(stack, "window_per_iter", "us", 0), st, fail);
        for (int g = 0; g < TL_AN_G_COUNT; g++) TL_TRYGOTO(tl_an_table_col(stack, tl_an_group_name(g), "", 0), st, fail);
    }
    sels = calloc((size_t)pr.npositional, sizeof *sels);
    TL_CHECKGOTO(sels, TL_ERR_NOMEM, st, fail, "%d runs", pr.npositional);
    for (int i = 0; i < pr.npositional; i++) {
        tl_an_run_label(pr.positional, (size_t)pr.npositional, (size_t)i, sels[i].label, sizeof sels[i].label);
        TL_TRYGOTO(do_run(pr.positional[i], sels[i].label, &o, names, t, stack, sels[i].sel, sizeof sels[i].sel), st,
                   fail);
    }
    TL_TRYGOTO(selection_meta(t, sels, (size_t)pr.npositional), st, fail);
    TL_TRYGOTO(tl_an_emit(t, o.c.csv), st, fail);
    if (stack) TL_TRYGOTO(tl_an_write_csv(stack, "--stack-csv", o.stack_csv), st, fail);
fail:
    free(sels);
    tl_an_table_destroy(&t);
    tl_an_table_destroy(&stack);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
