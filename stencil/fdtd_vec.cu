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
 * row. With CPML a box is cut into an interior that runs the plain
 * kernel and a shell that runs the CPML build (`launch`); a slab quad's
 * memory variables are one aligned vector per axis, corrected per point
 * through cpml_apply as cpml_term does. So decomposed runs equal the
 * single domain bit for bit. Layout: rows
 * 32-element aligned at local x = 0 (grid.c), so element (x, y, z) is
 * W-aligned when x is. Measured on one H200: stencil/README.md,
 * results/fdtd-vec-h200. CUDA only. */
#include <cuda_runtime.h>

/* includes runtime/error.h inside extern "C" */
#include "stencil/fdtd_kernels.h"
#include "stencil/fdtd_device.cuh"
#include "stencil/fast_div.h"
#include "stencil/cpml_cut.h"


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

/* The slab of axis e that local coordinate c lies in: 0 low, 1 high, -1
 * none, cpml_side's answer in local 32-bit coordinates (a box's extents
 * are ints), which the CPML kernel tests several times a quad. In 64 bits
 * the tests held register pairs: float's velocity CPML kernel spilled 88 B
 * (32 B after) and its z slabs took 71 us instead of 62 at 480^3 (ncu,
 * results/wave3-checks-h200/session4). */
__device__ __forceinline__ int local_side(const tl_fdtd_kargs &a, int e, int c)
{
    return c < (int)(a.L - a.o[e]) ? 0 : c >= (int)(a.N[e] - 1 - a.L - a.o[e]) ? 1 : -1;
}

/* The slab of axis e that the quad at local (x, y, z) lies in: as
 * local_side, or 2 where the slab's edge cuts the quad (x only). */
template <int W>
__device__ __forceinline__ int quad_side(const tl_fdtd_kargs &a, int e, int64_t x, int64_t y, int64_t z)
{
    const int c = (int)(e == 0 ? x : e == 1 ? y : z), side = local_side(a, e, c);
    return e == 0 && local_side(a, 0, c + W - 1) != side ? 2 : side;
}

/* The slabs of all three axes of the quad at local (x, y, z), each
 * quad_side + 1 in two bits (axis e at bit 2e): one register to keep
 * across the stencil's loads instead of three tests made twice (read,
 * then correct) */
template <int W>
__device__ __forceinline__ int quad_sides(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z)
{
    return (quad_side<W>(a, 0, x, y, z) + 1) | (quad_side<W>(a, 1, x, y, z) + 1) << 2 |
           (quad_side<W>(a, 2, x, y, z) + 1) << 4;
}

__device__ __forceinline__ int side_of(int sides, int e)
{
    return (sides >> 2 * e & 3) - 1;
}

__device__ __forceinline__ bool in_one_slab(int side)
{
    return side == 0 || side == 1;
}

/* One memory variable of a quad, read before the quad's fields are: the
 * one along the first axis of z, y, x whose slab holds the whole quad, one
 * aligned vector (grid.c: a y or z slab's rows start on a 128-byte line,
 * as the fields' rows do; an x slab's on 16 bytes). Behind a
 * branch after the derivatives the read waited for the stencil's loads,
 * two DRAM round trips in a row; read with them, the pressure update of a
 * z slab took 53 us instead of 61 at 480^3 (ncu, results/wave3-checks-h200/
 * session4). The read is not branched on (a quad in no slab reads its own
 * element of a field it reads anyway, an L1 hit, and drops it). Only one:
 * the three (edges and corners of the box, a few per cent of the shell's
 * points) spilled 200 B in float's velocity kernel; the others are read
 * where they are used. Float only: in double even one spilled 12-32 B
 * and the CPML update ran 0.3 % slower (same session). */
template <typename T, int W> struct quad_psi {
    T v[W];
    T *at;
    int axis;  /* -1: none */
    int sides; /* quad_sides */
};

template <typename T, int W>
__device__ __forceinline__ void cpml_quad_read(const tl_fdtd_kargs &a, int m0, int64_t x, int64_t y, int64_t z,
                                               const T *own, quad_psi<T, W> &q)
{
    q.axis = -1;
    if constexpr (sizeof(T) != 4) return;
    q.sides = quad_sides<W>(a, x, y, z);
    int side = side_of(q.sides, 2);
    q.axis = 2;
    if (!in_one_slab(side)) side = side_of(q.sides, 1), q.axis = 1;
    if (!in_one_slab(side)) side = side_of(q.sides, 0), q.axis = 0;
    if (!in_one_slab(side)) q.axis = -1;
    q.at = q.axis < 0 ? (T *)own : cpml_psi<T>(a, m0 + q.axis, side, x, y, z);
    vec_io<T, W>::ld(q.at, q.v);
}

/* The CPML correction along axis e of the derivatives d of the quad at
 * local (x, y, z), memory variable m, profile pa: each point through
 * cpml_apply, as cpml_term does it. Along y and z the quad's points share
 * the coordinate, so they are all in one slab or in none; along x a
 * slab's edge may cut the quad, and then its points go one by one through
 * cpml_term. The memory variables: q's when it read this axis's. */
template <typename T, int W>
__device__ __forceinline__ void cpml_axis_quad(const tl_fdtd_kargs &a, int m, int e, int side, int pa, int64_t x,
                                               int64_t y, int64_t z, const quad_psi<T, W> &q, T (&d)[W])
{
    const int64_t g0 = a.o[e] + (e == 0 ? x : e == 1 ? y : z);
    if (side == 2) {
#pragma unroll
        for (int j = 0; j < W; j++) d[j] = cpml_term<T>(a, m, 0, g0 + j, x + j, y, z, d[j], pa);
        return;
    }
    if (side < 0) return;
    T *at, psi[W];
    if (q.axis == e) {
        at = q.at;
#pragma unroll
        for (int j = 0; j < W; j++) psi[j] = q.v[j];
    } else {
        at = cpml_psi<T>(a, m, side, x, y, z);
        vec_io<T, W>::ld(at, psi);
    }
    const T *pr = (const T *)a.prof[e];
    const int64_t n = a.N[e];
#pragma unroll
    for (int j = 0; j < W; j++) {
        int64_t g = e == 0 ? g0 + j : g0;
        d[j] = cpml_apply(d[j], psi[j], pr[pa * n + g], pr[(pa + 1) * n + g], pr[(pa + 2) * n + g]);
    }
    vec_io<T, W>::st(at, psi);
}

/* The CPML correction of a quad's derivatives, q read by cpml_quad_read:
 * memory variables m0..m0+2 (0: the velocity update's, profile AH; 3:
 * the pressure update's, A). */
template <typename T, int W>
__device__ __forceinline__ void cpml_quad(const tl_fdtd_kargs &a, int m0, int pa, int64_t x, int64_t y, int64_t z,
                                          const quad_psi<T, W> &q, T (&dx)[W], T (&dy)[W], T (&dz)[W])
{
    /* in double the read took no test (cpml_quad_read) */
    const int sides = sizeof(T) == 4 ? q.sides : quad_sides<W>(a, x, y, z);
    cpml_axis_quad<T, W>(a, m0, 0, side_of(sides, 0), pa, x, y, z, q, dx);
    cpml_axis_quad<T, W>(a, m0 + 1, 1, side_of(sides, 1), pa, x, y, z, q, dy);
    cpml_axis_quad<T, W>(a, m0 + 2, 2, side_of(sides, 2), pa, x, y, z, q, dz);
}

/* The z slab's memory variable of a quad in the z-slab build (ZS, `launch`
 * says where it runs): a block lies in one z plane, so the slab test is
 * the block's and no warp diverges on it. Read with the stencil's loads
 * (quad_psi says why), applied after the derivatives point by point
 * through cpml_apply, as cpml_axis_quad does along z, so a point gives
 * the same bits in either build. */
template <typename T, int W> struct zslab_psi {
    T v[W];
    T *at;
    int side; /* local_side along z: -1 none */
};

template <typename T, int W, bool ZS>
__device__ __forceinline__ void zslab_read(const tl_fdtd_kargs &a, int m, int64_t x, int64_t y, int64_t z,
                                           zslab_psi<T, W> &q)
{
    q.side = ZS ? local_side(a, 2, (int)z) : -1;
    if (q.side < 0) return;
    q.at = cpml_psi<T>(a, m, q.side, x, y, z);
    vec_io<T, W>::ld(q.at, q.v);
}

template <typename T, int W, bool ZS>
__device__ __forceinline__ void zslab_apply(const tl_fdtd_kargs &a, int pa, int64_t z, zslab_psi<T, W> &q, T (&dz)[W])
{
    if (!ZS || q.side < 0) return;
    const T *pr = (const T *)a.prof[2];
    const int64_t n = a.N[2], g = a.o[2] + z;
    const T pa0 = pr[pa * n + g], pb = pr[(pa + 1) * n + g], pik = pr[(pa + 2) * n + g];
#pragma unroll
    for (int j = 0; j < W; j++) dz[j] = cpml_apply(dz[j], q.v[j], pa0, pb, pik);
    vec_io<T, W>::st(q.at, q.v);
}

/* Whether a point of the quad at local (x, y, z) lies in a CPML slab. */
template <int W>
__device__ __forceinline__ bool quad_in_slab(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z)
{
    return local_side(a, 0, (int)x) >= 0 || local_side(a, 0, (int)x + W - 1) >= 0 || local_side(a, 1, (int)y) >= 0 ||
           local_side(a, 2, (int)z) >= 0;
}

/* The buoyancy times dt of the quad at element i, per axis. */
template <typename T, int W>
__device__ __forceinline__ void buoyancy_quad(const tl_fdtd_kargs &a, int64_t i, T (&b)[3][W])
{
#pragma unroll
    for (int d = 0; d < 3; d++) {
        if (a.mat[1 + d]) vec_io<T, W>::ro((const T *)a.mat[1 + d] + i, b[d]);
        else {
#pragma unroll
            for (int j = 0; j < W; j++) b[d][j] = (T)a.bdt;
        }
    }
}

/* The W values at p that this thread alone writes in this kernel, and only
 * after it has read them. RO: through the read-only path, which that
 * order makes safe (no thread writes an element another reads, and the
 * store needs the loaded value). The plain build's velocity kernel then
 * spills 8 B instead of 16 (sm_90, float, order 8), and runs 480^3 at
 * 74,675 Mpoints/s against 73,506 without CPML, 63,964 against 63,558
 * with (its interior); 1024^3 70,163 against 69,426 and 66,027 against
 * 65,517 (three rounds alternated, results/wave3-checks-h200/session14/G).
 * The CPML build reads them as before: with the read-only path ptxas
 * spilled 68 B instead of 8 in the shell's velocity kernel, and the
 * correction moved ahead of the loads to fit (no spill at 72 registers,
 * 8 B at 64) cost the shell more than its extra warps gained (session14/F). */
template <typename T, int W, bool RO> __device__ __forceinline__ void read_own(const T *p, T *o)
{
    if (RO) vec_io<T, W>::ro(p, o);
    else vec_io<T, W>::ld(p, o);
}

/* v -= b d, point by point */
template <typename T, int W> __device__ __forceinline__ void sub_scaled(T (&v)[W], const T (&b)[W], const T (&d)[W])
{
#pragma unroll
    for (int j = 0; j < W; j++) v[j] -= b[j] * d[j];
}

/* The velocity update of the quad at (x, y, z), element i: v_point's
 * arithmetic for W points at once, the CPML correction per point. In
 * float the three fields are read before any is written, and before the
 * memory variables are: the compiler cannot tell the arrays apart, so a
 * load after a store to memory it might alias waits for that store, which
 * waited for its own load (three DRAM round trips in a row instead of
 * one; at 480^3 on one H200 0.764 -> 0.781 of triad without CPML, and
 * the CPML kernel fits 64 registers). In double the twelve more
 * registers spill (168 B with CPML) and it ran 7% slower, so there each
 * field is read, updated and written in turn, in the order of the code
 * before the cut: written as one loop over the three fields with the
 * float path, the compiler split three of its six 16-byte stores into
 * 8-byte halves (PTX), and the plain update in double ran 7.6% slower. */
template <typename T, int R, int W, bool RO, bool ZS>
__device__ __forceinline__ void v_quad(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z, int64_t i, bool cpml)
{
    T dx[W], dy[W], dz[W];
    const T *p = (const T *)a.f[0];
    quad_psi<T, W> q;
    zslab_psi<T, W> zq;
    if (cpml) cpml_quad_read<T, W>(a, 0, x, y, z, p + i, q);
    zslab_read<T, W, ZS>(a, 2, x, y, z, zq);
    quad_derivs<T, R, W, 1>(a, p, p, p, i, dx, dy, dz);
    T *vx = (T *)a.f[1] + i, *vy = (T *)a.f[2] + i, *vz = (T *)a.f[3] + i;
    if constexpr (sizeof(T) == 4) {
        T b[3][W], v[3][W];
        buoyancy_quad<T, W>(a, i, b);
        read_own<T, W, RO>(vx, v[0]);
        read_own<T, W, RO>(vy, v[1]);
        read_own<T, W, RO>(vz, v[2]);
        if (cpml) cpml_quad<T, W>(a, 0, TL_FDTD_PROF_AH, x, y, z, q, dx, dy, dz);
        zslab_apply<T, W, ZS>(a, TL_FDTD_PROF_AH, z, zq, dz);
        sub_scaled<T, W>(v[0], b[0], dx);
        sub_scaled<T, W>(v[1], b[1], dy);
        sub_scaled<T, W>(v[2], b[2], dz);
        vec_io<T, W>::st(vx, v[0]);
        vec_io<T, W>::st(vy, v[1]);
        vec_io<T, W>::st(vz, v[2]);
    } else {
        if (cpml) cpml_quad<T, W>(a, 0, TL_FDTD_PROF_AH, x, y, z, q, dx, dy, dz);
        zslab_apply<T, W, ZS>(a, TL_FDTD_PROF_AH, z, zq, dz);
        T b[3][W], v[W];
        buoyancy_quad<T, W>(a, i, b);
        vec_io<T, W>::ld(vx, v);
        sub_scaled<T, W>(v, b[0], dx);
        vec_io<T, W>::st(vx, v);
        vec_io<T, W>::ld(vy, v);
        sub_scaled<T, W>(v, b[1], dy);
        vec_io<T, W>::st(vy, v);
        vec_io<T, W>::ld(vz, v);
        sub_scaled<T, W>(v, b[2], dz);
        vec_io<T, W>::st(vz, v);
    }
}

/* The pressure update of the quad at (x, y, z), element i: p_point's
 * arithmetic; with CPML p and K read before the memory variables are
 * written (v_quad says why). */
template <typename T, int R, int W, bool RO, bool ZS>
__device__ __forceinline__ void p_quad(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z, int64_t i, bool cpml)
{
    T dx[W], dy[W], dz[W];
    quad_psi<T, W> q;
    zslab_psi<T, W> zq;
    if (cpml) cpml_quad_read<T, W>(a, 3, x, y, z, (const T *)a.f[0] + i, q);
    zslab_read<T, W, ZS>(a, 5, x, y, z, zq);
    quad_derivs<T, R, W, 0>(a, (const T *)a.f[1], (const T *)a.f[2], (const T *)a.f[3], i, dx, dy, dz);
    T k[W], pv[W];
    if (a.mat[0]) vec_io<T, W>::ro((const T *)a.mat[0] + i, k);
    else {
#pragma unroll
        for (int j = 0; j < W; j++) k[j] = (T)a.kdt;
    }
    T *p = (T *)a.f[0] + i;
    read_own<T, W, RO>(p, pv);
    if (cpml) cpml_quad<T, W>(a, 3, TL_FDTD_PROF_A, x, y, z, q, dx, dy, dz);
    zslab_apply<T, W, ZS>(a, TL_FDTD_PROF_A, z, zq, dz);
#pragma unroll
    for (int j = 0; j < W; j++) pv[j] -= k[j] * (dx[j] + dy[j] + dz[j]);
    vec_io<T, W>::st(p, pv);
}

/* Whether the quad at local x (W points from x) takes the vector path:
 * inside the box and its x stencil inside the allocated row. */
template <int R, int W>
__device__ __forceinline__ bool quad_is_whole(const tl_fdtd_kargs &a, const box3 &b, int64_t x, int row0)
{
    constexpr int HX = quad_halo<R, W>();
    return x >= b.lo[0] && x + W <= b.lo[0] + b.ex && x - HX >= row0 && x + W + HX <= row0 + a.sx;
}

/* Blocks of NT threads per SM the kernels are built for. Left to itself,
 * ptxas's register count moves with unrelated changes (float, order 8:
 * 44-64 without CPML, 80-94 with); in blocks of 256 these bounds keep
 * float at 5 blocks without CPML (at most 51 registers: the first H200
 * run's 44-48 gave 0.77 of triad at 480^3) and 4 with (64), double at 4
 * and 3 (64, 85; unbounded, up to 177). The CPML shell runs in blocks of
 * 64 (shell_rows): float's CPML build there at 14 blocks and 72
 * registers (the velocity kernel spills 8 B), where at 64 registers
 * ptxas spilled 32-36 B, in one build the freshly loaded velocities,
 * each spill store then waiting for its load (results/wave3-checks-h200/
 * session7/Z). */
template <typename T, bool CPML, int NT> __host__ __device__ constexpr int min_blocks()
{
    /* ptxas refuses more than 32 (the blocks an SM holds on sm_90) */
    constexpr int per256 = sizeof(T) == 4 ? (CPML ? 4 : 5) : (CPML ? 3 : 4);
    constexpr int n = NT == 64 && sizeof(T) == 4 && CPML ? 14 : per256 * 256 / NT;
    return n < 32 ? n : 32;
}

/* Rows of the CPML shell's blocks: a quarter of the interior's, blocks of
 * 64 threads. The shell runs beside the interior (launch) and its blocks
 * are fitted in where the interior's leave room: at 480^3 with 20 cells
 * the update with CPML ran at 0.845 of the rate without in blocks of 64,
 * 0.841 in blocks of 128 and 0.829 in blocks of 256, while the shell
 * alone took the same time in each (ncu, one launch at a time);
 * float's CPML build in blocks of 256 at 80 registers (3 blocks, no
 * spill) ran at 0.816 (results/wave3-checks-h200/session7/Z2). With the
 * vote left out and the slab tests packed (o.vote, quad_sides), 0.852
 * against 0.847 (session7/Z3). */
template <int BY> constexpr int shell_rows()
{
    return BY >= 4 ? BY / 4 : 1;
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
    /* local x of a row's first element, -(off % sx) (grid.c), made on the
     * host for the plain build and the shell's: a remainder in the kernel
     * is a 64-bit division per thread */
    int row0;
    /* the CPML build: whether a warp first asks whether any of its quads
     * lies in a slab (a box holding interior points); 0 for the shell's
     * boxes, where every warp holds slab points (launch) and the vote
     * and its four slab tests are instructions spent for nothing */
    int vote;
    /* banded: the blocks of a band, of a plane of it and of the last
     * band's plane (fewer rows where band does not divide nby), and nbx,
     * as divisors (a multiply and a shift each: fast_div.h) */
    tl_fast_div full, plane, plane_last, row;
} block_order;

/* o's divisors for its band (> 0) */
static void block_order_band(block_order &o, int band)
{
    o.band = band;
    const uint32_t last = (uint32_t)(o.nby - (o.nby - 1) / band * band);
    o.full = tl_fast_div_of((uint32_t)o.nbx * (uint32_t)band * (uint32_t)o.nz);
    o.plane = tl_fast_div_of((uint32_t)o.nbx * (uint32_t)band);
    o.plane_last = tl_fast_div_of((uint32_t)o.nbx * last);
    o.row = tl_fast_div_of((uint32_t)o.nbx);
}

/* Block id of the banded walk, by division */
__device__ __forceinline__ void banded_by_division(const block_order &o, int64_t id, int64_t &bx, int64_t &by,
                                                   int64_t &bz)
{
    int64_t full = (int64_t)o.nbx * o.band * o.nz, band = id / full, r = id - band * full;
    int64_t rows = o.nby - band * o.band < o.band ? o.nby - band * o.band : o.band, plane = (int64_t)o.nbx * rows;
    bz = r / plane;
    r -= bz * plane;
    by = band * o.band + r / o.nbx;
    bx = r % o.nbx;
}

/* Block id of a box walked as a 1-D grid (the shell's table): as the 3-D
 * grid, x fastest, then y, then z; or banded, by division although the
 * shell's builds otherwise take the host's quotients (divides_in_kernel):
 * with the multiply-and-shift walk ptxas spilled 4 B in the shell's
 * pressure kernel (sm_90, float, order 8; none by division) */
__device__ __forceinline__ void block_at(const block_order &o, uint32_t id, int64_t &bx, int64_t &by, int64_t &bz)
{
    if (o.band != 0) {
        banded_by_division(o, id, bx, by, bz);
        return;
    }
    const uint32_t row = id / (uint32_t)o.nbx;
    bx = id - row * (uint32_t)o.nbx;
    by = row % (uint32_t)o.nby;
    bz = row / (uint32_t)o.nby;
}

/* BY_DIVISION: the banded walk by division (divides_in_kernel) */
template <bool BY_DIVISION>
__device__ __forceinline__ void block_of(const block_order &o, int64_t &bx, int64_t &by, int64_t &bz)
{
    if (o.band == 0) {
        bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
        return;
    }
    if (BY_DIVISION) {
        banded_by_division(o, blockIdx.x, bx, by, bz);
        return;
    }
    /* the grid has fewer than 2^31 blocks (launch_box) */
    uint32_t id = blockIdx.x, band = tl_fast_div_quot(o.full, id), r = id - band * o.full.d;
    const tl_fast_div &plane = (band + 1) * (uint32_t)o.band > (uint32_t)o.nby ? o.plane_last : o.plane;
    uint32_t z = tl_fast_div_quot(plane, r);
    r -= z * plane.d;
    uint32_t y = tl_fast_div_quot(o.row, r);
    bz = z;
    by = (int64_t)band * o.band + y;
    bx = r - y * o.row.d;
}

/* Whether a build divides in the kernel (the banded walk and row0)
 * rather than taking the host's quotients: the CPML build in blocks of
 * more than 64 threads (the whole box where it has no interior, launch),
 * whose 64 registers spilled 72 B instead of 32 without the divisions in
 * float's velocity kernel (sm_90, order 8), and 480^3 with 20 cells ran
 * 1 % slower (results/wave3-checks-h200/session6/S). The plain build, without
 * them, ran 0.5 % faster at 480^3 and 2.6 % at 1024^3, where it is
 * banded; the shell's, in blocks of 64 at 72 registers, spills 8 B
 * either way, and without the 64-bit remainder a thread that row0 was
 * the update with CPML ran at 0.8641 of the rate without at 480^3
 * against 0.8614, 0.9427 against 0.9395 at 1024^3 (three rounds
 * alternated, results/wave3-checks-h200/session14/B). */
template <bool CPML, int NT> __host__ __device__ constexpr bool divides_in_kernel()
{
    return CPML && NT > 64;
}

/* A thread's quad of an update (V: velocity, else pressure) in block
 * (bx, by, bz) of box b: blocks of BX x BY threads, a quad each (BX W
 * points along x), one z plane a block; xq: the box's first quad
 * (W-aligned). */
template <typename T, int R, int W, int BX, int BY, bool CPML, bool V, bool ZS = false>
__device__ __forceinline__ void update_quad_at(const tl_fdtd_kargs &a, const box3 &b, int64_t xq, const block_order &o,
                                               int64_t bx, int64_t by, int64_t bz)
{
    const int row0 = divides_in_kernel<CPML, BX * BY>() ? (int)-(a.off % a.sx) : o.row0;
    int64_t x = xq + (int64_t)W * (bx * BX + threadIdx.x), y = b.lo[1] + by * BY + threadIdx.y, z = b.lo[2] + bz;
    if (y >= b.lo[1] + b.ey || x >= b.lo[0] + b.ex) return;
    if (quad_is_whole<R, W>(a, b, x, row0)) {
        int64_t i = a.off + x + y * a.sx + z * a.sxy;
        /* one path per warp: a warp with no point in a slab runs the
         * plain update, without a memory variable or a slab test */
        bool cpml = CPML && (!o.vote || __any_sync(__activemask(), quad_in_slab<W>(a, x, y, z)));
        if (V) v_quad<T, R, W, !CPML, ZS>(a, x, y, z, i, cpml);
        else p_quad<T, R, W, !CPML, ZS>(a, x, y, z, i, cpml);
        return;
    }
#pragma unroll
    for (int j = 0; j < W; j++) {
        if (x + j < b.lo[0] || x + j >= b.lo[0] + b.ex) continue;
        if (V) v_point<T, R>(a, x + j, y, z, CPML || ZS);
        else p_point<T, R>(a, x + j, y, z, CPML || ZS);
    }
}

/* The quad of the launch's block (block_of) */
template <typename T, int R, int W, int BX, int BY, bool CPML, bool V, bool ZS = false>
__device__ __forceinline__ void update_quad(const tl_fdtd_kargs &a, const box3 &b, int64_t xq, const block_order &o)
{
    int64_t bx, by, bz;
    block_of<divides_in_kernel<CPML, BX * BY>()>(o, bx, by, bz);
    update_quad_at<T, R, W, BX, BY, CPML, V, ZS>(a, b, xq, o, bx, by, bz);
}

/* The CPML shell's pressure update in one launch over its boxes: box k
 * takes the blocks from first[k], in its own walk (block_at). ncu timed
 * the six launches alone at 291-293 us at 480^3 with 20 cells, the one launch
 * at 275 us (the L2 fabric 91 % busy against 80-86 %: no launch's last
 * blocks leave SMs idle that the next could not take), and the step with
 * CPML ran at 0.8615 of the rate without against 0.8594 (beside the
 * interior, whose blocks take most of that idle time already;
 * results/wave3-checks-h200/session12/E). The velocity update stays in
 * six launches: with the box indexed by k ptxas spilled 28 B in its
 * kernel against 8, and both updates in one launch each ran at 0.8543. */
struct shell_table {
    uint32_t first[7]; /* first[n]: the blocks of all n boxes; unset past n (update_shell tests j < n) */
    int n;
    box3 b[6];
    int64_t xq[6];
    block_order o[6];
};

template <typename T, int R, int W, int BX, int BY>
__device__ __forceinline__ void update_shell(const tl_fdtd_kargs &a, const shell_table &t)
{
    const uint32_t id = blockIdx.x;
    int k = 0;
#pragma unroll
    for (int j = 1; j < 6; j++) k += j < t.n && id >= t.first[j];
    int64_t bx, by, bz;
    block_at(t.o[k], id - t.first[k], bx, by, bz);
    update_quad_at<T, R, W, BX, BY, true, false>(a, t.b[k], t.xq[k], t.o[k], bx, by, bz);
}

/* two kernels, so the traces name the update */
template <typename T, int R, int W, int BX, int BY, bool CPML>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, CPML, BX * BY>())
    tl_fdtd_v_vec_kernel(const tl_fdtd_kargs a, box3 b, int64_t xq, block_order o)
{
    update_quad<T, R, W, BX, BY, CPML, true>(a, b, xq, o);
}
template <typename T, int R, int W, int BX, int BY, bool CPML>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, CPML, BX * BY>())
    tl_fdtd_p_vec_kernel(const tl_fdtd_kargs a, box3 b, int64_t xq, block_order o)
{
    update_quad<T, R, W, BX, BY, CPML, false>(a, b, xq, o);
}
/* The z-slab build (ZS): the plain build and the z slabs' memory
 * variable, for the interior's x-y extent through all z (`launch`). At 4
 * blocks of 256 an SM (64 registers, float, order 8, no spill); at the
 * plain build's 5 (48) float's velocity kernel spilled 36 B and the
 * update with CPML ran at 0.830 of the rate without at 480^3 against
 * 0.878 at 4 (one H100, results/wave3-checks-h200/session22/I). Float
 * only (launch). */
template <typename T, int R, int W, int BX, int BY>
__global__ void __launch_bounds__(BX *BY, 4 * 256 / (BX * BY))
    tl_fdtd_v_vec_zslab_kernel(const tl_fdtd_kargs a, box3 b, int64_t xq, block_order o)
{
    update_quad<T, R, W, BX, BY, false, true, true>(a, b, xq, o);
}
template <typename T, int R, int W, int BX, int BY>
__global__ void __launch_bounds__(BX *BY, 4 * 256 / (BX * BY))
    tl_fdtd_p_vec_zslab_kernel(const tl_fdtd_kargs a, box3 b, int64_t xq, block_order o)
{
    update_quad<T, R, W, BX, BY, false, false, true>(a, b, xq, o);
}

/* the shell's pressure update, the CPML build (CPML always true: its
 * name ends as tl_fdtd_p_vec_kernel's CPML build does, for the trace and
 * the ncu readers) */
template <typename T, int R, int W, int BX, int BY, bool CPML>
__global__ void __launch_bounds__(BX *BY, min_blocks<T, CPML, BX * BY>())
    tl_fdtd_p_vec_shell_kernel(const __grid_constant__ tl_fdtd_kargs a, const __grid_constant__ shell_table t)
{
    update_shell<T, R, W, BX, BY>(a, t);
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

/* A box's first quad (W-aligned) and its blocks' walk */
template <typename T, int R, int W, int BX, int BY>
block_order order_of(const tl_fdtd_kargs &a, const box3 &b, bool vote, bool banded, int64_t &xq)
{
    xq = b.lo[0] >= 0 ? b.lo[0] / W * W : -((-b.lo[0] + W - 1) / W * W);
    int64_t quads = (b.lo[0] + b.ex - xq + W - 1) / W;
    block_order o = {(int)((quads + BX - 1) / BX), (b.ey + BY - 1) / BY, b.ez, 0, (int)-(a.off % a.sx), vote,
                     {}, {}, {}, {}};
    if (banded) {
        int band = band_rows<T, R, BY>(a, o.nby);
        if (band > 0) block_order_band(o, band);
    }
    return o;
}

/* ZS: the z-slab build (cpml false), float only (launch) */
template <typename T, int R, int W, int BX, int BY, bool ZS = false>
void launch_box(const tl_fdtd_kargs &a, int which, const box3 &b, bool cpml, bool vote, bool banded, cudaStream_t s)
{
    if (b.ex <= 0 || b.ey <= 0 || b.ez <= 0) return;
    int64_t xq;
    block_order o = order_of<T, R, W, BX, BY>(a, b, vote, banded, xq);
    dim3 block(BX, BY), grid((unsigned)o.nbx, (unsigned)o.nby, (unsigned)b.ez);
    if (o.band > 0) grid = dim3((unsigned)((int64_t)o.nbx * o.nby * o.nz)); /* at most 2^31 - 1 blocks: 32 768^2 x 2048 */
    /* CPML a template argument: its path costs 16 registers (48 -> 64,
     * float, order 8, blocks of 256: a block fewer per SM) */
    if constexpr (ZS) {
        if (which == 0) tl_fdtd_v_vec_zslab_kernel<T, R, W, BX, BY><<<grid, block, 0, s>>>(a, b, xq, o);
        else tl_fdtd_p_vec_zslab_kernel<T, R, W, BX, BY><<<grid, block, 0, s>>>(a, b, xq, o);
        return;
    }
    if (which == 0 && cpml) tl_fdtd_v_vec_kernel<T, R, W, BX, BY, true><<<grid, block, 0, s>>>(a, b, xq, o);
    else if (which == 0) tl_fdtd_v_vec_kernel<T, R, W, BX, BY, false><<<grid, block, 0, s>>>(a, b, xq, o);
    else if (cpml) tl_fdtd_p_vec_kernel<T, R, W, BX, BY, true><<<grid, block, 0, s>>>(a, b, xq, o);
    else tl_fdtd_p_vec_kernel<T, R, W, BX, BY, false><<<grid, block, 0, s>>>(a, b, xq, o);
}

/* The box of points from lo to hi (local, per axis). */
static box3 box_of(const int64_t lo[3], const int64_t hi[3])
{
    return box3{{lo[0], lo[1], lo[2]}, (int)(hi[0] - lo[0]), (int)(hi[1] - lo[1]), (int)(hi[2] - lo[2])};
}

/* An update with CPML. The kernel with the CPML path has 64 registers
 * in blocks of 256 (float) against the plain kernel's 48, so it runs a
 * block fewer per SM (4 against 5), and that would slow every point if
 * it took the whole box. So the box is cut (cpml_cut.h): in float its
 * interior (no point in a slab of x or y, x edges rounded inward to whole
 * rows of blocks) runs through all z on s, in the z-slab build where the
 * box holds z slab points and the plain build elsewhere, and the shell
 * around it, four boxes (y below and above over the box's whole x and z
 * extent, then x over the interior y and the whole z), runs the CPML
 * kernel on s_shell, beside it (tl_fdtd_shell_stream), in smaller blocks
 * (shell_rows). In double the z-slab build spilled (16 and 100 B at 4
 * blocks), so there the interior stops at the z slabs too and runs the
 * plain build, and the shell has six boxes, z below and above over the
 * whole x-y extent first. A point's arithmetic is the same in every
 * build (an interior point's CPML terms are the identity), so the fields
 * do not depend on where the cut falls. On one H100 the z slabs in the
 * interior's launch ran the update with CPML at 0.878 of the rate
 * without at 480^3 against 0.868 with them in the shell, 0.969 against
 * 0.953 at 1024^3; in launches of their own before and after the
 * interior's, 0.864 (results/wave3-checks-h200/session22/H, I). */
template <typename T, int R, int W, int BX, int BY>
void launch(const tl_fdtd_kargs &a, int which, const box3 &b, bool cpml, bool banded, cudaStream_t s,
            cudaStream_t s_shell)
{
    if (!cpml) {
        launch_box<T, R, W, BX, BY>(a, which, b, false, false, banded, s);
        return;
    }
    constexpr unsigned fold = sizeof(T) == 4 ? 1u << 2 : 0; /* the z slabs in the interior */
    const int ext[3] = {b.ex, b.ey, b.ez};
    int64_t hi[3], slab_end[3], slab_start[3];
    for (int e = 0; e < 3; e++) {
        hi[e] = b.lo[e] + ext[e];
        slab_end[e] = a.L - a.o[e]; /* local */
        slab_start[e] = a.N[e] - 1 - a.L - a.o[e];
    }
    tl_fdtd_cpml_cut cut;
    tl_fdtd_cpml_cut_of(b.lo, hi, slab_end, slab_start, fold, &cut);
    if (!cut.interior) {
        launch_box<T, R, W, BX, BY>(a, which, b, true, true, banded, s);
        return;
    }
    const box3 in = box_of(cut.in.lo, cut.in.hi);
    if constexpr (fold == 0) launch_box<T, R, W, BX, BY>(a, which, in, false, false, banded, s);
    else if (cut.in_slabs) launch_box<T, R, W, BX, BY, true>(a, which, in, false, false, banded, s);
    else launch_box<T, R, W, BX, BY>(a, which, in, false, false, banded, s);
    constexpr int SR = shell_rows<BY>();
    shell_table t = {};
    for (int j = 0; j < cut.nshell; j++) {
        box3 sb = box_of(cut.shell[j].lo, cut.shell[j].hi);
        if (which == 0) { /* velocity: a launch a box (shell_table says why) */
            launch_box<T, R, W, BX, SR>(a, which, sb, true, false, banded, s_shell);
            continue;
        }
        const int k = t.n++;
        t.b[k] = sb;
        t.o[k] = order_of<T, R, W, BX, SR>(a, sb, false, banded, t.xq[k]);
        t.first[k + 1] = t.first[k] + (uint32_t)t.o[k].nbx * (uint32_t)t.o[k].nby * (uint32_t)t.o[k].nz;
    }
    if (t.n == 0) return;
    tl_fdtd_p_vec_shell_kernel<T, R, W, BX, SR, true><<<t.first[t.n], dim3(BX, SR), 0, s_shell>>>(a, t);
}

template <typename T, int R>
void launch_variant(const tl_fdtd_kargs &a, int which, const box3 &b, int variant, bool cpml, cudaStream_t s,
                    cudaStream_t ss)
{
    switch (variant) { /* width, block: quads along x, rows */
    case TL_FDTD_VARIANT_VEC2: launch<T, R, 2, 16, 16>(a, which, b, cpml, false, s, ss); break;
    case TL_FDTD_VARIANT_VEC4_X128: launch<T, R, 4, 32, 8>(a, which, b, cpml, false, s, ss); break;
    case TL_FDTD_VARIANT_VEC4_BAND: launch<T, R, 4, 8, 32>(a, which, b, cpml, true, s, ss); break;
    default: launch<T, R, 4, 8, 32>(a, which, b, cpml, false, s, ss); break;
    }
}

template <typename T>
void launch_order(const tl_fdtd_kargs &a, int which, const box3 &b, int variant, bool cpml, cudaStream_t s,
                  cudaStream_t ss)
{
    switch (a.r) {
    case 1: launch_variant<T, 1>(a, which, b, variant, cpml, s, ss); break;
    case 2: launch_variant<T, 2>(a, which, b, variant, cpml, s, ss); break;
    default: launch_variant<T, 4>(a, which, b, variant, cpml, s, ss); break;
    }
}

} // namespace

extern "C" cudaError_t tl_fdtd_cuda_vec_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3],
                                               const int64_t hi[3], int variant, int cpml, int dbl, cudaStream_t s,
                                               const tl_fdtd_shell_stream *shell)
{
    box3 b = box_of(lo, hi);
    if (b.ex <= 0 || b.ey <= 0 || b.ez <= 0) return cudaSuccess;
    const bool fork = cpml && shell;
    cudaError_t e = cudaSuccess;
    if (fork) {
        e = cudaEventRecord(shell->fork, s);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(shell->s, shell->fork, 0);
        if (e != cudaSuccess) return e;
    }
    cudaStream_t ss = fork ? shell->s : s;
    if (dbl) launch_order<double>(*a, which, b, variant, cpml != 0, s, ss);
    else launch_order<float>(*a, which, b, variant, cpml != 0, s, ss);
    e = cudaPeekAtLastError();
    if (e == cudaSuccess && fork) {
        e = cudaEventRecord(shell->join, shell->s);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(s, shell->join, 0);
    }
    return e;
}
