/* trilap-analyze perfetto RUN_DIR -o trace.json: Chrome trace JSON ("X"
 * complete events, µs) that Perfetto and Holistic Trace Analysis-style tools
 * load. pid = rank, tid = lane; activities of one lane that overlap without
 * nesting go to sub-tracks so every track is strictly nested, which the
 * Chrome JSON importer requires. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"

typedef struct pf_opts {
    const char *out;
    tl_an_common c;
} pf_opts;

typedef struct track {
    int64_t *stack; /* ends of the open events */
    size_t n, cap;
} track;

typedef struct pf_state {
    FILE *f;
    tl_an_names *names;
    int nevents;
    int64_t w0, w1;
    int all;
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

static void sep(pf_state *s)
{
    fputs(s->nevents++ ? ",\n" : "\n", s->f);
}

static tl_status track_push(track *t, int64_t end)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 16;
        int64_t *ns = realloc(t->stack, c * sizeof *ns);
        TL_CHECK(ns, TL_ERR_NOMEM, "track depth %zu", c);
        t->stack = ns;
        t->cap = c;
    }
    t->stack[t->n++] = end;
    return TL_OK;
}

static tl_status emit_rank(void *user, const tl_an_rank *rk, const tl_an_rank_result *res)
{
    pf_state *s = user;
    tl_status st = TL_OK;
    int pid = rk->meta.rank;
    track *tracks[TL_ROLE_COUNT] = {NULL};
    size_t ntracks[TL_ROLE_COUNT] = {0};
    sep(s);
    fprintf(s->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank %d / GPU %d\"}}", pid,
            pid, rk->meta.device);
    sep(s);
    fprintf(s->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", pid, pid);
    /* Events arrive sorted by start, longer first: a greedy placement on the
     * first track whose open events all contain the new one keeps every
     * track a proper stack. */
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (!s->all && (v->end <= res->meta.w0 || v->start >= res->meta.w1)) continue;
        int lane = v->lane < TL_ROLE_COUNT ? v->lane : TL_ROLE_OTHER;
        size_t k = 0;
        for (; k < ntracks[lane]; k++) {
            track *t = &tracks[lane][k];
            while (t->n && t->stack[t->n - 1] <= v->start) t->n--;
            if (!t->n || v->end <= t->stack[t->n - 1]) break;
        }
        if (k == ntracks[lane]) {
            track *nt = realloc(tracks[lane], (k + 1) * sizeof *nt);
            TL_CHECKGOTO(nt, TL_ERR_NOMEM, st, fail, "tracks");
            tracks[lane] = nt;
            memset(&nt[k], 0, sizeof nt[k]);
            ntracks[lane]++;
        }
        TL_TRYGOTO(track_push(&tracks[lane][k], v->end), st, fail);
        sep(s);
        fprintf(s->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRId64 ".%03d,\"dur\":%" PRId64 ".%03d,\"name\":",
                pid, lane * 100 + (int)k, v->start / 1000, (int)(v->start % 1000), (v->end - v->start) / 1000,
                (int)((v->end - v->start) % 1000));
        json_str(s->f, tl_an_names_get(s->names, v->name));
        fprintf(s->f, ",\"cat\":\"%s\",\"args\":{\"category\":\"%s\",\"iter\":%d,\"stream\":%" PRIu64 "}}",
                tl_cat_name((tl_cat)v->cat), tl_an_group_name(v->group), v->iter, rk->streams[v->stream]);
    }
    for (int l = 0; l < TL_ROLE_COUNT; l++)
        for (size_t k = 0; k < ntracks[l]; k++) {
            sep(s);
            fprintf(s->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s%s",
                    pid, l * 100 + (int)k, tl_role_name((tl_role)l), k ? " #" : "");
            if (k) fprintf(s->f, "%zu", k + 1);
            fputs("\"}}", s->f);
            sep(s);
            fprintf(s->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
                    pid, l * 100 + (int)k, l * 100 + (int)k);
        }
fail:
    for (int l = 0; l < TL_ROLE_COUNT; l++) {
        for (size_t k = 0; k < ntracks[l]; k++) free(tracks[l][k].stack);
        free(tracks[l]);
    }
    return st;
}

int tl_an_cmd_perfetto(int argc, char **argv)
{
    pf_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "output", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(pf_opts, out),
         .metavar = "FILE.json", .help = "Chrome trace JSON (required)"},
    };
    const tl_optgroup groups[] = {
        {.title = "perfetto", .opts = own, .nopts = 1, .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze perfetto", .usage = "[options] RUN_DIR -o trace.json",
                             .purpose = "Export GPU activity as Chrome/Perfetto trace JSON (pid = rank, tid = lane, "
                                        "strictly nested tracks).",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if (!o.out) {
        fprintf(stderr, "trilap-analyze perfetto: -o FILE.json is required (try --help)\n");
        free(pr.positional);
        return 2;
    }
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_an_out out = {0};
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    TL_TRYGOTO(tl_an_out_open(&out, o.out), st, fail);
    pf_state s = {.f = out.f, .names = names, .all = o.c.iters == NULL};
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"trilap-analyze perfetto\"},\"traceEvents\":[", out.f);
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, emit_rank, &s, &res, &nr), st, fail);
    fputs("\n]}\n", out.f);
    TL_TRYGOTO(tl_an_out_close(&out, 1), st, fail);
    printf("# program: trilap-analyze perfetto\n# input: %s\n# ranks: %zu\n# events: %d written to %s (open in "
           "https://ui.perfetto.dev)\n",
           pr.positional[0], nr, s.nevents, o.out);
fail:
    tl_an_out_close(&out, 0);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
