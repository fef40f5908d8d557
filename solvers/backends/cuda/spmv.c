/* Device CSR blocks and the two SpMV implementations (see spmv.h). */
#include "config.h"

#if TL_HAVE_CUDA

#include "solvers/backends/cuda/spmv.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/check.h"
#include "solvers/backends/cuda/cusparse_lib.h"
#include "solvers/backends/cuda/kernels.h"

/* a call of sp's loaded cuSPARSE, its failure reported in its words */
#define TL_CUSPARSE(sp, fn, ...)                                                                    \
    do {                                                                                            \
        cusparseStatus_t cs_ = (sp)->cs.fn(__VA_ARGS__);                                            \
        if (cs_ != CUSPARSE_STATUS_SUCCESS)                                                         \
            return tl_error_report(TL_ERR_CUDA, TL_FILE_, __LINE__, #fn, "cuSPARSE: %s",            \
                                   (sp)->cs.cusparseGetErrorString(cs_));                           \
    } while (0)

typedef struct cu_block {
    tl_cu_csr a;
    int64_t yoff, xoff;       /* y and x offsets of the block (ghost block: ninterior, nowned) */
    cusparseSpMatDescr_t mat; /* cusparse only */
    cusparseDnVecDescr_t vx, vy;
    void *d_buf;
    int ready;         /* buffer sized and preprocessed */
    unsigned dot_grid; /* trilap: the blocks of the product with its dot */
} cu_block;

struct tl_cu_spmv {
    tl_cu_spmv_config cfg;
    cu_block diag, offd;
    cusparseHandle_t h;
    tl_cusparse_lib cs; /* loaded for TL_SPMV_CUSPARSE only */
    /* the dot in the product's pass (trilap's row kernel only): a partial
     * per block of the larger grid (a block per 1,024 rows), a counter per
     * block (diag, offd), the interior rows' sum the ghost block's pass
     * adds to */
    double *d_part, *d_mid;
    unsigned *d_count;
};

const char *tl_spmv_impl_name(tl_spmv_impl k)
{
    static const char *const names[TL_SPMV_COUNT] = {
        [TL_SPMV_TRILAP] = "trilap", [TL_SPMV_CUSPARSE] = "cusparse"};
    return k >= 0 && k < TL_SPMV_COUNT ? names[k] : NULL;
}

int tl_cusparse_alg_parse(const char *s)
{
    if (!s) return -1;
    if (strcmp(s, "default") == 0) return CUSPARSE_SPMV_ALG_DEFAULT;
    if (strcmp(s, "csr1") == 0) return CUSPARSE_SPMV_CSR_ALG1;
    if (strcmp(s, "csr2") == 0) return CUSPARSE_SPMV_CSR_ALG2;
    return -1;
}

/* rows [r0, r1) of `src` as an int32 device CSR */
static tl_status upload(const tl_csr *src, int64_t r0, int64_t r1, const tl_cu_spmv_config *cfg,
                        cudaStream_t s, tl_cu_csr *a)
{
    tl_status st = TL_OK;
    int64_t nrows = r1 - r0, k0 = src->rowptr[r0], nnz = src->rowptr[r1] - k0;
    TL_CHECK(nrows < INT32_MAX && src->ncols < INT32_MAX && nnz < INT32_MAX, TL_ERR_UNSUPPORTED,
             "local block of %lld rows, %lld columns, %lld nonzeros exceeds 32-bit indices",
             (long long)nrows, (long long)src->ncols, (long long)nnz);
    int32_t *rp = malloc((size_t)(nrows + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    TL_CHECKGOTO(rp && ci, TL_ERR_NOMEM, st, done, "CSR of %lld nonzeros", (long long)nnz);
    int64_t maxrow = 0;
    for (int64_t i = 0; i <= nrows; i++)
        rp[i] = (int32_t)(src->rowptr[r0 + i] - k0);
    for (int64_t i = 0; i < nrows; i++)
        if (rp[i + 1] - rp[i] > maxrow) maxrow = rp[i + 1] - rp[i];
    for (int64_t k = 0; k < nnz; k++)
        ci[k] = (int32_t)src->colidx[k0 + k];
    a->nrows = (int32_t)nrows;
    a->ncols = (int32_t)src->ncols;
    a->nnz = nnz;
    a->max_row = (int32_t)maxrow;
    a->tpr = cfg->threads_per_row > 0 ? cfg->threads_per_row
             : cfg->threads_per_row < 0
                 ? 0
                 : tl_cu_spmv_pick_tpr(nrows ? (double)nnz / nrows : 0, maxrow);
    TL_CUDAGOTO(cudaMalloc((void **)&a->d_rowptr, (size_t)(nrows + 1) * sizeof *rp), st, done);
    TL_CUDAGOTO(cudaMalloc((void **)&a->d_colidx, (size_t)(nnz ? nnz : 1) * sizeof *ci), st, done);
    TL_CUDAGOTO(cudaMalloc((void **)&a->d_val, (size_t)(nnz ? nnz : 1) * sizeof(double)), st, done);
    /* on the caller's (non-blocking) stream, waited for: a plain cudaMemcpy
     * from pageable memory may return before its DMA is done, and the
     * legacy stream it uses is not ordered with the role streams */
    TL_CUDAGOTO(cudaMemcpyAsync(a->d_rowptr, rp, (size_t)(nrows + 1) * sizeof *rp,
                                cudaMemcpyHostToDevice, s),
                st, done);
    TL_CUDAGOTO(
        cudaMemcpyAsync(a->d_colidx, ci, (size_t)nnz * sizeof *ci, cudaMemcpyHostToDevice, s), st,
        done);
    TL_CUDAGOTO(cudaMemcpyAsync(a->d_val, src->val + k0, (size_t)nnz * sizeof(double),
                                cudaMemcpyHostToDevice, s),
                st, done);
    TL_CUDAGOTO(cudaStreamSynchronize(s), st, done); /* before rp, ci are freed */
done:
    free(rp);
    free(ci);
    return st;
}

static void block_free(tl_cu_spmv *sp, cu_block *b)
{
    if (b->mat) sp->cs.cusparseDestroySpMat(b->mat);
    if (b->vx) sp->cs.cusparseDestroyDnVec(b->vx);
    if (b->vy) sp->cs.cusparseDestroyDnVec(b->vy);
    cudaFree(b->d_buf);
    cudaFree(b->a.d_rowptr);
    cudaFree(b->a.d_colidx);
    cudaFree(b->a.d_val);
    memset(b, 0, sizeof *b);
}

int tl_cu_spmv_can_dot(const tl_cu_spmv *sp, int with_offd)
{
    return sp->d_part && sp->diag.a.tpr > 0 && (!with_offd || sp->offd.a.tpr > 0);
}

/* The dot's grids (fixed here, so its sums' order is the same in every
 * pass), partials, counters and interior sum, zeroed on stream s (waited
 * for by the caller's upload sync). */
static tl_status dot_alloc(tl_cu_spmv *sp, cudaStream_t s)
{
    TL_TRY(tl_cu_csr_spmv_dot_grid(&sp->diag.a, sp->cfg.sms, &sp->diag.dot_grid));
    TL_TRY(tl_cu_csr_spmv_dot_grid(&sp->offd.a, sp->cfg.sms, &sp->offd.dot_grid));
    unsigned np = sp->diag.dot_grid > sp->offd.dot_grid ? sp->diag.dot_grid : sp->offd.dot_grid;
    TL_CUDA(cudaMalloc((void **)&sp->d_part, (size_t)(np > 0 ? np : 1) * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&sp->d_mid, sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&sp->d_count, 2 * sizeof(unsigned)));
    TL_CUDA(cudaMemsetAsync(sp->d_count, 0, 2 * sizeof(unsigned), s));
    TL_CUDA(cudaMemsetAsync(sp->d_mid, 0, sizeof(double), s));
    return TL_OK;
}

void tl_cu_spmv_destroy(tl_cu_spmv **sp)
{
    if (!sp || !*sp) return;
    block_free(*sp, &(*sp)->diag);
    block_free(*sp, &(*sp)->offd);
    if ((*sp)->h) (*sp)->cs.cusparseDestroy((*sp)->h);
    tl_cusparse_lib_unload(&(*sp)->cs);
    cudaFree((*sp)->d_part);
    cudaFree((*sp)->d_mid);
    cudaFree((*sp)->d_count);
    free(*sp);
    *sp = NULL;
}

static tl_status cusparse_setup(tl_cu_spmv *sp, cu_block *b)
{
    tl_cu_csr *a = &b->a;
    if (a->nrows == 0) return TL_OK;
    TL_CUSPARSE(sp, cusparseCreateCsr, &b->mat, a->nrows, a->ncols, a->nnz, a->d_rowptr, a->d_colidx, a->d_val,
                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    /* placeholder pointers: the vectors' values are set per call */
    TL_CUSPARSE(sp, cusparseCreateDnVec, &b->vx, a->ncols, a->d_val, CUDA_R_64F);
    TL_CUSPARSE(sp, cusparseCreateDnVec, &b->vy, a->nrows, a->d_val, CUDA_R_64F);
    return TL_OK;
}

tl_status tl_cu_spmv_create(const tl_dist_matrix *m, const tl_cu_spmv_config *cfg, cudaStream_t s,
                            tl_cu_spmv **out)
{
    tl_status st = TL_OK;
    tl_cu_spmv *sp = calloc(1, sizeof *sp);
    TL_CHECK(sp, TL_ERR_NOMEM, "spmv");
    sp->cfg = *cfg;
    TL_CHECKGOTO(
        cfg->threads_per_row <= 32 && cfg->threads_per_row >= -1 &&
            (cfg->threads_per_row <= 0 || (cfg->threads_per_row & (cfg->threads_per_row - 1)) == 0),
        TL_ERR_INVAL, st, fail, "--spmv-threads-per-row %d (0, -1 or 1, 2, 4, ..., 32)",
        cfg->threads_per_row);
    TL_TRYGOTO(upload(&m->diag, 0, m->nowned, cfg, s, &sp->diag.a), st, fail);
    TL_TRYGOTO(upload(&m->offd, m->ninterior, m->nowned, cfg, s, &sp->offd.a), st, fail);
    sp->diag.yoff = 0;
    sp->diag.xoff = 0;
    sp->offd.yoff = m->ninterior;
    sp->offd.xoff = m->nowned;
    if (cfg->impl == TL_SPMV_CUSPARSE) {
        TL_TRYGOTO(tl_cusparse_lib_load(&sp->cs), st, fail);
        cusparseStatus_t status = sp->cs.cusparseCreate(&sp->h);
        TL_CHECKGOTO(status == CUSPARSE_STATUS_SUCCESS, TL_ERR_CUDA, st, fail, "cusparseCreate: %s",
                     sp->cs.cusparseGetErrorString(status));
        TL_TRYGOTO(cusparse_setup(sp, &sp->diag), st, fail);
        TL_TRYGOTO(cusparse_setup(sp, &sp->offd), st, fail);
    } else if (sp->diag.a.tpr > 0) {
        TL_TRYGOTO(dot_alloc(sp, s), st, fail);
        TL_CUDAGOTO(cudaStreamSynchronize(s), st, fail); /* the zeroes before any kernel */
    }
    *out = sp;
    return TL_OK;
fail:
    tl_cu_spmv_destroy(&sp);
    return st;
}

/* y[yoff..] (=|+=) A x[xoff..] with cuSPARSE; the work buffer is sized and
 * the matrix preprocessed at the first call (on stream s). */
static tl_status cusparse_run(tl_cu_spmv *sp, cu_block *b, const double *d_x, double *d_y,
                              int accumulate, cudaStream_t s)
{
    if (b->a.nrows == 0) return TL_OK;
    double one = 1.0, beta = accumulate ? 1.0 : 0.0;
    cusparseSpMVAlg_t alg = (cusparseSpMVAlg_t)sp->cfg.cusparse_alg;
    TL_CUSPARSE(sp, cusparseSetStream, sp->h, s);
    TL_CUSPARSE(sp, cusparseDnVecSetValues, b->vx, (void *)(d_x + b->xoff));
    TL_CUSPARSE(sp, cusparseDnVecSetValues, b->vy, (void *)(d_y + b->yoff));
    if (!b->ready) {
        size_t bytes = 0;
        TL_CUSPARSE(sp, cusparseSpMV_bufferSize, sp->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->mat, b->vx,
                    &beta, b->vy, CUDA_R_64F, alg, &bytes);
        TL_CUDA(cudaMalloc(&b->d_buf, bytes ? bytes : 1));
        TL_CUSPARSE(sp, cusparseSpMV_preprocess, sp->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->mat, b->vx,
                    &beta, b->vy, CUDA_R_64F, alg, b->d_buf);
        b->ready = 1;
    }
    TL_CUSPARSE(sp, cusparseSpMV, sp->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, b->mat, b->vx, &beta, b->vy,
                CUDA_R_64F, alg, b->d_buf);
    return TL_OK;
}

static tl_status block_run(tl_cu_spmv *sp, cu_block *b, const double *d_x, double *d_y,
                           int accumulate, tl_cu_launch l)
{
    if (sp->cfg.impl == TL_SPMV_CUSPARSE) return cusparse_run(sp, b, d_x, d_y, accumulate, l.s);
    return tl_cu_csr_spmv(&b->a, d_x + b->xoff, d_y + b->yoff, accumulate, l);
}

tl_status tl_cu_spmv_diag(tl_cu_spmv *sp, const double *d_x, double *d_y, double *d_dot,
                          int offd, tl_cu_launch l)
{
    if (!d_dot) return block_run(sp, &sp->diag, d_x, d_y, 0, l);
    TL_CHECK(tl_cu_spmv_can_dot(sp, offd), TL_ERR_INVAL, "spmv: no dot in this product's pass");
    /* with the ghost block to come, the border rows are not final here */
    tl_cu_spmv_dot dot = {.p = d_x,
                          .nrows = offd ? (int32_t)sp->offd.yoff : sp->diag.a.nrows,
                          .grid = sp->diag.dot_grid,
                          .part = sp->d_part,
                          .count = sp->d_count,
                          .out = offd ? sp->d_mid : d_dot};
    return tl_cu_csr_spmv_dot(&sp->diag.a, d_x, d_y, 0, &dot, l);
}

tl_status tl_cu_spmv_offd(tl_cu_spmv *sp, const double *d_x, double *d_y, double *d_dot,
                          tl_cu_launch l)
{
    cu_block *b = &sp->offd;
    if (!d_dot) return block_run(sp, b, d_x, d_y, 1, l);
    TL_CHECK(tl_cu_spmv_can_dot(sp, 1), TL_ERR_INVAL, "spmv: no dot in this product's pass");
    tl_cu_spmv_dot dot = {.p = d_x + b->yoff,
                          .nrows = b->a.nrows,
                          .grid = b->dot_grid,
                          .part = sp->d_part,
                          .count = sp->d_count + 1,
                          .add = sp->d_mid,
                          .out = d_dot};
    return tl_cu_csr_spmv_dot(&b->a, d_x + b->xoff, d_y + b->yoff, 1, &dot, l);
}

double tl_cu_spmv_diag_bytes(const tl_cu_spmv *sp)
{
    return tl_cu_csr_bytes(&sp->diag.a, 0);
}

double tl_cu_spmv_offd_bytes(const tl_cu_spmv *sp)
{
    return sp->offd.a.nnz ? tl_cu_csr_bytes(&sp->offd.a, 1) : 0.0;
}

int tl_cu_spmv_tpr(const tl_cu_spmv *sp)
{
    return sp->diag.a.tpr;
}

const tl_cu_csr *tl_cu_spmv_diag_csr(const tl_cu_spmv *sp)
{
    return &sp->diag.a;
}

#endif /* TL_HAVE_CUDA */
