// Scratch: does tile-level dataflow between a Pipe-PCG iteration's kernels
// (PDL launch at block start, per-tile completion flags instead of
// griddepcontrol.wait) remove the fixed cost per iteration? Same kernels,
// three modes: plain launches, PDL (wait then trigger, the backend's), flow;
// and a fourth, mega: one persistent kernel for all the iterations whose
// blocks take the tiles of the four kernels from a counter in dependency order
// (the dots and Jacobi of a tile as one item). Usage:
//   mega N ITERS TILE_ROWS [TRIAD_GBS [USMEM [S_LAG_TILES [BLOCKS_PER_SM [DJ_LAG_TILES]]]]]
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1);} } while (0)
#define B 256

struct Flow {
    unsigned *done; unsigned seq; int tr, ntiles; const int *wlo, *whi;
};
enum { PLAIN = 0, PDL = 1, FLOW = 2 };

__device__ __forceinline__ unsigned ld_acq(const unsigned *p) { unsigned v; asm volatile("ld.acquire.gpu.global.u32 %0,[%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void st_rel(unsigned *p, unsigned v) { asm volatile("st.release.gpu.global.u32 [%0],%1;" ::"l"(p), "r"(v) : "memory"); }

template <int MODE> __device__ __forceinline__ void k_begin()
{
    if (MODE == PDL) asm volatile("griddepcontrol.wait;" ::: "memory");
    if (MODE != PLAIN) asm volatile("griddepcontrol.launch_dependents;" :::);
}
template <int MODE> __device__ __forceinline__ void tile_wait(const Flow &f, int t)
{
    if (MODE != FLOW) return;
    int lo = f.wlo ? f.wlo[t] : t, hi = f.whi ? f.whi[t] : t;
    unsigned need = f.seq - 1;
    for (;;) {
        int ok = 1;
        for (int j = lo + threadIdx.x; j <= hi; j += B)
            if ((int)(ld_acq(f.done + j) - need) < 0) ok = 0;
        if (__syncthreads_and(ok)) break;
        __nanosleep(100);
    }
}
template <int MODE> __device__ __forceinline__ void tile_done(const Flow &f, int t)
{
    if (MODE != FLOW) return;
    __syncthreads();
    if (threadIdx.x == 0) { __threadfence(); st_rel(f.done + t, f.seq); }
}
// cross-kernel data: L2 only in flow mode (L1 is not coherent)
template <int MODE> __device__ __forceinline__ double ldv(const double *p) { return MODE == FLOW ? __ldcg(p) : *p; }
template <int MODE> __device__ __forceinline__ double2 ldv2(const double2 *p) { return MODE == FLOW ? __ldcg(p) : *p; }

__device__ double block_sum(double v, double *sh)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = v;
    __syncthreads();
    double t = 0; for (int w = 0; w < B / 32; w++) t += sh[w];
    return t;
}

// dots (r,u), (w,u), (r,r); partial per tile; last block reduces and publishes dready
template <int MODE>
__global__ void __launch_bounds__(B, 8) k_dots(Flow f, int64_t n, const double *r, const double *u, const double *w,
                                               double *part, unsigned *count, double *out, unsigned *dready)
{
    __shared__ double sh[3][B / 32]; __shared__ int last;
    k_begin<MODE>();
    int t = blockIdx.x;
    tile_wait<MODE>(f, t);
    double a0 = 0, a1 = 0, a2 = 0;
    int64_t e = min((int64_t)(t + 1) * f.tr, n);
    for (int64_t i = (int64_t)t * f.tr + threadIdx.x; i < e; i += B) {
        double rv = ldv<MODE>(r + i), uv = ldv<MODE>(u + i), wv = ldv<MODE>(w + i);
        a0 += rv * uv; a1 += wv * uv; a2 += rv * rv;
    }
    a0 = block_sum(a0, sh[0]); a1 = block_sum(a1, sh[1]); a2 = block_sum(a2, sh[2]);
    if (threadIdx.x == 0) { part[3 * t] = a0; part[3 * t + 1] = a1; part[3 * t + 2] = a2; }
    tile_done<MODE>(f, t);
    __threadfence(); __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    double v0 = 0, v1 = 0, v2 = 0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += B) { v0 += __ldcg(part + 3 * b); v1 += __ldcg(part + 3 * b + 1); v2 += __ldcg(part + 3 * b + 2); }
    v0 = block_sum(v0, sh[0]); v1 = block_sum(v1, sh[1]); v2 = block_sum(v2, sh[2]);
    if (threadIdx.x == 0) {
        out[0] = v0; out[1] = v1; out[2] = v2; *count = 0;
        __threadfence(); if (MODE == FLOW) st_rel(dready, f.seq);
    }
}

template <int MODE>
__global__ void __launch_bounds__(B) k_jacobi(Flow f, int64_t n, const double *d, const double *w, double *m)
{
    k_begin<MODE>();
    int t = blockIdx.x;
    tile_wait<MODE>(f, t);
    int64_t s = (int64_t)t * f.tr / 2, e = min((int64_t)(t + 1) * f.tr, n) / 2; // tr even, n even
    for (int64_t i = s + threadIdx.x; i < e; i += B) {
        double2 dv = __ldg((const double2 *)d + i), wv = ldv2<MODE>((const double2 *)w + i);
        ((double2 *)m)[i] = make_double2(dv.x * wv.x, dv.y * wv.y);
    }
    tile_done<MODE>(f, t);
}

template <int MODE>
__global__ void __launch_bounds__(B) k_spmv(Flow f, int32_t n, const int32_t *__restrict__ rp, const int32_t *__restrict__ ci,
                                            const double *__restrict__ va, const double *x, double *y)
{
    k_begin<MODE>();
    int t = blockIdx.x;
    tile_wait<MODE>(f, t);
    int32_t e = min((int64_t)(t + 1) * f.tr, (int64_t)n);
    for (int32_t row = t * f.tr + threadIdx.x; row < e; row += B) {
        int32_t k0 = __ldg(rp + row), k1 = __ldg(rp + row + 1);
        double s = 0;
        int32_t k = k0;
        for (; k + 1 < k1; k += 2) {
            int32_t c0 = __ldg(ci + k), c1 = __ldg(ci + k + 1);
            double v0 = __ldg(va + k), v1 = __ldg(va + k + 1);
            s += v0 * ldv<MODE>(x + c0) + v1 * ldv<MODE>(x + c1);
        }
        if (k < k1) s += __ldg(va + k) * ldv<MODE>(x + __ldg(ci + k));
        y[row] = s;
    }
    tile_done<MODE>(f, t);
}

struct Vecs { double *r, *u, *w, *m, *n, *z, *q, *s, *p, *x; };

template <int MODE>
__global__ void __launch_bounds__(B, 3) k_update(Flow f, int64_t n, Vecs v, const double *dots, const unsigned *dready, unsigned dseq)
{
    __shared__ double c[2];
    k_begin<MODE>();
    if (threadIdx.x == 0) {
        if (MODE == FLOW) while ((int)(ld_acq(dready) - dseq) < 0) __nanosleep(100);
        double g = __ldcg(dots), dl = __ldcg(dots + 1);
        // bounded stand-ins for alpha, beta that still read the dots
        c[0] = g == g ? 1e-3 : 0.0; c[1] = dl == dl ? 0.25 : 0.0;
    }
    __syncthreads();
    double a = c[0], b = c[1];
    for (int t = blockIdx.x; t < f.ntiles; t += gridDim.x) {
        tile_wait<MODE>(f, t);
        int64_t e = min((int64_t)(t + 1) * f.tr, n);
        for (int64_t i = (int64_t)t * f.tr + threadIdx.x; i < e; i += B) {
            double nv = ldv<MODE>(v.n + i), zv = ldv<MODE>(v.z + i), mv = ldv<MODE>(v.m + i), qv = ldv<MODE>(v.q + i),
                   wv = ldv<MODE>(v.w + i), sv = ldv<MODE>(v.s + i), uv = ldv<MODE>(v.u + i), pv = ldv<MODE>(v.p + i),
                   xv = ldv<MODE>(v.x + i), rv = ldv<MODE>(v.r + i);
            zv = nv + b * zv; qv = mv + b * qv; sv = wv + b * sv; pv = uv + b * pv;
            xv += a * pv; rv -= a * sv; uv -= a * qv; wv -= a * zv;
            v.z[i] = zv; v.q[i] = qv; v.s[i] = sv; v.p[i] = pv; v.x[i] = xv; v.r[i] = rv; v.u[i] = uv; v.w[i] = wv;
        }
        tile_done<MODE>(f, t);
    }
}

__global__ void k_triad(double *a, const double *b, const double *c, double s, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * B + threadIdx.x; i < n; i += (int64_t)gridDim.x * B) a[i] = b[i] + s * c[i];
}

// ---- MEGA: one persistent kernel for all iterations, tiles dequeued in a
// dependency-respecting order from a global counter (no kernel boundaries).
// Items per iteration block k (k = 0..K): U_{k-1}(t), DJ_k(t-A), S_k(t-A-L), t = 0,1,...
//   DJ_k(t): the dots partials of tile t (r,u,w) and m = d*w; needs U_{k-1}(t), S_{k-1}(rev window)
//   S_k(t):  n = A m on tile t; needs DJ_k(window)
//   U_k(t):  the eight AXPYs; needs S_k(t) and the scalars of iteration k (all DJ_k reduced)
// Every dependency is an item dequeued earlier, held by a running block: no deadlock.
enum { IT_U = 0, IT_DJ = 1, IT_S = 2, IT_NONE = 3 };
struct Mega {
    const uint32_t *pattern; int plen;    // per iteration block: (type << 24) | tile
    unsigned *counter;                     // items dequeued
    unsigned *fu, *fdj, *fs;               // per tile: 1 + the last iteration done (absolute)
    unsigned *djcount;                     // [2] DJ items done per iteration parity
    unsigned *scal;                        // 1 + the last iteration whose scalars are out
    double *out;                           // [2][4] reduced dots per parity
    const int *fwlo, *fwhi, *rwlo, *rwhi;
    int tr, ntiles; unsigned base; int iters;
};

__device__ __forceinline__ void wait_range(const unsigned *f, int lo, int hi, unsigned need)
{
    for (;;) {
        int ok = 1;
        for (int j = lo + threadIdx.x; j <= hi; j += B)
            if ((int)(ld_acq(f + j) - need) < 0) ok = 0;
        if (__syncthreads_and(ok)) return;
        __nanosleep(64);
    }
}
__device__ __forceinline__ void publish(unsigned *f, unsigned v)
{
    __syncthreads();
    if (threadIdx.x == 0) { __threadfence(); st_rel(f, v); }
}

__global__ void __launch_bounds__(B, 4) k_mega(Mega g, int64_t n, Vecs v, const int32_t *__restrict__ rp,
                                               const int32_t *__restrict__ ci, const double *__restrict__ va,
                                               const double *__restrict__ d, double *part)
{
    __shared__ double sh[3][B / 32];
    __shared__ unsigned next;
    __shared__ int last;
    __shared__ double c[2];
    const unsigned total = (unsigned)(g.iters + 1) * (unsigned)g.plen;
    if (threadIdx.x == 0) next = atomicAdd(g.counter, 1u);
    for (;;) {
        __syncthreads();
        unsigned it = next;
        __syncthreads();
        if (it >= total) return;
        // the next item's number, while this one runs (stored at the end)
        unsigned ahead = threadIdx.x == 0 ? atomicAdd(g.counter, 1u) : 0u;
        int kb = (int)(it / (unsigned)g.plen);                   // iteration block
        uint32_t item = g.pattern[it % (unsigned)g.plen];
        int type = (int)(item >> 24), t = (int)(item & 0xffffff);
        unsigned kabs = g.base + (unsigned)kb;                  // absolute iteration of DJ, S; U is kabs - 1
        int64_t s0 = (int64_t)t * g.tr, e = min((int64_t)(t + 1) * g.tr, n);
        if ((type == IT_U && kb == 0) || (type != IT_U && kb == g.iters)) type = IT_NONE;
        if (type == IT_U) {
            unsigned ku = kabs - 1;
            if (threadIdx.x == 0) {
                while ((int)(ld_acq(g.scal) - (ku + 1)) < 0) __nanosleep(64);
                const double *o = g.out + 4 * (ku & 1);
                double gm = __ldcg(o), dl = __ldcg(o + 1);
                c[0] = gm == gm ? 1e-3 : 0.0; c[1] = dl == dl ? 0.25 : 0.0;
            }
            wait_range(g.fs, t, t, ku + 1);
            double a = c[0], b = c[1];
            for (int64_t i = s0 + threadIdx.x; i < e; i += B) {
                double nv = __ldcg(v.n + i), zv = __ldcg(v.z + i), mv = __ldcg(v.m + i), qv = __ldcg(v.q + i),
                       wv = __ldcg(v.w + i), sv = __ldcg(v.s + i), uv = __ldcg(v.u + i), pv = __ldcg(v.p + i),
                       xv = __ldcg(v.x + i), rv = __ldcg(v.r + i);
                zv = nv + b * zv; qv = mv + b * qv; sv = wv + b * sv; pv = uv + b * pv;
                xv += a * pv; rv -= a * sv; uv -= a * qv; wv -= a * zv;
                v.z[i] = zv; v.q[i] = qv; v.s[i] = sv; v.p[i] = pv; v.x[i] = xv; v.r[i] = rv; v.u[i] = uv; v.w[i] = wv;
            }
            publish(g.fu + t, ku + 1);
        } else if (type == IT_DJ) {
            if (kabs > 0) {
                wait_range(g.fu, t, t, kabs);                    // U of the iteration before
                wait_range(g.fs, g.rwlo[t], g.rwhi[t], kabs);    // every S that read m(t) before
            }
            double a0 = 0, a1 = 0, a2 = 0;
            for (int64_t i = s0 + threadIdx.x; i < e; i += B) {
                double rv = __ldcg(v.r + i), uv = __ldcg(v.u + i), wv = __ldcg(v.w + i);
                a0 += rv * uv; a1 += wv * uv; a2 += rv * rv;
                v.m[i] = __ldg(d + i) * wv;
            }
            a0 = block_sum(a0, sh[0]); a1 = block_sum(a1, sh[1]); a2 = block_sum(a2, sh[2]);
            if (threadIdx.x == 0) { part[3 * t] = a0; part[3 * t + 1] = a1; part[3 * t + 2] = a2; }
            publish(g.fdj + t, kabs + 1);
            unsigned *cnt = g.djcount + (kabs & 1);
            if (threadIdx.x == 0) last = atomicAdd(cnt, 1u) == (unsigned)g.ntiles - 1;
            __syncthreads();
            if (last) {
                __threadfence();
                double v0 = 0, v1 = 0, v2 = 0;
                for (int b2 = threadIdx.x; b2 < g.ntiles; b2 += B) { v0 += __ldcg(part + 3 * b2); v1 += __ldcg(part + 3 * b2 + 1); v2 += __ldcg(part + 3 * b2 + 2); }
                v0 = block_sum(v0, sh[0]); v1 = block_sum(v1, sh[1]); v2 = block_sum(v2, sh[2]);
                if (threadIdx.x == 0) {
                    double *o = g.out + 4 * (kabs & 1);
                    o[0] = v0; o[1] = v1; o[2] = v2; *cnt = 0;
                    __threadfence(); st_rel(g.scal, kabs + 1);
                }
            }
        } else if (type == IT_S) {
            wait_range(g.fdj, g.fwlo[t], g.fwhi[t], kabs + 1);
            for (int32_t row = (int32_t)s0 + threadIdx.x; row < (int32_t)e; row += B) {
                int32_t k0 = __ldg(rp + row), k1 = __ldg(rp + row + 1);
                double s = 0;
                int32_t k = k0;
                for (; k + 1 < k1; k += 2) {
                    int32_t c0 = __ldg(ci + k), c1 = __ldg(ci + k + 1);
                    double v0 = __ldg(va + k), v1 = __ldg(va + k + 1);
                    s += v0 * __ldcg(v.m + c0) + v1 * __ldcg(v.m + c1);
                }
                if (k < k1) s += __ldg(va + k) * __ldcg(v.m + __ldg(ci + k));
                v.n[row] = s;
            }
            publish(g.fs + t, kabs + 1);
        }
        if (threadIdx.x == 0) next = ahead;
    }
}

// the per-iteration-block pattern: steps t = 0 .. nt-1+A+L, each U(t), DJ(t-A), S(t-A-L)
static std::vector<uint32_t> mega_pattern(int nt, int A, int L)
{
    std::vector<uint32_t> p;
    for (int t = 0; t < nt + A + L; t++) {
        if (t < nt) p.push_back(((uint32_t)IT_U << 24) | (uint32_t)t);
        if (t - A >= 0 && t - A < nt) p.push_back(((uint32_t)IT_DJ << 24) | (uint32_t)(t - A));
        if (t - A - L >= 0 && t - A - L < nt) p.push_back(((uint32_t)IT_S << 24) | (uint32_t)(t - A - L));
    }
    return p;
}

static int g_usmem;
template <typename K, typename... A> static void go(K k, unsigned g, cudaStream_t st, int mode, A... args)
{
    cudaLaunchConfig_t c = {}; cudaLaunchAttribute at[1];
    c.gridDim = dim3(g); c.blockDim = dim3(B); c.stream = st;
    if ((void *)k == (void *)k_update<PLAIN> || (void *)k == (void *)k_update<PDL> || (void *)k == (void *)k_update<FLOW>) c.dynamicSmemBytes = g_usmem;
    if (mode != PLAIN) { at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; at[0].val.programmaticStreamSerializationAllowed = 1; c.attrs = at; c.numAttrs = 1; }
    CK(cudaLaunchKernelEx(&c, k, args...));
}

struct Prob {
    int64_t n, nnz; int tr, ntiles;
    int32_t *rp, *ci; double *va, *d;
    int *fwlo, *fwhi, *rwlo, *rwhi;
    double *base[10]; // initial vectors
    Vecs v; double *part, *out; unsigned *count, *done, *dready;
    int updgrid;
};

static void run_iters(Prob &P, int mode, int iters, unsigned &seq, cudaStream_t st)
{
    for (int it = 0; it < iters; it++) {
        Flow f = {P.done, 0, P.tr, P.ntiles, nullptr, nullptr};
        unsigned dseq;
        f.seq = ++seq; dseq = f.seq;
        if (mode == PLAIN) go(k_dots<PLAIN>, P.ntiles, st, mode, f, P.n, (const double *)P.v.r, (const double *)P.v.u, (const double *)P.v.w, P.part, P.count, P.out, P.dready);
        if (mode == PDL) go(k_dots<PDL>, P.ntiles, st, mode, f, P.n, (const double *)P.v.r, (const double *)P.v.u, (const double *)P.v.w, P.part, P.count, P.out, P.dready);
        if (mode == FLOW) go(k_dots<FLOW>, P.ntiles, st, mode, f, P.n, (const double *)P.v.r, (const double *)P.v.u, (const double *)P.v.w, P.part, P.count, P.out, P.dready);
        f.seq = ++seq;
        if (mode == PLAIN) go(k_jacobi<PLAIN>, P.ntiles, st, mode, f, P.n, (const double *)P.d, (const double *)P.v.w, P.v.m);
        if (mode == PDL) go(k_jacobi<PDL>, P.ntiles, st, mode, f, P.n, (const double *)P.d, (const double *)P.v.w, P.v.m);
        if (mode == FLOW) go(k_jacobi<FLOW>, P.ntiles, st, mode, f, P.n, (const double *)P.d, (const double *)P.v.w, P.v.m);
        f.seq = ++seq; f.wlo = P.fwlo; f.whi = P.fwhi;
        if (mode == PLAIN) go(k_spmv<PLAIN>, P.ntiles, st, mode, f, (int32_t)P.n, (const int32_t *)P.rp, (const int32_t *)P.ci, (const double *)P.va, (const double *)P.v.m, P.v.n);
        if (mode == PDL) go(k_spmv<PDL>, P.ntiles, st, mode, f, (int32_t)P.n, (const int32_t *)P.rp, (const int32_t *)P.ci, (const double *)P.va, (const double *)P.v.m, P.v.n);
        if (mode == FLOW) go(k_spmv<FLOW>, P.ntiles, st, mode, f, (int32_t)P.n, (const int32_t *)P.rp, (const int32_t *)P.ci, (const double *)P.va, (const double *)P.v.m, P.v.n);
        f.seq = ++seq; f.wlo = P.rwlo; f.whi = P.rwhi;
        if (mode == PLAIN) go(k_update<PLAIN>, P.updgrid, st, mode, f, P.n, P.v, (const double *)P.out, (const unsigned *)P.dready, dseq);
        if (mode == PDL) go(k_update<PDL>, P.updgrid, st, mode, f, P.n, P.v, (const double *)P.out, (const unsigned *)P.dready, dseq);
        if (mode == FLOW) go(k_update<FLOW>, P.updgrid, st, mode, f, P.n, P.v, (const double *)P.out, (const unsigned *)P.dready, dseq);
    }
}

static void reset(Prob &P)
{
    double *dst[10] = {P.v.r, P.v.u, P.v.w, P.v.m, P.v.n, P.v.z, P.v.q, P.v.s, P.v.p, P.v.x};
    for (int k = 0; k < 10; k++) CK(cudaMemcpy(dst[k], P.base[k], P.n * 8, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(P.done, 0, P.ntiles * 4)); CK(cudaMemset(P.dready, 0, 4)); CK(cudaMemset(P.count, 0, 4));
    CK(cudaDeviceSynchronize());
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 128, iters = argc > 2 ? atoi(argv[2]) : 200, tr = argc > 3 ? atoi(argv[3]) : 2048;
    double triad = argc > 4 ? atof(argv[4]) : 0;
    int usmem = argc > 5 ? atoi(argv[5]) : 0; /* dynamic smem per update block: caps its blocks per SM */
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (triad == 0) {
        int64_t tn = 1 << 27; double *a, *b, *c; CK(cudaMalloc(&a, tn * 8)); CK(cudaMalloc(&b, tn * 8)); CK(cudaMalloc(&c, tn * 8));
        CK(cudaMemset(b, 0, tn * 8)); CK(cudaMemset(c, 0, tn * 8));
        cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        std::vector<float> ts;
        for (int k = 0; k < 20; k++) { CK(cudaEventRecord(e0)); k_triad<<<sms * 8, B>>>(a, b, c, 0.5, tn); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms); }
        std::sort(ts.begin(), ts.end()); triad = 24.0 * tn / (ts[10] * 1e-3) / 1e9;
        CK(cudaFree(a)); CK(cudaFree(b)); CK(cudaFree(c));
    }
    Prob P; P.n = (int64_t)N * N * N; P.tr = tr; P.ntiles = (int)((P.n + tr - 1) / tr);
    std::vector<int32_t> rp(P.n + 1), ci; std::vector<double> va; ci.reserve(P.n * 7); va.reserve(P.n * 7);
    for (int64_t i = 0; i < P.n; i++) {
        int64_t z = i / ((int64_t)N * N), y = (i / N) % N, xx = i % N;
        rp[i] = (int32_t)ci.size();
        auto add = [&](int64_t c, double v) { ci.push_back((int32_t)c); va.push_back(v); };
        if (z > 0) add(i - (int64_t)N * N, -1); if (y > 0) add(i - N, -1); if (xx > 0) add(i - 1, -1);
        add(i, 6); if (xx < N - 1) add(i + 1, -1); if (y < N - 1) add(i + N, -1); if (z < N - 1) add(i + (int64_t)N * N, -1);
    }
    rp[P.n] = (int32_t)ci.size(); P.nnz = ci.size();
    std::vector<int> fwlo(P.ntiles), fwhi(P.ntiles), rwlo(P.ntiles, P.ntiles), rwhi(P.ntiles, -1);
    for (int t = 0; t < P.ntiles; t++) {
        int64_t a = (int64_t)t * tr, e = std::min((int64_t)(t + 1) * tr, P.n);
        int32_t lo = ci[rp[a]], hi = ci[rp[a]];
        for (int64_t k = rp[a]; k < rp[e]; k++) { lo = std::min(lo, ci[k]); hi = std::max(hi, ci[k]); }
        fwlo[t] = std::min(lo / tr, t); fwhi[t] = std::max(hi / tr, t);
    }
    for (int t = 0; t < P.ntiles; t++) for (int j = fwlo[t]; j <= fwhi[t]; j++) { rwlo[j] = std::min(rwlo[j], t); rwhi[j] = std::max(rwhi[j], t); }
    int maxw = 0; for (int t = 0; t < P.ntiles; t++) maxw = std::max({maxw, fwhi[t] - fwlo[t] + 1, rwhi[t] - rwlo[t] + 1});
    auto up = [](auto &h, auto **d) { CK(cudaMalloc((void **)d, h.size() * sizeof(h[0]))); CK(cudaMemcpy(*d, h.data(), h.size() * sizeof(h[0]), cudaMemcpyHostToDevice)); };
    up(rp, &P.rp); up(ci, &P.ci); up(va, &P.va); up(fwlo, &P.fwlo); up(fwhi, &P.fwhi); up(rwlo, &P.rwlo); up(rwhi, &P.rwhi);
    std::vector<double> h(P.n);
    for (int64_t i = 0; i < P.n; i++) h[i] = 1.0 / 6.0;
    up(h, &P.d);
    double **vv[10] = {&P.v.r, &P.v.u, &P.v.w, &P.v.m, &P.v.n, &P.v.z, &P.v.q, &P.v.s, &P.v.p, &P.v.x};
    uint64_t sd = 12345;
    for (int k = 0; k < 10; k++) {
        for (int64_t i = 0; i < P.n; i++) { sd = sd * 6364136223846793005ull + 1442695040888963407ull; h[i] = (double)(sd >> 11) / 9007199254740992.0 - 0.5; }
        up(h, &P.base[k]); CK(cudaMalloc(vv[k], P.n * 8));
    }
    CK(cudaMalloc(&P.part, P.ntiles * 3 * 8)); CK(cudaMalloc(&P.out, 4 * 8)); CK(cudaMalloc(&P.count, 4)); CK(cudaMalloc(&P.done, P.ntiles * 4)); CK(cudaMalloc(&P.dready, 4));
    g_usmem = usmem;
    if (usmem) { CK(cudaFuncSetAttribute(k_update<PLAIN>, cudaFuncAttributeMaxDynamicSharedMemorySize, usmem)); CK(cudaFuncSetAttribute(k_update<PDL>, cudaFuncAttributeMaxDynamicSharedMemorySize, usmem)); CK(cudaFuncSetAttribute(k_update<FLOW>, cudaFuncAttributeMaxDynamicSharedMemorySize, usmem)); }
    int per = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_update<FLOW>, B, usmem));
    P.updgrid = std::min(P.ntiles, per * sms);
    double bytes = 24.0 * P.n + 24.0 * P.n + (12.0 * P.nnz + 4.0 * (P.n + 1) + 16.0 * P.n) + 144.0 * P.n;
    double roof = bytes / (triad * 1e9) * 1e6;
    printf("N=%d n=%lld nnz=%lld tile_rows=%d tiles=%d maxwin=%d update_grid=%d(%d/SM) triad=%.0f GB/s roofline=%.2f us\n", N, (long long)P.n,
           (long long)P.nnz, tr, P.ntiles, maxw, P.updgrid, per, triad, roof);
    int lag = argc > 6 ? atoi(argv[6]) : 0, mper = argc > 7 ? atoi(argv[7]) : 0, ahead = argc > 8 ? atoi(argv[8]) : 2;
    if (ahead < 1) ahead = 1;
    if (lag < maxw) lag = std::max(maxw, P.ntiles / 4);
    std::vector<uint32_t> pat = mega_pattern(P.ntiles, ahead, lag);
    Mega M = {};
    { uint32_t *dp; CK(cudaMalloc(&dp, pat.size() * 4)); CK(cudaMemcpy(dp, pat.data(), pat.size() * 4, cudaMemcpyHostToDevice)); M.pattern = dp; }
    M.plen = (int)pat.size();
    CK(cudaMalloc(&M.counter, 4)); CK(cudaMalloc(&M.fu, P.ntiles * 4)); CK(cudaMalloc(&M.fdj, P.ntiles * 4)); CK(cudaMalloc(&M.fs, P.ntiles * 4));
    CK(cudaMalloc(&M.djcount, 8)); CK(cudaMalloc(&M.scal, 4)); CK(cudaMalloc(&M.out, 8 * 8));
    M.fwlo = P.fwlo; M.fwhi = P.fwhi; M.rwlo = P.rwlo; M.rwhi = P.rwhi; M.tr = tr; M.ntiles = P.ntiles;
    int mocc = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mocc, k_mega, B, 0));
    if (mper <= 0 || mper > mocc) mper = mocc;
    int mgrid = mper * sms;
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k_mega));
    double mbytes = bytes - 8.0 * P.n; /* w read once for the dots and Jacobi */
    printf("mega: grid %d (%d/SM of %d), %d regs, DJ %d tiles behind U, S %d behind DJ, %d items per iteration block, roofline %.2f us (its bytes)\n", mgrid, mper, mocc,
           fa.numRegs, ahead, lag, M.plen, mbytes / (triad * 1e9) * 1e6);
    auto mega_run = [&](unsigned base, int n_it, cudaStream_t s) {
        M.base = base; M.iters = n_it;
        CK(cudaMemsetAsync(M.counter, 0, 4, s));
        k_mega<<<mgrid, B, 0, s>>>(M, P.n, P.v, (const int32_t *)P.rp, (const int32_t *)P.ci, (const double *)P.va, (const double *)P.d, P.part);
    };
    auto mega_reset = [&]() {
        CK(cudaMemset(M.fu, 0, P.ntiles * 4)); CK(cudaMemset(M.fdj, 0, P.ntiles * 4)); CK(cudaMemset(M.fs, 0, P.ntiles * 4));
        CK(cudaMemset(M.djcount, 0, 8)); CK(cudaMemset(M.scal, 0, 4)); CK(cudaDeviceSynchronize());
    };
    cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    const char *name[4] = {"plain", "pdl", "flow", "mega"};
    std::vector<double> res[4];
    double usv[4][5];
    for (int rep = 0; rep < 5; rep++)
        for (int mode = 0; mode < 4; mode++) {
            reset(P); unsigned seq = 0;
            if (mode == 3) {
                mega_reset();
                mega_run(0, 10, st);
                CK(cudaEventRecord(e0, st)); mega_run(10, iters, st); CK(cudaEventRecord(e1, st));
            } else {
            run_iters(P, mode, 10, seq, st);
            CK(cudaEventRecord(e0, st)); run_iters(P, mode, iters, seq, st); CK(cudaEventRecord(e1, st));
            }
            CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            usv[mode][rep] = ms * 1e3 / iters;
            if (rep == 0) { res[mode].resize(P.n * 2); CK(cudaMemcpy(res[mode].data(), P.v.x, P.n * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(res[mode].data() + P.n, P.v.w, P.n * 8, cudaMemcpyDeviceToHost)); }
        }
    for (int mode = 0; mode < 4; mode++) {
        std::sort(usv[mode], usv[mode] + 5);
        int64_t diff = 0; for (int64_t i = 0; i < 2 * P.n; i++) diff += memcmp(&res[mode][i], &res[0][i], 8) != 0;
        printf("  %-5s %9.2f us/iter (min %.2f max %.2f) ratio %.3f  entries differing from plain: %lld\n", name[mode], usv[mode][2], usv[mode][0], usv[mode][4], usv[mode][2] / roof, (long long)diff);
    }
    return 0;
}
