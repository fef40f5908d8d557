/* Trace vocabulary: lane, category and kind names, and the NCCL kernel
 * classifier. The writer and reader live in trace_write.c / trace_read.c. */
#include "probes/trace.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tl_cat_names[TL_CAT_COUNT] = {
    [TL_CAT_COMPUTE] = "compute", [TL_CAT_P2P] = "p2p",       [TL_CAT_COLL] = "coll",
    [TL_CAT_MEMCPY] = "memcpy",   [TL_CAT_MEMSET] = "memset", [TL_CAT_SYNC] = "sync",
    [TL_CAT_RANGE] = "range",
};
static const char *const tl_kind_names[TL_KIND_COUNT] = {
    [TL_KIND_KERNEL] = "kernel", [TL_KIND_MEMCPY] = "memcpy", [TL_KIND_MEMSET] = "memset",
    [TL_KIND_SYNC] = "sync",     [TL_KIND_NVTX] = "nvtx",     [TL_KIND_HOST] = "host",
};

const char *tl_cat_name(tl_cat c)
{
    return (unsigned)c < TL_CAT_COUNT ? tl_cat_names[c] : "?";
}
const char *tl_kind_name(tl_kind k)
{
    return (unsigned)k < TL_KIND_COUNT ? tl_kind_names[k] : "?";
}

/* Quiet on failure: the reader reports the file and row itself. */
static int tl_name_index(const char *const *names, int n, const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

tl_status tl_cat_parse(const char *s, tl_cat *out)
{
    int i = tl_name_index(tl_cat_names, TL_CAT_COUNT, s);
    if (i < 0) return TL_ERR_PARSE;
    *out = (tl_cat)i;
    return TL_OK;
}
tl_status tl_kind_parse(const char *s, tl_kind *out)
{
    int i = tl_name_index(tl_kind_names, TL_KIND_COUNT, s);
    if (i < 0) return TL_ERR_PARSE;
    *out = (tl_kind)i;
    return TL_OK;
}

/* ---- NCCL kernel names ---------------------------------------------------
 * Seen in the wild (CUPTI reports the mangled name; Nsight shows both):
 *   NCCL <= 2.18  ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ...)
 *                 ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(...)
 *   NCCL >= 2.19  ncclDevKernel_AllReduce_Sum_f64_RING_LL(ncclDevKernelArgsStorage<4096ul>)
 *                 ncclDevKernel_SendRecv(...), ncclDevKernel_Generic(_1|_2|_4)(...)
 *   NCCL >= 2.27  ncclSymkDevKernel_AllReduce_AGxLL_R_sum_f32 (symmetric memory)
 *   NCCL <= 2.7   ncclSendRecvKernel_copy_i8, ncclAllReduceRingLLKernel_sum_f32
 * Mangled names carry the identifier after a length (_Z38ncclDevKernel_...),
 * so a substring match finds them; the operation must be followed by a
 * non-letter so that "Reduce" does not match "ReduceScatter". */
typedef struct {
    const char *op;
    tl_nccl_kind kind;
} tl_nccl_op;
/* Longest first where one is a prefix of another. */
static const tl_nccl_op tl_nccl_ops[] = {
    {"ReduceScatter", TL_NCCL_COLL}, {"AllReduce", TL_NCCL_COLL}, {"AllGather", TL_NCCL_COLL},
    {"Broadcast", TL_NCCL_COLL},     {"Reduce", TL_NCCL_COLL},    {"SendRecv", TL_NCCL_P2P},
    {"Send", TL_NCCL_P2P},           {"Recv", TL_NCCL_P2P},       {"Generic", TL_NCCL_GENERIC},
};
/* ncclSymDevKernel_ (ncclSymDevArgs) is the symmetric-memory kernels'
 * first name, ncclSymkDevKernel_ (ncclSymkDevWorkArgs4K) their later one:
 * with the first unknown, vLLM's and PyTorch's symmetric all-reduces were
 * counted as compute */
static const char *const tl_nccl_prefixes[] = {"ncclDevKernel_", "ncclKernel_", "ncclSymDevKernel_",
                                               "ncclSymkDevKernel_"};

/* The op at p, followed by a non-letter (or, for the pre-2.8 names, by an
 * upper-case letter starting "...Kernel"). */
static tl_nccl_kind tl_nccl_op_at(const char *p, int legacy)
{
    for (size_t i = 0; i < sizeof tl_nccl_ops / sizeof tl_nccl_ops[0]; i++) {
        size_t n = strlen(tl_nccl_ops[i].op);
        if (strncmp(p, tl_nccl_ops[i].op, n) != 0) continue;
        char next = p[n];
        if (!legacy && !isalpha((unsigned char)next)) return tl_nccl_ops[i].kind;
        if (legacy && isupper((unsigned char)next)) {
            /* ncclAllReduceRingLLKernel_sum_f32: an identifier going on to "Kernel". */
            const char *end = p + n;
            while (isalnum((unsigned char)*end))
                end++;
            if (end - p >= 6 && strncmp(end - 6, "Kernel", 6) == 0) return tl_nccl_ops[i].kind;
        }
    }
    return TL_NCCL_NONE;
}

/* Start of an identifier: the name's start, or after a character that
 * cannot continue one (a mangled length counts as a boundary). */
static int tl_ident_start(const char *name, const char *p)
{
    if (p == name) return 1;
    char c = p[-1];
    return !(isalpha((unsigned char)c) || c == '_');
}

tl_nccl_kind tl_trace_nccl_kernel(const char *name)
{
    if (!name) return TL_NCCL_NONE;
    for (size_t k = 0; k < sizeof tl_nccl_prefixes / sizeof tl_nccl_prefixes[0]; k++) {
        const char *pre = tl_nccl_prefixes[k];
        size_t n = strlen(pre);
        for (const char *p = strstr(name, pre); p; p = strstr(p + 1, pre)) {
            if (!tl_ident_start(name, p)) continue;
            tl_nccl_kind kind = tl_nccl_op_at(p + n, 0);
            /* An NCCL kernel whose operation we do not know is still
             * communication; coll is the conservative home for it. */
            return kind != TL_NCCL_NONE ? kind : TL_NCCL_COLL;
        }
    }
    for (const char *p = strstr(name, "nccl"); p; p = strstr(p + 1, "nccl")) {
        if (!tl_ident_start(name, p)) continue;
        tl_nccl_kind kind = tl_nccl_op_at(p + 4, 1);
        if (kind != TL_NCCL_NONE) return kind;
    }
    /* NCCL's one-rank reduce (src/device/onerank.cu, 2.12+): a 1-rank
     * communicator's ncclAvg/PreMulSum allreduce runs as
     * oneRankReduce<FuncPreMulSum<T>>, in an anonymous namespace, so the
     * mangled name has it with its length: "13oneRankReduceI..." */
    for (const char *p = strstr(name, "oneRankReduce"); p; p = strstr(p + 1, "oneRankReduce")) {
        char next = p[13];
        int mangled = p - name >= 2 && p[-2] == '1' && p[-1] == '3';
        int plain = p == name || (p - name >= 2 && p[-2] == ':' && p[-1] == ':');
        if ((mangled && next == 'I') || (plain && (next == '<' || next == '(' || next == '\0')))
            return TL_NCCL_COLL;
    }
    return TL_NCCL_NONE;
}

tl_cat tl_trace_classify_kernel_lane(const char *name, tl_role lane)
{
    switch (tl_trace_nccl_kernel(name)) {
    case TL_NCCL_P2P:
        return TL_CAT_P2P;
    case TL_NCCL_COLL:
        return TL_CAT_COLL;
    case TL_NCCL_GENERIC:
        return lane == TL_ROLE_P2P ? TL_CAT_P2P : TL_CAT_COLL;
    case TL_NCCL_NONE:
        break;
    }
    return TL_CAT_COMPUTE;
}

tl_cat tl_trace_classify_kernel(const char *name)
{
    return tl_trace_classify_kernel_lane(name, TL_ROLE_OTHER);
}

tl_role tl_trace_lane_of_stream(uint64_t p2p, uint64_t coll)
{
    return p2p > coll ? TL_ROLE_P2P : coll ? TL_ROLE_COLL : TL_ROLE_COMPUTE;
}

int tl_trace_lane_item(const char *item, uint64_t *stream, tl_role *lane)
{
    const char *colon = strchr(item, ':');
    char *end = NULL;
    if (!colon || colon == item || !isdigit((unsigned char)item[0])) return 0;
    unsigned long long id = strtoull(item, &end, 10);
    if (end != colon || tl_role_parse(colon + 1, lane) != TL_OK) return 0;
    *stream = id;
    return 1;
}

tl_status tl_trace_lanes_parse(const char *spec, tl_trace_lanes *out, char *why, size_t nwhy)
{
    out->n = 0;
    for (const char *p = spec;;) {
        size_t len = strcspn(p, ",");
        char item[64];
        if (len == 0 || len >= sizeof item) {
            snprintf(why, nwhy, len ? "'%.40s...' is not streamId:lane" : "an empty item (two commas, or one at an end)",
                     p);
            return TL_ERR_PARSE;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        uint64_t id = 0;
        tl_role lane;
        if (!tl_trace_lane_item(item, &id, &lane) || id > UINT32_MAX) {
            snprintf(why, nwhy, "'%s' is not streamId:lane (a CUPTI stream id below 2^32; lane one of compute p2p coll "
                                "copy host other)", item);
            return TL_ERR_PARSE;
        }
        tl_role had;
        if (tl_trace_lanes_find(out, id, &had)) {
            snprintf(why, nwhy, "stream %llu given twice (%s, then %s)", (unsigned long long)id, tl_role_name(had),
                     tl_role_name(lane));
            return TL_ERR_PARSE;
        }
        if (out->n == TL_TRACE_MAX_LANES) {
            snprintf(why, nwhy, "more than %d streams", TL_TRACE_MAX_LANES);
            return TL_ERR_PARSE;
        }
        out->id[out->n] = (uint32_t)id;
        out->lane[out->n++] = lane;
        if (!p[len]) return TL_OK;
        p += len + 1;
    }
}

int tl_trace_lanes_find(const tl_trace_lanes *l, uint64_t id, tl_role *lane)
{
    for (int i = 0; i < l->n; i++)
        if (l->id[i] == id) {
            *lane = l->lane[i];
            return 1;
        }
    return 0;
}

size_t tl_trace_utf8_bad(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (p[i]) {
        unsigned c = p[i];
        int n;
        unsigned lo = 0x80, hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            if (c == 0xe0) lo = 0xa0;
            if (c == 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            if (c == 0xf0) lo = 0x90;
            if (c == 0xf4) hi = 0x8f;
        } else {
            return i;
        }
        for (int k = 1; k <= n; k++) {
            unsigned b = p[i + k];
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return i;
        }
        i += (size_t)n + 1;
    }
    return (size_t)-1;
}

void tl_trace_utf8_cut(char *s)
{
    size_t bad = tl_trace_utf8_bad(s);
    if (bad != (size_t)-1) s[bad] = '\0';
}

/* ---- peers of an operation ------------------------------------------------ */

void tl_trace_peers_name(tl_role lane, const char *what, char *buf, size_t n)
{
    const char *cat = lane == TL_ROLE_COLL ? "coll" : "p2p"; /* a mark's category follows its lane */
    if (what)
        snprintf(buf, n, "%s:%s", cat, what);
    else
        snprintf(buf, n, "nccl:%s", cat);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

tl_status tl_trace_peers_format(const char *name, int self, const tl_mark_peerset *sets, int nsets, char **out)
{
    *out = NULL;
    TL_CHECK(name && *name && nsets >= 1 && sets, TL_ERR_INVAL, "peers: %d sets of '%s'", nsets, name ? name : "");
    size_t total = 0;
    for (int s = 0; s < nsets; s++) {
        TL_CHECK(sets[s].n >= 0 && (sets[s].rank || !sets[s].n), TL_ERR_INVAL, "peers of %s: set %d of %d ranks", name,
                 s, sets[s].n);
        total += (size_t)sets[s].n;
    }
    size_t cap = total * 12 + (size_t)nsets * 6 + strlen(name) + 2;
    char *v = malloc(cap);
    int *sorted = malloc((total ? total : 1) * sizeof *sorted);
    if (!v || !sorted) {
        free(v);
        free(sorted);
        return TL_FAIL(TL_ERR_NOMEM, "peers of %s: %zu ranks", name, total);
    }
    size_t len = 0;
    for (int s = 0; s < nsets; s++) {
        int n = 0;
        memcpy(sorted, sets[s].rank, (size_t)sets[s].n * sizeof *sorted);
        qsort(sorted, (size_t)sets[s].n, sizeof *sorted, cmp_int);
        if (s) v[len++] = ';';
        for (int i = 0; i < sets[s].n; i++) {
            if (sorted[i] == self || (i && sorted[i] == sorted[i - 1])) continue; /* a set: each once, not itself */
            len += (size_t)snprintf(v + len, cap - len, "%s%d", n++ ? "," : "", sorted[i]);
        }
        if (!n) len += (size_t)snprintf(v + len, cap - len, "none");
    }
    snprintf(v + len, cap - len, " %s", name);
    free(sorted);
    *out = v;
    return TL_OK;
}

void tl_trace_peers_free(tl_trace_peers *p)
{
    if (!p) return;
    free(p->name);
    free(p->first);
    free(p->rank);
    memset(p, 0, sizeof *p);
}

/* One rank of a set: a whole number below nranks, not self, not in the set
 * already (rank[from .. n)). */
static tl_status peers_rank(const char *item, size_t len, int self, int nranks, const int *rank, int from, int n,
                            int *out, char *why, size_t nwhy)
{
    char *end = NULL;
    long v = len && len < 11 && isdigit((unsigned char)item[0]) ? strtol(item, &end, 10) : -1;
    if (v < 0 || end != item + len || v > INT32_MAX) {
        snprintf(why, nwhy, "'%.*s' is not a rank", (int)(len < 40 ? len : 40), item);
        return TL_ERR_PARSE;
    }
    if (nranks > 0 && v >= nranks) {
        snprintf(why, nwhy, "rank %ld is not one of the run's %d", v, nranks);
        return TL_ERR_PARSE;
    }
    if (v == self) {
        snprintf(why, nwhy, "rank %ld is this rank itself", v);
        return TL_ERR_PARSE;
    }
    for (int i = from; i < n; i++)
        if (rank[i] == v) {
            snprintf(why, nwhy, "rank %ld twice in one set", v);
            return TL_ERR_PARSE;
        }
    *out = (int)v;
    return TL_OK;
}

tl_status tl_trace_peers_parse(const char *value, int self, int nranks, tl_trace_peers *out, char *why, size_t nwhy)
{
    memset(out, 0, sizeof *out);
    const char *sp = strchr(value, ' ');
    if (!sp || !sp[1]) {
        snprintf(why, nwhy, "no operation name after the ranks");
        return TL_ERR_PARSE;
    }
    size_t nitems = 1;
    for (const char *c = value; c < sp; c++) nitems += *c == ',' || *c == ';';
    out->name = strdup(sp + 1);
    out->first = malloc((nitems + 1) * sizeof *out->first);
    out->rank = malloc(nitems * sizeof *out->rank);
    if (!out->name || !out->first || !out->rank) {
        tl_trace_peers_free(out);
        return TL_FAIL(TL_ERR_NOMEM, "peers of %.40s", sp + 1);
    }
    int n = 0;
    for (const char *set = value;;) {
        size_t setlen = strcspn(set, "; ");
        if (!setlen) {
            snprintf(why, nwhy, "an empty set of ranks (\"none\" says there is none)");
            tl_trace_peers_free(out);
            return TL_ERR_PARSE;
        }
        out->first[out->nsets++] = n;
        int none = setlen == 4 && !strncmp(set, "none", 4);
        for (const char *item = set; !none && item < set + setlen;) {
            size_t len = strcspn(item, ",; ");
            tl_status st = peers_rank(item, len, self, nranks, out->rank, out->first[out->nsets - 1], n, &out->rank[n],
                                      why, nwhy);
            if (st != TL_OK) {
                tl_trace_peers_free(out);
                return st;
            }
            n++;
            item += len + (item[len] == ',');
        }
        if (set[setlen] != ';') break;
        set += setlen + 1;
    }
    out->first[out->nsets] = n;
    return TL_OK;
}
