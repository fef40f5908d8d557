/* Iterations of a program that is not trilap's, from the NVTX ranges it
 * marks its steps with: `torch.cuda.nvtx.range_push(f"step {i}")`,
 * `nvtxRangePushA("iteration 12")`, a `train_step` range. A range is a step
 * of NAME when its text is NAME, or NAME followed by a number: directly
 * (`step3`) or after one of ` #_-:` (`step 3`, `step#3`, `step_3`). Its
 * number is the iteration when every step range of the rank has one, else
 * the ranges count from 0 in time order. GPU rows take the iteration of the
 * range that holds their launch call (HTA's rule for ProfilerStep, as the
 * Kineto reader applies it): a kernel queued in step k that runs while the
 * host is in step k+1 is step k's work. */
#include "analysis/nsys_iters.h"
#include "analysis/grow.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of an NVTX row, inline or through StringIds. */
#define NVTX_TEXT "coalesce(text, (SELECT value FROM StringIds WHERE id = textId))"

enum { NO_MATCH = -2, NO_NUMBER = -1, TOO_BIG = -3 };

/* txt's number as a step of name: >= 0, NO_NUMBER, NO_MATCH, or TOO_BIG
 * (beyond an int32 iteration). */
static int64_t step_number(const char *txt, const char *name)
{
    size_t n = strlen(name);
    if (!txt || strncmp(txt, name, n)) return NO_MATCH;
    const char *p = txt + n;
    if (!*p) return NO_NUMBER;
    if (strchr(" #_-:", *p) && p[1]) p++;
    if (!*p || strspn(p, "0123456789") != strlen(p)) return NO_MATCH;
    int64_t v = 0;
    for (; *p; p++) {
        v = v * 10 + (*p - '0');
        if (v > INT32_MAX) return TOO_BIG;
    }
    return v;
}

/* The stem of a numbered name (`step 3` -> `step`), "" when it has none. */
static void stem_of(const char *txt, char *out, size_t n)
{
    size_t len = strlen(txt), d = len;
    while (d && txt[d - 1] >= '0' && txt[d - 1] <= '9') d--;
    if (d == len || !d) d = 0;
    else if (strchr(" #_-:", txt[d - 1]) && d > 1) d--;
    snprintf(out, n, "%.*s", (int)d, txt);
}

/* spec split into its domain and name: DOMAIN:NAME when the text before
 * the first ':' names an NVTX domain the export creates. */
static tl_status split_spec(const tl_an_sqlite *sq, tl_an_sqlite_db *db, const char *path, const char *spec,
                            char *dom, size_t ndom, const char **name)
{
    *dom = '\0';
    *name = spec;
    const char *colon = strchr(spec, ':');
    if (!colon || !colon[1]) return TL_OK;
    snprintf(dom, ndom, "%.*s", (int)(colon - spec), spec);
    tl_an_sqlite_stmt *s = NULL;
    if (sq->prepare_v2(db, "SELECT 1 FROM NVTX_EVENTS WHERE eventType = 75 AND " NVTX_TEXT " = ?1 LIMIT 1", -1, &s,
                       NULL) != TL_SQ_OK)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: NVTX domains: %s", path, sq->errmsg(db));
    sq->bind_text(s, 1, dom, -1, NULL);
    int rc = sq->step(s);
    sq->finalize(s);
    if (rc == TL_SQ_ROW) *name = colon + 1;
    else *dom = '\0';
    return rc == TL_SQ_ROW || rc == TL_SQ_DONE
               ? TL_OK
               : TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: NVTX domains: %s", path, sq->errmsg(db));
}

/* The domain condition on NVTX_EVENTS e: ?3 NULL for any domain. */
#define IN_DOMAIN                                                                                                     \
    "(?3 IS NULL OR e.domainId IN (SELECT d.domainId FROM NVTX_EVENTS d WHERE d.eventType = 75 AND "                \
    "d.globalTid / 16777216 = e.globalTid / 16777216 AND coalesce(d.text, (SELECT value FROM StringIds WHERE id = "  \
    "d.textId)) = ?3))"

/* No step range in the whole export: refused naming the export's most
 * frequent range names; TL_OK when some process has them. */
static tl_status any_in_export(const tl_an_sqlite *sq, tl_an_sqlite_db *db, const char *path, const char *spec,
                               const char *dom, const char *name)
{
    tl_an_sqlite_stmt *s = NULL;
    const char *q = "SELECT coalesce(e.text, (SELECT value FROM StringIds WHERE id = e.textId)) AS t, count(*), "
                    IN_DOMAIN " FROM NVTX_EVENTS e WHERE e.eventType IN (59, 60) AND e.end IS NOT NULL GROUP BY t, 3 "
                    "ORDER BY 2 DESC, 1";
    if (sq->prepare_v2(db, q, -1, &s, NULL) != TL_SQ_OK)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: NVTX ranges: %s", path, sq->errmsg(db));
    if (*dom) sq->bind_text(s, 3, dom, -1, NULL);
    char top[512] = "";
    size_t at = 0;
    int shown = 0, found = 0, rc;
    while (!found && (rc = sq->step(s)) == TL_SQ_ROW) {
        const char *t = (const char *)sq->column_text(s, 0);
        if (sq->column_int(s, 2) && step_number(t, name) != NO_MATCH) found = 1;
        else if (shown < 5 && at < sizeof top)
            at += (size_t)snprintf(top + at, sizeof top - at, "%s'%.60s' (%lld)", shown++ ? ", " : "", t ? t : "",
                                   (long long)sq->column_int64(s, 1));
    }
    sq->finalize(s);
    if (found) return TL_OK;
    return TL_FAIL(TL_ERR_INVAL, "%s: --iter-nvtx %s: no NVTX range is named %s or %s followed by a number%s%s (%s)",
                   path, spec, name, name, *dom ? " in the domain " : "", dom,
                   shown ? top : "the export has no NVTX ranges");
}

static tl_status push_step(tl_an_nsys_steps *o, size_t *cap, tl_an_nsys_step st)
{
    TL_TRY(TL_AN_GROW(o->s, o->n, *cap, "step ranges"));
    o->s[o->n++] = st;
    return TL_OK;
}

/* Two step ranges that cannot both be iterations: one line naming them. */
static tl_status clash(const char *path, const char *spec, const tl_an_nsys_step *a, const tl_an_nsys_step *b,
                       int64_t ta, int64_t tb)
{
    if (ta != tb)
        return TL_FAIL(TL_ERR_INVAL, "%s: --iter-nvtx %s: two threads of process %lld mark steps: thread %lld "
                       "(%lld..%lld ns) and thread %lld (%lld..%lld ns); the iterations are one thread's ranges",
                       path, spec, (long long)(ta / 16777216 % 16777216), (long long)(ta % 16777216),
                       (long long)a->start, (long long)a->end, (long long)(tb % 16777216), (long long)b->start,
                       (long long)b->end);
    return TL_FAIL(TL_ERR_INVAL, "%s: --iter-nvtx %s: step ranges %lld..%lld ns and %lld..%lld ns on thread %lld "
                   "overlap (nested or overlapping: the time they share would be two iterations'); give a name that "
                   "marks one range per iteration",
                   path, spec, (long long)a->start, (long long)a->end, (long long)b->start, (long long)b->end,
                   (long long)(ta % 16777216));
}

/* Reads the rank's step ranges in time order, checking as it goes. */
static tl_status read_steps(const tl_an_sqlite *sq, tl_an_sqlite_db *db, const char *path, const char *spec,
                            const char *dom, const char *name, int64_t pid, int64_t tid, tl_an_nsys_steps *o,
                            int *numbered)
{
    tl_an_sqlite_stmt *s = NULL;
    const char *q = "SELECT e.start, e.end, e.globalTid, coalesce(e.text, (SELECT value FROM StringIds WHERE id = "
                    "e.textId)), e.rowid, e.eventType FROM NVTX_EVENTS e WHERE e.eventType IN (59, 60) AND e.end IS "
                    "NOT NULL AND e.start IS NOT NULL AND e.globalTid / 16777216 * 16777216 = ?1 AND (?2 = 0 OR "
                    "e.globalTid = ?2 OR (e.eventType = 60 AND e.globalTid NOT IN " TL_AN_NSYS_RANK_THREADS ")) AND "
                    IN_DOMAIN " ORDER BY e.start, e.end DESC, e.rowid";
    if (sq->prepare_v2(db, q, -1, &s, NULL) != TL_SQ_OK)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: NVTX ranges: %s", path, sq->errmsg(db));
    sq->bind_int64(s, 1, pid);
    sq->bind_int64(s, 2, tid);
    if (*dom) sq->bind_text(s, 3, dom, -1, NULL);
    tl_status st = TL_OK;
    size_t cap = 0;
    int64_t first_tid = 0;
    int rc;
    *numbered = 1;
    while (st == TL_OK && (rc = sq->step(s)) == TL_SQ_ROW) {
        int64_t k = step_number((const char *)sq->column_text(s, 3), name);
        if (k == NO_MATCH) continue;
        tl_an_nsys_step cur = {.start = sq->column_int64(s, 0), .end = sq->column_int64(s, 1),
                               .row = sq->column_int64(s, 4), .num = k};
        int64_t t = sq->column_int64(s, 2);
        /* a start/end range (60) is the process's, not its thread's: NVTX
         * lets any thread start or end one, a worker pool's steps among them;
         * a thread-rank takes those of threads that are no rank (a main
         * thread driving the ranks' steps), not another rank's own */
        if (sq->column_int(s, 5) == 60 && o->n) t = first_tid;
        if (k == TOO_BIG)
            st = TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: NVTX_EVENTS row %lld: '%s' numbers an iteration "
                         "beyond %d", path, (long long)cur.row, (const char *)sq->column_text(s, 3), INT32_MAX);
        else if (o->n && (t != first_tid || cur.start < o->s[o->n - 1].end))
            st = clash(path, spec, &o->s[o->n - 1], &cur, first_tid, t);
        else {
            if (!o->n) first_tid = t;
            if (k < 0) *numbered = 0;
            st = push_step(o, &cap, cur);
        }
    }
    if (st == TL_OK && rc != TL_SQ_DONE)
        st = TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: NVTX ranges: %s", path, sq->errmsg(db));
    sq->finalize(s);
    return st;
}

tl_status tl_an_nsys_steps_load(const tl_an_sqlite *sq, tl_an_sqlite_db *db, const char *path, const char *spec,
                                int64_t pid, int64_t tid, tl_an_nsys_steps *out)
{
    memset(out, 0, sizeof *out);
    char dom[256];
    const char *name = spec;
    TL_TRY(split_spec(sq, db, path, spec, dom, sizeof dom, &name));
    int numbered = 1;
    tl_status st = read_steps(sq, db, path, spec, dom, name, pid, tid, out, &numbered);
    if (st == TL_OK && !out->n) st = any_in_export(sq, db, path, spec, dom, name);
    if (st != TL_OK) {
        tl_an_nsys_steps_free(out);
        return st;
    }
    for (size_t i = 0; i < out->n && !numbered; i++) out->s[i].num = (int64_t)i;
    return TL_OK;
}

void tl_an_nsys_steps_free(tl_an_nsys_steps *s)
{
    free(s->s);
    free(s->key);
    free(s->val);
    memset(s, 0, sizeof *s);
}

/* the last range starting at or before t */
static size_t last_at(const tl_an_nsys_steps *s, int64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->s[mid].start <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo; /* one past it; 0: none */
}

int64_t tl_an_nsys_steps_at(const tl_an_nsys_steps *s, int64_t t)
{
    size_t i = last_at(s, t);
    return i && t < s->s[i - 1].end ? s->s[i - 1].num : -1;
}

int64_t tl_an_nsys_steps_row(const tl_an_nsys_steps *s, int64_t start, int64_t row)
{
    size_t i = last_at(s, start);
    return i && s->s[i - 1].start == start && s->s[i - 1].row == row ? s->s[i - 1].num : -1;
}

static size_t slot_of(const tl_an_nsys_steps *s, int64_t corr)
{
    size_t h = (size_t)((uint64_t)corr * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->key[h] != INT64_MIN && s->key[h] != corr) h = (h + 1) & (s->cap - 1);
    return h;
}

static tl_status grow_table(tl_an_nsys_steps *s)
{
    tl_an_nsys_steps old = *s;
    s->cap = old.cap ? 2 * old.cap : 1024;
    s->key = malloc(s->cap * sizeof *s->key);
    s->val = malloc(s->cap * sizeof *s->val);
    if (!s->key || !s->val) {
        free(s->key);
        free(s->val);
        *s = old;
        return TL_FAIL(TL_ERR_NOMEM, "%zu launches", 2 * old.cap);
    }
    for (size_t i = 0; i < s->cap; i++) s->key[i] = INT64_MIN;
    for (size_t i = 0; i < old.cap; i++)
        if (old.key[i] != INT64_MIN) {
            size_t h = slot_of(s, old.key[i]);
            s->key[h] = old.key[i];
            s->val[h] = old.val[i];
        }
    free(old.key);
    free(old.val);
    return TL_OK;
}

tl_status tl_an_nsys_steps_launch(tl_an_nsys_steps *s, int64_t corr, int64_t iter)
{
    if (iter < 0 || corr == INT64_MIN) return TL_OK;
    if (2 * (s->used + 1) > s->cap) TL_TRY(grow_table(s));
    size_t h = slot_of(s, corr);
    if (s->key[h] == INT64_MIN) s->used++;
    s->key[h] = corr;
    s->val[h] = (int32_t)iter;
    return TL_OK;
}

int64_t tl_an_nsys_steps_of_corr(const tl_an_nsys_steps *s, int64_t corr)
{
    if (!s->cap || corr == INT64_MIN) return -1;
    size_t h = slot_of(s, corr);
    return s->key[h] == corr ? s->val[h] : -1;
}

/* How much a stem looks like the steps: one that says step or iter
 * (`step`, `train_step`, `ProfilerStep`, `iteration`) first, then the
 * time its ranges cover. By count, the inner loop won: 5 `step N` each
 * around 8 `layer N` said "give --iter-nvtx 'layer'", whose ranges are
 * layers, not iterations; an outer loop's ranges cover its inner ones. */
static double step_likeness(const char *stem, double ns)
{
    char low[64];
    size_t i = 0;
    for (; stem[i] && i + 1 < sizeof low; i++) low[i] = (char)tolower((unsigned char)stem[i]);
    low[i] = '\0';
    return (strstr(low, "step") || strstr(low, "iter") ? 1e30 : 0) + ns;
}

tl_status tl_an_nsys_steps_hint(const tl_an_sqlite *sq, tl_an_sqlite_db *db, int64_t pid, char *name, size_t n,
                                int64_t *count)
{
    *count = 0;
    *name = '\0';
    tl_an_sqlite_stmt *s = NULL;
    /* the numbered names, counted by stem (most are few: a name per step) */
    const char *q = "SELECT " NVTX_TEXT " AS t, count(*), sum(end - start) FROM NVTX_EVENTS WHERE eventType IN "
                    "(59, 60) AND end IS NOT NULL AND globalTid / 16777216 * 16777216 = ?1 AND t GLOB '*[0-9]' "
                    "GROUP BY t";
    if (sq->prepare_v2(db, q, -1, &s, NULL) != TL_SQ_OK) return TL_OK; /* a hint, not worth a failure */
    sq->bind_int64(s, 1, pid);
    /* the first 16 stems met: a program marks its steps with one or two */
    struct { char stem[64]; int64_t n; double ns; } seen[16];
    size_t ns = 0;
    while (sq->step(s) == TL_SQ_ROW) {
        char stem[64];
        stem_of((const char *)sq->column_text(s, 0), stem, sizeof stem);
        if (!*stem) continue;
        size_t i = 0;
        while (i < ns && strcmp(seen[i].stem, stem)) i++;
        if (i == ns) {
            if (ns == sizeof seen / sizeof seen[0]) continue;
            snprintf(seen[ns].stem, sizeof seen[ns].stem, "%s", stem);
            seen[ns].n = 0;
            seen[ns++].ns = 0;
        }
        seen[i].n += sq->column_int64(s, 1);
        seen[i].ns += (double)sq->column_int64(s, 2);
    }
    sq->finalize(s);
    double best = -1;
    for (size_t i = 0; i < ns; i++)
        if (seen[i].n >= 3 && step_likeness(seen[i].stem, seen[i].ns) > best) {
            best = step_likeness(seen[i].stem, seen[i].ns);
            *count = seen[i].n;
            snprintf(name, n, "%s", seen[i].stem);
        }
    return TL_OK;
}
