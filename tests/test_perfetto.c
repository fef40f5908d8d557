/* trilap-analyze perfetto, loaded back: the JSON is parsed (a small parser
 * here, no dependency) and every event checked: its fields by phase, short
 * kernel names with the full one in args, strict nesting on every track,
 * every track named, host ranges and iterations on their own tracks, and
 * each launch -> kernel flow bound to a CUDA API slice at one end and to
 * the GPU slice of the same correlation id at the other. Inputs: a real
 * Nsight Systems export of PyTorch (launches known), host-only traces of
 * two ranks with iterations (tests/helper_clock_skew), a synthetic trace. */
#include <ctype.h>

#include "tl_test.h"
#include "tl_test_run.h"

#include "config.h" /* TL_HAVE_SQLITE */

/* ---- a JSON reader, enough for this output ---------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;
typedef struct jv {
    jtype t;
    double num;
    char *str;
    struct jv *items; /* arrays and objects (objects: values, keys in keys) */
    char **keys;
    size_t n;
} jv;

static const char *jp;

static void jws(void)
{
    while (isspace((unsigned char)*jp)) jp++;
}

static char *jstring(void)
{
    TL_ASSERT_MSG(*jp == '"', "JSON: string expected at '%.20s'", jp);
    jp++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (*jp != '"') {
        TL_ASSERT_MSG(*jp, "JSON: unterminated string");
        char c = *jp++;
        if (c == '\\') {
            c = *jp++;
            if (c == 'u') {
                unsigned u = 0;
                TL_ASSERT(sscanf(jp, "%4x", &u) == 1);
                jp += 4;
                c = (char)u;
            } else if (c == 'n') {
                c = '\n';
            } else {
                TL_ASSERT_MSG(c == '"' || c == '\\' || c == '/', "JSON: bad escape \\%c", c);
            }
        } else {
            TL_ASSERT_MSG((unsigned char)c >= 0x20, "JSON: raw control character in a string");
        }
        if (n + 2 > cap) s = realloc(s, cap *= 2);
        s[n++] = c;
    }
    jp++;
    s[n] = '\0';
    return s;
}

static void jvalue(jv *v)
{
    memset(v, 0, sizeof *v);
    jws();
    if (*jp == '{' || *jp == '[') {
        int obj = *jp == '{';
        v->t = obj ? J_OBJ : J_ARR;
        jp++;
        size_t cap = 0;
        jws();
        if (*jp == (obj ? '}' : ']')) {
            jp++;
            return;
        }
        for (;;) {
            if (v->n == cap) {
                cap = cap ? 2 * cap : 8;
                v->items = realloc(v->items, cap * sizeof *v->items);
                if (obj) v->keys = realloc(v->keys, cap * sizeof *v->keys);
            }
            jws();
            if (obj) {
                v->keys[v->n] = jstring();
                jws();
                TL_ASSERT_MSG(*jp == ':', "JSON: ':' expected");
                jp++;
            }
            jvalue(&v->items[v->n++]);
            jws();
            if (*jp == ',') {
                jp++;
                continue;
            }
            TL_ASSERT_MSG(*jp == (obj ? '}' : ']'), "JSON: '%c' expected at '%.20s'", obj ? '}' : ']', jp);
            jp++;
            return;
        }
    }
    if (*jp == '"') {
        v->t = J_STR;
        v->str = jstring();
    } else if (!strncmp(jp, "true", 4) || !strncmp(jp, "false", 5)) {
        v->t = J_BOOL;
        v->num = *jp == 't';
        jp += *jp == 't' ? 4 : 5;
    } else if (!strncmp(jp, "null", 4)) {
        jp += 4;
    } else {
        char *end = NULL;
        v->t = J_NUM;
        v->num = strtod(jp, &end);
        TL_ASSERT_MSG(end != jp, "JSON: value expected at '%.20s'", jp);
        jp = end;
    }
}

static const jv *jget(const jv *o, const char *key)
{
    if (o->t != J_OBJ) return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}

static double jnum(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    TL_ASSERT_MSG(v && v->t == J_NUM, "event without number %s", key);
    return v->num;
}

static const char *jstr(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    TL_ASSERT_MSG(v && v->t == J_STR, "event without string %s", key);
    return v->str;
}

/* ---- the checks ---------------------------------------------------------- */

typedef struct xev {
    int pid, tid;
    double ts, dur;
    const jv *e;
} xev;

static int cmp_x(const void *a, const void *b)
{
    const xev *x = a, *y = b;
    if (x->pid != y->pid) return x->pid - y->pid;
    if (x->tid != y->tid) return x->tid - y->tid;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->dur > y->dur ? -1 : x->dur < y->dur;
}

/* the X slice on (pid, tid) containing ts, or NULL */
static const xev *slice_at(const xev *x, size_t n, int pid, int tid, double ts)
{
    const xev *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (x[i].pid == pid && x[i].tid == tid && x[i].ts <= ts && ts <= x[i].ts + x[i].dur)
            if (!best || x[i].dur < best->dur) best = &x[i];
    return best;
}

typedef struct counts {
    size_t x, gpu, host, iter, api, flows;
} counts;

static counts check_json(const char *path)
{
    char *text = tl_test_read(path);
    jp = text;
    jv root;
    jvalue(&root);
    jws();
    TL_ASSERT_MSG(*jp == '\0', "%s: trailing text after the JSON", path);
    const jv *evs = jget(&root, "traceEvents");
    TL_ASSERT_MSG(evs && evs->t == J_ARR, "%s: no traceEvents array", path);
    counts c = {0};
    xev *x = calloc(evs->n + 1, sizeof *x);
    size_t nx = 0;
    /* named tracks */
    int named[64][1200];
    memset(named, 0, sizeof named);
    for (size_t i = 0; i < evs->n; i++) {
        const jv *e = &evs->items[i];
        TL_ASSERT(e->t == J_OBJ);
        const char *ph = jstr(e, "ph");
        int pid = (int)jnum(e, "pid");
        TL_ASSERT(pid >= 0 && pid < 64);
        if (!strcmp(ph, "M")) {
            const char *nm = jstr(e, "name");
            TL_ASSERT_MSG(!strcmp(nm, "process_name") || !strcmp(nm, "process_sort_index") ||
                              !strcmp(nm, "thread_name") || !strcmp(nm, "thread_sort_index"),
                          "metadata event %s", nm);
            const jv *a = jget(e, "args");
            TL_ASSERT(a && a->t == J_OBJ && a->n == 1);
            if (!strcmp(nm, "thread_name")) {
                int tid = (int)jnum(e, "tid");
                TL_ASSERT(tid >= 0 && tid < 1200);
                named[pid][tid] = 1;
                TL_ASSERT(strlen(jstr(a, "name")) > 0);
            }
        } else if (!strcmp(ph, "X")) {
            xev *v = &x[nx++];
            v->pid = pid;
            v->tid = (int)jnum(e, "tid");
            v->ts = jnum(e, "ts");
            v->dur = jnum(e, "dur");
            v->e = e;
            TL_ASSERT(v->dur >= 0 && v->tid >= 0 && v->tid < 1200);
            const char *nm = jstr(e, "name"), *cat = jstr(e, "cat");
            const jv *a = jget(e, "args");
            TL_ASSERT(a && a->t == J_OBJ);
            jnum(a, "iter");
            c.x++;
            if (v->tid < 700) {
                /* GPU: short name, full name and category in args */
                c.gpu++;
                TL_ASSERT_MSG(strncmp(nm, "_Z", 2) != 0 && !strchr(nm, '(') && !strchr(nm, '<'),
                              "GPU event name not short: %s", nm);
                const char *full = jstr(a, "full_name");
                TL_ASSERT_MSG(strstr(full, nm), "full name '%s' does not hold the short one '%s'", full, nm);
                jstr(a, "category");
                jnum(a, "stream");
                TL_ASSERT(strcmp(cat, "range") != 0);
            } else if (v->tid < 800) {
                c.iter++;
                TL_ASSERT_STREQ(nm, "iter");
                TL_ASSERT_STREQ(cat, "iteration");
                TL_ASSERT(jnum(a, "iter") >= 0);
            } else if (v->tid < 900) {
                c.host++;
                TL_ASSERT_STREQ(cat, "range");
            } else {
                c.api++;
                TL_ASSERT_STREQ(cat, "cuda_api");
            }
        } else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
            jnum(e, "id");
            jnum(e, "tid");
            jnum(e, "ts");
            if (!strcmp(ph, "f")) TL_ASSERT_STREQ(jstr(e, "bp"), "e");
        } else {
            TL_TEST_FAIL_("%s: event phase %s", path, ph);
        }
    }
    /* strict nesting on every track, and every track named */
    qsort(x, nx, sizeof *x, cmp_x);
    double stack[256];
    int depth = 0;
    for (size_t i = 0; i < nx; i++) {
        if (i == 0 || x[i].pid != x[i - 1].pid || x[i].tid != x[i - 1].tid) depth = 0;
        TL_ASSERT_MSG(named[x[i].pid][x[i].tid], "pid %d tid %d has no thread_name", x[i].pid, x[i].tid);
        double end = x[i].ts + x[i].dur;
        while (depth && stack[depth - 1] <= x[i].ts + 1e-9) depth--;
        TL_ASSERT_MSG(!depth || end <= stack[depth - 1] + 1e-9,
                      "pid %d tid %d: event at %.3f..%.3f overlaps its enclosing one ending %.3f", x[i].pid,
                      x[i].tid, x[i].ts, end, stack[depth - 1]);
        TL_ASSERT(depth < 256);
        stack[depth++] = end;
    }
    /* flows: pairs by id, a CUDA API slice at the start, the GPU slice of the
     * same correlation id at the end */
    for (size_t i = 0; i < evs->n; i++) {
        const jv *s = &evs->items[i];
        if (strcmp(jstr(s, "ph"), "s") != 0) continue;
        const jv *f = NULL;
        for (size_t k = 0; k < evs->n; k++)
            if (!strcmp(jstr(&evs->items[k], "ph"), "f") && jnum(&evs->items[k], "id") == jnum(s, "id"))
                f = &evs->items[k];
        TL_ASSERT_MSG(f, "flow %.0f has no end", jnum(s, "id"));
        int pid = (int)jnum(s, "pid");
        const xev *a = slice_at(x, nx, pid, (int)jnum(s, "tid"), jnum(s, "ts"));
        const xev *g = slice_at(x, nx, pid, (int)jnum(f, "tid"), jnum(f, "ts"));
        TL_ASSERT_MSG(a && g, "flow %.0f not bound to slices", jnum(s, "id"));
        TL_ASSERT_STREQ(jstr(a->e, "cat"), "cuda_api");
        TL_ASSERT(g->tid < 700);
        TL_ASSERT_EQ(jnum(jget(a->e, "args"), "correlation"), jnum(jget(g->e, "args"), "correlation"));
        TL_ASSERT(a->ts <= g->ts + g->dur); /* the launch comes first */
        c.flows++;
    }
    free(x);
    /* the parse tree is left to the process exit: one test per process */
    free(text);
    return c;
}

TL_TEST(nsys_pytorch_flows)
{
    if (!TL_HAVE_SQLITE) TL_SKIP("built without sqlite3 (libsqlite3-dev)");
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto tests/data/nsys-torch-h200.sqlite -o %s/p.json > %s/out", tl_test_bin(), t, t),
                 0);
    char p[512];
    snprintf(p, sizeof p, "%s/p.json", t);
    counts c = check_json(p);
    printf("%zu slices (%zu GPU, %zu host ranges, %zu CUDA API), %zu flows\n", c.x, c.gpu, c.host, c.api, c.flows);
    /* every kernel, copy and memset of the export was launched by a recorded call */
    TL_ASSERT_EQ(c.gpu, 716);
    TL_ASSERT_EQ(c.flows, 716);
    TL_ASSERT(c.host >= 30 + 60); /* the program's 30 "step" ranges and NCCL's ranges */
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"name\":\"softmax_warp_forward\"' %s/p.json", t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"mangled_name\":\"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu' %s/p.json", t), 0);
}

TL_TEST(host_ranges_and_iterations)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/tests/helper_clock_skew --launcher threads --ranks 2 --no-gpu %s/run > %s/log 2>&1", tl_test_build(), t,
                    t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s/run -o %s/p.json > %s/out", tl_test_bin(), t, t, t), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/p.json", t);
    counts c = check_json(p);
    TL_ASSERT_EQ(c.iter, 40);  /* 20 per rank */
    TL_ASSERT_EQ(c.host, 40);  /* one "compute:tick" range per iteration */
    TL_ASSERT_EQ(c.gpu, 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"name\":\"compute:tick\"' %s/p.json && grep -q '\"pid\":1,\"tid\":700' %s/p.json", t, t),
                 0);
    /* host-only ranks (device -1) are named so: they were "rank 1 / GPU -1" */
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"name\":\"rank 1 / host, no GPU\"' %s/p.json && ! grep -q 'GPU -1' %s/p.json", t,
                            t),
                 0);
}

TL_TEST(synthetic_overlaps_split)
{
    const char *t = tl_test_tmpdir();
    char p[512];
    snprintf(p, sizeof p, "%s/trace.rank0.csv", t);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fputs("# format=trilap-trace\n# version=1\n# rank=0\n# device=0\n"
          "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
          "0,-1,0,host,range,host,iter,0,100000,0,-1,0\n"
          "0,-1,0,host,range,host,compute:outer,0,60000,0,-1,0\n"
          "0,-1,0,host,range,host,compute:straddle,50000,90000,0,-1,0\n"
          "0,0,1,compute,compute,kernel,_Z15tl_daxpy_kernelIdEvl,1000,30000,5,-1,0\n"
          "0,0,1,compute,compute,kernel,_Z15tl_daxpy_kernelIdEvl,20000,40000,6,-1,0\n"
          "0,0,2,p2p,p2p,kernel,_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE,5000,45000,7,-1,0\n",
          f);
    fclose(f);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s -o %s/p.json > %s/out", tl_test_bin(), t, t, t), 0);
    snprintf(p, sizeof p, "%s/p.json", t);
    counts c = check_json(p);
    TL_ASSERT_EQ(c.gpu, 3);
    TL_ASSERT_EQ(c.iter, 1);
    TL_ASSERT_EQ(c.host, 2);
    TL_ASSERT_EQ(c.flows, 0); /* no launches recorded */
    /* overlapping without nesting: a second track of the lane, and of the host ranges */
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"tid\":1,\"ts\":20.000' %s && grep -q '\"tid\":801,\"ts\":50.000' %s", p, p), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"name\":\"ncclDevKernel_SendRecv\"' %s", p), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q '\"name\":\"rank 0 / GPU 0\"' %s", p), 0);
}

/* -o NAME.gz writes gzip: the same JSON as -o NAME, compressed (before:
 * the plain JSON under the .gz name); a run that fails leaves no file. */
TL_TEST(gz_output_is_gzip)
{
    if (!TL_HAVE_ZLIB) TL_SKIP("built without zlib");
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/tests/helper_clock_skew --launcher threads --ranks 2 --no-gpu %s/run > %s/log 2>&1",
                            tl_test_build(), t, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s/run -o %s/p.json > %s/out", tl_test_bin(), t, t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s/run -o %s/p.json.gz > %s/out", tl_test_bin(), t, t, t), 0);
    /* gzip's magic bytes, an intact stream, and the plain output inside */
    TL_ASSERT_EQ(tl_test_sh("test \"$(head -c 2 %s/p.json.gz | od -An -tx1 | tr -d ' ')\" = 1f8b", t), 0);
    TL_ASSERT_EQ(tl_test_sh("gzip -t %s/p.json.gz && gzip -dc %s/p.json.gz | cmp -s - %s/p.json", t, t, t), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/p.json", t);
    counts c = check_json(p);
    TL_ASSERT_EQ(c.iter, 40);
    /* a run the reader refuses: no output, no temporary beside it */
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/bad && echo junk > %s/bad/trace.rank0.csv", t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s/bad -o %s/q.json.gz > %s/out 2>&1", tl_test_bin(), t, t, t),
                 1);
    TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls %s | grep '^q\\.')\"", t), 0);
}

TL_TEST_MAIN(nsys_pytorch_flows, host_ranges_and_iterations, synthetic_overlaps_split, gz_output_is_gzip)
