/* The channels of a Kineto point-to-point operation's key, written and
 * read in one place, and the operations paired by their messages' order
 * (p2p_channels.h). */
#include "analysis/p2p_channels.h"
#include "analysis/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tl_an_p2p_channels_add(tl_an_p2p_channels *c, int src, int dst)
{
    for (int i = 0; i < c->n; i++) {
        if (c->ch[i].src != src || c->ch[i].dst != dst) continue;
        if (c->ch[i].count == INT32_MAX) return 0;
        c->ch[i].count++;
        return 1;
    }
    if (c->n == TL_AN_P2P_MAX_CHANNELS) return 0;
    c->ch[c->n++] = (tl_an_p2p_channel){src, dst, 1};
    return 1;
}

static int cmp_channel(const void *a, const void *b)
{
    const tl_an_p2p_channel *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

void tl_an_p2p_channels_write(const tl_an_p2p_channels *c, char *out, size_t n)
{
    tl_an_p2p_channels s = *c;
    qsort(s.ch, (size_t)s.n, sizeof s.ch[0], cmp_channel);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < s.n && len < n; i++) {
        const tl_an_p2p_channel *x = &s.ch[i];
        len += (size_t)snprintf(out + len, n - len, x->count > 1 ? "%s%d->%d x%d" : "%s%d->%d", i ? ", " : "",
                                (int)x->src, (int)x->dst, (int)x->count);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

void tl_an_p2p_channels_peers(const tl_an_p2p_channels *c, int self, char *out, size_t n)
{
    int other[TL_AN_P2P_MAX_CHANNELS];
    size_t m = 0, len = 0;
    for (int i = 0; i < c->n; i++) other[m++] = c->ch[i].src == self ? c->ch[i].dst : c->ch[i].src;
    qsort(other, m, sizeof other[0], cmp_int);
    out[0] = '\0';
    for (size_t i = 0; i < m && len < n; i++)
        if (!i || other[i] != other[i - 1])
            len += (size_t)snprintf(out + len, n - len, "%s%d", len ? "," : "", other[i]);
}

/* A number of the text at *p (digits), at most INT32_MAX: -1 where none or past it. */
static int64_t read_count(const char **p)
{
    int64_t v = 0;
    const char *s = *p;
    if (*s < '0' || *s > '9') return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = 10 * v + (*s - '0');
        if (v > INT32_MAX) return -1;
    }
    *p = s;
    return v;
}

/* The length of the channel text at `at`, for a message: to its ", " or
 * the space before the process group, 40 characters at most ("0->1,1->2",
 * channels not ", " apart, whole). */
static int channel_span(const char *at)
{
    int n = 0;
    while (n < 40 && at[n] && strncmp(at + n, ", ", 2) != 0 && !(at[n] == ' ' && at[n + 1] != 'x')) n++;
    return n;
}

/* One channel at *p ("A->B", "A->B xN"), added to c; NULL where it is none (why set). */
static const char *read_channel(const char *p, tl_an_p2p_channels *c, char *why, size_t nwhy)
{
    const char *at = p;
    int64_t src = read_count(&p), dst = -1, count = 1;
    if (src >= 0 && !strncmp(p, "->", 2)) {
        p += 2;
        dst = read_count(&p);
    }
    if (dst >= 0 && !strncmp(p, " x", 2) && p[2] >= '0' && p[2] <= '9') {
        p += 2;
        count = read_count(&p); /* written from 2 up: x0 or x1 is no count the writer gives */
        if (count >= 0 && count < 2) count = -1;
    }
    /* followed by the next channel's ", ", the rest's space or nothing: a bare ',' (before, "0->1,1->2"
     * read as 0->1 with ",1->2 on ..." its process group, paired with nothing) is no channel text */
    int ends = p[0] == '\0' || (p[0] == ' ' && p[1] != 'x') || !strncmp(p, ", ", 2);
    if (src < 0 || dst < 0 || count < 0 || src == dst || !ends) {
        snprintf(why, nwhy,
                 "bad channel '%.*s': not A->B or A->B xN (ranks A and B apart, N messages from 2 to 2147483647)",
                 channel_span(at), at);
        return NULL;
    }
    for (int i = 0; i < c->n; i++)
        if (c->ch[i].src == src && c->ch[i].dst == dst) {
            snprintf(why, nwhy, "channel %lld->%lld twice", (long long)src, (long long)dst);
            return NULL;
        }
    if (c->n == TL_AN_P2P_MAX_CHANNELS) {
        snprintf(why, nwhy, "more than %d channels (the most a key holds)", TL_AN_P2P_MAX_CHANNELS);
        return NULL;
    }
    c->ch[c->n++] = (tl_an_p2p_channel){(int32_t)src, (int32_t)dst, (int32_t)count};
    return p;
}

tl_an_p2p_key tl_an_p2p_channels_read(const char *key, tl_an_p2p_channels *c, size_t *rest, char *why, size_t nwhy)
{
    const size_t np = sizeof TL_AN_P2P_CHANNEL - 1;
    memset(c, 0, sizeof *c);
    if (strncmp(key, TL_AN_P2P_CHANNEL, np) != 0 || key[np] < '0' || key[np] > '9') return TL_AN_P2P_KEY_OTHER;
    const char *p = key + np;
    for (;;) {
        p = read_channel(p, c, why, nwhy);
        if (!p) return TL_AN_P2P_KEY_BAD;
        if (strncmp(p, ", ", 2) != 0) break;
        p += 2;
    }
    *rest = (size_t)(p - key);
    return TL_AN_P2P_KEY_CHANNELS;
}

/* The pairing ----------------------------------------------------------- */

/* One channel of one operation: its messages [m0, m0 + count) of the
 * channel on its rank, in (iteration, process group). */
typedef struct seg {
    int64_t group, launch, start, m0;
    uint32_t pg;
    int32_t src, dst, count;
    size_t file, op;
} seg;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_seg(const void *a, const void *b)
{
    const seg *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

static int same_channel(const seg *x, const seg *y)
{
    return x->group == y->group && x->pg == y->pg && x->src == y->src && x->dst == y->dst;
}

typedef struct edge {
    size_t a, b;
} edge;

static int cmp_edge(const void *p, const void *q)
{
    const edge *x = p, *y = q;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

/* What the pairing builds as it goes. */
typedef struct pairing {
    edge *e;
    size_t ne, cape;
    uint8_t *once; /* [op]: a whole one the other end counts (the same exchange) */
} pairing;

/* The file of rank r among the files' ranks (by_rank: sorted (rank, file)
 * pairs), or SIZE_MAX where it is not in the run. */
static size_t file_of(const int64_t *by_rank, size_t nf, int r)
{
    size_t a = 0, b = nf;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if ((by_rank[m] >> 32) < r) a = m + 1;
        else b = m;
    }
    return a < nf && (by_rank[a] >> 32) == r ? (size_t)(by_rank[a] & 0xffffffff) : SIZE_MAX;
}

/* The segments [a, b) of file f: *lo, *hi, and their messages. */
static int64_t file_run(const seg *s, size_t a, size_t b, size_t f, size_t *lo, size_t *hi)
{
    while (a < b && s[a].file != f) a++;
    *lo = a;
    int64_t msgs = 0;
    while (a < b && s[a].file == f) msgs += s[a++].count;
    *hi = a;
    return msgs;
}

/* Segments [lo, hi) of one end: an operation holding a message at or
 * past `matched` is whole; upper: the end of the higher file, whose whole
 * operation the lower file counts where it has that message too (n_lower
 * messages). */
static void mark_whole(const seg *s, size_t lo, size_t hi, int64_t matched, int upper, int64_t n_lower,
                       uint8_t *once, uint8_t *whole)
{
    for (size_t k = lo; k < hi; k++) {
        int64_t end = s[k].m0 + s[k].count, from = s[k].m0 > matched ? s[k].m0 : matched;
        if (end <= matched) continue;
        whole[s[k].op] = 1;
        if (upper && from < n_lower) once[s[k].op] = 1;
    }
}

/* One channel's segments, its source's [s0, s1) and its destination's
 * [d0, d1): the same-numbered messages below `matched` pair their
 * operations; an operation holding one at or past it is left whole, and
 * counted on the lower file alone where the other end has that message
 * too (n_lower: the lower file's messages). */
static tl_status pair_channel(const seg *s, size_t s0, size_t s1, size_t d0, size_t d1, int64_t matched,
                              int64_t n_lower, int src_lower, pairing *pr, uint8_t *whole)
{
    for (size_t i = s0, j = d0; i < s1 && j < d1;) {
        int64_t ie = s[i].m0 + s[i].count, je = s[j].m0 + s[j].count;
        int64_t lo = s[i].m0 > s[j].m0 ? s[i].m0 : s[j].m0, hi = ie < je ? ie : je;
        if (lo < hi && lo < matched) {
            TL_TRY(tl_an_grow(&pr->e, &pr->cape, pr->ne + 1, sizeof *pr->e, "paired operations"));
            pr->e[pr->ne++] = (edge){s[i].op, s[j].op};
            pr->e[pr->ne++] = (edge){s[j].op, s[i].op};
        }
        if (ie <= je) i++;
        else j++;
    }
    mark_whole(s, s0, s1, matched, !src_lower, n_lower, pr->once, whole);
    mark_whole(s, d0, d1, matched, src_lower, n_lower, pr->once, whole);
    return TL_OK;
}

/* Each channel of (iteration, process group) paired between its two ends. */
static tl_status pair_channels(seg *s, size_t ns, const int64_t *by_rank, const uint8_t *file_cut, size_t nf,
                               pairing *pr, tl_an_p2p_pairs *out)
{
    for (size_t a = 0, b; a < ns; a = b) {
        for (b = a; b < ns && same_channel(&s[a], &s[b]);) b++;
        size_t fs = file_of(by_rank, nf, s[a].src), fd = file_of(by_rank, nf, s[a].dst), s0, s1, d0, d1;
        if (fs == SIZE_MAX || fd == SIZE_MAX) continue; /* an end not in the run: no partner there */
        int64_t ns_ = file_run(s, a, b, fs, &s0, &s1), nd = file_run(s, a, b, fd, &d0, &d1);
        int64_t fewer = ns_ < nd ? ns_ : nd, matched = ns_ == nd ? ns_ : 0;
        if (ns_ != nd && file_cut[ns_ < nd ? fs : fd]) matched = fewer; /* its records hold its first messages */
        out->unmatched_channels += matched < (ns_ > nd ? ns_ : nd);
        int src_lower = fs < fd;
        TL_TRY(pair_channel(s, s0, s1, d0, d1, matched, src_lower ? ns_ : nd, src_lower, pr, out->whole));
    }
    return TL_OK;
}

/* The edges as each operation's partners, each once. */
static tl_status partners_of(pairing *pr, size_t n, tl_an_p2p_pairs *out)
{
    if (pr->ne) qsort(pr->e, pr->ne, sizeof *pr->e, cmp_edge);
    size_t m = 0;
    for (size_t i = 0; i < pr->ne; i++)
        if (!m || pr->e[i].a != pr->e[m - 1].a || pr->e[i].b != pr->e[m - 1].b) pr->e[m++] = pr->e[i];
    out->first = calloc(n + 1, sizeof *out->first);
    out->partner = malloc((m ? m : 1) * sizeof *out->partner);
    TL_CHECK(out->first && out->partner, TL_ERR_NOMEM, "the partners of %zu operations", n);
    for (size_t i = 0; i < m; i++) {
        out->first[pr->e[i].a + 1]++;
        out->partner[i] = pr->e[i].b;
    }
    for (size_t i = 0; i < n; i++) out->first[i + 1] += out->first[i];
    return TL_OK;
}

tl_status tl_an_p2p_channels_pair(const tl_an_p2p_op *op, size_t n, const int *file_rank, const uint8_t *file_cut,
                                  size_t nf, tl_an_p2p_pairs *out)
{
    memset(out, 0, sizeof *out);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) ns += (size_t)op[i].ch.n;
    seg *s = malloc((ns ? ns : 1) * sizeof *s);
    int64_t *by_rank = malloc((nf ? nf : 1) * sizeof *by_rank);
    pairing pr = {.once = calloc(n ? n : 1, 1)};
    out->whole = calloc(n ? n : 1, 1);
    tl_status st = TL_OK;
    TL_CHECKGOTO(s && by_rank && pr.once && out->whole, TL_ERR_NOMEM, st, fail, "%zu point-to-point operations", n);
    for (size_t f = 0; f < nf; f++) by_rank[f] = (int64_t)file_rank[f] * ((int64_t)1 << 32) + (int64_t)f;
    qsort(by_rank, nf, sizeof *by_rank, cmp_i64);
    ns = 0;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < op[i].ch.n; j++) {
            const tl_an_p2p_channel *c = &op[i].ch.ch[j];
            s[ns++] = (seg){.group = op[i].group, .launch = op[i].launch, .start = op[i].start, .pg = op[i].pg,
                            .src = c->src, .dst = c->dst, .count = c->count, .file = op[i].file, .op = i};
        }
    if (ns) qsort(s, ns, sizeof *s, cmp_seg);
    for (size_t i = 0; i < ns; i++) /* each channel's messages numbered on each rank in issue order */
        s[i].m0 = i && same_channel(&s[i - 1], &s[i]) && s[i - 1].file == s[i].file ? s[i - 1].m0 + s[i - 1].count : 0;
    TL_TRYGOTO(pair_channels(s, ns, by_rank, file_cut, nf, &pr, out), st, fail);
    TL_TRYGOTO(partners_of(&pr, n, out), st, fail);
    for (size_t i = 0; i < n; i++) out->unmatched_ops += out->whole[i] && !pr.once[i];
fail:
    free(s);
    free(by_rank);
    free(pr.e);
    free(pr.once);
    if (st != TL_OK) tl_an_p2p_pairs_free(out);
    return st;
}

void tl_an_p2p_pairs_free(tl_an_p2p_pairs *p)
{
    if (!p) return;
    free(p->first);
    free(p->partner);
    free(p->whole);
    memset(p, 0, sizeof *p);
}
