/* trilap-solve's list options (--solver, --schedule, --spmv), each a
 * comma list whose entries run in turn, into the runs they make. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/driver/solve_impl.h"

/* A comma list option (--solver, --schedule, --spmv) as its entries. */
enum { MAX_LIST = 8, LIST_ENTRY = 48 };
typedef struct name_list {
    int n;
    char entry[MAX_LIST][LIST_ENTRY];
} name_list;

/* Split `text` on every comma; NULL, or why the list cannot be run: an
 * empty entry (a comma at either end or two together, which strtok passed
 * over in silence), an entry given twice (its runs would write the same
 * files), more than `max` entries. */
static const char *split_list(const char *text, int max, name_list *l, char *why, size_t nwhy)
{
    l->n = 0;
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) return "an empty entry (a comma at either end, or two together)";
        if (l->n == max) {
            snprintf(why, nwhy, "more than %d entries", max);
            return why;
        }
        snprintf(l->entry[l->n], LIST_ENTRY, "%.*s", (int)len, p);
        for (int k = 0; k < l->n; k++)
            if (strcmp(l->entry[k], l->entry[l->n]) == 0) {
                snprintf(why, nwhy, "'%s' twice (its runs would write the same files)", l->entry[k]);
                return why;
            }
        l->n++;
        p += len;
        if (!*p) return NULL;
    }
}

/* why = "'ENTRY' is not a WHAT: a, b or c" from a table whose entries
 * start with their name (tl_methods, tl_schedules), then `tail`. */
static const char *not_one_of(char *why, size_t nwhy, const char *entry, const char *what, const void *table,
                              size_t stride, int count, const char *tail)
{
    size_t at = (size_t)snprintf(why, nwhy, "'%s' is not a %s:", entry, what);
    for (int i = 0; i < count && at < nwhy; i++) {
        const char *name = *(const char *const *)((const char *)table + (size_t)i * stride);
        at += (size_t)snprintf(why + at, nwhy - at, "%s %s", i == 0 ? "" : i + 1 == count ? " or" : ",", name);
    }
    if (at < nwhy) snprintf(why + at, nwhy - at, "%s", tail);
    return why;
}

/* One --spmv entry, trilap[:T] or cusparse[:ALG], into *c; 0 on success.
 * T: threads per row (1..32, -1 the nonzero split), ALG: default|csr1|csr2. */
static int parse_spmv(const char *entry, struct spmv_choice *c)
{
    char tok[LIST_ENTRY];
    snprintf(tok, sizeof tok, "%s", entry);
    char *arg = strchr(tok, ':');
    if (arg) *arg++ = 0;
    c->tpr = c->alg = -2;
    if (strcmp(tok, "trilap") == 0) {
        c->impl = 0;
        char *end = NULL;
        long t = arg ? strtol(arg, &end, 10) : 0;
        if (arg && (end == arg || *end || !(t == -1 || (t >= 1 && t <= 32 && (t & (t - 1)) == 0)))) return -1;
        if (arg) c->tpr = (int)t;
    } else if (strcmp(tok, "cusparse") == 0) {
        c->impl = 1;
        if (arg) {
            int alg = CUSPARSE_ALG_CSR2;
            while (alg >= 0 && strcmp(arg, cusparse_alg_names[alg]) != 0) alg--;
            if (alg < 0) return -1;
            c->alg = tl_solve_cli_cusparse_alg_value(alg);
        }
    } else {
        return -1;
    }
    snprintf(c->label, sizeof c->label, "%s", entry);
    return 0;
}

/* --spmv trilap[:T],cusparse[:ALG],... -> o->spmvs; NULL, or why not. */
static const char *parse_spmvs(solve_opts *o, char *why, size_t nwhy)
{
    name_list l;
    const char *bad = split_list(o->spmv, MAX_LIST, &l, why, nwhy);
    if (bad) return bad;
    for (o->nspmvs = 0; o->nspmvs < l.n; o->nspmvs++)
        if (parse_spmv(l.entry[o->nspmvs], &o->spmvs[o->nspmvs]) != 0) {
            snprintf(why, nwhy, "'%s' is not trilap[:T] (T 1, 2, 4, 8, 16, 32 or -1) or cusparse[:default|csr1|csr2]",
                     l.entry[o->nspmvs]);
            return why;
        }
    return NULL;
}

/* --schedule a,b or all -> o->schedules; NULL, or why not. */
static const char *parse_schedules(solve_opts *o, char *why, size_t nwhy)
{
    o->nschedules = 0;
    if (strcmp(o->schedule, "all") == 0) {
        for (int i = 0; i < TL_SCHED_COUNT; i++)
            o->schedules[o->nschedules++] = &tl_schedules[i];
        return NULL;
    }
    name_list l;
    const char *bad = split_list(o->schedule, TL_SCHED_COUNT, &l, why, nwhy);
    if (bad) return bad;
    for (; o->nschedules < l.n; o->nschedules++) {
        const tl_schedule *sc = tl_schedule_find(l.entry[o->nschedules]);
        if (!sc)
            return not_one_of(why, nwhy, l.entry[o->nschedules], "schedule", tl_schedules, sizeof tl_schedules[0],
                              TL_SCHED_COUNT, " (or all, alone)");
        o->schedules[o->nschedules] = sc;
    }
    return NULL;
}

/* --solver a,b,c -> o->methods; NULL, or why not. */
static const char *parse_solvers(solve_opts *o, char *why, size_t nwhy)
{
    name_list l;
    const char *bad = split_list(o->solver, MAX_SOLVERS, &l, why, nwhy);
    if (bad) return bad;
    for (o->nmethods = 0; o->nmethods < l.n; o->nmethods++) {
        const tl_method *m = tl_method_find(l.entry[o->nmethods]);
        if (!m)
            return not_one_of(why, nwhy, l.entry[o->nmethods], "solver", tl_methods, sizeof tl_methods[0], tl_nmethods,
                              "");
        o->methods[o->nmethods] = m;
    }
    return NULL;
}

/* The list options, each into its runs; 0, or 2 after one line naming the
 * option, the list and what is wrong with it. */
int tl_solve_cli_parse_lists(solve_opts *o)
{
    const struct {
        const char *option, *text;
        const char *(*parse)(solve_opts *o, char *why, size_t nwhy);
    } lists[] = {{"solver", o->solver, parse_solvers},
                 {"spmv", o->spmv, parse_spmvs},
                 {"schedule", o->schedule, parse_schedules}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        char why[256];
        const char *bad = lists[k].parse(o, why, sizeof why);
        if (bad) {
            fprintf(stderr, "%s: invalid --%s '%s': %s (try --help)\n", PROGRAM, lists[k].option, lists[k].text, bad);
            return 2;
        }
    }
    return 0;
}
