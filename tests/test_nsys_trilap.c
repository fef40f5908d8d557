/* trilap's NVTX domain in a real Nsight Systems report: the sqlite export
 * (trimmed to NVTX_EVENTS, StringIds and CUPTI_ACTIVITY_KIND_KERNEL) of
 * `nsys profile -t cuda,nvtx bin/trilap-bench tristream --gpus 1 ...` run
 * on an H200 without --trace (results/nsys-h200/). Reads the trilap
 * domain's ranges back: the domain and its named categories, iterations
 * with their number as payload, the operations inside them with the right
 * category, and the kernels nsys recorded itself (the probes' CUPTI stays
 * off). TL_NSYS_SQLITE names another export (gzipped or not). Before the
 * fix a plain run left only NCCL's domain, and this test fails on it. */
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "probes/trace.h"
#include "tests/tl_test.h"

static const char *const committed = "tests/data/nsys-tristream-1gpu.sqlite.gz";

static sqlite3 *open_export(void)
{
    const char *src = tl_test_env("TL_NSYS_SQLITE", committed);
    char db[600], cmd[1400];
    snprintf(db, sizeof db, "%s/export.sqlite", tl_test_tmpdir());
    size_t n = strlen(src);
    if (n > 3 && strcmp(src + n - 3, ".gz") == 0)
        snprintf(cmd, sizeof cmd, "gzip -dc '%s' > '%s'", src, db);
    else
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, db);
    TL_ASSERT_MSG(system(cmd) == 0, "failed: %s", cmd);
    sqlite3 *s = NULL;
    TL_ASSERT_MSG(sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "open %s: %s",
                  db, s ? sqlite3_errmsg(s) : "?");
    return s;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    TL_ASSERT_MSG(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    return st;
}

static int64_t scalar(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = prepare(db, sql);
    TL_ASSERT_MSG(sqlite3_step(st) == SQLITE_ROW, "no row: %s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The export's event types: 33 NvtxCategory, 59 NvtxPushPopRange, 75
 * NvtxDomainCreate; a range's or domain's name is `text`, or the
 * registered string `textId` names in StringIds. */
#define NAME "coalesce(text, (SELECT value FROM StringIds WHERE id = textId))"
#define TRILAP_DOMAINS                                                                             \
    "(SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND " NAME " = 'trilap')"

TL_TEST(trilap_domain_and_categories)
{
    sqlite3 *db = open_export();
    TL_ASSERT(scalar(db, "SELECT count(*) FROM " TRILAP_DOMAINS) >= 1);
    /* the probes name category cat + 1 after the trace's categories */
    static const struct {
        tl_cat cat;
        const char *name;
    } c[] = {{TL_CAT_COMPUTE, "compute"},
             {TL_CAT_P2P, "p2p"},
             {TL_CAT_COLL, "coll"},
             {TL_CAT_RANGE, "range"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char q[1024];
        snprintf(
            q, sizeof q,
            "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 33 AND domainId IN " TRILAP_DOMAINS
            " AND category = %d AND " NAME " = '%s'",
            (int)c[i].cat + 1, c[i].name);
        TL_ASSERT_MSG(scalar(db, q) >= 1, "category %d is not named %s", (int)c[i].cat + 1,
                      c[i].name);
    }
    sqlite3_close(db);
}

typedef struct {
    int64_t start, end, payload, tid;
    int cat, has_payload;
    char name[32];
} range;

/* The trilap domain's push/pop ranges, by thread and start. */
static range *trilap_ranges(sqlite3 *db, size_t *n)
{
    sqlite3_stmt *st =
        prepare(db, "SELECT start, end, coalesce(category, 0), int64Value, globalTid, " NAME
                    " FROM NVTX_EVENTS WHERE eventType = 59 AND domainId IN " TRILAP_DOMAINS
                    " ORDER BY globalTid, start, end DESC");
    size_t cap = 1024, k = 0;
    range *r = malloc(cap * sizeof *r);
    TL_ASSERT(r);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (k == cap) {
            cap *= 2;
            r = realloc(r, cap * sizeof *r);
            TL_ASSERT(r);
        }
        const unsigned char *nm = sqlite3_column_text(st, 5);
        r[k] = (range){.start = sqlite3_column_int64(st, 0),
                       .end = sqlite3_column_int64(st, 1),
                       .cat = sqlite3_column_int(st, 2),
                       .has_payload = sqlite3_column_type(st, 3) != SQLITE_NULL,
                       .payload = sqlite3_column_int64(st, 3),
                       .tid = sqlite3_column_int64(st, 4)};
        snprintf(r[k].name, sizeof r[k].name, "%s", nm ? (const char *)nm : "");
        k++;
    }
    sqlite3_finalize(st);
    *n = k;
    return r;
}

TL_TEST(iterations_carry_their_number)
{
    sqlite3 *db = open_export();
    size_t n = 0;
    range *r = trilap_ranges(db, &n);
    size_t iters = 0, restarts = 0;
    int64_t prev = -1, prev_tid = -1;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].name, "iter") != 0) continue;
        TL_ASSERT_EQ(r[i].cat, TL_CAT_RANGE + 1);
        TL_ASSERT_MSG(r[i].has_payload, "iter range at %lld without payload",
                      (long long)r[i].start);
        TL_ASSERT(r[i].end >= r[i].start);
        /* each loop numbers its iterations 0, 1, 2, ... */
        if (r[i].tid != prev_tid || r[i].payload == 0) {
            TL_ASSERT_EQ(r[i].payload, 0);
            restarts++;
        } else {
            TL_ASSERT_EQ(r[i].payload, prev + 1);
        }
        prev = r[i].payload;
        prev_tid = r[i].tid;
        iters++;
    }
    TL_ASSERT_MSG(iters >= 100, "%zu iteration ranges", iters);
    TL_ASSERT(restarts >= 1);
    printf("%zu iteration ranges in %zu loops\n", iters, restarts);
    free(r);
    sqlite3_close(db);
}

TL_TEST(operations_inside_iterations)
{
    sqlite3 *db = open_export();
    size_t n = 0;
    range *r = trilap_ranges(db, &n);
    static const struct {
        const char *name;
        tl_cat cat;
    } ops[] = {{"allreduce", TL_CAT_COLL}, {"ring", TL_CAT_P2P}, {"daxpy", TL_CAT_COMPUTE}};
    size_t seen[3] = {0}, three = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].name, "iter") != 0) continue;
        /* the ranges that follow, up to the iteration's end, are its operations */
        int has[3] = {0}, nops = 0;
        size_t j = i + 1;
        for (; j < n && r[j].tid == r[i].tid && r[j].start <= r[i].end; j++) {
            TL_ASSERT_MSG(strcmp(r[j].name, "iter") != 0, "iteration inside an iteration");
            TL_ASSERT_MSG(r[j].end <= r[i].end, "%s ends after its iteration", r[j].name);
            int k = -1;
            for (int o = 0; o < 3; o++)
                if (strcmp(r[j].name, ops[o].name) == 0) k = o;
            TL_ASSERT_MSG(k >= 0, "unknown range '%s' in an iteration", r[j].name);
            TL_ASSERT_EQ(r[j].cat, ops[k].cat + 1);
            has[k]++;
            seen[k]++;
            nops++;
        }
        /* one operation (allreduce-only, ring-only, daxpy-only) or all three */
        TL_ASSERT_MSG(nops == 1 || (nops == 3 && has[0] == 1 && has[1] == 1 && has[2] == 1),
                      "iteration %lld has %d operations", (long long)r[i].payload, nops);
        three += nops == 3;
        i = j - 1;
    }
    for (int o = 0; o < 3; o++)
        TL_ASSERT_MSG(seen[o] > 0, "no %s range", ops[o].name);
    TL_ASSERT(three > 0);
    printf("allreduce %zu, ring %zu, daxpy %zu ranges; %zu three-operation iterations\n", seen[0],
           seen[1], seen[2], three);
    free(r);
    sqlite3_close(db);
}

TL_TEST(nsys_recorded_the_kernels)
{
    sqlite3 *db = open_export();
    int64_t daxpy =
        scalar(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE (SELECT value FROM "
                   "StringIds WHERE id = shortName) LIKE '%daxpy%'");
    int64_t ranges = scalar(
        db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND domainId IN " TRILAP_DOMAINS
            " AND " NAME " = 'daxpy'");
    /* one DAXPY kernel per daxpy range, launched by the run nsys profiled */
    TL_ASSERT_MSG(daxpy > 0 && daxpy >= ranges, "%lld daxpy kernels for %lld ranges",
                  (long long)daxpy, (long long)ranges);
    sqlite3_close(db);
}

TL_TEST_MAIN(trilap_domain_and_categories, iterations_carry_their_number,
             operations_inside_iterations, nsys_recorded_the_kernels)
