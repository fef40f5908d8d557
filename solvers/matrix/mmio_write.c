/* Matrix Market writers: vectors, integer vectors (partition files) and
 * coordinate matrices, through tl_outfile (a temporary name, then rename;
 * gzip for .gz), values with 17 significant digits. */
#include "solvers/matrix/mmio.h"

#include <stdint.h>

#include "solvers/matrix/outfile.h"

tl_status tl_mm_write_vector(const char *path, const double *v, int64_t n)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(tl_outfile_printf(
                   f,
                   "%%%%MatrixMarket matrix array real general\n%%%% written by trilap\n%lld 1\n",
                   (long long)n),
               st, fail);
    for (int64_t k = 0; k < n; k++)
        TL_TRYGOTO(tl_outfile_printf(f, "%.17g\n", v[k]), st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}

tl_status tl_mm_write_ivector(const char *path, const int64_t *v, int64_t n)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(
        tl_outfile_printf(
            f, "%%%%MatrixMarket matrix array integer general\n%%%% written by trilap\n%lld 1\n",
            (long long)n),
        st, fail);
    for (int64_t k = 0; k < n; k++)
        TL_TRYGOTO(tl_outfile_printf(f, "%lld\n", (long long)v[k]), st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}

tl_status tl_mm_write_csr(const char *path, const tl_csr *a, int symmetric)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    int64_t nnz = 0;
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            nnz += !symmetric || a->colidx[k] <= i;
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(
        tl_outfile_printf(
            f,
            "%%%%MatrixMarket matrix coordinate real %s\n%%%% written by trilap\n%lld %lld %lld\n",
            symmetric ? "symmetric" : "general", (long long)a->nrows, (long long)a->ncols,
            (long long)nnz),
        st, fail);
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (!symmetric || a->colidx[k] <= i)
                TL_TRYGOTO(tl_outfile_printf(f, "%lld %lld %.17g\n", (long long)i + 1,
                                             (long long)a->colidx[k] + 1, a->val[k]),
                           st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}
