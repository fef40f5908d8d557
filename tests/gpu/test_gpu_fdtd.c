/* stencil/ on a GPU: every CUDA kernel of the --kernel table against the
 * CPU reference for every order, with and without CPML, in double
 * (1e-12 relative) and single (1e-5); decomposed runs on one GPU (several
 * subdomains to a GPU) equal to the single domain bit for bit for every
 * strategy, s and overlap; the banded vector kernel equal to the plain
 * one; the vector kernels' CPML cut, and a quad that both x slabs cut;
 * the blow-up check; a traced run; the energy monitor against the CPU's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime/gpu.h"
#include "stencil/fdtd.h"
#include "stencil/verify.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static void need_gpu(void)
{
    if (tl_gpu_count() < 1) TL_SKIP("no GPU visible");
}

static tl_fdtd_config base(int order, int64_t cpml, int dbl, int layered)
{
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    c.n[0] = 45; /* not a multiple of the 32-wide tiles */
    c.n[1] = 38;
    c.n[2] = 41;
    c.order = order;
    c.cpml = cpml;
    c.dbl = dbl;
    c.steps = 25;
    c.init = tl_fdtd_init_noise;
    c.source = 1;
    c.f0 = 0.15;
    c.src[0] = 20;
    c.src[1] = 17;
    c.src[2] = 30;
    if (layered) {
        c.layer_k = 22;
        c.K2 = 2.0;
        c.rho2 = 1.5;
    }
    return c;
}

/* The fields after c's run, gathered (in double) into a new buffer */
static double *fields_of(const tl_fdtd_config *c)
{
    int64_t N = c->n[0] * c->n[1] * c->n[2];
    double *out = malloc((size_t)(TL_FDTD_NFIELDS * N) * sizeof *out);
    TL_ASSERT(out);
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    for (int k = 0; k < TL_FDTD_NFIELDS; k++) TL_ASSERT_OK(tl_fdtd_gather(f, k, out + k * N));
    tl_fdtd_destroy(&f);
    return out;
}

static double rel_diff(const double *a, const double *b, int64_t n)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i])) return INFINITY;
        d = fmax(d, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return m > 0 ? d / m : d;
}

/* Each of the nk CUDA kernels against one CPU run of c: every field
 * within a relative 1e-12 (double) or 1e-5 (single) of the CPU's. */
static void expect_kernels_match_cpu(tl_fdtd_config c, const tl_fdtd_kernel_kind *kinds, int nk)
{
    const double tol = c.dbl ? 1e-12 : 1e-5;
    const char *prec = c.dbl ? "double" : "single";
    int64_t N = c.n[0] * c.n[1] * c.n[2];
    c.backend = TL_FDTD_BACKEND_CPU;
    double *b = fields_of(&c);
    c.backend = TL_FDTD_BACKEND_CUDA;
    for (int kk = 0; kk < nk; kk++) {
        const char *kname = tl_fdtd_kernels[kinds[kk]].name;
        c.kernel = kinds[kk];
        double *a = fields_of(&c);
        for (int k = 0; k < 4; k++) {
            double r = rel_diff(a + k * N, b + k * N, N);
            fprintf(stderr, "%s %s order %d cpml %lld field %d: relative difference %.3e\n", kname, prec, c.order,
                    (long long)c.cpml, k, r);
            TL_ASSERT_MSG(r <= tol, "%s %s order %d cpml %lld field %d: %.3e > %.0e", kname, prec, c.order,
                          (long long)c.cpml, k, r, tol);
        }
        free(a);
    }
    free(b);
}

/* Every kernel of the --kernel table against the CPU: orders 2, 4, 8,
 * without CPML and with 6 cells (layered at order 8). */
static void compare_backends(int dbl)
{
    tl_fdtd_kernel_kind all[TL_FDTD_KERNEL_COUNT];
    for (int k = 0; k < TL_FDTD_KERNEL_COUNT; k++) all[k] = (tl_fdtd_kernel_kind)k;
    const int orders[3] = {2, 4, 8};
    for (int o = 0; o < 3; o++)
        for (int cp = 0; cp < 2; cp++)
            expect_kernels_match_cpu(base(orders[o], cp ? 6 : 0, dbl, cp && o == 2), all, TL_FDTD_KERNEL_COUNT);
}

TL_TEST(gpu_equals_cpu_double)
{
    need_gpu();
    compare_backends(1);
}

TL_TEST(gpu_equals_cpu_single)
{
    need_gpu();
    compare_backends(0);
}

TL_TEST(gpu_decomposed_equals_single_domain)
{
    need_gpu();
    const char *strategies[3] = {"host", "peer", "nccl"};
    const int shapes[4][3] = {{1, 1, 4}, {2, 2, 1}, {1, 2, 2}, {2, 1, 3}};
    int ns = TL_HAVE_NCCL ? 3 : 2;
    for (int st = 0; st < ns; st++)
        for (int sh = 0; sh < 4; sh++)
            for (int s = 1; s <= 2; s++)
                for (int ov = 0; ov < 2; ov++)
                    for (int kern = 0; kern < (st == 1 ? 3 : 1); kern++) { /* the other kernels with peer only */
                        tl_fdtd_config c = base(8, sh % 2 ? 6 : 0, sh == 3, 0);
                        c.n[0] = 48;
                        c.n[1] = 44;
                        c.n[2] = 66;
                        c.steps = 11;
                        c.backend = TL_FDTD_BACKEND_CUDA;
                        c.kernel = kern == 1 ? TL_FDTD_KERNEL_NAIVE : kern == 2 ? TL_FDTD_KERNEL_PIPE : TL_FDTD_KERNEL_TILED;
                        c.strategy = strategies[st];
                        for (int d = 0; d < 3; d++) c.pd[d] = shapes[sh][d];
                        c.s = s;
                        c.overlap = ov;
                        const int64_t rec[2][3] = {{3, 4, 5}, {40, 22, 33}};
                        c.nrec = 2;
                        c.rec = rec;
                        double m = -1;
                        TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
                        fprintf(stderr, "%s %dx%dx%d s=%d overlap=%d kernel %d: max |diff| %g\n", strategies[st],
                                shapes[sh][0], shapes[sh][1], shapes[sh][2], s, ov, kern, m);
                        TL_ASSERT_MSG(m == 0, "%s %dx%dx%d s=%d overlap=%d: %g", strategies[st], shapes[sh][0],
                                      shapes[sh][1], shapes[sh][2], s, ov, m);
                    }
}

/* The z-column kernels (split and fused CPML): 4 subdomains pencil-yz on
 * one GPU, s = 1 and 2, zero and CPML faces, single and double, equal to
 * the single domain bit for bit; orders 2 and 4 once each. */
TL_TEST(gpu_zcol_decomposed_equals_single_domain)
{
    need_gpu();
    for (int kern = TL_FDTD_KERNEL_ZCOL8; kern < TL_FDTD_KERNEL_COUNT; kern++)
        for (int s = 1; s <= 2; s++)
            for (int cp = 0; cp < 2; cp++)
                for (int dbl = 0; dbl < 2; dbl++) {
                    int order = cp && dbl ? 2 + 2 * (s - 1) : 8;
                    tl_fdtd_config c = base(order, cp ? 6 : 0, dbl, cp && !dbl);
                    c.n[0] = 48;
                    c.n[1] = 44;
                    c.n[2] = 66;
                    c.steps = 11;
                    c.backend = TL_FDTD_BACKEND_CUDA;
                    c.kernel = (tl_fdtd_kernel_kind)kern;
                    c.strategy = "peer";
                    c.pd[1] = 2;
                    c.pd[2] = 2;
                    c.s = s;
                    c.overlap = s == 2 && cp;
                    const int64_t rec[2][3] = {{3, 4, 5}, {40, 22, 33}};
                    c.nrec = 2;
                    c.rec = rec;
                    double m = -1;
                    TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
                    fprintf(stderr, "%s pencil-yz s=%d cpml %d %s order %d overlap %d: max |diff| %g\n",
                            tl_fdtd_kernels[kern].name, s, cp, dbl ? "double" : "single", order, c.overlap, m);
                    TL_ASSERT_MSG(m == 0, "%s pencil-yz s=%d cpml %d %s: %g", tl_fdtd_kernels[kern].name, s, cp,
                                  dbl ? "double" : "single", m);
                }
}

TL_TEST(gpu_periodic_decomposed)
{
    need_gpu();
    tl_fdtd_config c = base(4, 0, 1, 0);
    c.n[0] = 40;
    c.n[1] = 36;
    c.n[2] = 34;
    c.periodic = 1;
    c.backend = TL_FDTD_BACKEND_CUDA;
    c.pd[1] = 2;
    c.pd[2] = 2;
    c.s = 2;
    double m = -1;
    TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
    TL_ASSERT(m == 0);
}

/* The energy series of c's run on backend b (steps / 5 + 1 samples) */
static void energy_series(tl_fdtd_config c, tl_fdtd_backend_kind b, double *e, int64_t cap)
{
    c.backend = b;
    c.energy_every = 5;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    int64_t n;
    const double *s = tl_fdtd_energy(f, &n);
    TL_ASSERT_EQ(n, cap);
    for (int64_t i = 0; i < n; i++) e[i] = s[2 * i + 1];
    tl_fdtd_destroy(&f);
}

/* The energy monitor (tl_fdtd_energy_kernel) against the CPU's on a
 * layered run, with walls and periodic: each velocity weighted by the
 * density its update divides by (the interface's vz by the layers' mean,
 * the periodic wrap's by the last and first planes'), the same function
 * on both sides (stencil/fdtd_kargs.h), so within 1e-12 (double) or 1e-5
 * (single) relative: the fields' own tolerances. */
TL_TEST(gpu_energy_equals_cpu)
{
    need_gpu();
    for (int dbl = 0; dbl < 2; dbl++)
        for (int periodic = 0; periodic < 2; periodic++) {
            tl_fdtd_config c = base(8, 0, dbl, 1);
            c.periodic = periodic;
            double a[6], b[6];
            energy_series(c, TL_FDTD_BACKEND_CPU, b, 6);
            energy_series(c, TL_FDTD_BACKEND_CUDA, a, 6);
            double r = rel_diff(a, b, 6);
            fprintf(stderr, "%s, %s: energy relative difference %.3e\n", dbl ? "double" : "single",
                    periodic ? "periodic" : "walls", r);
            TL_ASSERT_MSG(r <= (dbl ? 1e-12 : 1e-5), "%s, %s: energy relative difference %.3e",
                          dbl ? "double" : "single", periodic ? "periodic" : "walls", r);
        }
}

TL_TEST(gpu_blowup_detected)
{
    need_gpu();
    tl_fdtd_config c = base(8, 0, 0, 0);
    c.init = NULL;
    c.amp = 1e8;
    c.blowup = 10;
    c.check_every = 2;
    c.steps = 30;
    c.backend = TL_FDTD_BACKEND_CUDA;
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_EQ(tl_fdtd_run(f, NULL), TL_ERR_NUMERIC);
    tl_fdtd_destroy(&f);
}

TL_TEST(gpu_traced_run)
{
    need_gpu();
    const char *dir = tl_test_tmpdir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s/trilap-fdtd run --backend cuda --kernel tiled --grid 64 --cpml 8 --steps 6 --decomp pencil-yz --strategy peer "
             "--trace %s/tr",
             tl_test_env("TL_BIN", "bin"), dir);
    char *out, *err;
    int rc = tl_test_run(cmd, &out, &err);
    fprintf(stderr, "$ %s -> %d\n%s%s", cmd, rc, out, err);
    TL_ASSERT_EQ(rc, 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/tr/trace.rank0.csv", dir);
    char *t = tl_test_read(p);
    TL_ASSERT(strstr(t, "tl_fdtd_pack_kernel") && strstr(t, "tl_fdtd_unpack_kernel"));
    TL_ASSERT(strstr(t, "tl_fdtd_v_tiled_kernel") && strstr(t, "tl_fdtd_p_cpml_kernel"));
    free(t);
    free(out);
    free(err);
}

TL_TEST(gpu_breakdown_counts)
{
    need_gpu();
    const tl_fdtd_kernel_kind kinds[3] = {TL_FDTD_KERNEL_TILED, TL_FDTD_KERNEL_ZCOL16, TL_FDTD_KERNEL_ZCOL16_FUSED};
    for (int kk = 0; kk < 3; kk++) {
        tl_fdtd_config c = base(8, 6, 0, 0);
        c.backend = TL_FDTD_BACKEND_CUDA;
        c.kernel = kinds[kk];
        c.pd[2] = 2;
        c.steps = 4;
        c.warmup = 2;
        c.breakdown = 1;
        c.strategy = "host";
        tl_fdtd *f = NULL;
        TL_ASSERT_OK(tl_fdtd_create(&f, &c));
        TL_ASSERT_OK(tl_fdtd_run(f, NULL));
        tl_fdtd_stats S = tl_fdtd_stats_of(f);
        fprintf(stderr, "%s: update_v %lld, update_v_cpml %lld\n", tl_fdtd_kernels[kinds[kk]].name,
                (long long)S.op[0].count, (long long)S.op[1].count);
        TL_ASSERT_EQ(S.nops, 7);
        /* per measured step and subdomain: one interior box and 5 slab boxes
         * (the interface face has none) per update, or one fused launch; 1
         * message each way, a copy out and a copy in per message */
        int fused = tl_fdtd_kernels[kinds[kk]].fused;
        TL_ASSERT_EQ(S.op[0].count, 4 * 2 * 1);
        TL_ASSERT_EQ(S.op[1].count, fused ? 0 : 4 * 2 * 5);
        TL_ASSERT_EQ(S.op[2].count, 4 * 2 * 1);
        TL_ASSERT_EQ(S.op[3].count, fused ? 0 : 4 * 2 * 5);
        TL_ASSERT_EQ(S.op[4].count, 4 * 2);
        TL_ASSERT_EQ(S.op[5].count, 4 * 2 * 2);
        TL_ASSERT_EQ(S.op[6].count, 4 * 2);
        for (int k = 0; k < 7; k++)
            if (!fused || (k != 1 && k != 3)) TL_ASSERT(S.op[k].total_s > 0 && S.op[k].min_s <= S.op[k].max_s);
        tl_fdtd_destroy(&f);
    }
}

/* vec4-band walks bands of block rows through all z only where 2r planes
 * of a wide grid's rows overflow a quarter of the L2: a 2048-wide grid
 * gives bands of 160 or 224 rows (the last one partial) of 250 on an
 * H200 (50 or 60 MB of L2). Its fields equal plain vec4's bit for bit,
 * single domain and slab-z. */
TL_TEST(gpu_vec4_band_equals_plain)
{
    need_gpu();
    for (int cp = 0; cp < 2; cp++) {
        tl_fdtd_config c = base(8, cp ? 4 : 0, 0, 0);
        c.n[0] = 2048;
        c.n[1] = 250;
        c.n[2] = 24;
        c.steps = 3;
        c.src[0] = 1000;
        c.src[1] = 120;
        c.src[2] = 12;
        c.backend = TL_FDTD_BACKEND_CUDA;
        int64_t N = c.n[0] * c.n[1] * c.n[2];
        c.kernel = TL_FDTD_KERNEL_VEC4;
        double *a = fields_of(&c);
        c.kernel = TL_FDTD_KERNEL_VEC4_BAND;
        double *b = fields_of(&c);
        int64_t differ = 0;
        for (int64_t i = 0; i < 4 * N; i++) differ += memcmp(a + i, b + i, sizeof *a) != 0;
        free(a);
        free(b);
        TL_ASSERT_MSG(differ == 0, "cpml %d: %lld of %lld values differ", cp, (long long)differ, (long long)(4 * N));
        c.pd[2] = 2;
        c.strategy = "peer";
        double m = -1;
        TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
        TL_ASSERT_MSG(m == 0, "vec4-band slab-z cpml %d: %g", cp, m);
    }
}

/* The vector kernels with CPML cut each box into an interior that runs
 * the plain kernel (in float through all z, the z-slab build) and a
 * shell that runs the CPML one (fdtd_vec.cu). A grid wide enough that the
 * interior is not empty (100 x 72 x 60, 6 cells): single and double
 * against the CPU, and decomposed runs, whose boxes are cut elsewhere,
 * equal to the single domain bit for bit (3x1x1, 1x2x2, 2x2x2; s = 1,
 * 2); with 10 cells, 1x1x6, whose first and last boxes lie wholly in a
 * z slab (no interior along z). */
TL_TEST(gpu_vec_cpml_cut_equals_single_domain)
{
    need_gpu();
    const int shapes[3][3] = {{3, 1, 1}, {1, 2, 2}, {2, 2, 2}};
    for (int dbl = 0; dbl < 2; dbl++) {
        tl_fdtd_config c = base(8, 6, dbl, 0);
        c.n[0] = 100;
        c.n[1] = 72;
        c.n[2] = 60;
        c.steps = 12;
        c.src[0] = 50;
        c.src[1] = 30;
        c.src[2] = 25;
        const tl_fdtd_kernel_kind vec4 = TL_FDTD_KERNEL_VEC4;
        expect_kernels_match_cpu(c, &vec4, 1);
        c.backend = TL_FDTD_BACKEND_CUDA;
        c.kernel = vec4;
        c.strategy = "peer";
        for (int sh = 0; sh < 3; sh++)
            for (int s = 1; s <= 2; s++) {
                for (int d = 0; d < 3; d++) c.pd[d] = shapes[sh][d];
                c.s = s;
                double m = -1;
                TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
                TL_ASSERT_MSG(m == 0, "%s %dx%dx%d s=%d: max |diff| %g", dbl ? "double" : "single", shapes[sh][0],
                              shapes[sh][1], shapes[sh][2], s, m);
            }
        c.cpml = 10;
        c.s = 1;
        c.pd[0] = c.pd[1] = 1;
        c.pd[2] = 6;
        double m = -1;
        TL_ASSERT_OK(tl_fdtd_verify_decomp(&c, &m));
        TL_ASSERT_MSG(m == 0, "%s 1x1x6 with 10 cells: max |diff| %g", dbl ? "double" : "single", m);
    }
}

/* A quad that the x slabs' edges cut: 14 points along x with 6 cells put
 * 4 and 5 in the low slab, 6 in none and 7 in the high one, so the quad at
 * 4 holds points of both (vec4) and the pair at 6 of one (vec2). Each
 * against the CPU, single and double. */
TL_TEST(gpu_vec_cpml_quad_cut_by_slabs)
{
    need_gpu();
    const tl_fdtd_kernel_kind kinds[2] = {TL_FDTD_KERNEL_VEC4, TL_FDTD_KERNEL_VEC2};
    for (int dbl = 0; dbl < 2; dbl++) {
        tl_fdtd_config c = base(8, 6, dbl, 0);
        c.n[0] = 14;
        c.n[1] = 20;
        c.n[2] = 16;
        c.src[0] = 7;
        c.src[1] = 10;
        c.src[2] = 8;
        expect_kernels_match_cpu(c, kinds, 2);
    }
}

TL_TEST_MAIN(gpu_equals_cpu_double, gpu_equals_cpu_single, gpu_decomposed_equals_single_domain,
             gpu_zcol_decomposed_equals_single_domain, gpu_vec4_band_equals_plain, gpu_periodic_decomposed,
             gpu_blowup_detected, gpu_traced_run, gpu_breakdown_counts, gpu_vec_cpml_cut_equals_single_domain,
             gpu_vec_cpml_quad_cut_by_slabs, gpu_energy_equals_cpu)
