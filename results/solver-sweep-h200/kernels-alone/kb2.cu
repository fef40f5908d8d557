// Scratch: the backend's update / Jacobi / dots kernels alone against the
// flow prototype's plain kernels (and loop-order variants), 128^3 and 256^3.
#include "solvers/backends/cuda/kernels.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1);} } while (0)
#define CT(x) do { if ((x) != TL_OK) { fprintf(stderr, "%s:%d %s failed\n", __FILE__, __LINE__, #x); exit(1);} } while (0)
enum { R, U, W, M, N, Z, Q, S, P, X, DINV, NV };
enum { NSET = 4 };
struct Vecs { double *r, *u, *w, *m, *n, *z, *q, *s, *p, *x; };

/* LOOP 0: tiles of TR rows, t += grid (the prototype); 1: grid-stride per entry (the backend) */
template <int MINB, int LOOP>
__global__ void __launch_bounds__(256, MINB) p_update(int64_t n, int tr, Vecs v, const double *regs)
{
    __shared__ double c[2];
    if (threadIdx.x == 0) { c[0] = regs[TL_SC_PCG_ALPHA]; c[1] = regs[TL_SC_PCG_BETA]; }
    __syncthreads();
    double a = c[0], b = c[1];
    auto body = [&](int64_t i) {
        double nv = v.n[i], zv = v.z[i], mv = v.m[i], qv = v.q[i], wv = v.w[i], sv = v.s[i], uv = v.u[i], pv = v.p[i], xv = v.x[i], rv = v.r[i];
        zv = nv + b * zv; qv = mv + b * qv; sv = wv + b * sv; pv = uv + b * pv;
        xv += a * pv; rv -= a * sv; uv -= a * qv; wv -= a * zv;
        v.z[i] = zv; v.q[i] = qv; v.s[i] = sv; v.p[i] = pv; v.x[i] = xv; v.r[i] = rv; v.u[i] = uv; v.w[i] = wv;
    };
    if (LOOP == 0) {
        int64_t nt = (n + tr - 1) / tr;
        for (int64_t t = blockIdx.x; t < nt; t += gridDim.x) {
            int64_t e = min((t + 1) * tr, n);
            for (int64_t i = t * tr + threadIdx.x; i < e; i += 256) body(i);
        }
    } else {
        for (int64_t i = (int64_t)blockIdx.x * 256 + threadIdx.x; i < n; i += (int64_t)gridDim.x * 256) body(i);
    }
}
__global__ void __launch_bounds__(256) p_jacobi(int64_t n, int tr, const double *d, const double *w, double *m)
{
    int64_t t = blockIdx.x;
    int64_t s = t * tr / 2, e = min((t + 1) * tr, n) / 2;
    for (int64_t i = s + threadIdx.x; i < e; i += 256) {
        double2 dv = __ldg((const double2 *)d + i), wv = ((const double2 *)w)[i];
        ((double2 *)m)[i] = make_double2(dv.x * wv.x, dv.y * wv.y);
    }
}
__device__ double p_bsum(double v, double *sh)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = v;
    __syncthreads();
    double t = 0; for (int w = 0; w < 8; w++) t += sh[w];
    return t;
}
__global__ void __launch_bounds__(256, 8) p_dots(int64_t n, int tr, const double *r, const double *u, const double *w, double *part, unsigned *count, double *out)
{
    __shared__ double sh[3][8]; __shared__ int last;
    int t = blockIdx.x;
    double a0 = 0, a1 = 0, a2 = 0;
    int64_t e = min((int64_t)(t + 1) * tr, n);
    for (int64_t i = (int64_t)t * tr + threadIdx.x; i < e; i += 256) { double rv = r[i], uv = u[i], wv = w[i]; a0 += rv * uv; a1 += wv * uv; a2 += rv * rv; }
    a0 = p_bsum(a0, sh[0]); a1 = p_bsum(a1, sh[1]); a2 = p_bsum(a2, sh[2]);
    if (threadIdx.x == 0) { part[3 * t] = a0; part[3 * t + 1] = a1; part[3 * t + 2] = a2; }
    __threadfence(); __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    double v0 = 0, v1 = 0, v2 = 0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += 256) { v0 += __ldcg(part + 3 * b); v1 += __ldcg(part + 3 * b + 1); v2 += __ldcg(part + 3 * b + 2); }
    v0 = p_bsum(v0, sh[0]); v1 = p_bsum(v1, sh[1]); v2 = p_bsum(v2, sh[2]);
    if (threadIdx.x == 0) { out[0] = v0; out[1] = v1; out[2] = v2; *count = 0; }
}

static double median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1e3; }
template <class F> static double time_us(F f, int reps, cudaStream_t s)
{
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int r = 0; r < 3; r++) f(r);
    std::vector<float> t;
    for (int r = 0; r < reps; r++) { CK(cudaEventRecord(a, s)); f(r); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
    CK(cudaGetLastError());
    return median(t);
}
static void fill(double *d, int64_t n, double base)
{
    std::vector<double> h(n);
    for (int64_t i = 0; i < n; i++) h[i] = base + 1e-3 * (double)((i * 7919) % 1000);
    CK(cudaMemcpy(d, h.data(), n * 8, cudaMemcpyHostToDevice));
}
int main(int argc, char **argv)
{
    int g = argc > 1 ? atoi(argv[1]) : 128, reps = argc > 2 ? atoi(argv[2]) : 50;
    double triad = argc > 3 ? atof(argv[3]) : 4394.0;
    int64_t n = (int64_t)g * g * g;
    cudaStream_t st; CK(cudaStreamCreate(&st));
    tl_cu_launch L = {st, 0};
    double *v[NSET][NV];
    for (int s = 0; s < NSET; s++) for (int k = 0; k < NV; k++) { CK(cudaMalloc(&v[s][k], n * 8)); fill(v[s][k], n, 0.5 + 0.1 * k + 0.01 * s); }
    double *part, *out; unsigned *count;
    CK(cudaMalloc(&part, 8192 * 8 * 8)); CK(cudaMalloc(&out, 64 * 8)); CK(cudaMalloc(&count, 4)); CK(cudaMemset(count, 0, 4));
    int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    auto report = [&](const char *name, double bpr, double us) { printf("%-44s %9.2f us  %4.0f B/row  %.3f of triad\n", name, us, bpr, bpr * n / (us * 1e-6) / 1e9 / triad); };
    double regs_h[TL_SC_REGS] = {0}; regs_h[TL_SC_PCG_ALPHA] = 0.3; regs_h[TL_SC_PCG_BETA] = 0.7;
    double *regs; CK(cudaMalloc(&regs, sizeof regs_h)); CK(cudaMemcpy(regs, regs_h, sizeof regs_h, cudaMemcpyHostToDevice));
    auto pcg_updates = [&](double **s, tl_cu_update_args *a) {
        memset(a, 0, sizeof *a); a->prog = TL_SC_NONE; a->io.regs = regs;
        int ys[8] = {Z, Q, S, P, X, R, U, W};
        int xs[8][2] = {{N, Z}, {M, Q}, {W, S}, {U, P}, {X, P}, {R, S}, {U, Q}, {W, Z}};
        a->nu = 8;
        for (int j = 0; j < 8; j++) {
            a->u[j].y = s[ys[j]]; a->u[j].nterms = 2; a->u[j].x[0] = s[xs[j][0]]; a->u[j].x[1] = s[xs[j][1]];
            a->u[j].coef[0] = 1.0; a->u[j].coef[1] = j < 5 ? 1.0 : -1.0;
            a->u[j].sref[1] = j < 4 ? 1 + TL_SC_PCG_BETA : 1 + TL_SC_PCG_ALPHA;
        }
        tl_cu_update_link(a);
    };
    auto vecs = [&](double **s) { Vecs w = {s[R], s[U], s[W], s[M], s[N], s[Z], s[Q], s[S], s[P], s[X]}; return w; };
    for (int pass = 0; pass < 2; pass++) {
        printf("-- pass %d, n = %lld\n", pass, (long long)n);
        { tl_cu_update_args ua;
          report("update: backend one wave", 144, time_us([&](int r) { pcg_updates(v[r % NSET], &ua); CT(tl_cu_update_run(&ua, n, sms, L)); }, reps, st)); }
        auto pu = [&](const char *nm, auto k, unsigned grid, int tr) {
            char b[96]; snprintf(b, sizeof b, "%s (%u blk)", nm, grid);
            report(b, 144, time_us([&](int r) { k<<<grid, 256, 0, st>>>(n, tr, vecs(v[r % NSET]), regs); }, reps, st));
        };
        int per4 = 0, per3 = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per4, p_update<3, 0>, 256, 0));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per3, p_update<3, 1>, 256, 0));
        pu("update: proto tiles1024 t+=grid", p_update<3, 0>, per4 * sms, 1024);
        pu("update: proto tiles1024 3/SM grid", p_update<3, 0>, 3 * sms, 1024);
        pu("update: proto tiles2048", p_update<3, 0>, per4 * sms, 2048);
        pu("update: proto tiles256", p_update<3, 0>, per4 * sms, 256);
        pu("update: proto grid-stride", p_update<3, 1>, per3 * sms, 0);
        pu("update: proto grid-stride 3/SM grid", p_update<3, 1>, 3 * sms, 0);
        pu("update: proto minb2 tiles1024", p_update<2, 0>, per4 * sms, 1024);
        report("jacobi: backend", 24, time_us([&](int r) { double **s = v[r % NSET]; CT(tl_cu_jacobi(s[DINV], s[W], s[M], n, L)); }, reps, st));
        for (int tr : {512, 1024, 2048, 4096})
        { char b[64]; snprintf(b, sizeof b, "jacobi: proto tile %d", tr);
          report(b, 24, time_us([&](int r) { double **s = v[r % NSET]; p_jacobi<<<(unsigned)((n + tr - 1) / tr), 256, 0, st>>>(n, tr, s[DINV], s[W], s[M]); }, reps, st)); }
        report("dots: backend", 24, time_us([&](int r) { double **s = v[r % NSET]; tl_cu_dot_args a = {}; a.n = 3; a.x[0] = s[R]; a.y[0] = s[U]; a.x[1] = s[W]; a.y[1] = s[U]; a.x[2] = s[R]; a.y[2] = s[R]; CT(tl_cu_dots(&a, n, part, count, out, L)); }, reps, st));
        for (int tr : {512, 1024, 2048, 4096})
        { char b[64]; snprintf(b, sizeof b, "dots: proto tile %d", tr);
          report(b, 24, time_us([&](int r) { double **s = v[r % NSET]; p_dots<<<(unsigned)((n + tr - 1) / tr), 256, 0, st>>>(n, tr, s[R], s[U], s[W], part, count, out); }, reps, st)); }
        if (pass == 0) { /* 256^3 second */ }
    }
    return 0;
}
