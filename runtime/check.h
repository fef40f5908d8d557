/* Checking wrappers for CUDA, NCCL, CUPTI and MPI calls. Each keeps the
 * library's own message and reports the expression with file:line:
 *   TL_CUDA(cudaMalloc(&d_x, bytes));
 * Include only in files built with the library (guard with TL_HAVE_*). */
#ifndef TL_CHECK_H
#define TL_CHECK_H

#include "config.h"
#include "runtime/error.h"

#if TL_HAVE_CUDA
#include <cuda_runtime.h>
#define TL_CUDA(expr)                                                       \
    do {                                                                    \
        cudaError_t tl_ce_ = (expr);                                        \
        if (tl_ce_ != cudaSuccess)                                          \
            return tl_error_report(TL_ERR_CUDA, TL_FILE_, __LINE__, #expr, "%s (%s)", \
                                   cudaGetErrorString(tl_ce_), cudaGetErrorName(tl_ce_)); \
    } while (0)
#define TL_CUDAGOTO(expr, res, label)                                       \
    do {                                                                    \
        cudaError_t tl_ce_ = (expr);                                        \
        if (tl_ce_ != cudaSuccess) {                                        \
            (res) = tl_error_report(TL_ERR_CUDA, TL_FILE_, __LINE__, #expr, "%s (%s)", \
                                    cudaGetErrorString(tl_ce_), cudaGetErrorName(tl_ce_)); \
            goto label;                                                     \
        }                                                                   \
    } while (0)
/* After a kernel launch: catches bad launch configurations at once. */
#define TL_CUDA_LAUNCHED(what) TL_CUDA(cudaPeekAtLastError())
#endif

#if TL_HAVE_NCCL
#include <nccl.h>
#define TL_NCCL(expr)                                                       \
    do {                                                                    \
        ncclResult_t tl_nr_ = (expr);                                       \
        if (tl_nr_ != ncclSuccess && tl_nr_ != ncclInProgress)              \
            return tl_error_report(TL_ERR_NCCL, TL_FILE_, __LINE__, #expr, "%s", \
                                   ncclGetErrorString(tl_nr_));             \
    } while (0)
#endif

#if TL_HAVE_CUPTI
#include <cupti.h>
#define TL_CUPTI(expr)                                                      \
    do {                                                                    \
        CUptiResult tl_cr_ = (expr);                                        \
        if (tl_cr_ != CUPTI_SUCCESS) {                                      \
            const char *tl_cs_ = NULL;                                      \
            cuptiGetResultString(tl_cr_, &tl_cs_);                          \
            return tl_error_report(TL_ERR_CUPTI, TL_FILE_, __LINE__, #expr, "%s", \
                                   tl_cs_ ? tl_cs_ : "unknown CUPTI error"); \
        }                                                                   \
    } while (0)
#endif

#if TL_HAVE_MPI
#include <mpi.h>
tl_status tl_mpi_report(int code, const char *file, int line, const char *expr);
#define TL_MPI(expr)                                                        \
    do {                                                                    \
        int tl_mr_ = (expr);                                                \
        if (tl_mr_ != MPI_SUCCESS) return tl_mpi_report(tl_mr_, TL_FILE_, __LINE__, #expr); \
    } while (0)
#endif

#endif
