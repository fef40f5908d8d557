/* The fused update kernel's per-entry logic (solvers/backends/cuda/update_entry.h,
 * the code the CUDA kernel runs with its loops unrolled), on the host:
 * loads first, then in-order updates whose terms take earlier updates'
 * values through src, must equal the plain in-order semantics of
 * tl_update (backend.h) bit for bit, for Pipe-PCG's eight updates, the
 * two groups of Pipe-BiCGStab and random groups with every kind of
 * aliasing (y among its own terms, a vector written twice, read after
 * being written). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/backends/cuda/update_entry.h"
#include "tests/tl_test.h"

enum { N = 37, NV = 8 };

static double vec[2][NV][N]; /* [0]: through tl_cu_update_entry, [1]: reference */

static void fill(unsigned seed)
{
    srand(seed);
    for (int v = 0; v < NV; v++)
        for (int i = 0; i < N; i++)
            vec[0][v][i] = vec[1][v][i] = (double)rand() / RAND_MAX - 0.5;
}

typedef struct spec {
    int nu;
    int y[TL_CU_UPD_MAX], nt[TL_CU_UPD_MAX], x[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
} spec;

/* The kernel arguments of spec's updates on the vectors v (the rest of a
 * zero), and their coefficients in c. */
static void updates_of(const spec *sp, double (*v)[N], tl_cu_update_args *a,
                       double (*c)[TL_CU_UPD_TERMS])
{
    memset(a, 0, sizeof *a);
    memset(c, 0, sizeof(double) * TL_CU_UPD_MAX * TL_CU_UPD_TERMS);
    a->nu = sp->nu;
    for (int j = 0; j < sp->nu; j++) {
        a->u[j].y = v[sp->y[j]];
        a->u[j].nterms = sp->nt[j];
        for (int k = 0; k < sp->nt[j]; k++) {
            a->u[j].x[k] = v[sp->x[j][k]];
            a->u[j].coef[k] = c[j][k] = sp->c[j][k];
        }
    }
}

/* The reference on the second vector set: the in-order semantics, update
 * by update over all entries. */
static void reference_updates(const spec *sp)
{
    for (int j = 0; j < sp->nu; j++)
        for (int i = 0; i < N; i++) {
            double t = sp->c[j][0] * vec[1][sp->x[j][0]][i];
            /* each further term rounded once, as the device contracts it */
            for (int k = 1; k < sp->nt[j]; k++)
                t = fma(sp->c[j][k], vec[1][sp->x[j][k]][i], t);
            vec[1][sp->y[j]][i] = t;
        }
}

/* Runs spec both ways; 1 when every entry of every vector agrees exactly. */
static int check(const spec *sp, int nu_max, int nt_max)
{
    tl_cu_update_args a;
    double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    updates_of(sp, vec[0], &a, c);
    tl_cu_update_link(&a);
    for (int64_t i = 0; i < N; i++)
        tl_cu_update_entry(&a, (const double(*)[TL_CU_UPD_TERMS])c, i, nu_max, nt_max);
    reference_updates(sp);
    return memcmp(vec[0], vec[1], sizeof vec[0]) == 0;
}

/* Pipe-PCG's eight updates, z = n + b z, q = m + b q, s = w + b s, p = u +
 * b p, x += a p, r -= a s, u -= a q, w -= a z, over vectors 0..7 = n z m q
 * w s u p, and x and r in vectors x_ and r_ (n and m where the pattern's
 * aliasing is what matters; PCG_X, PCG_R for ten distinct vectors) */
enum { PCG_N, PCG_Z, PCG_M, PCG_Q, PCG_W, PCG_S, PCG_U, PCG_P, PCG_X, PCG_R, PCG_COUNT };
static spec pipecg_updates(int x_, int r_)
{
    double al = 0.37, be = 0.81;
    spec sp = {.nu = 8,
               .y = {PCG_Z, PCG_Q, PCG_S, PCG_P, x_, r_, PCG_U, PCG_W},
               .nt = {2, 2, 2, 2, 2, 2, 2, 2},
               .x = {{PCG_N, PCG_Z}, {PCG_M, PCG_Q}, {PCG_W, PCG_S}, {PCG_U, PCG_P}, {x_, PCG_P}, {r_, PCG_S},
                     {PCG_U, PCG_Q}, {PCG_W, PCG_Z}},
               .c = {{1, be}, {1, be}, {1, be}, {1, be}, {1, al}, {1, -al}, {1, -al}, {1, -al}}};
    return sp;
}

TL_TEST(pipecg_eight_updates)
{
    /* z = n + b z, q = m + b q, s = w + b s, p = u + b p, x += a p,
     * r -= a s, u -= a q, w -= a z; vectors 0..7 = n z m q w s u p, x r in 0, 1
     * reuse: the pattern's aliasing is what matters */
    spec sp = pipecg_updates(PCG_N, PCG_M);
    fill(1);
    TL_ASSERT(check(&sp, 8, 2));
    fill(2);
    TL_ASSERT(check(&sp, TL_CU_UPD_MAX, TL_CU_UPD_TERMS));
}

TL_TEST(pipebicgstab_groups)
{
    /* u1: p = r + b p + bo s, ph..., s = w + b s + bo z, sh..., z = t + b z + bo v,
     * q = r - a s, qh = rh - a sh, y = w - a z (over 8 vectors, aliasing kept) */
    double b = 0.3, bo = -0.2, al = 0.7, om = 0.45;
    enum { r_, p_, s_, w_, z_, t_, v_, q_ };
    spec u1 = {.nu = 6,
               .y = {p_, s_, z_, q_, v_, r_},
               .nt = {3, 3, 3, 2, 2, 2},
               .x = {{r_, p_, s_}, {w_, s_, z_}, {t_, z_, v_}, {r_, s_}, {w_, z_}, {q_, p_}},
               .c = {{1, b, bo}, {1, b, bo}, {1, b, bo}, {1, -al}, {1, -al}, {1, -om}}};
    fill(3);
    TL_ASSERT(check(&u1, 8, 3));
    spec u2 = {.nu = 4,
               .y = {p_, r_, s_, w_},
               .nt = {3, 2, 3, 3},
               .x = {{p_, q_, t_}, {q_, v_}, {t_, w_, z_}, {v_, q_, r_}},
               .c = {{1, al, om}, {1, -om}, {1, -om, om * al}, {1, -om, om * al}}};
    fill(4);
    TL_ASSERT(check(&u2, 4, 3));
}

TL_TEST(random_groups_every_aliasing)
{
    srand(12345);
    for (int trial = 0; trial < 2000; trial++) {
        spec sp;
        memset(&sp, 0, sizeof sp);
        sp.nu = 1 + rand() % TL_CU_UPD_MAX;
        for (int j = 0; j < sp.nu; j++) {
            sp.y[j] = rand() % NV;
            sp.nt[j] = 1 + rand() % TL_CU_UPD_TERMS;
            for (int k = 0; k < sp.nt[j]; k++) {
                sp.x[j][k] = rand() % NV;
                sp.c[j][k] = (double)(rand() % 7) / 4 - 0.75;
            }
        }
        fill((unsigned)trial + 10);
        TL_ASSERT_MSG(check(&sp, TL_CU_UPD_MAX, TL_CU_UPD_TERMS), "trial %d (%d updates)", trial,
                      sp.nu);
    }
}

/* update_fused's entry (tl_cu_fused_entry): the updates, then pz = d * pr
 * from the value just computed, then the dots of the values after the
 * pass, must equal update, then Jacobi, then dots summed in entry order,
 * bit for bit: Pipe-PCG's pass (m = D^-1 w; (r, u), (w, u), (r, r)) and
 * a pass whose dots read a vector the updates do not write, the
 * preconditioned one, and one written twice. */
static int check_fused(const spec *sp, int pz, int pr, int use_d, int nd, const int (*dv)[2],
                       int nu_max, int nt_max)
{
    static double d[N];
    for (int i = 0; i < N; i++)
        d[i] = 0.5 + (double)(i % 5) / 8;
    tl_cu_update_args a;
    double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    updates_of(sp, vec[0], &a, c);
    a.t.pz = vec[0][pz];
    a.t.pr = vec[0][pr];
    a.t.dinv = use_d ? d : NULL;
    a.t.nd = nd;
    for (int k = 0; k < nd; k++) {
        a.t.dx[k] = vec[0][dv[k][0]];
        a.t.dy[k] = vec[0][dv[k][1]];
    }
    tl_cu_update_link(&a);
    double acc[TL_CU_FUSE_DOTS] = {0}, ref[TL_CU_FUSE_DOTS] = {0};
    for (int64_t i = 0; i < N; i++)
        tl_cu_fused_entry(&a, (const double(*)[TL_CU_UPD_TERMS])c, i, nu_max, nt_max,
                          TL_CU_FUSE_DOTS, acc);
    reference_updates(sp);
    for (int i = 0; i < N; i++)
        vec[1][pz][i] = use_d ? d[i] * vec[1][pr][i] : vec[1][pr][i];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < nd; k++)
            ref[k] += vec[1][dv[k][0]][i] * vec[1][dv[k][1]][i];
    return memcmp(vec[0], vec[1], sizeof vec[0]) == 0 && memcmp(acc, ref, sizeof acc) == 0;
}

TL_TEST(pipecg_fused_pass)
{
    /* the eight updates over x r u w m n z q s p folded into 8 vectors as
     * in pipecg_eight_updates; then m = D^-1 w, dots (r, u), (w, u), (r, r)
     * with r = PCG_M (the fifth update's y: PCG_N), u, w */
    spec sp = pipecg_updates(PCG_N, PCG_M);
    /* PCG_M is written by the sixth update (r's role), then overwritten by the
     * preconditioner: use the free vector PCG_Q as the preconditioned one */
    const int dv[3][2] = {{PCG_M, PCG_U}, {PCG_W, PCG_U}, {PCG_M, PCG_M}};
    fill(5);
    TL_ASSERT(check_fused(&sp, PCG_Q, PCG_W, 1, 3, dv, 8, 2));
    fill(6);
    TL_ASSERT(check_fused(&sp, PCG_Q, PCG_W, 0, 3, dv, TL_CU_UPD_MAX, TL_CU_UPD_TERMS));
}

TL_TEST(fused_pass_operands)
{
    /* z = a + 2 b, z = z - b (written twice), then p = D^-1 z; dots of a
     * vector from memory (c), the preconditioned one (p), z */
    enum { a_, b_, c_, z_, p_ };
    spec sp = {.nu = 2,
               .y = {z_, z_},
               .nt = {2, 2},
               .x = {{a_, b_}, {z_, b_}},
               .c = {{1, 2}, {1, -1}}};
    const int dv[5][2] = {{c_, c_}, {p_, z_}, {c_, p_}, {z_, z_}, {a_, b_}};
    fill(7);
    TL_ASSERT(check_fused(&sp, p_, z_, 1, 5, dv, 4, 3));
    /* the preconditioner's input from memory, the output one of the inputs */
    spec sq = {.nu = 1, .y = {z_}, .nt = {2}, .x = {{a_, p_}}, .c = {{1, 0.5}}};
    const int dw[2][2] = {{p_, p_}, {z_, c_}};
    fill(8);
    TL_ASSERT(check_fused(&sq, p_, c_, 1, 2, dw, 4, 3));
}

/* Pipe-PCG's update over ten distinct vectors of set, as the methods call
 * it */
static double pv[2][PCG_COUNT][N];
static void pipecg_args(tl_cu_update_args *a, double (*c)[TL_CU_UPD_TERMS], int set)
{
    spec sp = pipecg_updates(PCG_X, PCG_R);
    updates_of(&sp, pv[set], a, c);
    tl_cu_update_link(a);
}

TL_TEST(pipecg_shape_kernel_equals_generic)
{
    srand(99);
    for (int v = 0; v < PCG_COUNT; v++)
        for (int i = 0; i < N; i++)
            pv[0][v][i] = pv[1][v][i] = (double)rand() / RAND_MAX - 0.5;
    tl_cu_update_args a, b;
    double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS] = {{0}};
    pipecg_args(&a, c, 0);
    pipecg_args(&b, c, 1);
    TL_ASSERT(tl_cu_update_is_pipecg(&b));
    /* the roles the kernel loads and stores */
    const double *src[10];
    double *dst[8];
    tl_cu_pipecg_operands(&b, src, dst);
    static const int in_role[10] = {PCG_N, PCG_M, PCG_W, PCG_U, PCG_X,
                                    PCG_R, PCG_Z, PCG_Q, PCG_S, PCG_P};
    static const int out_role[8] = {PCG_Z, PCG_Q, PCG_S, PCG_P, PCG_X, PCG_R, PCG_U, PCG_W};
    for (int k = 0; k < 10; k++)
        TL_ASSERT_MSG(src[k] == pv[1][in_role[k]], "operand %d", k);
    for (int k = 0; k < 8; k++)
        TL_ASSERT_MSG(dst[k] == pv[1][out_role[k]], "result %d", k);
    /* the kernel's loop on set 1, the generic entry on set 0 */
    double cf[8];
    for (int j = 0; j < 8; j++)
        cf[j] = c[j][1];
    for (int64_t i = 0; i < N; i++) {
        double in[10], out[8];
        for (int k = 0; k < 10; k++)
            in[k] = src[k][i];
        tl_cu_pipecg_values(in, cf, out);
        for (int k = 0; k < 8; k++)
            dst[k][i] = out[k];
        tl_cu_update_entry(&a, (const double(*)[TL_CU_UPD_TERMS])c, i, 8, 2);
    }
    TL_ASSERT(memcmp(pv[0], pv[1], sizeof pv[0]) == 0);
}

TL_TEST(pipecg_shape_only_that_shape)
{
    tl_cu_update_args a;
    double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    /* the generic kernel for anything else: a first coefficient not 1 or
     * from a register, two roles on one vector, another order, fewer
     * updates, a tail */
    pipecg_args(&a, c, 0);
    a.u[5].coef[0] = 2.0;
    TL_ASSERT(!tl_cu_update_is_pipecg(&a));
    pipecg_args(&a, c, 0);
    a.u[2].sref[0] = 1;
    TL_ASSERT(!tl_cu_update_is_pipecg(&a));
    pipecg_args(&a, c, 0);
    a.u[1].x[0] = pv[0][PCG_N]; /* q = n + b q: n read twice, m unused */
    tl_cu_update_link(&a);
    TL_ASSERT(!tl_cu_update_is_pipecg(&a));
    pipecg_args(&a, c, 0);
    tl_cu_update t = a.u[4];
    a.u[4] = a.u[5];
    a.u[5] = t;
    tl_cu_update_link(&a);
    TL_ASSERT(!tl_cu_update_is_pipecg(&a));
    pipecg_args(&a, c, 0);
    a.nu = 7;
    TL_ASSERT(!tl_cu_update_is_pipecg(&a));
    pipecg_args(&a, c, 0);
    a.t.nd = 1;
    TL_ASSERT(!tl_cu_update_is_pipecg(&a));
    pipecg_args(&a, c, 0);
    TL_ASSERT(tl_cu_update_is_pipecg(&a));
}

TL_TEST_MAIN(pipecg_eight_updates, pipebicgstab_groups, random_groups_every_aliasing,
             pipecg_fused_pass, fused_pass_operands, pipecg_shape_kernel_equals_generic,
             pipecg_shape_only_that_shape)
