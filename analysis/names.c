/* Kernel names interned once (a trace repeats a handful of names millions
 * of times), and the name -> breakdown category table. */
#include "analysis/analysis.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct tl_an_names {
    char **str;
    size_t n, cap;
    uint32_t *slot; /* open addressing: id + 1, 0 empty */
    size_t nslot;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

tl_status tl_an_names_create(tl_an_names **out)
{
    tl_an_names *n = NULL;
    TL_ALLOC(n, 1);
    n->nslot = 256;
    n->slot = calloc(n->nslot, sizeof *n->slot);
    if (!n->slot) {
        free(n);
        return TL_FAIL(TL_ERR_NOMEM, "name table");
    }
    *out = n;
    return TL_OK;
}

void tl_an_names_destroy(tl_an_names **pn)
{
    if (!pn || !*pn) return;
    tl_an_names *n = *pn;
    for (size_t i = 0; i < n->n; i++) free(n->str[i]);
    free(n->str);
    free(n->slot);
    free(n);
    *pn = NULL;
}

static tl_status rehash(tl_an_names *n)
{
    size_t ns = n->nslot * 2;
    uint32_t *slot = calloc(ns, sizeof *slot);
    TL_CHECK(slot, TL_ERR_NOMEM, "name table of %zu slots", ns);
    for (size_t i = 0; i < n->n; i++) {
        size_t h = hash_str(n->str[i]) & (ns - 1);
        while (slot[h]) h = (h + 1) & (ns - 1);
        slot[h] = (uint32_t)i + 1;
    }
    free(n->slot);
    n->slot = slot;
    n->nslot = ns;
    return TL_OK;
}

tl_status tl_an_names_intern(tl_an_names *n, const char *s, uint32_t *id)
{
    size_t h = hash_str(s) & (n->nslot - 1);
    while (n->slot[h]) {
        if (strcmp(n->str[n->slot[h] - 1], s) == 0) {
            *id = n->slot[h] - 1;
            return TL_OK;
        }
        h = (h + 1) & (n->nslot - 1);
    }
    TL_CHECK(n->n < UINT32_MAX - 1, TL_ERR_INVAL, "more than %u distinct names", UINT32_MAX - 1);
    if (n->n == n->cap) {
        size_t cap = n->cap ? n->cap * 2 : 64;
        char **str = realloc(n->str, cap * sizeof *str);
        TL_CHECK(str, TL_ERR_NOMEM, "%zu names", cap);
        n->str = str;
        n->cap = cap;
    }
    n->str[n->n] = strdup(s);
    TL_CHECK(n->str[n->n], TL_ERR_NOMEM, "name of %zu bytes", strlen(s));
    n->slot[h] = (uint32_t)n->n + 1;
    *id = (uint32_t)n->n++;
    if (2 * n->n > n->nslot) TL_TRY(rehash(n));
    return TL_OK;
}

const char *tl_an_names_get(const tl_an_names *n, uint32_t id) { return id < n->n ? n->str[id] : "?"; }
size_t tl_an_names_count(const tl_an_names *n) { return n->n; }

static const char *const group_names[TL_AN_G_COUNT] = {
    [TL_AN_G_SPMV] = "spmv",          [TL_AN_G_FUSED] = "fused-update", [TL_AN_G_DOT] = "dot",
    [TL_AN_G_PRECOND] = "precond",    [TL_AN_G_PACK] = "pack-unpack",   [TL_AN_G_AXPY] = "axpy",
    [TL_AN_G_ALLREDUCE] = "nccl-allreduce", [TL_AN_G_COLL] = "nccl-coll-other",
    [TL_AN_G_P2P] = "nccl-sendrecv",  [TL_AN_G_MEMCPY] = "memcpy",      [TL_AN_G_MEMSET] = "memset",
    [TL_AN_G_OTHER] = "other",
};

const char *tl_an_group_name(tl_an_group g) { return g < TL_AN_G_COUNT ? group_names[g] : "?"; }

/* First match wins, in this order (documented in analysis/README.md). */
static const struct {
    tl_an_group g;
    const char *needles[6];
} name_rules[] = {
    {TL_AN_G_SPMV, {"spmv", "csrmv", "cusparse", "spmm"}},
    {TL_AN_G_PRECOND, {"jacobi", "precond"}},
    {TL_AN_G_PACK, {"unpack", "pack", "gather", "scatter", "halo"}},
    {TL_AN_G_FUSED, {"fused", "update"}},
    {TL_AN_G_DOT, {"dot", "reduc", "nrm2", "norm"}},
    {TL_AN_G_AXPY, {"axpy", "axpby"}},
};

static int contains_ci(const char *hay, const char *needle)
{
    size_t m = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < m && hay[k] && tolower((unsigned char)hay[k]) == needle[k]) k++;
        if (k == m) return 1;
    }
    return 0;
}

tl_an_group tl_an_group_of(tl_kind kind, tl_cat cat, const char *name)
{
    if (kind == TL_KIND_MEMCPY || cat == TL_CAT_MEMCPY) return TL_AN_G_MEMCPY;
    if (kind == TL_KIND_MEMSET || cat == TL_CAT_MEMSET) return TL_AN_G_MEMSET;
    if (cat == TL_CAT_P2P) return TL_AN_G_P2P;
    if (cat == TL_CAT_COLL) return contains_ci(name, "allreduce") ? TL_AN_G_ALLREDUCE : TL_AN_G_COLL;
    for (size_t r = 0; r < sizeof name_rules / sizeof name_rules[0]; r++)
        for (size_t k = 0; k < 6 && name_rules[r].needles[k]; k++)
            if (contains_ci(name, name_rules[r].needles[k])) return name_rules[r].g;
    return TL_AN_G_OTHER;
}
