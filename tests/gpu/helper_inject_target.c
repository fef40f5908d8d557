/* An unmodified NCCL program, written the way nccl-tests and the like are
 * (no trilap code, not linked with the probes), for the injection test:
 * one process drives 1 or 2 GPUs through ncclCommInitAll; each iteration
 * runs a ring send/recv on one stream, an allreduce on a second stream
 * and a compute kernel on a third, then checks the results.
 *
 *   helper_inject_target [iterations=20]
 * prints "helper_inject_target: ok: G GPU(s), N iterations"; exit 0, 1 on
 * an error, 77 without a GPU. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#if TL_HAVE_CUDA && TL_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

int helper_scale(double *d_x, double a, size_t n, cudaStream_t s);

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "helper_inject_target: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,       \
                    cudaGetErrorString(e_));                                                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
#define NK(x)                                                                                      \
    do {                                                                                           \
        ncclResult_t r_ = (x);                                                                     \
        if (r_ != ncclSuccess) {                                                                   \
            fprintf(stderr, "helper_inject_target: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,       \
                    ncclGetErrorString(r_));                                                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

enum { MAXG = 2 };
static const size_t ring_n = (size_t)1 << 16; /* 512 KiB per send */
static const size_t red_n = (size_t)1 << 20;  /* 8 MiB allreduce */
static const size_t comp_n = (size_t)1 << 22; /* 32 MiB scaled in place */

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    if (iters < 1) {
        fprintf(stderr, "helper_inject_target: invalid iterations '%s'\n", argv[1]);
        return 2;
    }
    int ngpu = 0;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu < 1) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    int n = ngpu >= MAXG ? MAXG : 1;
    int devs[MAXG] = {0, 1};
    ncclComm_t comms[MAXG];
    cudaStream_t s_ring[MAXG], s_red[MAXG], s_comp[MAXG];
    double *d_send[MAXG], *d_recv[MAXG], *d_redin[MAXG], *d_redout[MAXG], *d_x[MAXG];
    double *h = malloc(red_n * sizeof *h);
    if (!h) return 1;
    NK(ncclCommInitAll(comms, n, devs));
    for (int d = 0; d < n; d++) {
        CK(cudaSetDevice(d));
        CK(cudaStreamCreateWithFlags(&s_ring[d], cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&s_red[d], cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&s_comp[d], cudaStreamNonBlocking));
        CK(cudaMalloc((void **)&d_send[d], ring_n * sizeof(double)));
        CK(cudaMalloc((void **)&d_recv[d], ring_n * sizeof(double)));
        CK(cudaMalloc((void **)&d_redin[d], red_n * sizeof(double)));
        CK(cudaMalloc((void **)&d_redout[d], red_n * sizeof(double)));
        CK(cudaMalloc((void **)&d_x[d], comp_n * sizeof(double)));
        for (size_t i = 0; i < red_n; i++)
            h[i] = d + 1;
        CK(cudaMemcpy(d_send[d], h, ring_n * sizeof(double), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_redin[d], h, red_n * sizeof(double), cudaMemcpyHostToDevice));
        CK(cudaMemset(d_x[d], 0, comp_n * sizeof(double)));
    }
    for (int it = 0; it < iters; it++) {
        for (int d = 0; d < n; d++) {
            CK(cudaSetDevice(d));
            CK((cudaError_t)helper_scale(d_x[d], 1.0, comp_n, s_comp[d]));
        }
        NK(ncclGroupStart());
        for (int d = 0; d < n; d++) {
            NK(ncclSend(d_send[d], ring_n, ncclDouble, (d + 1) % n, comms[d], s_ring[d]));
            NK(ncclRecv(d_recv[d], ring_n, ncclDouble, (d - 1 + n) % n, comms[d], s_ring[d]));
        }
        NK(ncclGroupEnd());
        NK(ncclGroupStart());
        for (int d = 0; d < n; d++)
            NK(ncclAllReduce(d_redin[d], d_redout[d], red_n, ncclDouble, ncclSum, comms[d],
                             s_red[d]));
        NK(ncclGroupEnd());
    }
    int wrong = 0;
    for (int d = 0; d < n; d++) {
        CK(cudaSetDevice(d));
        CK(cudaStreamSynchronize(s_comp[d]));
        CK(cudaStreamSynchronize(s_ring[d]));
        CK(cudaStreamSynchronize(s_red[d]));
        double want_red = n * (n + 1) / 2.0, want_ring = (d - 1 + n) % n + 1, x[2];
        CK(cudaMemcpy(h, d_redout[d], red_n * sizeof(double), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < red_n; i++)
            wrong += h[i] != want_red;
        CK(cudaMemcpy(h, d_recv[d], ring_n * sizeof(double), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < ring_n; i++)
            wrong += h[i] != want_ring;
        CK(cudaMemcpy(x, d_x[d] + comp_n - 2, sizeof x, cudaMemcpyDeviceToHost));
        wrong += x[0] != iters || x[1] != iters;
    }
    for (int d = 0; d < n; d++) {
        CK(cudaSetDevice(d));
        NK(ncclCommDestroy(comms[d]));
        cudaFree(d_send[d]);
        cudaFree(d_recv[d]);
        cudaFree(d_redin[d]);
        cudaFree(d_redout[d]);
        cudaFree(d_x[d]);
        cudaStreamDestroy(s_ring[d]);
        cudaStreamDestroy(s_red[d]);
        cudaStreamDestroy(s_comp[d]);
    }
    free(h);
    if (wrong) {
        fprintf(stderr, "helper_inject_target: %d wrong values\n", wrong);
        return 1;
    }
    printf("helper_inject_target: ok: %d GPU(s), %d iterations\n", n, iters);
    return 0;
}

#else

int main(void)
{
    printf("SKIP: helper_inject_target needs CUDA and NCCL in the build\n");
    return 77;
}

#endif
