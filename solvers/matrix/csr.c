/* CSR storage and the serial reference kernels the distributed code is
 * checked against. */
#include "solvers/matrix/csr.h"
#include "solvers/matrix/input_check.h"

#include <stdio.h>

#include "runtime/hostmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tl_status tl_csr_alloc(tl_csr *a, int64_t nrows, int64_t ncols, int64_t nnz)
{
    TL_INPUT_CHECK(a && nrows >= 0 && ncols >= 0 && nnz >= 0, TL_ERR_INVAL,
                   "nrows=%lld ncols=%lld nnz=%lld", (long long)nrows, (long long)ncols,
                   (long long)nnz);
    memset(a, 0, sizeof *a);
    /* calloc "succeeds" beyond the machine (overcommit): ask first */
    char what[96];
    snprintf(what, sizeof what, "a CSR matrix of %lld rows and %lld nonzeros", (long long)nrows,
             (long long)nnz);
    TL_TRY(tl_hostmem_check(what, 8.0 * ((double)nrows + 1) + 16.0 * (double)nnz));
    a->rowptr = calloc((size_t)nrows + 1, sizeof *a->rowptr);
    a->colidx = malloc((nnz ? (size_t)nnz : 1) * sizeof *a->colidx);
    a->val = malloc((nnz ? (size_t)nnz : 1) * sizeof *a->val);
    if (!a->rowptr || !a->colidx || !a->val) {
        tl_csr_free(a);
        return TL_FAIL(TL_ERR_NOMEM, "CSR of %lld rows and %lld nonzeros (%.1f MiB)",
                       (long long)nrows, (long long)nnz,
                       ((double)nrows + 2.0 * (double)nnz) * 8.0 / 1048576.0);
    }
    a->nrows = nrows;
    a->ncols = ncols;
    a->nnz = nnz;
    return TL_OK;
}

void tl_csr_free(tl_csr *a)
{
    if (!a) return;
    free(a->rowptr);
    free(a->colidx);
    free(a->val);
    memset(a, 0, sizeof *a);
}

void tl_csr_spmv(const tl_csr *a, const double *x, double *y)
{
    for (int64_t i = 0; i < a->nrows; i++) {
        double s = 0.0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            s += a->val[k] * x[a->colidx[k]];
        y[i] = s;
    }
}

void tl_csr_diagonal(const tl_csr *a, double *d)
{
    for (int64_t i = 0; i < a->nrows; i++) {
        d[i] = 0.0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (a->colidx[k] == i) d[i] = a->val[k];
    }
}

int64_t tl_csr_zero_diagonal(const tl_csr *a, int64_t *first)
{
    int64_t zeros = 0;
    *first = -1;
    for (int64_t i = 0; i < a->nrows; i++) {
        double d = 0.0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (a->colidx[k] == i) d = a->val[k];
        if (d != 0.0) continue;
        if (*first < 0) *first = i;
        zeros++;
    }
    return zeros;
}

tl_status tl_csr_check(const tl_csr *a, const char *what)
{
    TL_INPUT_CHECK(a->rowptr[0] == 0 && a->rowptr[a->nrows] == a->nnz, TL_ERR_PARSE,
                   "%s: row pointers run from %lld to %lld, expected 0 to nnz=%lld", what,
                   (long long)a->rowptr[0], (long long)a->rowptr[a->nrows], (long long)a->nnz);
    for (int64_t i = 0; i < a->nrows; i++) {
        if (a->rowptr[i + 1] < a->rowptr[i])
            return TL_FAIL(TL_ERR_PARSE, "%s: row %lld: row pointer decreases", what, (long long)i);
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            if (a->colidx[k] < 0 || a->colidx[k] >= a->ncols)
                return TL_FAIL(TL_ERR_PARSE, "%s: row %lld: column %lld out of range [0, %lld)",
                               what, (long long)i, (long long)a->colidx[k], (long long)a->ncols);
            if (k > a->rowptr[i] && a->colidx[k] <= a->colidx[k - 1])
                return TL_FAIL(TL_ERR_PARSE, "%s: row %lld: columns not strictly ascending", what,
                               (long long)i);
            if (!isfinite(a->val[k]))
                return TL_FAIL(TL_ERR_PARSE, "%s: row %lld column %lld: non-finite value", what,
                               (long long)i, (long long)a->colidx[k]);
        }
    }
    return TL_OK;
}

int64_t tl_csr_find(const tl_csr *a, int64_t i, int64_t j)
{
    int64_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->colidx[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->rowptr[i + 1] && a->colidx[lo] == j ? lo : -1;
}

static int asym_at(int64_t i, int64_t j, int64_t *i_out, int64_t *j_out)
{
    if (i_out) *i_out = i;
    if (j_out) *j_out = j;
    return 0;
}

int tl_csr_is_symmetric(const tl_csr *a, double rtol, int64_t *i_out, int64_t *j_out)
{
    if (a->nrows != a->ncols) return 0;
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int64_t j = a->colidx[k];
            if (j <= i) continue; /* each pair once, from its upper entry; the lower-only ones below */
            int64_t m = tl_csr_find(a, j, i);
            double x = a->val[k], y = m >= 0 ? a->val[m] : 0.0;
            if (rtol == 0.0 ? m < 0 || x != y : fabs(x - y) > rtol * fmax(fabs(x), fabs(y)))
                return asym_at(i, j, i_out, j_out);
        }
    /* an entry below the diagonal whose mirror above is absent */
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1] && a->colidx[k] < i; k++)
            if ((rtol == 0.0 || a->val[k] != 0.0) && tl_csr_find(a, a->colidx[k], i) < 0)
                return asym_at(i, a->colidx[k], i_out, j_out);
    return 1;
}
