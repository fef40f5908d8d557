/* Vector-width FDTD kernels (--kernel vec2, vec4, vec4-x128, vec4-band;
 * issue 12's tuned kernels, third try). A thread updates W consecutive x points
 * (a "quad"), and every load it makes is a W-wide vector (float4, float2,
 * double2): the x stencil comes from 2 ceil(R / W) + 1 vectors, each y or
 * z neighbour row from one. The one-thread-per-point baseline is limited
 * in single precision by the bytes each thread has in flight, not by
 * DRAM: the same kernel in double, 8 B a load, reaches 0.72 of triad
 * against 0.55 in float (results/device-session-401e5f3/fdtd-kernels).
 * W-wide loads put W times the bytes in flight per load instruction.
 *
 * Bytes a step must move: 48 B per point (fdtd_kernels.h), like every
 * kernel here; the x stencil's extra vectors are L1 hits.
 *
 * Arithmetic: per point exactly v_point / p_point (fdtd_device.cuh), each
 * derivative summed over m = 0..R-1, in the same expressions, so a point
 * gives the same bits whether its quad takes the vector path or the
 * per-point one, which takes the quads that leave the box or the allocated
 * row. With CPML an update is two launches (launch_cpml): the interior
 * kernel, without any CPML code, over the points in no slab (x cut to
 * whole quads), and the slab kernel over the rest of the box in one 1-D
 * grid, each slab quad's memory variables loaded before any of its stores
 * (cpml_quad), their arithmetic cpml_apply's. A point's arithmetic is the
 * same in both kernels and both paths (an interior point's CPML terms are
 * the identity), so decomposed runs equal the single domain bit for bit
 * wherever the cut falls. Layout: rows 32-element aligned at local x = 0
 * (grid.c), so element (x, y, z) is W-aligned when x is. Measured on one
 * H200: stencil/README.md, results/fdtd-vec-h200. CUDA only. */
#include <cuda_runtime.h>

/* includes runtime/error.h inside extern "C" */
#include "stencil/fdtd_kernels.h"
#include "stencil/fdtd_device.cuh"

namespace {

/* W consecutive T at a W * sizeof(T)-aligned address; RO: read-only
 * during the kernel (the read-only data path) */
template <typename T, int W> struct vec_io;
template <> struct vec_io<float, 4> {
    static __device__ __forceinline__ void ro(const float *p, float *o)
    {
        float4 v = __ldg((const float4 *)p);
        o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
    }
    static __device__ __forceinline__ void ld(const float *p, float *o)
    {
        float4 v = *(const float4 *)p;
        o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
    }
    static __device__ __forceinline__ void st(float *p, const float *o)
    {
        *(float4 *)p = make_float4(o[0], o[1], o[2], o[3]);
    }
};
/* the 2-wide types (float2, double2): members x, y */
template <typename T, typename V> struct vec_io2 {
    static __device__ __forceinline__ void ro(const T *p, T *o)
    {
        V v = __ldg((const V *)p);
        o[0] = v.x, o[1] = v.y;
    }
    static __device__ __forceinline__ void ld(const T *p, T *o)
    {
        V v = *(const V *)p;
        o[0] = v.x, o[1] = v.y;
    }
    static __device__ __forceinline__ void st(T *p, const T *o)
    {
        V v;
        v.x = o[0], v.y = o[1];
        *(V *)p = v;
    }
};
template <> struct vec_io<float, 2> : vec_io2<float, float2> {};
template <> struct vec_io<double, 2> : vec_io2<double, double2> {};
/* double, 4 wide: two 16-byte halves (no 32-byte vector type before sm_100) */
template <> struct vec_io<double, 4> {
    static __device__ __forceinline__ void ro(const double *p, double *o)
    {
        vec_io<double, 2>::ro(p, o);
        vec_io<double, 2>::ro(p + 2, o + 2);
    }
    static __device__ __forceinline__ void ld(const double *p, double *o)
    {
        vec_io<double, 2>::ld(p, o);
        vec_io<double, 2>::ld(p + 2, o + 2);
    }
    static __device__ __forceinline__ void st(double *p, const double *o)
    {
        vec_io<double, 2>::st(p, o);
        vec_io<double, 2>::st(p + 2, o + 2);
    }
};

/* the x halo of a quad, rounded up to whole vectors */
template <int R, int W> __host__ __device__ constexpr int quad_halo() { return (R + W - 1) / W * W; }

/* The W values at element i (aligned) and the x stencil around them:
 * e[k] = f[i - HX + k], k < 2 HX + W. */
template <typename T, int R, int W>
__device__ __forceinline__ void load_xrow(const T *f, int64_t i, T (&e)[2 * quad_halo<R, W>() + W])
{
    constexpr int HX = quad_halo<R, W>();
#pragma unroll
    for (int k = 0; k < (2 * HX + W) / W; k++)
        vec_io<T, W>::ro(f + i - HX + k * W, e + k * W);
}

/* The staggered derivatives of a quad at element i, each summed over m =
 * 0..R-1 as v_point / p_point do: S = 1, the velocity update (of p at
 * i + 1/2: f(i + m + 1) - f(i - m), fx = fy = fz = p), S = 0, the
 * pressure update (of vx, vy, vz at i: f(i + m) - f(i - m - 1)). */
template <typename T, int R, int W, int S>
__device__ __forceinline__ void quad_derivs(const tl_fdtd_kargs &a, const T *fx, const T *fy, const T *fz, int64_t i,
                                            T (&dx)[W], T (&dy)[W], T (&dz)[W])
{
    constexpr int HX = quad_halo<R, W>();
    const int64_t sx = a.sx, sxy = a.sxy;
    T e[2 * HX + W];
    load_xrow<T, R, W>(fx, i, e);
#pragma unroll
    for (int j = 0; j < W; j++) dx[j] = dy[j] = dz[j] = 0;
#pragma unroll
    for (int m = 0; m < R; m++) {
        T c = (T)a.c[m], yh[W], yl[W], zh[W], zl[W];
        vec_io<T, W>::ro(fy + i + (m + S) * sx, yh);
        vec_io<T, W>::ro(fz + i + (m + S) * sxy, zh);
        if (S == 1 && m == 0) { /* the centre row: the x row's, all three fields being p */
#pragma unroll
            for (int j = 0; j < W; j++) yl[j] = zl[j] = e[HX + j];
        } else {
            vec_io<T, W>::ro(fy + i - (m + 1 - S) * sx, yl);
            vec_io<T, W>::ro(fz + i - (m + 1 - S) * sxy, zl);
        }
#pragma unroll
        for (int j = 0; j < W; j++) {
            dx[j] += c * (e[HX + j + m + S] - e[HX + j - m - 1 + S]);
            dy[j] += c * (yh[j] - yl[j]);
            dz[j] += c * (zh[j] - zl[j]);
        }
    }
}

/* y and z of a quad per point through cpml_term (the rare quad with both
 * x slabs; speed does not matter there). */
template <typename T, int W>
__device__ __forceinline__ void cpml_quad_yz(const tl_fdtd_kargs &a, int m0, int pa, int64_t x, int64_t y, int64_t z,
                                             int side_y, int side_z, int64_t gy, int64_t gz, T (&dy)[W], T (&dz)[W])
{
#pragma unroll
    for (int j = 0; j < W; j++) {
        if (side_y >= 0) dy[j] = cpml_term<T>(a, m0 + 1, 1, gy, x + j, y, z, dy[j], pa);
        if (side_z >= 0) dz[j] = cpml_term<T>(a, m0 + 2, 2, gz, x + j, y, z, dz[j], pa);
    }
}

/* The CPML correction of a quad's derivatives (memory variables m0..m0+2
 * along x, y, z, profile pa: TL_FDTD_PROF_AH in the velocity update,
 * TL_FDTD_PROF_A in the pressure one), each point's arithmetic that of
 * cpml_term (cpml_apply), but every load of the quad's memory variables
 * issued before the first store. Through cpml_term, the store of one psi
 * may alias the next psi's load as far as the compiler knows, which
 * chains up to 3 W dependent DRAM round trips per thread in a kernel that
 * lives on the bytes it has in flight: the fused kernel's 33% CPML cost
 * at 480^3 is about four times the slab points' extra bytes (16 B on
 * 23% of the points, against 48 B a point). y and z are in one slab or
 * none for the whole quad; x per point (a quad may straddle a slab's
 * edge). */
template <typename T, int W>
__device__ __forceinline__ void cpml_quad(const tl_fdtd_kargs &a, int m0, int pa, int64_t x, int64_t y, int64_t z,
                                          T (&dx)[W], T (&dy)[W], T (&dz)[W])
{
    const int64_t gx = a.o[0] + x, gy = a.o[1] + y, gz = a.o[2] + z;
    const int side_y = cpml_side(a, 1, gy), side_z = cpml_side(a, 2, gz);
    const int side_x0 = cpml_side(a, 0, gx), side_x1 = cpml_side(a, 0, gx + W - 1);
    if (side_x0 >= 0 && side_x1 >= 0 && side_x0 != side_x1) {
        /* both x slabs in one quad (an interior narrower than a quad): x per
         * point, as the per-point code does it */
#pragma unroll
        for (int j = 0; j < W; j++) dx[j] = cpml_term<T>(a, m0, 0, gx + j, x + j, y, z, dx[j], pa);
        cpml_quad_yz<T, W>(a, m0, pa, x, y, z, side_y, side_z, gy, gz, dy, dz);
        return;
    }
    /* the quad's x slab (if any) and which of its points are in it */
    const int side_x = side_x0 >= 0 ? side_x0 : side_x1;
    unsigned in_x = 0;
#pragma unroll
    for (int j = 0; j < W; j++) in_x |= (unsigned)(cpml_side(a, 0, gx + j) >= 0) << j;
    T *px = nullptr, *py = nullptr, *pz = nullptr, sx_[W], sy_[W], sz_[W];
    /* the slab arrays' layouts selected field by field (a dynamic index into
     * the kernel's parameters would copy them to local memory) */
#define TL_PSI_AT(m, s)                                                                                                \
    ((T *)((s) ? a.psi[m][1] : a.psi[m][0]) + ((s) ? a.psil[m][1].off : a.psil[m][0].off) + x +                        \
     y * ((s) ? a.psil[m][1].sx : a.psil[m][0].sx) + z * ((s) ? a.psil[m][1].sxy : a.psil[m][0].sxy))
    if (in_x) {
        px = TL_PSI_AT(m0, side_x);
#pragma unroll
        for (int j = 0; j < W; j++)
            if (in_x >> j & 1) sx_[j] = px[j];
    }
    if (side_y >= 0) {
        py = TL_PSI_AT(m0 + 1, side_y);
#pragma unroll
        for (int j = 0; j < W; j++) sy_[j] = py[j];
    }
    if (side_z >= 0) {
        pz = TL_PSI_AT(m0 + 2, side_z);
#pragma unroll
        for (int j = 0; j < W; j++) sz_[j] = pz[j];
    }
#undef TL_PSI_AT
    if (in_x) {
        const T *pr = (const T *)a.prof[0];
        const int64_t n = a.N[0];
#pragma unroll
        for (int j = 0; j < W; j++)
            if (in_x >> j & 1)
                dx[j] = cpml_apply<T>(pr[(pa + 1) * n + gx + j], pr[pa * n + gx + j], pr[(pa + 2) * n + gx + j], sx_[j],
                                      dx[j]);
    }
    if (py) {
        const T *pr = (const T *)a.prof[1];
        const int64_t n = a.N[1];
        T pb = pr[(pa + 1) * n + gy], pa_ = pr[pa * n + gy], ik = pr[(pa + 2) * n + gy];
#pragma unroll
        for (int j = 0; j < W; j++) dy[j] = cpml_apply<T>(pb, pa_, ik, sy_[j], dy[j]);
    }
    if (pz) {
        const T *pr = (const T *)a.prof[2];
        const int64_t n = a.N[2];
        T pb = pr[(pa + 1) * n + gz], pa_ = pr[pa * n + gz], ik = pr[(pa + 2) * n + gz];
#pragma unroll
        for (int j = 0; j < W; j++) dz[j] = cpml_apply<T>(pb, pa_, ik, sz_[j], dz[j]);
    }
    if (px)
#pragma unroll
        for (int j = 0; j < W; j++)
            if (in_x >> j & 1) px[j] = sx_[j];
    if (py)
#pragma unroll
        for (int j = 0; j < W; j++) py[j] = sy_[j];
    if (pz)
#pragma unroll
        for (int j = 0; j < W; j++) pz[j] = sz_[j];
}

/* The velocity update of the quad at (x, y, z), element i: v_point's
 * arithmetic for W points at once. With CPML (slab blocks only) the
 * velocities are loaded with the memory variables, before any store, so
 * the slab quad's DRAM round trips overlap; without, the interior
 * kernel's code as measured. */
template <typename T, int R, int W, bool CPML>
__device__ __forceinline__ void v_quad(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z, int64_t i)
{
    T dx[W], dy[W], dz[W];
    const T *p = (const T *)a.f[0];
    quad_derivs<T, R, W, 1>(a, p, p, p, i, dx, dy, dz);
    T b[3][W], v[W];
    T *vx = (T *)a.f[1] + i, *vy = (T *)a.f[2] + i, *vz = (T *)a.f[3] + i;
#pragma unroll
    for (int d = 0; d < 3; d++) {
        if (a.mat[1 + d]) vec_io<T, W>::ro((const T *)a.mat[1 + d] + i, b[d]);
        else {
#pragma unroll
            for (int j = 0; j < W; j++) b[d][j] = (T)a.bdt;
        }
    }
    if (CPML) {
        T w[3][W];
        vec_io<T, W>::ld(vx, w[0]);
        vec_io<T, W>::ld(vy, w[1]);
        vec_io<T, W>::ld(vz, w[2]);
        cpml_quad<T, W>(a, 0, TL_FDTD_PROF_AH, x, y, z, dx, dy, dz);
#pragma unroll
        for (int j = 0; j < W; j++) {
            w[0][j] -= b[0][j] * dx[j];
            w[1][j] -= b[1][j] * dy[j];
            w[2][j] -= b[2][j] * dz[j];
        }
        vec_io<T, W>::st(vx, w[0]);
        vec_io<T, W>::st(vy, w[1]);
        vec_io<T, W>::st(vz, w[2]);
    } else {
        vec_io<T, W>::ld(vx, v);
#pragma unroll
        for (int j = 0; j < W; j++) v[j] -= b[0][j] * dx[j];
        vec_io<T, W>::st(vx, v);
        vec_io<T, W>::ld(vy, v);
#pragma unroll
        for (int j = 0; j < W; j++) v[j] -= b[1][j] * dy[j];
        vec_io<T, W>::st(vy, v);
        vec_io<T, W>::ld(vz, v);
#pragma unroll
        for (int j = 0; j < W; j++) v[j] -= b[2][j] * dz[j];
        vec_io<T, W>::st(vz, v);
    }
}

/* The pressure update of the quad at (x, y, z), element i: p_point's
 * arithmetic; with CPML the pressure loaded before the memory variables'
 * stores, as in v_quad. */
template <typename T, int R, int W, bool CPML>
__device__ __forceinline__ void p_quad(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z, int64_t i)
{
    T dx[W], dy[W], dz[W];
    quad_derivs<T, R, W, 0>(a, (const T *)a.f[1], (const T *)a.f[2], (const T *)a.f[3], i, dx, dy, dz);
    T k[W], pv[W];
    T *p = (T *)a.f[0] + i;
    if (a.mat[0]) vec_io<T, W>::ro((const T *)a.mat[0] + i, k);
    else {
#pragma unroll
        for (int j = 0; j < W; j++) k[j] = (T)a.kdt;
    }
    vec_io<T, W>::ld(p, pv);
    if (CPML) cpml_quad<T, W>(a, 3, TL_FDTD_PROF_A, x, y, z, dx, dy, dz);
#pragma unroll
    for (int j = 0; j < W; j++) pv[j] -= k[j] * (dx[j] + dy[j] + dz[j]);
    vec_io<T, W>::st(p, pv);
}

/* Whether the quad at local x (W points from x) takes the vector path:
 * inside the box and its x stencil inside the allocated row. */
template <int R, int W>
__device__ __forceinline__ bool quad_is_whole(const tl_fdtd_kargs &a, const box3 &b, int64_t x)
{
    constexpr int HX = quad_halo<R, W>();
    int64_t row0 = -(a.off % a.sx); /* local x of the row's first element (grid.c) */
    return x >= b.lo[0] && x + W <= b.lo[0] + b.ex && x - HX >= row0 && x + W + HX <= row0 + a.sx;
}

/* Blocks of 256 threads per SM the kernels are built for. Left to itself,
 * ptxas's register count moves with unrelated changes (float, order 8:
 * 44-64 in the interior kernel); these bounds keep float at 5 blocks in
 * the interior kernel (at most 51 registers: the first H200 run's 44-48
 * gave 0.77 of triad at 480^3), double at 4 (64; unbounded, up to 177).
 * The slab kernel (CPML) keeps a quad's memory variables and fields in
 * registers to issue all its loads before its first store: 80 registers
 * in float (3 blocks; at 64, 176 B of spills), 128 in double (2). */
template <typename T, bool CPML> __host__ __device__ constexpr int min_blocks()
{
    return sizeof(T) == 4 ? (CPML ? 3 : 5) : (CPML ? 2 : 4);
}

/* Which block of the box a block is. Plain (band == 0): the 3-D grid,
 * x fastest, then y, then z, so the blocks in flight cover a plane or
 * less and the 2R planes of the z stencil are reused through L2 only
 * while 2R whole planes of the field fit there beside the streamed fields
 * (on an H200's 50 MB the drop starts near 800^2 floats,
 * results/fdtd-vec-h200: 0.68 of triad at 800^3, 0.52 at 1024^3). Banded:
 * a 1-D grid walking bands of `band` block rows through all z, then the
 * next band, so the z window is that of a band; the y stencil re-reads R
 * rows at a band's edges. */
typedef struct block_order {
    int nbx, nby, nz, band; /* blocks along x, y, z; block rows per band, 0: plain */
} block_order;

/* Block r (0-based, in the order above) of a box walked by a 1-D grid:
 * banded, or (band == 0) x fastest, then y, then z. */
__device__ __forceinline__ void block_at(const block_order &o, int64_t r, int64_t &bx, int64_t &by, int64_t &bz)
{
    if (o.band == 0) {
        int64_t plane = (int64_t)o.nbx * o.nby;
        bz = r / plane;
        r -= bz * plane;
        by = r / o.nbx;
        bx = r - by * o.nbx;
        return;
    }
    int64_t full = (int64_t)o.nbx * o.band * o.nz, band = r / full;
    r -= band * full;
    int64_t rows = o.nby - band * o.band < o.band ? o.nby - band * o.band : o.band, plane = (int64_t)o.nbx * rows;
    bz = r / plane;
    r -= bz * plane;
    by = band * o.band + r / o.nbx;
    bx = r % o.nbx;
}

/* the plain kernel's block: the 3-D grid, or a banded 1-D one */
__device__ __forceinline__ void block_of(const block_order &o, int64_t &bx, int64_t &by, int64_t &bz)
{
    if (o.band == 0) {
        bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
        return;
    }
    block_at(o, blockIdx.x, bx, by, bz);
}

/* A thread's quad of an update (V: velocity, else pressure) in block
 * (bx, by, bz) of box b: blocks of BX x BY threads, a quad each (BX W
 * points along x), one z plane a block; xq: the box's first quad
 * (W-aligned). */
template <typename T, int R, int W, int BX, int BY, bool CPML, bool V>
__device__ __forceinline__ void update_quad(const tl_fdtd_kargs &a, const box3 &b, int64_t xq, int64_t bx, int64_t by,
                                            int64_t bz)
{
    int64_t x = xq + (int64_t)W * (bx * BX + threadIdx.x), y = b.lo[1] + by * BY + threadIdx.y, z = b.lo[2] + bz;
    if (y >= b.lo[1] + b.ey || x >= b.lo[0] + b.ex) return;
    if (quad_is_whole<R, W>(a, b, x)) {
        int64_t i = a.off + x + y * a.sx + z * a.sxy;
        if (V) v_quad<T, R, W, CPML>(a, x, y, z, i);
        else p_quad<T, R, W, CPML>(a, x, y, z, i);
        return;
    }
#pragma unroll
    for (int j = 0; j < W; j++) {
        if (x + j < b.lo[0] || x + j >= b.lo[0] + b.ex) continue;
        if (V) v_point<T, R>(a, x + j, y, z, CPML);
        else p_point<T, R>(a, x + j, y, z, CPML);
    }
}

/* The boxes of one CPML launch (the slabs around an interior box, at most
 * 6), each walked in its own block order: blocks first[k] .. first[k + 1]
 * - 1 of the 1-D grid are box k's. */
enum { SHELL_MAX = 6 };
typedef struct shell {
    int n;
    box3 b[SHELL_MAX];
    int64_t xq[SHELL_MAX];
    block_order o[SHELL_MAX];
    int64_t first[SHELL_MAX + 1];
} shell;

/* The interior kernels (no CPML code at all), two so the traces name the
 * update: a box's blocks, 3-D grid or banded. */
template <typename T, int R, int W, int BX, int BY>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, false>())
    tl_fdtd_v_vec_kernel(const tl_fdtd_kargs a, box3 b, int64_t xq, block_order o)
{
    int64_t bx, by, bz;
    block_of(o, bx, by, bz);
    update_quad<T, R, W, BX, BY, false, true>(a, b, xq, bx, by, bz);
}
template <typename T, int R, int W, int BX, int BY>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, false>())
    tl_fdtd_p_vec_kernel(const tl_fdtd_kargs a, box3 b, int64_t xq, block_order o)
{
    int64_t bx, by, bz;
    block_of(o, bx, by, bz);
    update_quad<T, R, W, BX, BY, false, false>(a, b, xq, bx, by, bz);
}

/* The slab kernels: the blocks of every box of a shell, CPML terms in.
 * The box of a block is found by comparisons with static indices only
 * (a dynamic index into the parameters would copy them to local memory). */
template <typename T, int R, int W, int BX, int BY, bool V>
__device__ __forceinline__ void update_shell(const tl_fdtd_kargs &a, const shell &sh)
{
    const int64_t id = blockIdx.x;
    box3 b = sh.b[0];
    int64_t xq = sh.xq[0], first = 0;
    block_order o = sh.o[0];
#pragma unroll
    for (int k = 1; k < SHELL_MAX; k++)
        if (k < sh.n && id >= sh.first[k]) b = sh.b[k], xq = sh.xq[k], o = sh.o[k], first = sh.first[k];
    int64_t bx, by, bz;
    block_at(o, id - first, bx, by, bz);
    update_quad<T, R, W, BX, BY, true, V>(a, b, xq, bx, by, bz);
}
template <typename T, int R, int W, int BX, int BY>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, true>())
    tl_fdtd_v_vec_cpml_kernel(const tl_fdtd_kargs a, const shell sh)
{
    update_shell<T, R, W, BX, BY, true>(a, sh);
}
template <typename T, int R, int W, int BX, int BY>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, true>())
    tl_fdtd_p_vec_cpml_kernel(const tl_fdtd_kargs a, const shell sh)
{
    update_shell<T, R, W, BX, BY, false>(a, sh);
}

/* Block rows per band: the 2R planes of the z-reused field over a band
 * (plus its R-row edges) within a quarter of the L2, which leaves room
 * for the streamed fields; 0 (plain) where a whole plane fits. */
template <typename T, int R, int BY>
int band_rows(const tl_fdtd_kargs &a, int nby)
{
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
        l2 <= 0)
        return 0;
    double row = 2.0 * R * (double)a.sx * sizeof(T), rows = 0.25 * l2 / row - 2.0 * R;
    int band = (int)(rows / BY);
    if (band >= nby) return 0;
    return band < 1 ? 1 : band;
}

/* x rounded down to a multiple of q (local x, any sign) */
static int64_t floor_to(int64_t x, int64_t q) { return x >= 0 ? x / q * q : -((-x + q - 1) / q * q); }

/* A box's first quad (at or below its start, a multiple of `anchor`, itself
 * a multiple of W) and block order. */
template <typename T, int R, int W, int BX, int BY>
void order_of(const tl_fdtd_kargs &a, const box3 &b, bool banded, int64_t anchor, int64_t &xq, block_order &o)
{
    xq = floor_to(b.lo[0], anchor);
    int64_t quads = (b.lo[0] + b.ex - xq + W - 1) / W;
    o = {(int)((quads + BX - 1) / BX), (b.ey + BY - 1) / BY, b.ez, 0};
    if (banded) o.band = band_rows<T, R, BY>(a, o.nby);
}

/* The interior kernel over box b (no CPML terms), its quads from a
 * multiple of `anchor`. */
template <typename T, int R, int W, int BX, int BY>
void launch_plain(const tl_fdtd_kargs &a, int which, const box3 &b, bool banded, int64_t anchor, cudaStream_t s)
{
    int64_t xq;
    block_order o;
    order_of<T, R, W, BX, BY>(a, b, banded, anchor, xq, o);
    dim3 block(BX, BY), grid((unsigned)o.nbx, (unsigned)o.nby, (unsigned)b.ez);
    if (o.band > 0) grid = dim3((unsigned)((int64_t)o.nbx * o.nby * o.nz)); /* at most 2^31 - 1 blocks: 32 768^2 x 2048 */
    if (which == 0) tl_fdtd_v_vec_kernel<T, R, W, BX, BY><<<grid, block, 0, s>>>(a, b, xq, o);
    else tl_fdtd_p_vec_kernel<T, R, W, BX, BY><<<grid, block, 0, s>>>(a, b, xq, o);
}

/* The box3 of local [lo, hi) */
static box3 box_of(const int64_t lo[3], const int64_t hi[3])
{
    return {{lo[0], lo[1], lo[2]}, (int)(hi[0] - lo[0]), (int)(hi[1] - lo[1]), (int)(hi[2] - lo[2])};
}

/* The inner box of b with CPML: the points in no slab of any axis (local
 * [L - o, N - 1 - L - o) along each, cpml_side), x shrunk to whole quads
 * (the slab kernel takes the at most W - 1 interior points this leaves it
 * at each end, their CPML terms the identity). Empty: in_lo[0] >=
 * in_hi[0] or alike. */
template <int W> void inner_of(const tl_fdtd_kargs &a, const box3 &b, int64_t in_lo[3], int64_t in_hi[3])
{
    const int64_t ext[3] = {b.ex, b.ey, b.ez};
    for (int e = 0; e < 3; e++) {
        int64_t lo = a.L - a.o[e], hi = a.N[e] - 1 - a.L - a.o[e];
        in_lo[e] = lo > b.lo[e] ? lo : b.lo[e];
        in_hi[e] = hi < b.lo[e] + ext[e] ? hi : b.lo[e] + ext[e];
    }
    in_lo[0] = -floor_to(-in_lo[0], W); /* up */
    in_hi[0] = floor_to(in_hi[0], W);
}

/* The update of box b with CPML: the interior kernel over the inner box,
 * the slab kernel over the rest (z below and above it over the whole x-y
 * extent, then y below and above over the inner z, then x either side over
 * the inner y and z) in one launch. Each point's arithmetic is that of
 * the fused kernel (an interior point's CPML terms are the identity there),
 * so the split changes no bit and decomposed runs stay equal to the single
 * domain. Without an inner box, the slab kernel over all of b. */
template <typename T, int R, int W, int BX, int BY>
void launch_cpml(const tl_fdtd_kargs &a, int which, const box3 &b, bool banded, cudaStream_t s)
{
    int64_t in_lo[3], in_hi[3];
    const int64_t lo[3] = {b.lo[0], b.lo[1], b.lo[2]}, hi[3] = {b.lo[0] + b.ex, b.lo[1] + b.ey, b.lo[2] + b.ez};
    inner_of<W>(a, b, in_lo, in_hi);
    bool inner = in_lo[0] < in_hi[0] && in_lo[1] < in_hi[1] && in_lo[2] < in_hi[2];
    box3 parts[SHELL_MAX];
    int n = 0;
    if (!inner) parts[n++] = b;
    else {
        /* [lo, hi) per axis of each part: z slabs, y slabs, x slabs */
        const int64_t zl[3] = {lo[0], lo[1], lo[2]}, zh[3] = {hi[0], hi[1], in_lo[2]};
        const int64_t zl2[3] = {lo[0], lo[1], in_hi[2]}, zh2[3] = {hi[0], hi[1], hi[2]};
        const int64_t yl[3] = {lo[0], lo[1], in_lo[2]}, yh[3] = {hi[0], in_lo[1], in_hi[2]};
        const int64_t yl2[3] = {lo[0], in_hi[1], in_lo[2]}, yh2[3] = {hi[0], hi[1], in_hi[2]};
        const int64_t xl[3] = {lo[0], in_lo[1], in_lo[2]}, xh[3] = {in_lo[0], in_hi[1], in_hi[2]};
        const int64_t xl2[3] = {in_hi[0], in_lo[1], in_lo[2]}, xh2[3] = {hi[0], in_hi[1], in_hi[2]};
        const int64_t *pl[SHELL_MAX] = {zl, zl2, yl, yl2, xl, xl2}, *ph[SHELL_MAX] = {zh, zh2, yh, yh2, xh, xh2};
        for (int k = 0; k < SHELL_MAX; k++)
            if (pl[k][0] < ph[k][0] && pl[k][1] < ph[k][1] && pl[k][2] < ph[k][2]) parts[n++] = box_of(pl[k], ph[k]);
        /* its blocks from a 32-element boundary, as the box without CPML
         * (x = 0): a warp's rows are whole 128 B lines in single precision,
         * the few quads left of the box idle */
        launch_plain<T, R, W, BX, BY>(a, which, box_of(in_lo, in_hi), banded, 32, s);
    }
    shell sh = {};
    sh.n = n;
    for (int k = 0; k < n; k++) {
        sh.b[k] = parts[k];
        order_of<T, R, W, BX, BY>(a, parts[k], banded, W, sh.xq[k], sh.o[k]);
        sh.first[k + 1] = sh.first[k] + (int64_t)sh.o[k].nbx * sh.o[k].nby * sh.o[k].nz;
    }
    if (n == 0) return; /* the inner box was all of b */
    dim3 block(BX, BY), grid((unsigned)sh.first[n]);
    if (which == 0) tl_fdtd_v_vec_cpml_kernel<T, R, W, BX, BY><<<grid, block, 0, s>>>(a, sh);
    else tl_fdtd_p_vec_cpml_kernel<T, R, W, BX, BY><<<grid, block, 0, s>>>(a, sh);
}

template <typename T, int R, int W, int BX, int BY>
void launch(const tl_fdtd_kargs &a, int which, const box3 &b, bool cpml, bool banded, cudaStream_t s)
{
    if (cpml) launch_cpml<T, R, W, BX, BY>(a, which, b, banded, s);
    else launch_plain<T, R, W, BX, BY>(a, which, b, banded, W, s);
}

template <typename T, int R>
void launch_variant(const tl_fdtd_kargs &a, int which, const box3 &b, int variant, bool cpml, cudaStream_t s)
{
    switch (variant) { /* width, block: quads along x, rows */
    case TL_FDTD_VARIANT_VEC2: launch<T, R, 2, 16, 16>(a, which, b, cpml, false, s); break;
    case TL_FDTD_VARIANT_VEC4_X128: launch<T, R, 4, 32, 8>(a, which, b, cpml, false, s); break;
    case TL_FDTD_VARIANT_VEC4_BAND: launch<T, R, 4, 8, 32>(a, which, b, cpml, true, s); break;
    default: launch<T, R, 4, 8, 32>(a, which, b, cpml, false, s); break;
    }
}

template <typename T>
void launch_order(const tl_fdtd_kargs &a, int which, const box3 &b, int variant, bool cpml, cudaStream_t s)
{
    switch (a.r) {
    case 1: launch_variant<T, 1>(a, which, b, variant, cpml, s); break;
    case 2: launch_variant<T, 2>(a, which, b, variant, cpml, s); break;
    default: launch_variant<T, 4>(a, which, b, variant, cpml, s); break;
    }
}

} // namespace

extern "C" cudaError_t tl_fdtd_cuda_vec_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3],
                                               const int64_t hi[3], int variant, int cpml, int dbl, cudaStream_t s)
{
    box3 b = {{lo[0], lo[1], lo[2]}, (int)(hi[0] - lo[0]), (int)(hi[1] - lo[1]), (int)(hi[2] - lo[2])};
    if (b.ex <= 0 || b.ey <= 0 || b.ez <= 0) return cudaSuccess;
    if (dbl) launch_order<double>(*a, which, b, variant, cpml != 0, s);
    else launch_order<float>(*a, which, b, variant, cpml != 0, s);
    return cudaPeekAtLastError();
}
