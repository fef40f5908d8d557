/* The probes' NVTX ranges as a tool sees them: a fake NVTX tool, linked in
 * through NVTX3's static injection hook, records every domain, category,
 * string, push and pop. Checks that NVTX-only probes (no outdir) emit the
 * trilap domain's ranges with their categories and write nothing; that
 * none are made without a tool; that a tracing session replaces them and
 * hands them back; that CUPTI needs a folder. */
#include "probes/probes.h"

#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tests/tl_test.h"

#if TL_HAVE_NVTX
/* NVTX3's static injection: a strong definition of this pointer (declared
 * before the header, which then skips its weak one) names the tool. */
static int fake_init(const void *(*get)(uint32_t));
int (*InitializeInjectionNvtx2_fnptr)(const void *(*)(uint32_t)) = fake_init;
#define NVTX_STATIC_INJECTION_IMPL
#include <nvtx3/nvToolsExt.h>

/* ---- the fake tool (test-only state) ---------------------------------- */

enum { FAKE_MAX = 256 };
typedef struct {
    int push; /* 1 push, 0 pop */
    int domain;
    uint32_t category;
    int64_t payload;
    int has_payload;
    char msg[64];
} fake_event;

static struct {
    char domains[8][32];
    int ndomains;
    char categories[8][16][32]; /* [domain][category] */
    char strings[FAKE_MAX][64];
    int nstrings;
    fake_event ev[FAKE_MAX];
    int nev;
} fake;

static int fake_domain_index(nvtxDomainHandle_t d)
{
    return (int)(intptr_t)d - 1;
}

static nvtxDomainHandle_t fake_domain_create(const char *name)
{
    if (fake.ndomains == 8) return NULL;
    snprintf(fake.domains[fake.ndomains], sizeof fake.domains[0], "%s", name);
    return (nvtxDomainHandle_t)(intptr_t)++fake.ndomains;
}

static void fake_name_category(nvtxDomainHandle_t d, uint32_t c, const char *name)
{
    int k = fake_domain_index(d);
    if (k >= 0 && k < 8 && c < 16) snprintf(fake.categories[k][c], 32, "%s", name);
}

static nvtxStringHandle_t fake_register_string(nvtxDomainHandle_t d, const char *s)
{
    if (fake.nstrings == FAKE_MAX) return NULL;
    snprintf(fake.strings[fake.nstrings], 64, "%s", s);
    return (nvtxStringHandle_t)(intptr_t)++fake.nstrings;
}

static int fake_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    if (fake.nev == FAKE_MAX) return -1;
    fake_event *e = &fake.ev[fake.nev++];
    *e = (fake_event){.push = 1, .domain = fake_domain_index(d), .category = a->category};
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
        intptr_t k = (intptr_t)a->message.registered - 1;
        snprintf(e->msg, sizeof e->msg, "%s", k >= 0 && k < fake.nstrings ? fake.strings[k] : "?");
    } else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII) {
        snprintf(e->msg, sizeof e->msg, "%s", a->message.ascii);
    }
    if (a->payloadType == NVTX_PAYLOAD_TYPE_INT64) {
        e->has_payload = 1;
        e->payload = a->payload.llValue;
    }
    return 0;
}

static int fake_pop(nvtxDomainHandle_t d)
{
    if (fake.nev == FAKE_MAX) return -1;
    fake.ev[fake.nev++] = (fake_event){.push = 0, .domain = fake_domain_index(d)};
    return 0;
}

/* NVTX calls this on the process's first NVTX call; TL_FAKE_NVTX_OFF
 * makes it decline, as a process without a tool. */
static int fake_init(NvtxGetExportTableFunc_t get)
{
    if (getenv("TL_FAKE_NVTX_OFF")) return 0;
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable t = NULL;
    unsigned n = 0;
    if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) || !t) return 0;
    *t[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)fake_domain_create;
    *t[NVTX_CBID_CORE2_DomainNameCategoryA] = (NvtxFunctionPointer)fake_name_category;
    *t[NVTX_CBID_CORE2_DomainRegisterStringA] = (NvtxFunctionPointer)fake_register_string;
    *t[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)fake_push;
    *t[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)fake_pop;
    return 1;
}

static void need_fake_tool(void)
{
    /* a real tool (nsys) named in the environment would be loaded instead */
    if (getenv("NVTX_INJECTION64_PATH")) TL_SKIP("NVTX_INJECTION64_PATH is set: a real tool runs");
}

/* pushes and pops seen in the domain named `domain` */
static void count(const char *domain, int *pushes, int *pops)
{
    *pushes = *pops = 0;
    for (int i = 0; i < fake.nev; i++) {
        int d = fake.ev[i].domain;
        if (d < 0 || d >= fake.ndomains || strcmp(fake.domains[d], domain) != 0) continue;
        if (fake.ev[i].push)
            ++*pushes;
        else
            ++*pops;
    }
}

static int count_msg(const char *msg)
{
    int n = 0;
    for (int i = 0; i < fake.nev; i++)
        n += fake.ev[i].push && strcmp(fake.ev[i].msg, msg) == 0;
    return n;
}

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    TL_ASSERT(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static tl_ctx rank_ctx(void)
{
    static char *argv[] = {"test_probes_nvtx", NULL};
    return (tl_ctx){
        .program = "test_probes_nvtx", .size = 1, .device = -1, .argc = 1, .argv = argv};
}

/* Three iterations of the tristream loop's ranges. */
static void loop(tl_ctx *ctx)
{
    for (int it = 0; it < 3; it++) {
        tl_probe_iter_begin(ctx, it);
        tl_probe_push(ctx, TL_CAT_COLL, "allreduce");
        tl_probe_pop(ctx);
        tl_probe_push(ctx, TL_CAT_P2P, "ring");
        tl_probe_pop(ctx);
        tl_probe_push(ctx, TL_CAT_COMPUTE, "daxpy");
        tl_probe_pop(ctx);
        tl_probe_iter_end(ctx);
    }
}

TL_TEST(nvtx_only_emits_trilap_domain)
{
    need_fake_tool();
    const char *dir = tl_test_tmpdir();
    TL_ASSERT_EQ(chdir(dir), 0); /* anything written would land here */
    tl_ctx ctx = rank_ctx();
    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}));
    TL_ASSERT(ctx.probes != NULL);
    loop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT(ctx.probes == NULL);
    TL_ASSERT_EQ(dir_entries(dir), 0);

    TL_ASSERT_EQ(fake.ndomains, 1);
    TL_ASSERT_STREQ(fake.domains[0], "trilap");
    /* categories are trace cat + 1, named as in the trace */
    TL_ASSERT_STREQ(fake.categories[0][TL_CAT_COMPUTE + 1], "compute");
    TL_ASSERT_STREQ(fake.categories[0][TL_CAT_P2P + 1], "p2p");
    TL_ASSERT_STREQ(fake.categories[0][TL_CAT_COLL + 1], "coll");
    TL_ASSERT_STREQ(fake.categories[0][TL_CAT_RANGE + 1], "range");
    int pushes, pops;
    count("trilap", &pushes, &pops);
    TL_ASSERT_EQ(pushes, 12);
    TL_ASSERT_EQ(pops, 12);
    /* iteration 1: its iter range with the number as payload, then its ops */
    const fake_event *e = &fake.ev[8];
    TL_ASSERT(e->push);
    TL_ASSERT_STREQ(e->msg, "iter");
    TL_ASSERT(e->has_payload);
    TL_ASSERT_EQ(e->payload, 1);
    TL_ASSERT_EQ(e->category, TL_CAT_RANGE + 1);
    TL_ASSERT_STREQ(fake.ev[9].msg, "allreduce");
    TL_ASSERT_EQ(fake.ev[9].category, TL_CAT_COLL + 1);
    TL_ASSERT_STREQ(fake.ev[11].msg, "ring");
    TL_ASSERT_EQ(fake.ev[11].category, TL_CAT_P2P + 1);
    TL_ASSERT_STREQ(fake.ev[13].msg, "daxpy");
    TL_ASSERT_EQ(fake.ev[13].category, TL_CAT_COMPUTE + 1);
    TL_ASSERT(!fake.ev[14].push);
}

TL_TEST(no_tool_no_probes)
{
    need_fake_tool();
    setenv("TL_FAKE_NVTX_OFF", "1", 1); /* before the first NVTX call */
    tl_ctx ctx = rank_ctx();
    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}));
    TL_ASSERT(ctx.probes == NULL); /* nothing made, every call a no-op */
    loop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT_EQ(fake.nev, 0);
    TL_ASSERT_EQ(fake.ndomains, 0);
}

TL_TEST(nvtx_off_or_cupti_without_folder)
{
    need_fake_tool();
    tl_ctx ctx = rank_ctx();
    /* neither a folder nor NVTX: nothing to do, so a mistake */
    TL_ASSERT_EQ(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 0}), TL_ERR_INVAL);
    TL_ASSERT(ctx.probes == NULL);
    TL_ASSERT_EQ(fake.ndomains, 0);
    /* CUPTI is never on unless asked, and asking needs a folder */
    TL_ASSERT_EQ(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1, .cupti = 1}), TL_ERR_INVAL);
    TL_ASSERT(ctx.probes == NULL);
}

TL_TEST(session_replaces_nvtx_only)
{
    need_fake_tool();
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx = rank_ctx();
    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}));
    tl_probes *outer = ctx.probes;
    TL_ASSERT(outer != NULL);
    TL_ASSERT_EQ(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}), TL_ERR_INVAL);
    TL_ASSERT(ctx.probes == outer);

    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.outdir = dir, .nvtx = 1}));
    TL_ASSERT(ctx.probes != outer);
    /* one tracing session at a time */
    TL_ASSERT_EQ(tl_probes_create(&ctx, &(tl_probes_config){.outdir = dir, .nvtx = 1}),
                 TL_ERR_INVAL);
    TL_ASSERT_EQ(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}), TL_ERR_INVAL);
    tl_probe_push(&ctx, TL_CAT_P2P, "halo");
    tl_probe_pop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT(ctx.probes == outer);
    tl_probe_push(&ctx, TL_CAT_COMPUTE, "after");
    tl_probe_pop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT(ctx.probes == NULL);

    TL_ASSERT_EQ(count_msg("halo"), 1); /* once, not once per probes */
    TL_ASSERT_EQ(count_msg("after"), 1);
    char path[512];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    tl_trace_record rec;
    int got = 0, halo = 0;
    for (;;) {
        TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
        if (!got) break;
        halo += strcmp(rec.name, "p2p:halo") == 0;
        TL_ASSERT(strcmp(rec.name, "compute:after") != 0);
    }
    tl_trace_reader_close(&r);
    TL_ASSERT_EQ(halo, 1);
}

TL_TEST(session_without_nvtx_is_silent)
{
    need_fake_tool();
    tl_ctx ctx = rank_ctx();
    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.outdir = tl_test_tmpdir()}));
    loop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT_EQ(fake.nev, 0);
}

TL_TEST(open_ranges_closed_at_destroy)
{
    need_fake_tool();
    tl_ctx ctx = rank_ctx();
    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}));
    tl_probe_iter_begin(&ctx, 7);
    tl_probe_push(&ctx, TL_CAT_COMPUTE, "a");
    tl_probe_push(&ctx, TL_CAT_COMPUTE, "b");
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    int pushes, pops;
    count("trilap", &pushes, &pops);
    TL_ASSERT_EQ(pushes, 3);
    TL_ASSERT_EQ(pops, 3);
}

/* tl_probes_rank_main: fn runs inside NVTX-only probes and gets its own
 * argument; a session it leaves open is written and closed; its status
 * comes back. */
typedef struct {
    const char *dir;
    int called;
    void *probes_seen;
} wrapped_arg;

static tl_status wrapped(tl_ctx *ctx, void *arg)
{
    wrapped_arg *w = arg;
    w->called = ctx->opts == arg;
    w->probes_seen = ctx->probes;
    tl_probe_push(ctx, TL_CAT_COMPUTE, "outside");
    tl_probe_pop(ctx);
    TL_TRY(tl_probes_create(ctx, &(tl_probes_config){.outdir = w->dir, .nvtx = 1}));
    tl_probe_push(ctx, TL_CAT_COLL, "left-open");
    return TL_ERR_NUMERIC; /* as a run with wrong values, session still open */
}

TL_TEST(rank_main_wrapper)
{
    need_fake_tool();
    tl_ctx ctx = rank_ctx();
    wrapped_arg w = {.dir = tl_test_tmpdir()};
    tl_probes_main pm = {.fn = wrapped, .arg = &w};
    TL_ASSERT_EQ(tl_probes_rank_main(&ctx, &pm), TL_ERR_NUMERIC);
    TL_ASSERT(w.called);
    TL_ASSERT(w.probes_seen != NULL);
    TL_ASSERT(ctx.probes == NULL);
    TL_ASSERT_EQ(count_msg("outside"), 1);
    TL_ASSERT_EQ(count_msg("left-open"), 1);
    int pushes, pops;
    count("trilap", &pushes, &pops);
    TL_ASSERT_EQ(pushes, 2);
    TL_ASSERT_EQ(pops, 2); /* the range left open is closed for the tool too */
    char path[512];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", w.dir);
    TL_ASSERT_MSG(access(path, R_OK) == 0, "no %s", path);
}

/* One owner of tracing: the wrapper holds the request, sessions open from
 * it in DIR/<sub> (nothing without a request), close, and one left open
 * is written by the wrapper. */
typedef struct {
    int opened[3];
    tl_status close_st;
} session_arg;

static tl_status sessions(tl_ctx *ctx, void *arg)
{
    session_arg *a = arg;
    TL_TRY(tl_probes_session_open(ctx, &(tl_probes_session){.sub = "first/ring", .cupti = 0}, &a->opened[0]));
    tl_probe_push(ctx, TL_CAT_P2P, "ring");
    tl_probe_pop(ctx);
    a->close_st = tl_probes_session_close(ctx);
    TL_TRY(tl_probes_session_open(ctx, &(tl_probes_session){.cupti = -1}, &a->opened[1]));
    tl_probe_push(ctx, TL_CAT_COLL, "left-open");
    return TL_OK;
}

TL_TEST(sessions_from_one_request)
{
    tl_ctx ctx = rank_ctx();
    const char *dir = tl_test_tmpdir();
    session_arg a = {.close_st = TL_ERR_INVAL};
    tl_probes_main pm = {.fn = sessions, .arg = &a, .trace = {.dir = dir, .cupti = 0}};
    TL_ASSERT_OK(tl_probes_rank_main(&ctx, &pm));
    TL_ASSERT(a.opened[0] && a.opened[1] && a.close_st == TL_OK);
    TL_ASSERT(ctx.probes == NULL && ctx.trace == NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/first/ring/trace.rank0.csv", dir);
    TL_ASSERT_MSG(access(path, R_OK) == 0, "no %s", path);
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir); /* written by the wrapper */
    TL_ASSERT_MSG(access(path, R_OK) == 0, "no %s", path);
    /* no request: no session, nothing written, closing is harmless */
    tl_ctx bare = rank_ctx();
    int on = 1;
    TL_ASSERT_OK(tl_probes_session_open(&bare, &(tl_probes_session){.sub = "x", .cupti = -1}, &on));
    TL_ASSERT(!on && bare.probes == NULL);
    TL_ASSERT_OK(tl_probes_session_close(&bare));
}

TL_TEST_MAIN(nvtx_only_emits_trilap_domain, no_tool_no_probes, nvtx_off_or_cupti_without_folder,
             session_replaces_nvtx_only, session_without_nvtx_is_silent,
             open_ranges_closed_at_destroy, rank_main_wrapper, sessions_from_one_request)

#else /* !TL_HAVE_NVTX */

TL_TEST(no_nvtx_in_build)
{
    tl_ctx ctx = {.size = 1, .device = -1};
    TL_ASSERT_OK(tl_probes_create(&ctx, &(tl_probes_config){.nvtx = 1}));
    TL_ASSERT(ctx.probes == NULL);
    TL_SKIP("built without NVTX3: no tool can see ranges");
}

TL_TEST_MAIN(no_nvtx_in_build)

#endif
