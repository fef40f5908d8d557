/* The persistent Pipe-PCG loop (kernels.h tl_cu_pipecg_loop): iterations
 * of pipecg_async.c's iteration in one kernel whose resident blocks take
 * the items of loop_plan.h in dependency order. Its host side is
 * fused_iterations.c, behind the backend's fused_iterations operation. */
#include "solvers/backends/cuda/kernels.h"
#include "solvers/backends/cuda/device_common.cuh"
#include "solvers/backends/cuda/loop_plan.h"

/* ---- the persistent Pipe-PCG loop ------------------------------------------ */

__device__ __forceinline__ static unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ static void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Until flags[lo .. hi] all reach `need` (1 + an iteration), the block's
 * threads polling them side by side; after the barrier the block's loads
 * see what the publishing blocks stored (their release, this acquire). */
__device__ static void loop_wait(const unsigned *flags, int32_t lo, int32_t hi, unsigned need)
{
    for (;;) {
        int ok = 1;
        for (int32_t j = lo + (int32_t)threadIdx.x; j <= hi; j += BLOCK)
            if ((int)(ld_acquire(flags + j) - need) < 0) ok = 0;
        if (__syncthreads_and(ok)) return;
        __nanosleep(64);
    }
}

/* After an item: every store of the block, then its flag. */
__device__ static void loop_publish(unsigned *flag, unsigned v)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        st_release(flag, v);
    }
}

/* Iteration k's program on its reduced dots (one thread, once per
 * iteration), its registers to the ring slot of its run. */
__device__ __forceinline__ static void loop_program(const tl_cu_loop_args &a, unsigned k,
                                                 const double *dots)
{
    int j = (int)(k - a.base), parity = a.parity0 ^ (j & 1);
    double regs[TL_SC_REGS], next[TL_SC_STATE];
    for (int q = 0; q < 3; q++)
        a.dots[q] = dots[q];
    tl_sc_pipecg(a.dots, a.state + parity * TL_SC_STATE, regs, next);
    for (int q = 0; q < TL_SC_STATE; q++)
        a.state[(1 - parity) * TL_SC_STATE + q] = next[q];
    for (int q = 0; q < TL_SC_REGS; q++)
        a.regs[q] = regs[q];
    int64_t run = a.run0 + j;
    tl_sc_io io = {};
    io.copy = a.ring + (run % a.ring_slots) * (TL_SC_REGS + 1);
    io.copy_seq = (double)(run + 1);
    publish_regs(io, regs);
}

/* DJ_k(t), and for the last of iteration k the reduction of the tiles'
 * partials (in tile order, so the dots do not depend on which block came
 * last) and the program. */
__device__ static void loop_dj(const tl_cu_loop_args &a, int32_t t, unsigned k, int64_t e0,
                               int64_t e1, double (*sh)[BLOCK / 32], int *last)
{
    if (k != a.first) {
        loop_wait(a.fu, t, t, k);                 /* U_{k-1}(t): r, u, w */
        loop_wait(a.fs, a.rlo[t], a.rhi[t], k);   /* S_{k-1} done with m(t) */
    }
    double acc[3] = {0.0, 0.0, 0.0};
    for (int64_t i = e0 + threadIdx.x; i < e1; i += BLOCK) {
        double r = __ldcg(a.r + i), u = __ldcg(a.u + i), w = __ldcg(a.w + i);
        acc[0] += r * u;
        acc[1] += w * u;
        acc[2] += r * r;
        a.m[i] = __ldg(a.dinv + i) * w;
    }
    block_sums<3>(acc, 3, sh);
    if (threadIdx.x == 0) {
        double *pt = a.part + 3 * (int64_t)t;
        pt[0] = acc[0];
        pt[1] = acc[1];
        pt[2] = acc[2];
    }
    loop_publish(a.fdj + t, k + 1);
    unsigned *count = a.djcount + (k & 1);
    if (threadIdx.x == 0) {
        __threadfence();
        *last = atomicAdd(count, 1u) == (unsigned)a.ntiles - 1;
    }
    __syncthreads();
    if (!*last) return;
    __threadfence();
    double v[3] = {0.0, 0.0, 0.0};
    for (int32_t b = threadIdx.x; b < a.ntiles; b += BLOCK)
        for (int q = 0; q < 3; q++)
            v[q] += __ldcg(a.part + 3 * (int64_t)b + q);
    block_sums<3>(v, 3, sh);
    if (threadIdx.x == 0) {
        loop_program(a, k, v);
        *count = 0;
        __threadfence();
        st_release(a.prog_done, k + 1);
    }
}

/* S_k(t): n = A m on the tile's rows (spmv_row's arithmetic). */
__device__ static void loop_s(const tl_cu_loop_args &a, int32_t t, unsigned k, int64_t e0,
                              int64_t e1)
{
    loop_wait(a.fdj, a.flo[t], a.fhi[t], k + 1);
    for (int64_t row = e0 + threadIdx.x; row < e1; row += BLOCK)
        a.n[row] = spmv_row<1, true>(row, 0, a.rowptr, a.colidx, a.val, a.m);
    loop_publish(a.fs + t, k + 1);
}

/* U_k(t): tl_pipecg_update_kernel's arithmetic, its coefficients from the
 * registers of iteration k's program; in the launch's last iteration also
 * m = D^-1 w from the new w (Jacobi's product), which no DJ item of this
 * launch will make: then only once every S_k reading m(t) is done with it,
 * not just the tile's own. */
__device__ static void loop_u(const tl_cu_loop_args &a, int32_t t, unsigned k, int64_t e0,
                              int64_t e1, double *cf, int last_iteration)
{
    if (threadIdx.x == 0) {
        while ((int)(ld_acquire(a.prog_done) - (k + 1)) < 0)
            __nanosleep(64);
        cf[0] = __ldcg(a.regs + a.reg_alpha);
        cf[1] = __ldcg(a.regs + a.reg_beta);
    }
    if (last_iteration)
        loop_wait(a.fs, a.rlo[t], a.rhi[t], k + 1);
    else
        loop_wait(a.fs, t, t, k + 1);
    /* the second terms' coefficients as update_prologue makes them (1 or
     * -1 times a register: exact), from two registers */
    double alpha = cf[0], beta = cf[1];
    double c[8] = {1.0 * beta,  1.0 * beta,   1.0 * beta,   1.0 * beta,
                   1.0 * alpha, -1.0 * alpha, -1.0 * alpha, -1.0 * alpha};
    /* the vectors straight from the parameters (tl_cu_pipecg_operands'
     * order), not through arrays of pointers, which cost registers */
    for (int64_t i = e0 + threadIdx.x; i < e1; i += BLOCK) {
        double in[10] = {__ldcg(a.n + i), __ldcg(a.m + i), __ldcg(a.w + i), __ldcg(a.u + i),
                         __ldcg(a.x + i), __ldcg(a.r + i), __ldcg(a.z + i), __ldcg(a.q + i),
                         __ldcg(a.s + i), __ldcg(a.p + i)};
        double out[8];
        tl_cu_pipecg_values(in, c, out);
        a.z[i] = out[0];
        a.q[i] = out[1];
        a.s[i] = out[2];
        a.p[i] = out[3];
        a.x[i] = out[4];
        a.r[i] = out[5];
        a.u[i] = out[6];
        a.w[i] = out[7];
        if (last_iteration) a.m[i] = __ldg(a.dinv + i) * out[7];
    }
    loop_publish(a.fu + t, k + 1);
}

/* The items of iteration block kb (0 .. iters): U of iteration base + kb -
 * 1, DJ and S of iteration base + kb (loop_plan.h). Thread 0 takes the
 * next item's number as the current one starts, and stores it at its end. */
__global__ void __launch_bounds__(BLOCK, 4) tl_pipecg_loop_kernel(const __grid_constant__ tl_cu_loop_args a)
{
    __shared__ double sh[3][BLOCK / 32];
    __shared__ double cf[2];
    __shared__ unsigned next;
    __shared__ int last;
    const unsigned total = (unsigned)(a.iters + 1) * (unsigned)a.nitems;
    pdl_begin();
    if (threadIdx.x == 0) next = atomicAdd(a.counter, 1u);
    for (;;) {
        __syncthreads();
        unsigned it = next;
        __syncthreads();
        if (it >= total) return;
        unsigned ahead = threadIdx.x == 0 ? atomicAdd(a.counter, 1u) : 0u;
        int kb = (int)(it / (unsigned)a.nitems);
        uint32_t item = a.items[it % (unsigned)a.nitems];
        int step = TL_CU_ITEM_STEP(item);
        int32_t t = TL_CU_ITEM_TILE(item);
        int64_t e0 = (int64_t)t * a.tile, e1 = e0 + a.tile < a.nrows ? e0 + a.tile : a.nrows;
        unsigned k = a.base + (unsigned)kb;
        if (step == TL_CU_STEP_U && kb > 0)
            loop_u(a, t, k - 1, e0, e1, cf, kb == a.iters);
        else if (step == TL_CU_STEP_DJ && kb < a.iters)
            loop_dj(a, t, k, e0, e1, sh, &last);
        else if (step == TL_CU_STEP_S && kb < a.iters)
            loop_s(a, t, k, e0, e1);
        if (threadIdx.x == 0) next = ahead;
    }
}

extern "C" tl_status tl_cu_pipecg_loop_blocks(int sms, int *blocks)
{
    int per_sm = 0;
    TL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tl_pipecg_loop_kernel, BLOCK, 0));
    TL_CHECK(per_sm > 0, TL_ERR_CUDA, "persistent loop: no block fits on an SM");
    *blocks = per_sm * sms;
    return TL_OK;
}

extern "C" tl_status tl_cu_pipecg_loop(const tl_cu_loop_args *a, int blocks, cudaStream_t s)
{
    TL_CHECK(a->iters > 0 && a->ntiles > 0 && a->nitems == 3 * a->ntiles && blocks > 0,
             TL_ERR_INVAL, "persistent loop: %d iterations, %d tiles, %d items, %d blocks",
             a->iters, a->ntiles, a->nitems, blocks);
    TL_CHECK((int64_t)(a->iters + 1) * a->nitems < (int64_t)UINT32_MAX, TL_ERR_INVAL,
             "persistent loop: %d iterations of %d items overflow its counter", a->iters,
             a->nitems);
    TL_CUDA(cudaMemsetAsync(a->counter, 0, sizeof(unsigned), s));
    /* plain launch: the memset before it is not a kernel to overlap */
    return launch_n(tl_pipecg_loop_kernel, (unsigned)blocks, BLOCK, tl_cu_launch{s, 0}, *a);
}
