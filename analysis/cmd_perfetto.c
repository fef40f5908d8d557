/* trilap-analyze perfetto RUN_DIR -o trace.json: Chrome trace JSON ("X"
 * complete events, µs) that Perfetto and Holistic Trace Analysis-style tools
 * load. pid = rank; per rank one track group per GPU lane (tid lane*100+k),
 * then the iterations (700+k), the host and NVTX ranges (800+k) and the
 * CUDA API calls and host waits (900+k). Events of one group that overlap
 * without nesting go to sub-tracks so every track is strictly nested, which
 * the Chrome JSON importer requires. Kernels carry their short name (the
 * Nsight way), the demangled and the raw name in args; a flow arrow ("s" to
 * "f") joins each launch to its kernel where the trace has the launch (a
 * host row with the kernel's correlation id: Nsight Systems imports). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "analysis/grow.h"
#include "config.h"
#include "runtime/out.h"

typedef struct pf_opts {
    const char *out;
    tl_an_common c;
} pf_opts;

/* groups of tracks of a rank, after the GPU lanes (0 .. TL_ROLE_COUNT-1) */
enum { G_ITER = TL_ROLE_COUNT, G_HOST, G_API, G_N };
static const int group_tid0[G_N] = {[G_ITER] = 700, [G_HOST] = 800, [G_API] = 900};
static const char *const group_label[G_N] = {[G_ITER] = "iterations", [G_HOST] = "host ranges",
                                             [G_API] = "CUDA API"};

typedef struct pev {
    int64_t start, end;
    uint64_t corr, stream;
    uint32_t name;
    int32_t iter;
    uint8_t kind, lane, cat, group; /* group: the track group (above); for GPU rows tl_an_group in agroup */
    uint8_t agroup;
    int tid;
} pev;

typedef struct track {
    int64_t *stack; /* ends of the open events */
    size_t n, cap;
} track;

typedef struct pf_state {
    FILE *f;
    tl_an_names *names;
    int flags, all;
    int nevents, nflows;
    int64_t noutside; /* events written that start outside the analysis window or the selection */
    pev *ev;
    size_t n, cap;
} pf_state;

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void sep(pf_state *s) { fputs(s->nevents++ ? ",\n" : "\n", s->f); }

static void put_us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static tl_status track_push(track *t, int64_t end)
{
    TL_TRY(TL_AN_GROW(t->stack, t->n, t->cap, "track depths"));
    t->stack[t->n++] = end;
    return TL_OK;
}

static int is_gpu(int kind) { return kind == TL_KIND_KERNEL || kind == TL_KIND_MEMCPY || kind == TL_KIND_MEMSET; }

static tl_status collect(void *user, const tl_trace_record *r)
{
    pf_state *s = user;
    /* a Kineto kernel's host-recorded event wait (kineto_records.c) spans
     * its launch to another stream's work: no host activity to draw */
    if (r->kind == TL_KIND_HOST && r->name && !strncmp(r->name, "wait:", 5)) return TL_OK;
    pev e = {.start = r->start_ns, .end = r->end_ns, .corr = r->corr, .stream = r->stream,
             .iter = (int32_t)(r->iter < 0 ? -1 : r->iter), .kind = (uint8_t)r->kind, .cat = (uint8_t)r->cat};
    TL_TRY(tl_an_names_intern(s->names, r->name ? r->name : "", &e.name));
    if (is_gpu(r->kind)) {
        e.lane = (uint8_t)(r->lane < TL_ROLE_COUNT ? r->lane : TL_ROLE_OTHER);
        e.group = e.lane;
        e.agroup = (uint8_t)tl_an_names_group(s->names, e.name, r->kind, r->cat);
    } else if (r->kind == TL_KIND_SYNC || (r->corr && r->name && !strncmp(r->name, "cuda:", 5))) {
        e.group = G_API;
    } else if (r->kind == TL_KIND_HOST && r->name && !strcmp(r->name, "iter")) {
        e.group = G_ITER;
    } else if (r->kind == TL_KIND_HOST || r->kind == TL_KIND_NVTX) {
        e.group = G_HOST;
    } else {
        return TL_OK;
    }
    TL_TRY(TL_AN_GROW(s->ev, s->n, s->cap, "events"));
    s->ev[s->n++] = e;
    return TL_OK;
}

static int cmp_start(const void *a, const void *b)
{
    const pev *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* containers first */
    return 0;
}

typedef struct corr_ix {
    uint64_t corr;
    size_t i;
} corr_ix;

static int cmp_corr(const void *a, const void *b)
{
    const corr_ix *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static void emit_event(pf_state *s, int pid, const pev *e)
{
    sep(s);
    fprintf(s->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, e->tid);
    put_us(s->f, e->start);
    fputs(",\"dur\":", s->f);
    put_us(s->f, e->end - e->start);
    fputs(",\"name\":", s->f);
    const char *raw = tl_an_names_get(s->names, e->name);
    if (is_gpu(e->kind)) {
        json_str(s->f, tl_an_names_short(s->names, e->name));
        fprintf(s->f, ",\"cat\":\"%s\",\"args\":{\"category\":\"%s\",\"iter\":%d,\"stream\":%" PRIu64,
                tl_cat_name((tl_cat)e->cat), tl_an_group_name((tl_an_group)e->agroup), e->iter, e->stream);
        fputs(",\"full_name\":", s->f);
        json_str(s->f, tl_an_names_full(s->names, e->name));
        if (strcmp(raw, tl_an_names_full(s->names, e->name)) != 0) {
            fputs(",\"mangled_name\":", s->f);
            json_str(s->f, raw);
        }
    } else {
        json_str(s->f, raw);
        const char *cat = e->group == G_ITER ? "iteration" : e->group == G_API ? "cuda_api" : "range";
        fprintf(s->f, ",\"cat\":\"%s\",\"args\":{\"kind\":\"%s\",\"iter\":%d", cat, tl_kind_name((tl_kind)e->kind),
                e->iter);
    }
    if (e->corr) fprintf(s->f, ",\"correlation\":%" PRIu64, e->corr);
    fputs("}}", s->f);
}

/* One rank's events, from its file read again (res: what the overlap
 * pass found of it, its window and selection). */
static tl_status emit_rank(pf_state *s, const tl_an_rank_result *res)
{
    tl_status st = TL_OK;
    int pid = res->meta.rank;
    track *tracks[G_N] = {NULL};
    size_t ntracks[G_N] = {0}, captracks[G_N] = {0};
    corr_ix *api = NULL;
    tl_an_meta m;
    s->n = 0;
    /* a second pass over the rank's file: host ranges, iterations, CUDA API
     * rows and the correlation ids, which the overlap pass does not keep */
    TL_TRY(tl_an_scan(res->meta.path, s->flags | TL_AN_QUIET, collect, s, &m)); /* its warnings said already */
    qsort(s->ev, s->n, sizeof *s->ev, cmp_start);
    sep(s);
    /* a host-only rank (device -1: trilap-solve --backend host, trilap-fdtd
     * --backend cpu) was "rank 0 / GPU -1" */
    fprintf(s->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank %d / ", pid, pid);
    if (res->meta.device >= 0) fprintf(s->f, "GPU %d\"}}", res->meta.device);
    else fputs("host, no GPU\"}}", s->f);
    sep(s);
    fprintf(s->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", pid, pid);
    /* Events sorted by start, longer first: a greedy placement on the first
     * track whose open events all contain the new one keeps every track a
     * proper stack. */
    size_t napi = 0;
    for (size_t j = 0; j < s->n; j++) {
        pev *v = &s->ev[j];
        v->tid = -1;
        if (!s->all && (v->end <= res->meta.w0 || v->start >= res->meta.w1)) continue;
        s->noutside += v->start < res->meta.w0 || v->start >= res->meta.w1;
        int g = v->group;
        size_t k = 0;
        for (; k < ntracks[g]; k++) {
            track *t = &tracks[g][k];
            while (t->n && t->stack[t->n - 1] <= v->start) t->n--;
            if (!t->n || v->end <= t->stack[t->n - 1]) break;
        }
        if (k == ntracks[g]) {
            TL_TRYGOTO(TL_AN_GROW(tracks[g], k, captracks[g], "tracks"), st, fail);
            memset(&tracks[g][k], 0, sizeof tracks[g][k]);
            ntracks[g]++;
        }
        TL_TRYGOTO(track_push(&tracks[g][k], v->end), st, fail);
        v->tid = (g < TL_ROLE_COUNT ? g * 100 : group_tid0[g]) + (int)k;
        emit_event(s, pid, v);
        if (g == G_API && v->corr) napi++;
    }
    /* flows: launch (CUDA API row) -> GPU row of the same correlation id */
    if (napi) {
        api = malloc(napi * sizeof *api);
        TL_CHECKGOTO(api, TL_ERR_NOMEM, st, fail, "%zu launches", napi);
        size_t a = 0;
        for (size_t j = 0; j < s->n; j++)
            if (s->ev[j].tid >= 0 && s->ev[j].group == G_API && s->ev[j].corr) api[a++] = (corr_ix){s->ev[j].corr, j};
        qsort(api, napi, sizeof *api, cmp_corr);
        for (size_t j = 0; j < s->n; j++) {
            const pev *v = &s->ev[j];
            if (v->tid < 0 || !is_gpu(v->kind) || !v->corr) continue;
            corr_ix key = {.corr = v->corr};
            const corr_ix *hit = bsearch(&key, api, napi, sizeof *api, cmp_corr);
            if (!hit) continue;
            const pev *l = &s->ev[hit->i];
            /* both ends at the middle of their slice: each binds to its own slice */
            uint64_t id = ((uint64_t)(unsigned)pid << 40) ^ v->corr;
            sep(s);
            fprintf(s->f, "{\"ph\":\"s\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"ts\":", id, pid, l->tid);
            put_us(s->f, l->start + (l->end - l->start) / 2);
            fputs(",\"name\":\"launch\",\"cat\":\"launch\"}", s->f);
            sep(s);
            fprintf(s->f, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"ts\":", id, pid, v->tid);
            put_us(s->f, v->start + (v->end - v->start) / 2);
            fputs(",\"name\":\"launch\",\"cat\":\"launch\"}", s->f);
            s->nflows++;
        }
    }
    for (int g = 0; g < G_N; g++)
        for (size_t k = 0; k < ntracks[g]; k++) {
            int tid = (g < TL_ROLE_COUNT ? g * 100 : group_tid0[g]) + (int)k;
            sep(s);
            fprintf(s->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s%s", pid,
                    tid, g < TL_ROLE_COUNT ? tl_role_name((tl_role)g) : group_label[g], k ? " #" : "");
            if (k) fprintf(s->f, "%zu", k + 1);
            fputs("\"}}", s->f);
            sep(s);
            fprintf(s->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
                    pid, tid, tid);
        }
fail:
    free(api);
    for (int g = 0; g < G_N; g++) {
        for (size_t k = 0; k < ntracks[g]; k++) free(tracks[g][k].stack);
        free(tracks[g]);
    }
    return st;
}

int tl_an_cmd_perfetto(int argc, char **argv)
{
    pf_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "output", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(pf_opts, out),
         .metavar = "FILE.json", .help = "Chrome trace JSON (required); a name ending in .gz is written gzip'd "
         "(Perfetto opens both)"},
    };
    const tl_optgroup groups[] = {
        {.title = "perfetto", .opts = own, .nopts = 1, .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze",
                             .command = "perfetto",
                             .usage = "[options] RUN_DIR -o trace.json[.gz]",
                             .purpose = "Export GPU activity, host ranges, iterations and launches as "
                                        "Chrome/Perfetto trace JSON (pid = rank, strictly nested tracks).",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if (!o.out || (tl_out_names_gzip(o.out) && !TL_HAVE_ZLIB)) {
        if (!o.out) fprintf(stderr, "trilap-analyze: perfetto needs -o FILE.json (try --help)\n");
        else fprintf(stderr, "trilap-analyze: -o %s: writing gzip needs zlib (built without it); give a "
                             ".json name (try --help)\n", o.out);
        free(pr.positional);
        return 2;
    }
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_out out = {0};
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    pf_state s = {.all = o.c.iters == NULL, .flags = oo.flags};
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    /* every rank read and accepted before the output is begun, its folder
     * made and said: the ranks were written as they were read, so that a
     * damaged row in the last rank's file came after -o's folder was made
     * (each rank's file is read twice all the same: the overlap pass keeps
     * no host ranges or correlation ids) */
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, NULL, NULL, &res, &nr), st, fail);
    TL_TRYGOTO(tl_an_out_folder("--output", o.out, TL_OUT_FOLDER_OF_FILE), st, fail);
    TL_TRYGOTO(tl_out_open_text(&out, o.out, &s.f), st, fail); /* gzip'd for a .gz name */
    s.names = names;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"trilap-analyze perfetto\"},\"traceEvents\":[", s.f);
    for (size_t r = 0; r < nr; r++) TL_TRYGOTO(emit_rank(&s, &res[r]), st, fail);
    fputs("\n]}\n", s.f);
    TL_TRYGOTO(tl_out_close(&out, 1), st, fail);
    printf("# program: trilap-analyze perfetto\n# input: %s\n", pr.positional[0]);
    if (o.c.iters) { /* the iterations used: --iter-range clipped to the run's */
        char sel[800];
        printf("# iterations: %s\n", tl_an_results_selection_say(res, nr, oo.iter_lo, oo.iter_hi, sel, sizeof sel));
    }
    printf("# ranks: %zu\n# events: %d written to %s (%d launch -> kernel flows; open in https://ui.perfetto.dev)\n", nr,
           s.nevents, o.out, s.nflows);
    char guessed[1024];
    if (nr && tl_an_guessed_owners_say(&res[0].meta, nr, sizeof *res, guessed, sizeof guessed))
        printf("# note: %s\n", guessed);
    /* why its counts exceed breakdown's, which counts the records starting
     * in the window (pcg-128: 8011 tl_update_kernel here, 6008 there) */
    int whole = !o.c.iters || tl_an_iters_all(oo.iter_lo, oo.iter_hi); /* 0: selects the window */
    printf("# outside: %" PRId64 " of them start %s: breakdown counts only the records starting in it\n",
           s.noutside, whole ? "outside the analysis window (before it: set-up, warm-up; or after its end)"
                             : "before the selection (they reach into it)");
fail:
    tl_out_close(&out, 0);
    free(s.ev);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
