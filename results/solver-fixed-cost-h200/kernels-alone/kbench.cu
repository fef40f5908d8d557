// Kernel variants of one Pipe-PCG iteration at N rows, each timed alone
// (events, median of reps, rotating over NSET copies of every vector so
// that L2 holds nothing of the previous call). Scratch, not the repo.
#include "solvers/backends/cuda/kernels.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CT(x)                                                                                      \
    do {                                                                                           \
        if ((x) != TL_OK) {                                                                        \
            fprintf(stderr, "%s:%d %s failed\n", __FILE__, __LINE__, #x);                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { R, U, W, M, N, Z, Q, S, P, X, DINV, NV };
enum { NSET = 4 };

/* ---- dots with deduplicated loads, U entries in flight per thread ---- */
struct dplan {
    int n, nv;
    const double *v[4];
    signed char xi[3], yi[3]; /* index in v, or -1: z */
    double *z;
    const double *dinv;
    int zsrc;
    double *part, *out;
    unsigned *count;
    int finish;
};

__device__ __forceinline__ static double pick4(const double *val, int idx, double z)
{
    double r = z;
#pragma unroll
    for (int q = 0; q < 4; q++)
        if (q == idx) r = val[q];
    return r;
}

template <int U>
__device__ __forceinline__ static void dplan_entries(const dplan &a, int64_t i, int64_t vs,
                                                     double *acc)
{
    double val[U][4], dv[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (q < a.nv) val[u][q] = a.v[q][i + u * vs];
        dv[u] = a.z && a.dinv ? a.dinv[i + u * vs] : 1.0;
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        double zz = 0.0;
        if (a.z) {
            double pr = pick4(val[u], a.zsrc, 0.0);
            zz = a.dinv ? dv[u] * pr : pr;
            a.z[i + u * vs] = zz;
        }
#pragma unroll
        for (int k = 0; k < 3; k++)
            if (k < a.n) acc[k] += pick4(val[u], a.xi[k], zz) * pick4(val[u], a.yi[k], zz);
    }
}

template <int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    k_dots_ilp(const __grid_constant__ dplan a, int64_t len, unsigned nvb)
{
    __shared__ double sh[3][BLOCK / 32];
    __shared__ int last;
    pdl_begin();
    int64_t vs = (int64_t)nvb * BLOCK;
    for (int64_t vb = blockIdx.x; vb < nvb; vb += gridDim.x) {
        double acc[3] = {0.0, 0.0, 0.0};
        int64_t i = vb * BLOCK + threadIdx.x;
        for (; i + (U - 1) * vs < len; i += U * vs)
            dplan_entries<U>(a, i, vs, acc);
        for (; i < len; i += vs)
            dplan_entries<1>(a, i, vs, acc);
        store_partial<3>(acc, a.n, a.part, vb, sh);
    }
    if (a.finish) finish_partials<3>(a.n, nvb, a.part, a.count, a.out, sh, &last);
}

/* ---- update with deduplicated loads ---- */
struct uplan {
    int nu, ni;
    const double *in[10];
    double *y[8];
    signed char src[8][2]; /* >= 0: input; < 0: -1 - update */
    double c[8][2];
};

template <int MINB, int ILP>
__global__ void __launch_bounds__(BLOCK, MINB)
    k_update_dedup(const __grid_constant__ uplan a, int64_t len)
{
    pdl_begin();
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i0 < len;
         i0 += ILP * stride) {
        double t[ILP][10];
#pragma unroll
        for (int e = 0; e < ILP; e++)
#pragma unroll
            for (int q = 0; q < 10; q++)
                if (q < a.ni && i0 + e * stride < len) t[e][q] = a.in[q][i0 + e * stride];
#pragma unroll
        for (int e = 0; e < ILP; e++) {
            int64_t i = i0 + e * stride;
            if (i >= len) break;
            double r[8];
#pragma unroll
            for (int j = 0; j < 8; j++) {
                if (j >= a.nu) break;
                double acc = 0.0;
#pragma unroll
                for (int k = 0; k < 2; k++) {
                    int sj = a.src[j][k];
                    double v = 0.0;
#pragma unroll
                    for (int q = 0; q < 10; q++)
                        if (q == sj) v = t[e][q];
#pragma unroll
                    for (int q = 0; q < 8; q++)
                        if (q < j && -1 - q == sj) v = r[q];
                    acc = k == 0 ? a.c[j][0] * v : acc + a.c[j][k] * v;
                }
                r[j] = acc;
                a.y[j][i] = acc;
            }
        }
    }
}

/* ---- SpMV, one thread per row, a row's loads all up front ---- */
template <int MAXR, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    k_spmv_short(int32_t nrows, const int32_t *__restrict__ rowptr,
                 const int32_t *__restrict__ colidx, const double *__restrict__ val,
                 const double *__restrict__ x, double *__restrict__ y)
{
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_begin();
    if (row >= nrows) return;
    int32_t k0 = __ldg(rowptr + row), k1 = __ldg(rowptr + row + 1);
    double s = 0.0;
    for (int32_t kb = k0; kb < k1; kb += MAXR) {
        int32_t c[MAXR];
        double v[MAXR], xv[MAXR];
#pragma unroll
        for (int j = 0; j < MAXR; j++)
            if (kb + j < k1) {
                c[j] = __ldg(colidx + kb + j);
                v[j] = __ldg(val + kb + j);
            }
#pragma unroll
        for (int j = 0; j < MAXR; j++)
            if (kb + j < k1) xv[j] = __ldg(x + c[j]);
        int j = 0;
#pragma unroll
        for (; j + 1 < MAXR; j += 2)
            if (kb + j + 1 < k1) s += v[j] * xv[j] + v[j + 1] * xv[j + 1];
            else break;
        /* odd tail of the chunk */
#pragma unroll
        for (int q = 0; q < MAXR; q++)
            if (q == j && kb + q < k1) s += v[q] * xv[q];
    }
    y[row] = s;
}

/* ---- the dot kernel's loop with finish variants ---- */
template <int N>
__device__ static void finish_fast(int n, unsigned nvb, double *part, unsigned *count, double *out,
                                   double (*sh)[BLOCK / 32], int *last, int ldcg)
{
    if (threadIdx.x == 0) {
        __threadfence();
        *last = atomicAdd(count, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!*last) return;
    __threadfence();
    double v[N];
#pragma unroll
    for (int k = 0; k < N; k++)
        v[k] = 0.0;
    if (ldcg) {
        for (unsigned b0 = threadIdx.x; b0 < nvb; b0 += 4 * BLOCK) {
            double t[4][N];
#pragma unroll
            for (int e = 0; e < 4; e++)
#pragma unroll
                for (int k = 0; k < N; k++)
                    t[e][k] = b0 + e * BLOCK < nvb && k < n
                                  ? __ldcg(part + (int64_t)(b0 + e * BLOCK) * TL_CU_DOT_MAX + k)
                                  : 0.0;
#pragma unroll
            for (int e = 0; e < 4; e++)
#pragma unroll
                for (int k = 0; k < N; k++)
                    if (b0 + e * BLOCK < nvb && k < n) v[k] += t[e][k];
        }
    } else {
        for (unsigned b = threadIdx.x; b < nvb; b += BLOCK) {
#pragma unroll
            for (int k = 0; k < N; k++)
                if (k < n) v[k] += ((volatile double *)part)[(int64_t)b * TL_CU_DOT_MAX + k];
        }
    }
    block_sums<N>(v, n, sh);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k < n) out[k] = v[k];
        *count = 0;
    }
}

/* fin: 0 the kernel's own (store_partial + finish_partials), 1 thread 0
 * stores and fences, volatile loads, 2 the same with batched __ldcg, 3 none */
template <int N>
__global__ void __launch_bounds__(BLOCK, 8)
    k_dots_fin(tl_cu_dot_args a, int64_t len, double *part, unsigned *count, double *out, int fin)
{
    __shared__ double sh[N][BLOCK / 32];
    __shared__ int last;
    double acc[N];
#pragma unroll
    for (int k = 0; k < N; k++)
        acc[k] = 0.0;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_begin();
    for (; i < len; i += stride) {
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k < a.n) acc[k] += a.x[k][i] * a.y[k][i];
    }
    if (fin == 0) {
        store_partial<N>(acc, a.n, part, blockIdx.x, sh);
        finish_partials<N>(a.n, gridDim.x, part, count, out, sh, &last);
        return;
    }
    block_sums<N>(acc, a.n, sh);
    if (threadIdx.x == 0)
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k < a.n) part[(int64_t)blockIdx.x * TL_CU_DOT_MAX + k] = acc[k];
    if (fin < 3) finish_fast<N>(a.n, gridDim.x, part, count, out, sh, &last, fin == 2);
}

/* ---- the fused pass (update + Jacobi + dots) at other occupancies ---- */
template <int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    k_fused(const __grid_constant__ tl_cu_update_args a, int64_t len, unsigned nvb)
{
    __shared__ double regs[TL_SC_REGS];
    __shared__ double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    pdl_begin();
    if (threadIdx.x < TL_SC_REGS) regs[threadIdx.x] = a.io.regs[threadIdx.x];
    __syncthreads();
    if (threadIdx.x < TL_CU_UPD_MAX * TL_CU_UPD_TERMS) {
        int j = threadIdx.x / TL_CU_UPD_TERMS, k = threadIdx.x % TL_CU_UPD_TERMS;
        if (j < a.nu && k < a.u[j].nterms)
            c[j][k] =
                a.u[j].sref[k] > 0 ? a.u[j].coef[k] * regs[a.u[j].sref[k] - 1] : a.u[j].coef[k];
    }
    __syncthreads();
    fused_pass<8, 2, 3>(a, c, len, nvb);
}

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2] * 1e3; /* us */
}

template <class F> static double time_us(F f, int reps, cudaStream_t s)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r < 3; r++)
        f(r);
    std::vector<float> t;
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(a, s));
        f(r);
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    return median(t);
}

static void fill(double *d, int64_t n, double base)
{
    std::vector<double> h(n);
    for (int64_t i = 0; i < n; i++)
        h[i] = base + 1e-3 * (double)((i * 7919) % 1000);
    CK(cudaMemcpy(d, h.data(), n * 8, cudaMemcpyHostToDevice));
}

int main(int argc, char **argv)
{
    int g = argc > 1 ? atoi(argv[1]) : 128;
    int reps = argc > 2 ? atoi(argv[2]) : 50;
    double triad = argc > 3 ? atof(argv[3]) : 4393.0; /* GB/s */
    int64_t n = (int64_t)g * g * g;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    tl_cu_launch L = {st, 1};
    double *v[NSET][NV];
    for (int s = 0; s < NSET; s++)
        for (int k = 0; k < NV; k++) {
            CK(cudaMalloc(&v[s][k], n * 8));
            fill(v[s][k], n, 0.5 + 0.1 * k + 0.01 * s);
        }
    double *part, *out, *hout;
    unsigned *count;
    CK(cudaMalloc(&part, TL_CU_DOT_BLOCKS * TL_CU_DOT_MAX * 8));
    CK(cudaMalloc(&out, 64 * 8));
    CK(cudaMalloc(&count, 4));
    CK(cudaMemset(count, 0, 4));
    CK(cudaMallocHost(&hout, 64 * 8));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    auto rate = [&](double bpr, double us) { return bpr * n / (us * 1e-6) / 1e9 / triad; };
    auto report = [&](const char *name, double bpr, double us) {
        printf("%-34s %9.2f us  %5.0f B/row  %.3f of triad\n", name, us, bpr, rate(bpr, us));
    };

    /* dots: (r,u), (w,u), (r,r) */
    unsigned nvb = dot_partials(n);
    {
        double us = time_us(
            [&](int r) {
                double **s = v[r % NSET];
                tl_cu_dot_args a = {};
                a.n = 3;
                a.x[0] = s[R], a.y[0] = s[U], a.x[1] = s[W], a.y[1] = s[U], a.x[2] = s[R],
                a.y[2] = s[R];
                CT(tl_cu_dots(&a, n, part, count, out, L));
            },
            reps, st);
        report("dots: tl_dots_kernel<3>", 24, us);
        CK(cudaMemcpy(hout, out, 24, cudaMemcpyDeviceToHost));
        printf("   ref %.17g %.17g %.17g\n", hout[0], hout[1], hout[2]);
    }
    auto dots_ilp = [&](const char *name, auto kern, int finish, int jacobi, double bpr) {
        int per = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, BLOCK, 0));
        unsigned gr = std::min<unsigned>(nvb, per * sms);
        unsigned pv = (nvb + gr - 1) / gr;
        gr = (nvb + pv - 1) / pv;
        double us = time_us(
            [&](int r) {
                double **s = v[r % NSET];
                dplan a = {};
                a.n = 3, a.nv = 3;
                a.v[0] = s[R], a.v[1] = s[U], a.v[2] = s[W];
                a.xi[0] = 0, a.yi[0] = 1, a.xi[1] = 2, a.yi[1] = 1, a.xi[2] = 0, a.yi[2] = 0;
                if (jacobi) a.z = s[M], a.dinv = s[DINV], a.zsrc = 2;
                a.part = part, a.out = out, a.count = count, a.finish = finish;
                CT(launch(kern, gr, L, a, n, nvb));
            },
            reps, st);
        char b[96];
        snprintf(b, sizeof b, "%s (%u blk, %d/SM)", name, gr, per);
        report(b, bpr, us);
        if (finish) {
            CK(cudaMemcpy(hout, out, 24, cudaMemcpyDeviceToHost));
            printf("   got %.17g %.17g %.17g\n", hout[0], hout[1], hout[2]);
        }
    };
    for (int fin = 0; fin < 4 && !getenv("KB_ONLY_FUSED"); fin++) {
        double us = time_us(
            [&](int r) {
                double **s = v[r % NSET];
                tl_cu_dot_args a = {};
                a.n = 3;
                a.x[0] = s[R], a.y[0] = s[U], a.x[1] = s[W], a.y[1] = s[U], a.x[2] = s[R],
                a.y[2] = s[R];
                CT(launch(k_dots_fin<3>, nvb, L, a, n, part, count, out, fin));
            },
            reps, st);
        const char *nm[4] = {"dots fin0 (as the kernel)", "dots fin1 thread0 fence", "dots fin2 + ldcg",
                             "dots fin3 no finish"};
        report(nm[fin], 24, us);
        if (fin < 3) {
            CK(cudaMemcpy(hout, out, 24, cudaMemcpyDeviceToHost));
            printf("   got %.17g %.17g %.17g\n", hout[0], hout[1], hout[2]);
        }
    }
    /* launch latency floor: an empty-ish kernel */
    {
        double us = time_us([&](int) { CT(tl_cu_fill(v[0][M], 1.0, 1, L)); }, reps, st);
        report("fill 1 entry (launch floor)", 0, us);
    }
    if (getenv("KB_ONLY_DOTS")) return 0;
    if (!getenv("KB_ONLY_FUSED")) {
    dots_ilp("dots ilp1 8/SM", k_dots_ilp<1, 8>, 1, 0, 24);
    dots_ilp("dots ilp1 8/SM no finish", k_dots_ilp<1, 8>, 0, 0, 24);
    dots_ilp("dots ilp2 8/SM", k_dots_ilp<2, 8>, 1, 0, 24);
    dots_ilp("dots ilp2 4/SM", k_dots_ilp<2, 4>, 1, 0, 24);
    dots_ilp("dots ilp4 4/SM", k_dots_ilp<4, 4>, 1, 0, 24);
    dots_ilp("dots ilp4 4/SM no finish", k_dots_ilp<4, 4>, 0, 0, 24);
    dots_ilp("dots ilp4 2/SM", k_dots_ilp<4, 2>, 1, 0, 24);
    dots_ilp("dots ilp8 2/SM", k_dots_ilp<8, 2>, 1, 0, 24);

    /* jacobi alone, and jacobi + dots */
    {
        double us = time_us(
            [&](int r) {
                double **s = v[r % NSET];
                CT(tl_cu_jacobi(s[DINV], s[W], s[M], n, L));
            },
            reps, st);
        report("jacobi: tl_jacobi_kernel", 24, us);
        tl_cu_update_args ta = {};
        double us2 = time_us(
            [&](int r) {
                double **s = v[r % NSET];
                memset(&ta, 0, sizeof ta);
                ta.prog = TL_SC_NONE;
                ta.t.pz = s[M], ta.t.pr = s[W], ta.t.dinv = s[DINV], ta.t.nd = 3;
                ta.t.dx[0] = s[R], ta.t.dy[0] = s[U], ta.t.dx[1] = s[W], ta.t.dy[1] = s[U];
                ta.t.dx[2] = s[R], ta.t.dy[2] = s[R];
                ta.t.part = part, ta.t.out = out, ta.t.count = count;
                tl_cu_update_link(&ta);
                CT(tl_cu_update_run(&ta, n, sms, L));
            },
            reps, st);
        report("tail: tl_dots_tail_kernel<3>", 40, us2);
        CK(cudaMemcpy(hout, out, 24, cudaMemcpyDeviceToHost));
        printf("   ref %.17g %.17g %.17g\n", hout[0], hout[1], hout[2]);
    }
    dots_ilp("tail ilp1 8/SM", k_dots_ilp<1, 8>, 1, 1, 40);
    dots_ilp("tail ilp2 8/SM", k_dots_ilp<2, 8>, 1, 1, 40);
    dots_ilp("tail ilp2 4/SM", k_dots_ilp<2, 4>, 1, 1, 40);
    dots_ilp("tail ilp4 4/SM", k_dots_ilp<4, 4>, 1, 1, 40);
    dots_ilp("tail ilp4 2/SM", k_dots_ilp<4, 2>, 1, 1, 40);
    }

    /* update: Pipe-PCG's 8 */
    double regs_h[TL_SC_REGS] = {0};
    regs_h[TL_SC_PCG_ALPHA] = 0.3, regs_h[TL_SC_PCG_BETA] = 0.7;
    double *regs;
    CK(cudaMalloc(&regs, sizeof regs_h));
    CK(cudaMemcpy(regs, regs_h, sizeof regs_h, cudaMemcpyHostToDevice));
    auto pcg_updates = [&](double **s, tl_cu_update_args *a) {
        memset(a, 0, sizeof *a);
        a->prog = TL_SC_NONE;
        a->io.regs = regs;
        int ys[8] = {Z, Q, S, P, X, R, U, W};
        int xs[8][2] = {{N, Z}, {M, Q}, {W, S}, {U, P}, {X, P}, {R, S}, {U, Q}, {W, Z}};
        a->nu = 8;
        for (int j = 0; j < 8; j++) {
            a->u[j].y = s[ys[j]];
            a->u[j].nterms = 2;
            a->u[j].x[0] = s[xs[j][0]], a->u[j].x[1] = s[xs[j][1]];
            a->u[j].coef[0] = 1.0, a->u[j].coef[1] = j < 4 ? 1.0 : j == 4 ? 1.0 : -1.0;
            a->u[j].sref[1] = j < 4 ? 1 + TL_SC_PCG_BETA : 1 + TL_SC_PCG_ALPHA;
        }
        tl_cu_update_link(a);
    };
    for (int wave = 1; wave >= 0; wave--) {
        tl_cu_update_args ua;
        double us = time_us(
            [&](int r) {
                pcg_updates(v[r % NSET], &ua);
                CT(tl_cu_update_run(&ua, n, wave ? sms : 0, L));
            },
            reps, st);
        report(wave ? "update: tl_update_kernel one wave" : "update: one entry per thread", 144,
               us);
    }
    auto fused_args = [&](double **s, tl_cu_update_args *a) {
        pcg_updates(s, a);
        a->t.pz = s[M], a->t.pr = s[W], a->t.dinv = s[DINV], a->t.nd = 3;
        a->t.dx[0] = s[R], a->t.dy[0] = s[U], a->t.dx[1] = s[W], a->t.dy[1] = s[U];
        a->t.dx[2] = s[R], a->t.dy[2] = s[R];
        a->t.part = part, a->t.out = out, a->t.count = count;
        tl_cu_update_link(a);
    };
    {
        tl_cu_update_args fa;
        double us = time_us(
            [&](int r) {
                fused_args(v[r % NSET], &fa);
                CT(tl_cu_update_run(&fa, n, sms, L));
            },
            reps, st);
        report("fused: tl_update_kernel<8,2,3>", 160, us);
        CK(cudaMemcpy(hout, out, 24, cudaMemcpyDeviceToHost));
        printf("   ref %.17g %.17g %.17g\n", hout[0], hout[1], hout[2]);
    }
    auto fused = [&](const char *name, auto kern, unsigned fnvb) {
        int per = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, BLOCK, 0));
        unsigned gr = std::min<unsigned>(fnvb, per * sms);
        unsigned pv = (fnvb + gr - 1) / gr;
        gr = (fnvb + pv - 1) / pv;
        tl_cu_update_args fa;
        double us = time_us(
            [&](int r) {
                fused_args(v[r % NSET], &fa);
                CT(launch(kern, gr, L, fa, n, fnvb));
            },
            reps, st);
        char b[96];
        snprintf(b, sizeof b, "%s (%u blk, %d/SM, %u vb)", name, gr, per, fnvb);
        report(b, 160, us);
        CK(cudaMemcpy(hout, out, 24, cudaMemcpyDeviceToHost));
        printf("   got %.17g %.17g %.17g\n", hout[0], hout[1], hout[2]);
    };
    fused("fused 2/SM", k_fused<2>, nvb);
    fused("fused 3/SM", k_fused<3>, nvb);
    fused("fused 3/SM", k_fused<3>, 792);
    fused("fused 3/SM", k_fused<3>, 396);
    fused("fused 4/SM", k_fused<4>, nvb);
    fused("fused 4/SM", k_fused<4>, 528);
    if (getenv("KB_ONLY_FUSED")) return 0;
    auto upd = [&](const char *name, auto kern, int wave) {
        int per = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, BLOCK, 0));
        unsigned gr = wave ? per * sms : (unsigned)((n + BLOCK - 1) / BLOCK);
        double us = time_us(
            [&](int r) {
                double **s = v[r % NSET];
                uplan a = {};
                a.nu = 8, a.ni = 10;
                int ins[10] = {N, Z, M, Q, W, S, U, P, X, R};
                for (int q = 0; q < 10; q++)
                    a.in[q] = s[ins[q]];
                int ys[8] = {Z, Q, S, P, X, R, U, W};
                int xs[8][2] = {{N, Z}, {M, Q}, {W, S}, {U, P}, {X, P}, {R, S}, {U, Q}, {W, Z}};
                for (int j = 0; j < 8; j++) {
                    a.y[j] = s[ys[j]];
                    for (int k = 0; k < 2; k++) {
                        int src = -1;
                        for (int q = 0; q < j; q++)
                            if (ys[q] == xs[j][k]) src = q;
                        if (src >= 0)
                            a.src[j][k] = (signed char)(-1 - src);
                        else
                            for (int q = 0; q < 10; q++)
                                if (ins[q] == xs[j][k]) a.src[j][k] = (signed char)q;
                    }
                    a.c[j][0] = 1.0, a.c[j][1] = j < 4 ? 0.7 : j == 4 ? 0.3 : -0.3;
                }
                CT(launch(kern, gr, L, a, n));
            },
            reps, st);
        char b[96];
        snprintf(b, sizeof b, "%s (%u blk, %d/SM)", name, gr, per);
        report(b, 144, us);
    };
    upd("update dedup 4/SM wave", k_update_dedup<4, 1>, 1);
    upd("update dedup 4/SM per entry", k_update_dedup<4, 1>, 0);
    upd("update dedup 3/SM wave", k_update_dedup<3, 1>, 1);
    upd("update dedup 2/SM ilp2 wave", k_update_dedup<2, 2>, 1);
    upd("update dedup 5/SM wave", k_update_dedup<5, 1>, 1);

    /* SpMV: 7-point Poisson on g^3 */
    {
        std::vector<int32_t> rp(n + 1), ci;
        std::vector<double> va;
        ci.reserve(7 * n);
        va.reserve(7 * n);
        for (int64_t i = 0; i < n; i++) {
            int64_t a = i % g, b = (i / g) % g, c = i / ((int64_t)g * g);
            auto add = [&](int64_t j, double w) {
                ci.push_back((int32_t)j);
                va.push_back(w);
            };
            if (c > 0) add(i - (int64_t)g * g, -1);
            if (b > 0) add(i - g, -1);
            if (a > 0) add(i - 1, -1);
            add(i, 6);
            if (a < g - 1) add(i + 1, -1);
            if (b < g - 1) add(i + g, -1);
            if (c < g - 1) add(i + (int64_t)g * g, -1);
            rp[i + 1] = (int32_t)ci.size();
        }
        tl_cu_csr A = {};
        A.nrows = A.ncols = (int32_t)n;
        A.nnz = (int64_t)ci.size();
        A.max_row = 7;
        A.tpr = 1;
        CK(cudaMalloc(&A.d_rowptr, (n + 1) * 4));
        CK(cudaMalloc(&A.d_colidx, A.nnz * 4));
        CK(cudaMalloc(&A.d_val, A.nnz * 8));
        CK(cudaMemcpy(A.d_rowptr, rp.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(A.d_colidx, ci.data(), A.nnz * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(A.d_val, va.data(), A.nnz * 8, cudaMemcpyHostToDevice));
        double bpr = tl_cu_csr_bytes(&A, 0) / n;
        double us = time_us(
            [&](int r) { CT(tl_cu_csr_spmv(&A, v[r % NSET][M], v[r % NSET][N], 0, L)); }, reps,
            st);
        report("spmv: tl_spmv_vector_kernel<1>", bpr, us);
        std::vector<double> y0(16), y1(16);
        CK(cudaMemcpy(y0.data(), v[0][N] + n / 2, 128, cudaMemcpyDeviceToHost));
        auto sp = [&](const char *name, auto kern) {
            int per = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, BLOCK, 0));
            double us = time_us(
                [&](int r) {
                    CT(launch(kern, grid_for(n, BLOCK), L, (int32_t)n, (const int32_t *)A.d_rowptr,
                              (const int32_t *)A.d_colidx, (const double *)A.d_val,
                              (const double *)v[r % NSET][M], v[r % NSET][N]));
                },
                reps, st);
            char b[96];
            snprintf(b, sizeof b, "%s (%d/SM)", name, per);
            report(b, bpr, us);
            CK(cudaMemcpy(y1.data(), v[0][N] + n / 2, 128, cudaMemcpyDeviceToHost));
            int same = 1;
            for (int k = 0; k < 16; k++)
                same &= y0[k] == y1[k];
            printf("   bits %s\n", same ? "same" : "DIFFERENT");
        };
        sp("spmv short8 8/SM", k_spmv_short<8, 8>);
        sp("spmv short8 6/SM", k_spmv_short<8, 6>);
        sp("spmv short8 4/SM", k_spmv_short<8, 4>);
        sp("spmv short4 8/SM", k_spmv_short<4, 8>);
    }
    return 0;
}
