/* Kernel names interned once (a trace repeats a handful of names millions
 * of times), and the name -> breakdown category table. */
#include "analysis/analysis.h"
#include "analysis/grow.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct name_info {
    char *full, *short_; /* demangled, and shortened the way Nsight Systems does */
    uint8_t family;      /* tl_an_group of the name as a compute kernel */
} name_info;

struct tl_an_names {
    char **str;
    name_info *info;
    size_t n, cap;
    uint32_t *slot; /* open addressing: id + 1, 0 empty */
    size_t nslot;
};

static tl_an_group family_of(const char *full);

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
    for (size_t i = 0; i < n->n; i++) {
        free(n->str[i]);
        free(n->info[i].full);
        free(n->info[i].short_);
    }
    free(n->str);
    free(n->info);
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

/* A call form "f<...>(params)": the '(' that opens the trailing parameter
 * list has no space before it. Measured from the end, since template
 * arguments may hold parentheses of their own ("(cub::BlockLoadAlgorithm)3",
 * after ", "); "Memcpy HtoD (Pinned -> Device)" is no call. */
static int call_form(const char *s)
{
    size_t len = strlen(s);
    int depth = 0;
    if (!len || s[len - 1] != ')') return 0;
    for (size_t i = len; i-- > 0;) {
        if (s[i] == ')') depth++;
        else if (s[i] == '(' && --depth == 0) return i > 0 && s[i - 1] != ' ';
    }
    return 0;
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
    /* each from a copy of the capacity: one grown, the other not, leaves
     * both as long as n->cap says (the grown one longer, harmlessly) */
    size_t capstr = n->cap, capinfo = n->cap;
    TL_TRY(TL_AN_GROW(n->str, n->n, capstr, "names"));
    TL_TRY(TL_AN_GROW(n->info, n->n, capinfo, "names"));
    n->cap = capinfo;
    /* once per distinct name: demangling costs microseconds, a trace
     * repeats a few names millions of times */
    name_info ni = {0};
    char sh[1024];
    TL_TRY(tl_an_demangle(s, &ni.full));
    /* only a demangled C++ name is shortened: "memcpy HtoD" stays whole;
     * so is one a tracer wrote demangled (Kineto: "void f<T>(int)"), a
     * call form with no space before its '(' */
    int demangled = call_form(s);
    if (strcmp(ni.full, s) != 0 || demangled) tl_an_short_name(ni.full, sh, sizeof sh);
    else snprintf(sh, sizeof sh, "%s", s);
    ni.short_ = strdup(sh);
    n->str[n->n] = strdup(s);
    if (!n->str[n->n] || !ni.short_) {
        free(n->str[n->n]);
        free(ni.full);
        free(ni.short_);
        return TL_FAIL(TL_ERR_NOMEM, "name of %zu bytes", strlen(s));
    }
    ni.family = (uint8_t)family_of(ni.full);
    n->info[n->n] = ni;
    n->slot[h] = (uint32_t)n->n + 1;
    *id = (uint32_t)n->n++;
    if (2 * n->n > n->nslot) TL_TRY(rehash(n));
    return TL_OK;
}

const char *tl_an_names_get(const tl_an_names *n, uint32_t id) { return id < n->n ? n->str[id] : "?"; }
size_t tl_an_names_count(const tl_an_names *n) { return n->n; }
const char *tl_an_names_full(const tl_an_names *n, uint32_t id) { return id < n->n ? n->info[id].full : "?"; }
const char *tl_an_names_short(const tl_an_names *n, uint32_t id) { return id < n->n ? n->info[id].short_ : "?"; }


static const char *const group_names[TL_AN_G_COUNT] = {
    [TL_AN_G_SPMV] = "spmv",          [TL_AN_G_FUSED] = "fused-update", [TL_AN_G_DOT] = "dot",
    [TL_AN_G_PRECOND] = "precond",    [TL_AN_G_PACK] = "pack-unpack",   [TL_AN_G_AXPY] = "axpy",
    [TL_AN_G_ALLREDUCE] = "nccl-allreduce", [TL_AN_G_COLL] = "nccl-coll-other",
    [TL_AN_G_P2P] = "nccl-sendrecv",  [TL_AN_G_MEMCPY] = "memcpy",      [TL_AN_G_MEMSET] = "memset",
    [TL_AN_G_COMPUTE] = "compute",    [TL_AN_G_GEMM] = "gemm",          [TL_AN_G_CUTLASS] = "cutlass",
    [TL_AN_G_SPARSE] = "cusparse",    [TL_AN_G_DNN] = "cudnn",          [TL_AN_G_ELEMENTWISE] = "elementwise",
    [TL_AN_G_REDUCTION] = "reduction", [TL_AN_G_HOST_COMM] = "host-comm",
};

const char *tl_an_group_name(tl_an_group g) { return g < TL_AN_G_COUNT ? group_names[g] : "?"; }

/* trilap's own kernels (short name tl_...): first match wins, in this order,
 * on the short name (documented in analysis/README.md). */
static const struct {
    tl_an_group g;
    const char *needles[6];
} own_rules[] = {
    {TL_AN_G_SPMV, {"spmv", "csrmv", "spmm"}},
    {TL_AN_G_PRECOND, {"jacobi", "precond"}},
    {TL_AN_G_PACK, {"unpack", "pack", "gather", "scatter", "halo"}},
    {TL_AN_G_FUSED, {"fused", "update"}},
    {TL_AN_G_DOT, {"dot", "reduc", "nrm2", "norm"}},
    {TL_AN_G_AXPY, {"axpy", "axpby"}},
};

/* Library kernels by their exact short name (the function name without
 * scope, template arguments and parameters). */
static const struct {
    tl_an_group g;
    const char *names[16];
} short_rules[] = {
    /* PyTorch ATen elementwise launchers (at::native), incl. its random-number kernels */
    {TL_AN_G_ELEMENTWISE,
     {"vectorized_elementwise_kernel", "unrolled_elementwise_kernel", "elementwise_kernel",
      "elementwise_kernel_with_index", "index_elementwise_kernel", "vectorized_templated_elementwise_kernel",
      "distribution_elementwise_grid_stride_kernel", "distribution_nullary_kernel"}},
    /* PyTorch reductions and normalisations */
    {TL_AN_G_REDUCTION,
     {"reduce_kernel", "softmax_warp_forward", "softmax_warp_backward", "cunn_SoftMaxForward",
      "cunn_SoftMaxBackward", "cunn_SoftMaxForwardSmem", "vectorized_layer_norm_kernel", "layer_norm_kernel",
      "RowwiseMomentsCUDAKernel", "batch_norm_collect_statistics_kernel", "DeviceReduceKernel",
      "DeviceReduceSingleTileKernel", "DeviceSegmentedReduceKernel"}},
    /* cuBLAS kernels without a library namespace */
    {TL_AN_G_GEMM, {"gemv2T_kernel_val", "gemv2N_kernel", "gemvNSP_kernel", "gemmk1_kernel",
                    "splitKreduce_kernel", "gemmSN_TN_kernel", "gemmSN_NN_kernel"}},
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

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* cuBLAS / cuBLASLt / cuDNN SASS kernels: sm90_xmma_gemm_..., ampere_sgemm_...,
 * volta_h884gemm_... (an architecture prefix and "gemm" in the name). */
static int arch_gemm(const char *s)
{
    static const char *const arch[] = {"sm", "ampere_", "volta_", "turing_", "maxwell_", "hopper_", "blackwell_"};
    for (size_t k = 0; k < sizeof arch / sizeof arch[0]; k++)
        if (starts(s, arch[k])) {
            const char *p = s + strlen(arch[k]);
            if (k == 0) {
                if (!isdigit((unsigned char)*p)) return 0;
                while (isdigit((unsigned char)*p)) p++;
                if (*p != '_') return 0;
            }
            return strstr(p, "gemm") != NULL || strstr(p, "Gemm") != NULL;
        }
    return 0;
}

/* The family of a compute kernel from its demangled full name. */
static tl_an_group family_of(const char *full)
{
    char q[4096], sh[1024];
    tl_an_qualified_name(full, q, sizeof q);
    tl_an_short_name(full, sh, sizeof sh);
    if (starts(sh, "tl_")) {
        for (size_t r = 0; r < sizeof own_rules / sizeof own_rules[0]; r++)
            for (size_t k = 0; k < 6 && own_rules[r].needles[k]; k++)
                if (contains_ci(sh, own_rules[r].needles[k])) return own_rules[r].g;
        return TL_AN_G_COMPUTE;
    }
    if (starts(q, "cusparse::") || starts(sh, "cusparse")) return TL_AN_G_SPARSE;
    if (starts(q, "cudnn::") || starts(sh, "cudnn")) return TL_AN_G_DNN;
    if (starts(sh, "nvjet_") || arch_gemm(sh) || starts(q, "cublasLt::") || starts(q, "cublas::")) return TL_AN_G_GEMM;
    if (starts(q, "cutlass::") || starts(sh, "cutlass")) {
        /* cutlass::Kernel<cutlass_80_simt_sgemm_...>: the operator type names the GEMM */
        const char *lt = strchr(full, '<');
        return lt && (strstr(lt, "gemm") || strstr(lt, "Gemm")) ? TL_AN_G_GEMM : TL_AN_G_CUTLASS;
    }
    for (size_t r = 0; r < sizeof short_rules / sizeof short_rules[0]; r++)
        for (size_t k = 0; k < 16 && short_rules[r].names[k]; k++)
            if (!strcmp(sh, short_rules[r].names[k])) return short_rules[r].g;
    return TL_AN_G_COMPUTE;
}

static tl_an_group group_by_cat(tl_kind kind, tl_cat cat, const char *name, int *family)
{
    *family = 0;
    if (kind == TL_KIND_MEMCPY || cat == TL_CAT_MEMCPY) return TL_AN_G_MEMCPY;
    if (kind == TL_KIND_MEMSET || cat == TL_CAT_MEMSET) return TL_AN_G_MEMSET;
    if (cat == TL_CAT_P2P) return TL_AN_G_P2P;
    if (cat == TL_CAT_COLL) return tl_trace_nccl_kernel(name) != TL_NCCL_NONE && contains_ci(name, "allreduce")
                                       ? TL_AN_G_ALLREDUCE
                                       : TL_AN_G_COLL;
    *family = 1;
    return TL_AN_G_COMPUTE;
}

tl_an_group tl_an_group_of(tl_kind kind, tl_cat cat, const char *name)
{
    int family = 0;
    tl_an_group g = group_by_cat(kind, cat, name, &family);
    if (!family) return g;
    char *full = NULL;
    if (tl_an_demangle(name, &full) != TL_OK) return TL_AN_G_COMPUTE;
    g = family_of(full);
    free(full);
    return g;
}

tl_an_group tl_an_names_group(const tl_an_names *n, uint32_t id, tl_kind kind, tl_cat cat)
{
    int family = 0;
    tl_an_group g = group_by_cat(kind, cat, tl_an_names_get(n, id), &family);
    return family && id < n->n ? (tl_an_group)n->info[id].family : g;
}

/* The direction token of a copy's name ("memcpy DtoH", Kineto's "Memcpy
 * HtoD (Pinned -> Device)"): its two memory letters, or 0 when none. */
static int copy_ends(const char *name, char *from, char *to)
{
    for (const char *p = strstr(name, "to"); p; p = strstr(p + 1, "to")) {
        if (p == name || !isupper((unsigned char)p[-1]) || !isupper((unsigned char)p[2])) continue;
        if (p - 1 > name && isalnum((unsigned char)p[-2])) continue;
        if (isalnum((unsigned char)p[3])) continue;
        *from = p[-1];
        *to = p[2];
        return 1;
    }
    return 0;
}

int tl_an_copy_is_device(const char *name)
{
    char from = 0, to = 0;
    /* no direction named: it may be staged, so it keeps counting as the host's */
    if (!name || !copy_ends(name, &from, &to)) return 0;
    return from != 'H' && to != 'H';
}
