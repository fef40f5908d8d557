/* Partitioners and partition files (see partition.h). */
#include "solvers/dist/partition.h"
#include "solvers/matrix/input_check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "solvers/matrix/mmio.h"
#if TL_HAVE_METIS
#include <metis.h>
#endif

int64_t tl_partition_block_first(int64_t n, int nparts, int p)
{
    int64_t base = n / nparts, extra = n % nparts;
    return p * base + (p < extra ? p : extra);
}

int tl_partition_block_owner(int64_t n, int nparts, int64_t i)
{
    int64_t base = n / nparts, extra = n % nparts, longer = extra * (base + 1);
    return (int)(i < longer ? i / (base + 1) : extra + (i - longer) / base);
}

tl_status tl_partition_block(int64_t n, int nparts, int *part)
{
    TL_INPUT_CHECK(nparts >= 1 && n >= 0, TL_ERR_INVAL, "nparts=%d n=%lld", nparts, (long long)n);
    for (int p = 0; p < nparts; p++)
        for (int64_t i = tl_partition_block_first(n, nparts, p); i < tl_partition_block_first(n, nparts, p + 1); i++)
            part[i] = p;
    return TL_OK;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

tl_status tl_graph_symmetrize(const tl_csr *a, int64_t **xadj_out, int64_t **adj_out)
{
    const int64_t n = a->nrows;
    int64_t *xadj = NULL, *adj = NULL, *fill = NULL;
    tl_status st = TL_OK;
    TL_INPUT_CHECK(a->nrows == a->ncols, TL_ERR_INVAL, "graph of a %lld x %lld matrix",
                   (long long)a->nrows, (long long)a->ncols);
    xadj = calloc((size_t)n + 1, sizeof *xadj);
    fill = calloc((size_t)n + 1, sizeof *fill);
    TL_INPUT_CHECKGOTO(xadj && fill, TL_ERR_NOMEM, st, fail, "graph of %lld vertices",
                       (long long)n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (a->colidx[k] != i) xadj[i + 1]++, xadj[a->colidx[k] + 1]++;
    for (int64_t i = 0; i < n; i++)
        xadj[i + 1] += xadj[i];
    adj = malloc((xadj[n] ? (size_t)xadj[n] : 1) * sizeof *adj);
    TL_INPUT_CHECKGOTO(adj, TL_ERR_NOMEM, st, fail, "graph of %lld edges", (long long)xadj[n]);
    memcpy(fill, xadj, ((size_t)n + 1) * sizeof *fill);
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int64_t j = a->colidx[k];
            if (j == i) continue;
            adj[fill[i]++] = j;
            adj[fill[j]++] = i;
        }
    /* sort and dedupe each list; insertion sort suits short graph rows,
     * qsort the long ones */
    int64_t out = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t b = xadj[i], e = xadj[i + 1], len = e - b;
        int64_t *r = adj + b;
        if (len > 32) {
            qsort(r, (size_t)len, sizeof *r, cmp_i64);
        } else {
            for (int64_t p = 1; p < len; p++) {
                int64_t v = r[p], q = p - 1;
                while (q >= 0 && r[q] > v)
                    r[q + 1] = r[q], q--;
                r[q + 1] = v;
            }
        }
        xadj[i] = out;
        for (int64_t p = 0; p < len; p++)
            if (p == 0 || r[p] != r[p - 1]) adj[out++] = r[p];
    }
    xadj[n] = out;
    *xadj_out = xadj;
    *adj_out = adj;
    free(fill);
    return TL_OK;
fail:
    free(xadj);
    free(adj);
    free(fill);
    return st;
}

int tl_partition_metis_called(int64_t nrows, int nparts) { return nparts > 1 && nrows > 0 && nparts < nrows; }

tl_status tl_partition_metis(const tl_csr *a, int nparts, int recursive, int *part)
{
    TL_INPUT_CHECK(nparts >= 1, TL_ERR_INVAL, "nparts=%d", nparts);
    TL_INPUT_CHECK(a->nrows == a->ncols, TL_ERR_INVAL, "partitioning a %lld x %lld matrix",
                   (long long)a->nrows, (long long)a->ncols);
    if (nparts == 1 || a->nrows == 0) {
        for (int64_t i = 0; i < a->nrows; i++)
            part[i] = 0;
        return TL_OK;
    }
    /* At least as many parts as rows: a row each, the rest empty (what
     * blocks give). METIS's k-way put every row in part 0 (edge cut 0,
     * imbalance nparts), and its bisection printed "Cannot bisect a graph
     * with 0 vertices" on stdout, into the caller's report. */
    if (!tl_partition_metis_called(a->nrows, nparts)) return tl_partition_block(a->nrows, nparts, part);
#if TL_HAVE_METIS
    int64_t *xadj = NULL, *adj = NULL;
    idx_t *mx = NULL, *ma = NULL, *mp = NULL;
    tl_status st = TL_OK;
    const int64_t n = a->nrows;
    TL_TRY(tl_graph_symmetrize(a, &xadj, &adj));
    if (sizeof(idx_t) < sizeof(int64_t) && xadj[n] > (int64_t)INT32_MAX) {
        st = TL_FAIL(TL_ERR_UNSUPPORTED,
                     "graph has %lld edges; this METIS has 32-bit indices (IDXTYPEWIDTH=32)",
                     (long long)xadj[n]);
        goto fail;
    }
    mx = malloc(((size_t)n + 1) * sizeof *mx);
    ma = malloc((xadj[n] ? (size_t)xadj[n] : 1) * sizeof *ma);
    mp = malloc((size_t)n * sizeof *mp);
    TL_INPUT_CHECKGOTO(mx && ma && mp, TL_ERR_NOMEM, st, fail, "METIS graph of %lld edges",
                       (long long)xadj[n]);
    for (int64_t i = 0; i <= n; i++)
        mx[i] = (idx_t)xadj[i];
    for (int64_t k = 0; k < xadj[n]; k++)
        ma[k] = (idx_t)adj[k];
    idx_t nv = (idx_t)n, ncon = 1, np = (idx_t)nparts, cut = 0;
    idx_t opts[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_NUMBERING] = 0;
    opts[METIS_OPTION_SEED] = 1; /* reproducible partitions across runs */
    int rc = recursive ? METIS_PartGraphRecursive(&nv, &ncon, mx, ma, NULL, NULL, NULL, &np, NULL,
                                                  NULL, opts, &cut, mp)
                       : METIS_PartGraphKway(&nv, &ncon, mx, ma, NULL, NULL, NULL, &np, NULL, NULL,
                                             opts, &cut, mp);
    TL_INPUT_CHECKGOTO(rc == METIS_OK, TL_ERR_UNSUPPORTED, st, fail, "%s into %d parts failed: %s",
                       recursive ? "METIS_PartGraphRecursive" : "METIS_PartGraphKway", nparts,
                       rc == METIS_ERROR_MEMORY  ? "out of memory"
                       : rc == METIS_ERROR_INPUT ? "bad input"
                                                 : "METIS error");
    for (int64_t i = 0; i < n; i++)
        part[i] = (int)mp[i];
fail:
    free(xadj);
    free(adj);
    free(mx);
    free(ma);
    free(mp);
    return st;
#else
    (void)recursive;
    return TL_FAIL(TL_ERR_UNSUPPORTED,
                   "METIS partitioning needs METIS 5 (built without it; install libmetis-dev "
                   "or use --partition block)");
#endif
}

tl_status tl_partition_read(const char *path, int64_t n, int nparts, int *part)
{
    int64_t *v = NULL, len = 0;
    TL_TRY(tl_mm_read_ivector(path, -1, &v, &len));
    tl_status st = TL_OK;
    if (len != n) {
        st = TL_FAIL(
            TL_ERR_PARSE,
            "%s: partition file of the wrong length: %lld entries for a matrix of %lld rows", path,
            (long long)len, (long long)n);
        goto fail;
    }
    int64_t most = 0, at = 0; /* the greatest part id and its entry */
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < 0) {
            st = TL_FAIL(TL_ERR_PARSE, "%s: entry %lld: part id %lld out of range [0, %d]: negative", path,
                         (long long)i + 1, (long long)v[i], nparts - 1);
            goto fail;
        }
        if (v[i] > most) most = v[i], at = i;
    }
    /* a file made for more ranks than this run has (it said "out of range
     * [0, 2] for 3 parts" for a 4-part file on 3 ranks, naming neither) */
    if (most >= nparts) {
        st = TL_FAIL(TL_ERR_PARSE,
                     "%s: entry %lld: part id %lld out of range [0, %d]: the file has parts up to %lld, for at least "
                     "%lld ranks, and this run has %d (run on %lld ranks, or make a file for %d: trilap-matgen "
                     "partition MATRIX %d OUT)",
                     path, (long long)at + 1, (long long)most, nparts - 1, (long long)most, (long long)most + 1,
                     nparts, (long long)most + 1, nparts, nparts);
        goto fail;
    }
    for (int64_t i = 0; i < n; i++)
        part[i] = (int)v[i];
fail:
    free(v);
    return st;
}

tl_status tl_partition_write(const char *path, const int *part, int64_t n)
{
    int64_t *v = NULL;
    TL_ALLOC(v, n);
    for (int64_t i = 0; i < n; i++)
        v[i] = part[i];
    tl_status st = tl_mm_write_ivector(path, v, n);
    free(v);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

int tl_partition_spec_is_file(const char *spec)
{
    return strcmp(spec, "block") && strcmp(spec, "metis") && strcmp(spec, "metis-kway") &&
           strcmp(spec, "metis-recursive");
}

tl_status tl_partition_by_spec(const char *spec, const tl_csr *a, int nparts, int *part)
{
    if (strcmp(spec, "block") == 0) return tl_partition_block(a->nrows, nparts, part);
    if (strcmp(spec, "metis") == 0 || strcmp(spec, "metis-kway") == 0) {
        TL_TRY(tl_partition_metis(a, nparts, 0, part));
        return TL_OK;
    }
    if (strcmp(spec, "metis-recursive") == 0) {
        TL_TRY(tl_partition_metis(a, nparts, 1, part));
        return TL_OK;
    }
    TL_INPUT_CHECK(access(spec, F_OK) == 0, TL_ERR_INVAL,
                   "partition '%s': not block, metis or metis-recursive, and no file of that name", spec);
    TL_TRY(tl_partition_read(spec, a->nrows, nparts, part));
    return TL_OK;
}

tl_status tl_partition_stats_compute(const tl_csr *a, const int *part, int nparts,
                                     tl_partition_stats *s)
{
    int64_t *rows = NULL, *nnz = NULL;
    memset(s, 0, sizeof *s);
    TL_INPUT_CHECK(nparts >= 1, TL_ERR_INVAL, "nparts=%d", nparts);
    rows = calloc((size_t)nparts, sizeof *rows);
    nnz = calloc((size_t)nparts, sizeof *nnz);
    if (!rows || !nnz) {
        free(rows), free(nnz);
        return TL_FAIL(TL_ERR_NOMEM, "%d parts", nparts);
    }
    /* the symmetrised graph's cut edges, each once, read off the matrix
     * without building the graph (an array of twice the off-diagonal
     * entries, 1.6 GB at 256^3): an edge from its entry above the
     * diagonal, or from one below whose mirror above is absent; a lookup
     * only for the few entries that cross parts */
    int64_t cut = 0;
    for (int64_t i = 0; i < a->nrows; i++) {
        rows[part[i]]++;
        nnz[part[i]] += a->rowptr[i + 1] - a->rowptr[i];
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int64_t j = a->colidx[k];
            if (j != i && part[j] != part[i] && (j > i || tl_csr_find(a, j, i) < 0)) cut++;
        }
    }
    s->nparts = nparts;
    s->edgecut = cut;
    s->min_rows = rows[0];
    for (int p = 0; p < nparts; p++) {
        if (rows[p] < s->min_rows) s->min_rows = rows[p];
        if (rows[p] > s->max_rows) s->max_rows = rows[p];
        if (nnz[p] > s->max_nnz) s->max_nnz = nnz[p];
        s->empty_parts += rows[p] == 0;
    }
    s->imbalance = a->nrows ? (double)s->max_rows / ((double)a->nrows / nparts) : 1.0;
    free(rows), free(nnz);
    return TL_OK;
}
