/* The CPU reference updates, included by cpu.c once per precision with
 * T (float or double), SFX (_f or _d) and FLUSH (1: the updates' threads
 * flush subnormals to zero, cpu.c's fp_flush_subnormals) defined. Every
 * point is updated by the same expression, whichever box it is in, so a
 * decomposed run repeats the single-domain arithmetic exactly. */
#define TL_CAT2_(a, b) a##b
#define TL_CAT_(a, b) TL_CAT2_(a, b)
#define FN(name) TL_CAT_(name, SFX)

/* The memory variable of axis d at global coordinate g: psi of slab side,
 * or NULL outside the slabs. */
static inline T *FN(psi_at)(const tl_fdtd_kargs *a, int m, int64_t g, int64_t x, int64_t y, int64_t z)
{
    int d = m % 3;
    int side = g < a->L ? 0 : g >= a->N[d] - 1 - a->L ? 1 : -1;
    if (side < 0) return NULL;
    const tl_fdtd_layout *l = &a->psil[m][side];
    return (T *)a->psi[m][side] + l->off + x + y * l->sx + z * l->sxy;
}

/* The CPML term of memory variable m (axis m % 3) at (x, y, z): its
 * psi there (NULL outside the axis's slabs) and the profile's a, b and
 * 1 / kappa at the point's global coordinate on that axis (pa: the
 * profile of a, TL_FDTD_PROF_A or _AH; b and 1 / kappa follow it). Along
 * a row the y and z terms are the same but for psi's x offset, so the
 * updates take them once a row (with x = 0) and the x term a point:
 * until the row's terms a CPML point cost 4.8 interior points on the CPU. */
typedef struct FN(term) {
    T *ps;
    T a, b, ik;
} FN(term);

static inline FN(term) FN(term_at)(const tl_fdtd_kargs *a, int m, int pa, int64_t x, int64_t y, int64_t z)
{
    int e = m % 3;
    int64_t lc[3] = {x, y, z};
    int64_t g = a->o[e] + lc[e], n = a->N[e];
    FN(term) t = {FN(psi_at)(a, m, g, x, y, z), 0, 0, 0};
    if (t.ps) {
        const T *pr = a->prof[e];
        t.a = pr[pa * n + g];
        t.b = pr[(pa + 1) * n + g];
        t.ik = pr[(pa + 2) * n + g];
    }
    return t;
}

/* The correction of derivative d by term t, psi at t.ps + x: inside a
 * slab psi = b psi + a d, then d = d / kappa + psi. */
static inline void FN(term_apply)(const FN(term) *t, int64_t x, T *d)
{
    if (!t->ps) return;
    T *ps = t->ps + x;
    *ps = t->b * *ps + t->a * *d;
    *d = *d * t->ik + *ps;
}

/* The CPML terms of a row's y and z axes (m0: the first memory variable,
 * 0: v's, 3: p's); without CPML none. */
static inline void FN(row_terms)(const tl_fdtd_kargs *a, int cpml, int m0, int pa, int64_t y, int64_t z,
                                 FN(term) t[2])
{
    FN(term) none = {NULL, 0, 0, 0};
    t[0] = cpml ? FN(term_at)(a, m0 + 1, pa, 0, y, z) : none;
    t[1] = cpml ? FN(term_at)(a, m0 + 2, pa, 0, y, z) : none;
}

/* The CPML correction of the derivatives (dx, dy, dz) at x of a row whose
 * y and z terms are ty[0], ty[1]. */
static inline void FN(cpml_correct)(const tl_fdtd_kargs *a, int m0, int pa, const FN(term) ty[2], int64_t x,
                                    int64_t y, int64_t z, T *dx, T *dy, T *dz)
{
    FN(term) tx = FN(term_at)(a, m0, pa, x, y, z);
    FN(term_apply)(&tx, 0, dx);
    FN(term_apply)(&ty[0], x, dy);
    FN(term_apply)(&ty[1], x, dz);
}

/* The velocity update of box b: a work-sharing loop, run by the team of
 * FN(update). */
static void FN(v_points)(const tl_fdtd_kargs *a, const tl_fdtd_box *b, int cpml)
{
    const T *p = a->f[0];
    T *vx = a->f[1], *vy = a->f[2], *vz = a->f[3];
    const T *mx = a->mat[1], *my = a->mat[2], *mz = a->mat[3];
    const int r = a->r;
    const int64_t sx = a->sx, sxy = a->sxy;
    T c[4], bdt = (T)a->bdt;
    for (int m = 0; m < 4; m++) c[m] = (T)a->c[m];
#pragma omp for collapse(2) schedule(static)
    for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
        for (int64_t y = b->lo[1]; y < b->hi[1]; y++) {
            FN(term) ty[2];
            FN(row_terms)(a, cpml, 0, TL_FDTD_PROF_AH, y, z, ty);
            for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
                int64_t i = a->off + x + y * sx + z * sxy;
                T dx = 0, dy = 0, dz = 0;
                for (int m = 0; m < r; m++) {
                    dx += c[m] * (p[i + m + 1] - p[i - m]);
                    dy += c[m] * (p[i + (m + 1) * sx] - p[i - m * sx]);
                    dz += c[m] * (p[i + (m + 1) * sxy] - p[i - m * sxy]);
                }
                if (cpml) FN(cpml_correct)(a, 0, TL_FDTD_PROF_AH, ty, x, y, z, &dx, &dy, &dz);
                vx[i] -= (mx ? mx[i] : bdt) * dx;
                vy[i] -= (my ? my[i] : bdt) * dy;
                vz[i] -= (mz ? mz[i] : bdt) * dz;
            }
        }
}

/* The pressure update of box b, as FN(v_points). */
static void FN(p_points)(const tl_fdtd_kargs *a, const tl_fdtd_box *b, int cpml)
{
    T *p = a->f[0];
    const T *vx = a->f[1], *vy = a->f[2], *vz = a->f[3];
    const T *mk = a->mat[0];
    const int r = a->r;
    const int64_t sx = a->sx, sxy = a->sxy;
    T c[4], kdt = (T)a->kdt;
    for (int m = 0; m < 4; m++) c[m] = (T)a->c[m];
#pragma omp for collapse(2) schedule(static)
    for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
        for (int64_t y = b->lo[1]; y < b->hi[1]; y++) {
            FN(term) ty[2];
            FN(row_terms)(a, cpml, 3, TL_FDTD_PROF_A, y, z, ty);
            for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
                int64_t i = a->off + x + y * sx + z * sxy;
                T dx = 0, dy = 0, dz = 0;
                for (int m = 0; m < r; m++) {
                    dx += c[m] * (vx[i + m] - vx[i - m - 1]);
                    dy += c[m] * (vy[i + m * sx] - vy[i - (m + 1) * sx]);
                    dz += c[m] * (vz[i + m * sxy] - vz[i - (m + 1) * sxy]);
                }
                if (cpml) FN(cpml_correct)(a, 3, TL_FDTD_PROF_A, ty, x, y, z, &dx, &dy, &dz);
                p[i] -= (mk ? mk[i] : kdt) * (dx + dy + dz);
            }
        }
}

/* The update of box b (which: 0 velocity, 1 pressure), each thread of
 * the team flushing subnormals (FLUSH) for the loop and restoring its
 * own mode after it. */
static void FN(update)(const tl_fdtd_kargs *a, const tl_fdtd_box *b, int which, int cpml)
{
#pragma omp parallel if (tl_fdtd_box_count(b) >= CPU_PARALLEL_MIN_POINTS)
    {
        fp_mode was = FLUSH ? fp_flush_subnormals() : 0;
        if (which == 0) FN(v_points)(a, b, cpml);
        else FN(p_points)(a, b, cpml);
        if (FLUSH) fp_restore(was);
    }
}

static void FN(pack)(const tl_fdtd_segdesc *d, int nseg, T *buf, int unpack)
{
    for (int s = 0; s < nseg; s++) {
        T *base = d[s].ptr;
        T *bp = buf + d[s].buf_off;
        int64_t ex = d[s].ext[0], ey = d[s].ext[1], ez = d[s].ext[2];
        for (int64_t z = 0; z < ez; z++)
            for (int64_t y = 0; y < ey; y++) {
                T *row = base + d[s].off + d[s].lo[0] + (d[s].lo[1] + y) * d[s].sx + (d[s].lo[2] + z) * d[s].sxy;
                T *br = bp + (z * ey + y) * ex;
                if (unpack) memcpy(row, br, (size_t)ex * sizeof(T));
                else memcpy(br, row, (size_t)ex * sizeof(T));
            }
    }
}

/* First point of the owned box (z, y, x order) where p is not finite or
 * above `limit` in magnitude; -1 if none. */
static int64_t FN(check)(const T *p, const tl_fdtd_layout *l, const int64_t n[3], double limit)
{
    for (int64_t z = 0; z < n[2]; z++)
        for (int64_t y = 0; y < n[1]; y++)
            for (int64_t x = 0; x < n[0]; x++) {
                double v = (double)p[l->off + x + y * l->sx + z * l->sxy];
                if (!isfinite(v) || fabs(v) > limit) return (z * n[1] + y) * n[0] + x;
            }
    return -1;
}

static double FN(energy)(const tl_fdtd_kargs *a, const int64_t n[3], const tl_fdtd_medium *md)
{
    const T *p = a->f[0], *vx = a->f[1], *vy = a->f[2], *vz = a->f[3];
    double e = 0;
#pragma omp parallel for collapse(2) reduction(+ : e) schedule(static) \
    if (n[0] * n[1] * n[2] >= CPU_PARALLEL_MIN_POINTS)
    for (int64_t z = 0; z < n[2]; z++)
        for (int64_t y = 0; y < n[1]; y++)
            for (int64_t x = 0; x < n[0]; x++) {
                int64_t i = a->off + x + y * a->sx + z * a->sxy;
                e += tl_fdtd_medium_energy2(md, a->o[2] + z, p[i], vx[i], vy[i], vz[i]);
            }
    return 0.5 * e;
}

#undef FN
#undef TL_CAT_
#undef TL_CAT2_
