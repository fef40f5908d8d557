/* Generators: sizes, symmetry, row sums, streamed output equal to the
 * in-memory reference, right-hand sides; and the trilap-matgen program. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "config.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/gen.h"
#include "solvers/matrix/mmio.h"
#include "tests/tl_test_run.h"
#include "tl_test.h"

static double entry(const tl_csr *a, int64_t i, int64_t j)
{
    for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
        if (a->colidx[k] == j) return a->val[k];
    return 0.0;
}

static int symmetric(const tl_csr *a)
{
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (entry(a, a->colidx[k], i) != a->val[k]) return 0;
    return 1;
}

static void assert_same(const tl_csr *a, const tl_csr *b)
{
    TL_ASSERT_EQ(a->nrows, b->nrows);
    TL_ASSERT_EQ(a->nnz, b->nnz);
    TL_ASSERT(memcmp(a->rowptr, b->rowptr, 8 * (size_t)(a->nrows + 1)) == 0);
    TL_ASSERT(memcmp(a->colidx, b->colidx, 8 * (size_t)a->nnz) == 0);
    TL_ASSERT(memcmp(a->val, b->val, 8 * (size_t)a->nnz) == 0);
}

/* Missing neighbours of grid point i (how many of its stencil fall outside). */
static int outside(int64_t n, int64_t i, int wide)
{
    int64_t c[3] = {i % n, (i / n) % n, i / (n * n)};
    if (!wide) {
        int m = 0;
        for (int d = 0; d < 3; d++)
            m += (c[d] == 0) + (c[d] == n - 1);
        return m;
    }
    int inside = 1;
    for (int d = 0; d < 3; d++)
        inside *= 3 - (c[d] == 0) - (c[d] == n - 1);
    return 27 - inside;
}

TL_TEST(poisson7_structure)
{
    for (int64_t n = 1; n <= 6; n++) {
        tl_gen g = {.kind = TL_GEN_POISSON7, .n = n};
        tl_csr a;
        TL_ASSERT_OK(tl_gen_csr(&g, &a));
        TL_ASSERT_EQ(a.nrows, n * n * n);
        TL_ASSERT_EQ(a.nnz, 7 * n * n * n - 6 * n * n);
        TL_ASSERT_OK(tl_csr_check(&a, "poisson7"));
        TL_ASSERT(symmetric(&a));
        TL_ASSERT(tl_gen_symmetric(&g));
        for (int64_t i = 0; i < a.nrows; i++) {
            double s = 0;
            for (int64_t k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
                s += a.val[k];
            TL_ASSERT_NEAR(s, outside(n, i, 0), 0); /* Dirichlet: interior rows sum to 0 */
            TL_ASSERT_NEAR(entry(&a, i, i), 6.0, 0);
        }
        tl_csr_free(&a);
    }
}

TL_TEST(poisson27_structure)
{
    for (int64_t n = 1; n <= 5; n++) {
        tl_gen g = {.kind = TL_GEN_POISSON27, .n = n};
        tl_csr a;
        TL_ASSERT_OK(tl_gen_csr(&g, &a));
        TL_ASSERT_EQ(a.nnz, (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
        TL_ASSERT_OK(tl_csr_check(&a, "poisson27"));
        TL_ASSERT(symmetric(&a));
        for (int64_t i = 0; i < a.nrows; i++) {
            double s = 0;
            for (int64_t k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
                s += a.val[k];
            TL_ASSERT_NEAR(s, outside(n, i, 1), 0);
        }
        tl_csr_free(&a);
    }
}

TL_TEST(convdiff_structure)
{
    tl_gen g = {.kind = TL_GEN_CONVDIFF, .n = 5, .peclet = 0.5};
    tl_csr a;
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    TL_ASSERT_EQ(a.nnz, 7 * 125 - 6 * 25);
    TL_ASSERT(!symmetric(&a));
    TL_ASSERT(!tl_gen_symmetric(&g));
    int64_t i = 1 + 5 * (2 + 5 * 2); /* (1,2,2): interior */
    TL_ASSERT_NEAR(entry(&a, i, i), 7.5, 0);
    TL_ASSERT_NEAR(entry(&a, i, i - 1), -1.5, 0);
    TL_ASSERT_NEAR(entry(&a, i, i + 1), -1.0, 0);
    TL_ASSERT_NEAR(entry(&a, i, i - 25), -1.5, 0);
    for (int64_t r = 0; r < a.nrows; r++) {
        double s = 0;
        for (int64_t k = a.rowptr[r]; k < a.rowptr[r + 1]; k++)
            s += a.val[k];
        TL_ASSERT(s >= -1e-15); /* weakly diagonally dominant M-matrix */
        if (outside(5, r, 0) == 0) TL_ASSERT_NEAR(s, 0.0, 1e-15);
    }
    tl_csr_free(&a);
    g.peclet = 0.0; /* no convection: the 7-point Laplacian */
    tl_gen p7 = {.kind = TL_GEN_POISSON7, .n = 5};
    tl_csr b;
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    TL_ASSERT_OK(tl_gen_csr(&p7, &b));
    assert_same(&a, &b);
    tl_csr_free(&a);
    tl_csr_free(&b);
}

TL_TEST(hetero2d_structure)
{
    const int64_t n = 12;
    tl_gen g = {.kind = TL_GEN_HETERO2D, .n = n, .peclet = 4};
    tl_csr a, b;
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    TL_ASSERT_EQ(tl_gen_dims(&g), 2);
    TL_ASSERT_EQ(a.nrows, n * n);
    TL_ASSERT_EQ(a.nnz, 5 * n * n - 4 * n);
    TL_ASSERT_OK(tl_csr_check(&a, "hetero2d"));
    TL_ASSERT(symmetric(&a) && tl_gen_symmetric(&g));
    int low = 0, high = 0;
    for (int64_t i = 0; i < a.nrows; i++) {
        int64_t x = i % n, y = i / n;
        int boundary = (x == 0) + (x == n - 1) + (y == 0) + (y == n - 1);
        double off = 0, d = entry(&a, i, i);
        for (int64_t k = a.rowptr[i]; k < a.rowptr[i + 1]; k++) {
            if (a.colidx[k] == i) continue;
            double c = -a.val[k];
            /* two phases: 1e-2 or 1e2, nothing else */
            TL_ASSERT_MSG(c == 1e-2 || c == 1e2, "row %lld: coefficient %g", (long long)i, c);
            low += c == 1e-2, high += c == 1e2;
            off += c;
        }
        /* the diagonal sums all four edges: interior rows sum to 0, boundary
         * rows keep their edges to the boundary (positive: SPD) */
        if (!boundary) TL_ASSERT_NEAR(d, off, 1e-12 * d);
        if (boundary) TL_ASSERT(d - off >= 1e-2 * boundary * (1 - 1e-12));
    }
    /* both phases well represented (a fixed hash: the same counts always) */
    TL_ASSERT_MSG(low > a.nnz / 5 && high > a.nnz / 5, "%d low, %d high", low, high);
    /* deterministic, and D = 0 is the homogeneous 5-point Laplacian (4, -1) */
    TL_ASSERT_OK(tl_gen_csr(&g, &b));
    assert_same(&a, &b);
    tl_csr_free(&a), tl_csr_free(&b);
    g.peclet = 0;
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    for (int64_t i = 0; i < a.nrows; i++)
        TL_ASSERT_NEAR(entry(&a, i, i), 4.0, 1e-15);
    tl_csr_free(&a);
    g.peclet = 13; /* out of range */
    TL_ASSERT(tl_gen_csr(&g, &a) != TL_OK);
}

TL_TEST(streamed_equals_memory)
{
    const tl_gen gens[] = {
        {TL_GEN_POISSON7, 7, 0}, {TL_GEN_POISSON27, 5, 0}, {TL_GEN_CONVDIFF, 6, 2.0},
        {TL_GEN_HETERO2D, 9, 4.0}};
    for (int k = 0; k < 4; k++) {
        tl_csr ref, bin, mtx;
        TL_ASSERT_OK(tl_gen_csr(&gens[k], &ref));
        const char *pb = tl_test_path("g.tlcsr");
        uint32_t flags = 99;
        TL_ASSERT_OK(tl_gen_write(&gens[k], pb));
        TL_ASSERT_OK(tl_bin_read(pb, &bin, &flags));
        TL_ASSERT_EQ(flags, tl_gen_symmetric(&gens[k]) ? TL_BIN_FLAG_SYMMETRIC : 0);
        assert_same(&ref, &bin);
        const char *pm = tl_test_path(TL_HAVE_ZLIB ? "g.mtx.gz" : "g.mtx");
        tl_mm_info info;
        TL_ASSERT_OK(tl_gen_write(&gens[k], pm));
        TL_ASSERT_OK(tl_mm_read_csr(pm, 1, &mtx, &info));
        TL_ASSERT_EQ(info.symmetry, tl_gen_symmetric(&gens[k]) ? TL_MM_SYMMETRIC : TL_MM_GENERAL);
        assert_same(&ref, &mtx);
        tl_csr_free(&ref);
        tl_csr_free(&bin);
        tl_csr_free(&mtx);
    }
}

TL_TEST(rhs_is_a_times_ones)
{
    tl_gen g = {.kind = TL_GEN_CONVDIFF, .n = 4, .peclet = 1.0};
    tl_csr a;
    double *b = NULL;
    int64_t n;
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    const char *p = tl_test_path("b.mtx");
    TL_ASSERT_OK(tl_gen_write_rhs(&g, p));
    TL_ASSERT_OK(tl_mm_read_vector(p, a.nrows, &b, &n));
    double *ones = malloc((size_t)n * sizeof *ones), *y = malloc((size_t)n * sizeof *y);
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1.0;
    tl_csr_spmv(&a, ones, y);
    for (int64_t i = 0; i < n; i++)
        TL_ASSERT(b[i] == y[i]);
    free(ones), free(y), free(b);
    tl_csr_free(&a);
}

TL_TEST(bad_generator_arguments)
{
    tl_gen g = {.kind = TL_GEN_POISSON7, .n = 0};
    tl_csr a;
    TL_ASSERT(tl_gen_csr(&g, &a) != TL_OK);
    g.n = 3;
    TL_ASSERT(tl_gen_write(&g, tl_test_path("x.txt")) != TL_OK);
    g.kind = TL_GEN_CONVDIFF, g.peclet = -1;
    TL_ASSERT(tl_gen_write(&g, tl_test_path("x.tlcsr")) != TL_OK);
    TL_ASSERT(access(tl_test_path("x.tlcsr"), F_OK) != 0);
    TL_ASSERT_EQ(tl_gen_kind_parse("poisson27"), TL_GEN_POISSON27);
    TL_ASSERT_EQ(tl_gen_kind_parse("poisson"), -1);
}

/* gen:KIND:N[:PECLET]: what it says, and nothing it would drop or misread
 * (the reasons are checked through trilap-solve in test_solve_cli) */
TL_TEST(spec_parse_strict)
{
    tl_gen g;
    TL_ASSERT_OK(tl_gen_parse_spec("gen:poisson7:8", &g));
    TL_ASSERT(g.kind == TL_GEN_POISSON7 && g.n == 8 && g.peclet == 0.0);
    TL_ASSERT_OK(tl_gen_parse_spec("gen:convdiff:16:0.25", &g));
    TL_ASSERT(g.kind == TL_GEN_CONVDIFF && g.n == 16 && g.peclet == 0.25);
    TL_ASSERT_OK(tl_gen_parse_spec("gen:hetero2d:6", &g));
    TL_ASSERT(g.kind == TL_GEN_HETERO2D && g.peclet == 4.0); /* trilap-matgen hetero2d's default */
    TL_ASSERT_OK(tl_gen_parse_spec("gen:hetero2d:2097151:12", &g));
    TL_ASSERT(g.n == TL_GEN_MAX_N && g.peclet == 12.0);
    static const char *const bad[] = {
        "gen:poisson7:8:3", "gen:poisson27:8:", "gen:convdiff:8:1:2", "gen:convdiff:8:",
        "gen:convdiff:8:1e-400", "gen:convdiff:8:1e400", "gen:convdiff:8:0x10", "gen:convdiff:8:nan",
        "gen:convdiff:8:-1", "gen:hetero2d:8:12.5", "gen:poisson7: 8", "gen:poisson7:+8", "gen:poisson7:0",
        "gen:poisson7:2097152", "gen:poisson7", "gen:poisson9:4", "gen::4", "poisson7:4",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        TL_ASSERT_MSG(tl_gen_parse_spec(bad[k], &g) != TL_OK, "accepted '%s'", bad[k]);
}

static const char *matgen(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/trilap-matgen", tl_test_env("TL_BIN", "bin"));
    TL_ASSERT_MSG(access(path, X_OK) == 0, "%s not built (make all first)", path);
    return path;
}

TL_TEST(matgen_program)
{
    const char *mg = matgen();
    char cmd[2048], out[8192];
    const char *a = tl_test_path("p.tlcsr"), *b = tl_test_path("p_b.mtx");
    snprintf(cmd, sizeof cmd, "%s poisson27 4 %s --rhs %s 2>&1", mg, a, b);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT(strstr(out, "rows: 64"));
    tl_csr m, ref;
    tl_gen g = {.kind = TL_GEN_POISSON27, .n = 4};
    TL_ASSERT_OK(tl_bin_read(a, &m, NULL));
    TL_ASSERT_OK(tl_gen_csr(&g, &ref));
    assert_same(&m, &ref);
    /* convert binary -> mtx -> binary gives the same matrix */
    const char *c = tl_test_path("p.mtx"), *d = tl_test_path("p2.tlcsr");
    snprintf(cmd, sizeof cmd, "%s convert %s %s 2>&1 && %s convert %s %s 2>&1", mg, a, c, mg, c, d);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT(strstr(out, "symmetric: yes"));
    tl_csr m2;
    TL_ASSERT_OK(tl_bin_read(d, &m2, NULL));
    assert_same(&m2, &ref);
    tl_csr_free(&m), tl_csr_free(&m2), tl_csr_free(&ref);
    snprintf(cmd, sizeof cmd, "%s info %s 2>&1", mg, d);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT_MSG(strstr(out, "nonzeros: 1000"), "%s", out);
    /* hetero2d with its decades */
    const char *h = tl_test_path("h.tlcsr");
    snprintf(cmd, sizeof cmd, "%s hetero2d 6 %s --decades 2 2>&1", mg, h);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT_MSG(strstr(out, "grid: 6^2") && strstr(out, "rows: 36") && strstr(out, "decades: 2"),
                  "%s", out);
    tl_gen gh = {.kind = TL_GEN_HETERO2D, .n = 6, .peclet = 2};
    TL_ASSERT_OK(tl_bin_read(h, &m, NULL));
    TL_ASSERT_OK(tl_gen_csr(&gh, &ref));
    assert_same(&m, &ref);
    tl_csr_free(&m), tl_csr_free(&ref);
}

TL_TEST(matgen_bad_arguments)
{
    const char *mg = matgen();
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "%s poisson7 zero %s 2>&1", mg, tl_test_path("z.tlcsr"));
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    TL_ASSERT_MSG(strstr(out, "invalid grid size N 'zero': not a whole number (try --help)"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s frobnicate 2>&1", mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s convdiff 3 %s --peclet abc 2>&1", mg, tl_test_path("z.tlcsr"));
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    /* an empty input name: it was "trilap-matgen: : cannot open: ...", exit 1 */
    snprintf(cmd, sizeof cmd, "%s info '' 2>&1", mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    TL_ASSERT_STREQ(out, "trilap-matgen: invalid input '': an empty file name (try --help)\n");
    /* a bad input file: one clear line, exit 1, nothing written */
    FILE *f = fopen(tl_test_path("bad.mtx"), "w");
    fputs("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 NaN\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s convert %s %s 2>&1", mg, tl_test_path("bad.mtx"),
             tl_test_path("bad.tlcsr"));
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
    TL_ASSERT_MSG(strstr(out, "bad.mtx:3: value not finite"), "%s", out);
    TL_ASSERT(access(tl_test_path("bad.tlcsr"), F_OK) != 0);
    /* a partition over the matrix it partitions (it replaced the matrix) */
    char pm[300], p0[300], big[2048];
    snprintf(pm, sizeof pm, "%s", tl_test_path("P.mtx"));
    snprintf(p0, sizeof p0, "%s", tl_test_path("P0.mtx"));
    /* the same file by another spelling: DIR/./P.mtx */
    snprintf(big, sizeof big, "%s poisson7 3 %s >/dev/null && cp %s %s && %s partition %s 2 %.*s/./P.mtx 2>&1", mg, pm,
             pm, p0, mg, pm, (int)(strlen(pm) - strlen("/P.mtx")), pm);
    TL_ASSERT_EQ(tl_test_popen(big, out, sizeof out), 2);
    TL_ASSERT_MSG(strstr(out, "the matrix it partitions; give the partition a file of its own"), "%s", out);
    snprintf(cmd, sizeof cmd, "cmp %s %s", tl_test_path("P.mtx"), tl_test_path("P0.mtx"));
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
    snprintf(cmd, sizeof cmd, "%s --help", mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
    TL_ASSERT(strstr(out, "poisson27") && strstr(out, "--peclet"));
    /* the purpose under the usage line, as every program's (it came after the commands) */
    TL_ASSERT_MSG(!strncmp(out, "usage: trilap-matgen COMMAND ARGS...\nGenerate, convert and partition sparse matrices "
                                "for trilap.\n\nCommands:\n  poisson7 ", 119),
                  "%.300s", out);
}

/* A matrix and its --rhs: both or neither. Missing folders are made (as
 * trilap-solve's --solution makes them; matgen refused with "cannot write
 * (under a temporary name beside it)" after writing the matrix), a path
 * that cannot be written is refused before the work in one line, and a
 * right-hand side that fails while written leaves the matrix as it was. */
TL_TEST(matgen_matrix_and_rhs_both_or_neither)
{
    const char *d = tl_test_tmpdir();
    char out[8192], mg[PATH_MAX], cmd[2 * PATH_MAX + 200];
    TL_ASSERT(realpath(matgen(), mg)); /* the commands run in d */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 4 A.mtx --rhs nodir/b.mtx >/dev/null", d, mg), 0);
    TL_ASSERT_EQ(tl_test_sh("test -s %s/A.mtx && test -s %s/nodir/b.mtx", d, d), 0);
    /* refused before the work: the old matrix stays, nothing on stdout */
    TL_ASSERT_EQ(tl_test_sh("cd %s && echo old > A.mtx && touch afile", d), 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s poisson7 4 A.mtx --rhs afile/b.mtx 2>&1", d, mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
    TL_ASSERT_MSG(!strcmp(out, "trilap-matgen: --rhs: afile/b.mtx: cannot write there: afile is not a folder\n"),
                  "%s", out);
    snprintf(cmd, sizeof cmd, "cd %s && %s poisson7 4 afile/A.mtx --rhs b.mtx 2>&1", d, mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
    TL_ASSERT_MSG(!strcmp(out, "trilap-matgen: afile/A.mtx: cannot write there: afile is not a folder\n"), "%s", out);
    /* a right-hand side whose writes fail (a full device): the matrix is not put in place either */
    if (access("/dev/full", W_OK) == 0) {
        snprintf(cmd, sizeof cmd, "cd %s && %s poisson7 4 A.mtx --rhs /dev/full 2>&1", d, mg);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
        TL_ASSERT_MSG(strstr(out, "/dev/full: write failed"), "%s", out);
    }
    TL_ASSERT_EQ(tl_test_sh("cd %s && test \"$(cat A.mtx)\" = old && test ! -e b.mtx", d), 0);
    TL_ASSERT_EQ(tl_test_sh("cd %s && test -z \"$(ls -A | grep -v -x -e A.mtx -e afile -e nodir)\"", d), 0);
    /* .gz in any case is gzip, as every writer takes it (A.mtx.GZ was "not .tlcsr, .mtx or .mtx.gz") */
    if (TL_HAVE_ZLIB) {
        TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 4 G.mtx.GZ >/dev/null && gzip -t < G.mtx.GZ && rm G.mtx.GZ", d, mg),
                     0);
    }
    /* --rhs where no generator runs was dropped without a word */
    snprintf(cmd, sizeof cmd, "cd %s && %s convert nodir/b.mtx c.mtx --rhs x.mtx 2>&1", d, mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    TL_ASSERT_MSG(strstr(out, "invalid --rhs 'x.mtx': only a generator writes a right-hand side"), "%s", out);
}

/* An option the command or generator does not use is refused in one line
 * naming it and what it belongs to, exit 2, nothing on stdout, nothing
 * written (before: taken and dropped; poisson7 with --peclet 50 --decades 9
 * --method block wrote the plain poisson7 file). */
TL_TEST(matgen_unused_options_refused)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg)); /* the commands run in d */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 4 A.mtx >/dev/null", d, mg), 0);
#define NOT(opt, value, what, cmd) \
    "trilap-matgen: invalid --" opt " '" value "': only " what ", not " cmd " (try --help)\n"
#define PECLET(value, cmd) NOT("peclet", value, "convdiff takes a Peclet number", cmd)
#define DECADES(value, cmd) NOT("decades", value, "hetero2d takes decades of coefficients", cmd)
#define METHOD(value, cmd) NOT("method", value, "partition takes a partitioner", cmd)
    static const char *const cases[][2] = {
        {"poisson7 6 B.mtx --peclet 50 --decades 9 --method block", PECLET("50", "poisson7")},
        {"poisson7 6 B.mtx --decades 9", DECADES("9", "poisson7")},
        {"poisson7 6 B.mtx --method block", METHOD("block", "poisson7")},
        {"poisson27 6 B.mtx --peclet 1", PECLET("1", "poisson27")},
        {"convdiff 6 B.mtx --decades 9", DECADES("9", "convdiff")},
        {"convdiff 6 B.mtx --peclet 2 --method metis", METHOD("metis", "convdiff")},
        {"hetero2d 6 B.mtx --peclet 0.5", PECLET("0.5", "hetero2d")},
        {"hetero2d 6 B.mtx --decades 2 --method metis-recursive", METHOD("metis-recursive", "hetero2d")},
        {"info A.mtx --method block", METHOD("block", "info")},
        {"info A.mtx --peclet 3", PECLET("3", "info")},
        {"convert A.mtx B.tlcsr --method block", METHOD("block", "convert")},
        {"convert A.mtx B.tlcsr --peclet 3", PECLET("3", "convert")},
        {"convert A.mtx B.tlcsr --decades 3", DECADES("3", "convert")},
        {"partition A.mtx 2 B.mtx --peclet 3", PECLET("3", "partition")},
        {"partition A.mtx 2 B.mtx --decades 3 --method block", DECADES("3", "partition")},
    };
#undef NOT
#undef PECLET
#undef DECADES
#undef METHOD
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output o = tl_test_capture("cd %s && %s %s", d, mg, cases[k][0]);
        TL_ASSERT_MSG(o.rc == 2, "%s: exit %d", cases[k][0], o.rc);
        TL_ASSERT_MSG(!strcmp(o.err, cases[k][1]), "%s: stderr %s", cases[k][0], o.err);
        TL_ASSERT_MSG(!o.out[0], "%s: stdout %s", cases[k][0], o.out);
        tl_test_output_free(&o);
        TL_ASSERT_EQ(tl_test_sh("cd %s && test -z \"$(ls -A | grep -v -x A.mtx)\"", d), 0);
    }
    /* where they act they are taken */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s convdiff 4 C.mtx --peclet 2 >/dev/null && %s hetero2d 4 H.mtx --decades 2 "
                            ">/dev/null && %s partition A.mtx 2 P.mtx --method block >/dev/null",
                            d, mg, mg, mg),
                 0);
}

/* To a pipe (a FIFO, as /dev/stdout behind `|`): Matrix Market streams
 * through it and the pipe stays a pipe; a .tlcsr, whose header is written
 * last, is refused before anything is written there. */
TL_TEST(matgen_to_a_pipe)
{
    const char *mg = matgen();
    char cmd[2048], out[8192];
    const char *mtx = tl_test_path("pipe.mtx");
    int rd = tl_test_fifo(mtx);
    snprintf(cmd, sizeof cmd, "%s poisson7 4 %s 2>&1", mg, mtx);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    char *got = tl_test_fifo_read(mtx, rd);
    TL_ASSERT_MSG(strncmp(got, "%%MatrixMarket matrix coordinate real symmetric\n", 48) == 0, "%.200s", got);
    TL_ASSERT_MSG(strstr(got, "\n64 64 208\n"), "%.200s", got);
    free(got);
    close(rd);
    const char *bin = tl_test_path("pipe.tlcsr");
    rd = tl_test_fifo(bin);
    snprintf(cmd, sizeof cmd, "%s poisson7 4 %s 2>&1", mg, bin);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
    TL_ASSERT_MSG(strstr(out, "pipe.tlcsr: a device or a pipe, but this file's header is written last"), "%s", out);
    got = tl_test_fifo_read(bin, rd);
    TL_ASSERT_MSG(!got[0], "%zu bytes written to the pipe", strlen(got));
    free(got);
    close(rd);
}

/* An output to stdout (`--rhs -`, `partition A N -`, /dev/stdout): stdout
 * carries that file alone and the report goes to stderr (before, the
 * report followed the Matrix Market data, so `--rhs - > b.mtx` was not a
 * Matrix Market file). */
TL_TEST(matgen_output_to_stdout_alone)
{
    const char *mg = matgen();
    char cmd[4096], out[8192];
    const char *a = tl_test_path("s.mtx"), *b = tl_test_path("sb.mtx"), *p = tl_test_path("sp.mtx");
    TL_ASSERT_EQ(tl_test_sh("%s poisson7 3 %s --rhs %s >/dev/null", mg, a, b), 0);
    TL_ASSERT_EQ(tl_test_sh("%s partition %s 2 %s --method block >/dev/null", mg, a, p), 0);
    const char *const stream[] = {"-", "/dev/stdout"};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s poisson7 3 %s --rhs %s 2>/dev/null", mg, a, stream[k]);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
        char *want = tl_test_read(b);
        TL_ASSERT_STREQ(out, want);
        free(want);
        snprintf(cmd, sizeof cmd, "%s partition %s 2 %s --method block 2>/dev/null", mg, a, stream[k]);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
        want = tl_test_read(p);
        TL_ASSERT_STREQ(out, want);
        free(want);
    }
    /* the report is still said, on stderr (13 cut edges, counted by hand) */
    snprintf(cmd, sizeof cmd, "%s partition %s 2 - --method block 2>&1 >/dev/null", mg, a);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
    TL_ASSERT_MSG(strstr(out, "edge cut: 13\n") && strstr(out, "written: -\n"), "%s", out);
}

/* The matrix itself on stdout (`-`, /dev/stdout) or a pipe of any name:
 * Matrix Market text, byte for byte the file's, the report on stderr
 * (before: "invalid output name '-': not .tlcsr, .mtx or .mtx.gz", exit 2,
 * so `trilap-matgen poisson7 50 - | gzip` could not be written); the
 * matrix and --rhs both on stdout are refused, one stream of two files
 * being neither. */
TL_TEST(matgen_matrix_to_stdout)
{
    const char *mg = matgen();
    char cmd[4096], out[65536];
    const char *a = tl_test_path("m.mtx"), *c = tl_test_path("c.mtx");
    TL_ASSERT_EQ(tl_test_sh("%s convdiff 3 %s >/dev/null && %s convert %s %s >/dev/null", mg, a, mg, a, c), 0);
    char *want = tl_test_read(a), *conv = tl_test_read(c);
    const char *const stream[] = {"-", "/dev/stdout"};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s convdiff 3 %s 2>/dev/null", mg, stream[k]);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
        TL_ASSERT_STREQ(out, want);
        snprintf(cmd, sizeof cmd, "%s convert %s %s 2>/dev/null", mg, a, stream[k]);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
        TL_ASSERT_STREQ(out, conv);
    }
    snprintf(cmd, sizeof cmd, "%s convdiff 3 - 2>&1 >/dev/null", mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 0);
    TL_ASSERT_MSG(strstr(out, "matrix: -\nkind: convdiff\n"), "%s", out);
    /* a FIFO whose name says no format */
    const char *fifo = tl_test_path("plain");
    int rd = tl_test_fifo(fifo);
    snprintf(cmd, sizeof cmd, "%s convdiff 3 %s 2>&1", mg, fifo);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    char *got = tl_test_fifo_read(fifo, rd);
    TL_ASSERT_STREQ(got, want);
    free(got);
    close(rd);
    free(want);
    free(conv);
    snprintf(cmd, sizeof cmd, "%s poisson7 3 - --rhs /dev/stdout 2>&1", mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    TL_ASSERT_STREQ(out, "trilap-matgen: the matrix (-) and --rhs (/dev/stdout) both go to stdout: give one of them "
                         "a file\n");
    /* a file name that says no format is still refused, saying what would do */
    snprintf(cmd, sizeof cmd, "%s poisson7 3 %s 2>&1", mg, tl_test_path("m.txt"));
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
    TL_ASSERT_MSG(strstr(out, "m.txt': not .tlcsr, .mtx or .mtx.gz, nor - (stdout) or a pipe (try --help)\n"), "%s",
                  out);
}

/* --rhs naming the matrix's file by another spelling: refused before the
 * work, exit 2 (before, b was renamed over the matrix just written, exit 0,
 * the report naming both). */
TL_TEST(matgen_rhs_over_its_matrix_refused)
{
    char mg[4096], cmd[8192], out[8192];
    TL_ASSERT(realpath(matgen(), mg)); /* the command runs in the test's folder */
    const char *dir = tl_test_tmpdir();
    /* every spelling in the one check, the same one line (the same name
     * was a check of its own, "invalid --rhs 'A.mtx': the matrix's own
     * file", beside a third in tl_gen_write_files) */
    const char *const spellings[] = {"./A.mtx", "A.mtx"};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "cd %s && %s poisson7 3 A.mtx --rhs %s 2>&1", dir, mg, spellings[k]);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 2);
        char want[256];
        snprintf(want, sizeof want, "trilap-matgen: the matrix and --rhs both name %s: give each a file of its own",
                 spellings[k]);
        TL_ASSERT_MSG(tl_test_one_line(out, want), "%s", out);
        snprintf(cmd, sizeof cmd, "%s/A.mtx", dir);
        TL_ASSERT_MSG(access(cmd, F_OK) != 0, "%s written", cmd);
    }
}

/* A matrix larger than the disk: refused at once in one line, nothing
 * written (before, poisson7 100000 counted 10^15 rows for days, and a
 * .tlcsr filled the disk). 24 bytes a row is the .tlcsr's least: 10^15
 * rows need 24 PB, more than any test machine has. */
TL_TEST(matgen_larger_than_the_disk_refused)
{
    const char *mg = matgen();
    char cmd[4096], out[8192];
    const char *const names[] = {"huge.tlcsr", "huge.mtx", "huge.mtx.gz", "sub/huge.tlcsr"};
    for (int k = 0; k < 4; k++) {
        const char *path = tl_test_path(names[k]);
        snprintf(cmd, sizeof cmd, "timeout 5 %s poisson7 100000 %s 2>&1", mg, path);
        TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
        TL_ASSERT_MSG(tl_test_one_line(out, "a poisson7 matrix of 1000000000000000 rows needs at least "),
                      "%s", out);
        TL_ASSERT_MSG(access(path, F_OK) != 0, "%s written", path);
    }
}

/* Each output's folder not there yet (a generator's OUT and --rhs,
 * convert's and partition's OUT) is made once the inputs are checked and
 * said in one line, as every trilap program says its outputs' folders
 * (tl_out_make_folder); nothing is said where it is there. A refused
 * input (a matrix whose entry is no number, one larger than the disk)
 * stays one line and leaves no folder. Before, the writers made the
 * folders in silence. */
TL_TEST(matgen_output_folders_made_and_said)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg)); /* the commands run in d */
    static const struct {
        const char *args, *said[3];
    } made[] = {
        {"poisson7 4 m/x/A.mtx --rhs r/b.mtx",
         {"trilap-matgen: note: output m/x/A.mtx: created folders m to m/x\n",
          "trilap-matgen: note: --rhs r/b.mtx: created folder r\n"}},
        {"convert m/x/A.mtx c/A.tlcsr", {"trilap-matgen: note: output c/A.tlcsr: created folder c\n"}},
        {"partition m/x/A.mtx 2 p/P.mtx", {"trilap-matgen: note: output p/P.mtx: created folder p\n"}},
    };
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++)
        for (int again = 0; again < 2; again++) { /* the second time the folders are there: nothing said */
            tl_test_output o = tl_test_capture("cd %s && %s %s", d, mg, made[k].args);
            TL_ASSERT_MSG(o.rc == 0, "%s: exit %d: %s", made[k].args, o.rc, o.err);
            int n = 0;
            for (; !again && made[k].said[n]; n++)
                TL_ASSERT_MSG(tl_test_count(o.err, made[k].said[n]) == 1, "%s: not once: %s in\n%s", made[k].args,
                              made[k].said[n], o.err);
            TL_ASSERT_MSG(tl_test_count(o.err, "created folder") == n, "%s (again %d): %s", made[k].args, again, o.err);
            tl_test_output_free(&o);
        }
    TL_ASSERT_EQ(tl_test_sh("cd %s && test -s m/x/A.mtx && test -s r/b.mtx && test -s c/A.tlcsr && test -s p/P.mtx", d),
                 0);
    TL_ASSERT_EQ(tl_test_sh("cd %s && sed '5s/^\\([0-9]* [0-9]*\\) .*/\\1 x/' m/x/A.mtx > bad.mtx", d), 0);
    static const struct {
        const char *args, *says;
    } refused[] = {
        {"convert bad.mtx rc/A.tlcsr", "bad.mtx"},
        {"partition bad.mtx 2 rp/P.mtx", "bad.mtx"},
        {"poisson7 100000 rg/huge.tlcsr --rhs rr/b.mtx", "a poisson7 matrix of 1000000000000000 rows needs at least "},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        tl_test_output o = tl_test_capture("cd %s && timeout 10 %s %s", d, mg, refused[k].args);
        TL_ASSERT_MSG(o.rc == 1 && tl_test_one_line(o.err, refused[k].says), "%s: exit %d: %s", refused[k].args, o.rc,
                      o.err);
        tl_test_output_free(&o);
    }
    TL_ASSERT_MSG(tl_test_sh("cd %s && test ! -e rc && test ! -e rp && test ! -e rg && test ! -e rr", d) == 0,
                  "a folder left by a refused input");
}

/* Sizes and arguments refused say why, in one line, exit 2, nothing
 * written and A.mtx untouched (before: "invalid grid size N '0' (try
 * --help)", the same for 1e99 and 64M, and "invalid NPARTS '0'", without
 * a reason; a convert over its input and a .tlcsr --rhs, below, exit 0). */
TL_TEST(matgen_refusals_say_why)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg)); /* the commands run in d */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 3 A.mtx >/dev/null && cp A.mtx A0.mtx", d, mg), 0);
    static const char *const cases[][2] = {
        {"poisson7 0 z.mtx", "invalid grid size N '0': out of range [1, 2097151]: 2097151 is the largest N whose N^3 "
                             "rows fit the 64-bit row index (try --help)"},
        {"poisson27 2097152 z.mtx", "invalid grid size N '2097152': out of range [1, 2097151]: 2097151 is the largest N "
                                    "whose N^3 rows fit the 64-bit row index (try --help)"},
        {"convdiff 1e99 z.mtx", "invalid grid size N '1e99': not a whole number (try --help)"},
        {"hetero2d 64M z.mtx", "invalid grid size N '64M': not a whole number (try --help)"},
        {"poisson7 abc z.mtx", "invalid grid size N 'abc': not a whole number (try --help)"},
        {"partition A.mtx 0 z.mtx", "invalid NPARTS '0': out of range [1, 1048576] (try --help)"},
        {"partition A.mtx 2x z.mtx", "invalid NPARTS '2x': not a whole number (try --help)"},
        /* arguments: what the command takes (before: "invalid arguments for 'info' (try --help)") */
        {"info", "invalid arguments for 'info': it takes FILE (1 argument), got 0 (try --help)"},
        {"poisson7 3", "invalid arguments for 'poisson7': it takes N OUT (2 arguments), got 1 (try --help)"},
        {"partition A.mtx 2", "invalid arguments for 'partition': it takes A NPARTS OUT (3 arguments), got 2 (try "
                              "--help)"},
        /* over its input: it rewrote A.mtx, converting nothing, exit 0 */
        {"convert A.mtx ./A.mtx", "invalid output './A.mtx': the matrix it converts; give the converted matrix a file "
                                  "of its own (try --help)"},
        /* b is text: a .tlcsr name got Matrix Market text, exit 0 */
        {"poisson7 3 z.mtx --rhs z.tlcsr", "invalid --rhs 'z.tlcsr': b is written as Matrix Market text; give it a "
                                           ".mtx or .mtx.gz name (try --help)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output o = tl_test_capture("cd %s && %s %s", d, mg, cases[k][0]);
        char want[256];
        snprintf(want, sizeof want, "trilap-matgen: %s\n", cases[k][1]);
        TL_ASSERT_MSG(o.rc == 2 && !strcmp(o.err, want) && !o.out[0], "%s: exit %d: %s", cases[k][0], o.rc, o.err);
        tl_test_output_free(&o);
        TL_ASSERT_EQ(tl_test_sh("cd %s && test -z \"$(ls -A | grep -v -x -e A.mtx -e A0.mtx)\"", d), 0);
        TL_ASSERT_MSG(tl_test_sh("cd %s && cmp -s A.mtx A0.mtx", d) == 0, "%s: A.mtx changed", cases[k][0]);
    }
}

/* More parts than rows: the file is written, and the parts without a row
 * said on stderr in one line, as trilap-solve says of its ranks (before:
 * "rows per part: 0 .. 1" alone, exit 0); as many parts as rows: nothing. */
TL_TEST(matgen_empty_parts_warned)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg)); /* the commands run in d */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 2 A.mtx >/dev/null", d, mg), 0);
    static const char *const cases[][2] = {
        {"10", "trilap-matgen: warning: 2 of the 10 parts get no rows of A.mtx (8 rows): a run on this file has ranks "
               "with nothing to compute in every allreduce and halo phase; use at most 8 parts\n"},
        {"9", "trilap-matgen: warning: 1 of the 9 parts gets no rows of A.mtx (8 rows): a run on this file has a rank "
              "with nothing to compute in every allreduce and halo phase; use at most 8 parts\n"},
        {"8", ""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output o = tl_test_capture("cd %s && %s partition A.mtx %s P%s.mtx --method block", d, mg,
                                           cases[k][0], cases[k][0]);
        TL_ASSERT_MSG(o.rc == 0 && !strcmp(o.err, cases[k][1]) && strstr(o.out, "rows per part: "), "%s: exit %d: %s",
                      cases[k][0], o.rc, o.err);
        tl_test_output_free(&o);
        TL_ASSERT_EQ(tl_test_sh("cd %s && test -s P%s.mtx", d, cases[k][0]), 0);
    }
}

/* A part of the single row: "use at most 1 part" (it said "1 parts"). */
TL_TEST(matgen_empty_parts_one_row)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg));
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 1 A.mtx >/dev/null", d, mg), 0);
    tl_test_output o = tl_test_capture("cd %s && %s partition A.mtx 3 P.mtx --method block", d, mg);
    TL_ASSERT_MSG(o.rc == 0 && !strcmp(o.err, "trilap-matgen: warning: 2 of the 3 parts get no rows of A.mtx (1 row): "
                                              "a run on this file has ranks with nothing to compute in every allreduce "
                                              "and halo phase; use at most 1 part\n"),
                  "exit %d: %s", o.rc, o.err);
    tl_test_output_free(&o);
}

/* info, convert and partition take trilap-solve's gen:KIND:N[:PECLET]
 * (they said "gen:poisson7:4: cannot open: No such file or directory",
 * exit 1, so that a partition file for `trilap-solve gen:...` needed the
 * matrix written first): the same matrix as the generator's file, the same
 * partition; a bad spec is the command line's, exit 2, in one line. */
TL_TEST(matgen_takes_generated_specs)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg));
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s convdiff 4 F.mtx --peclet 2 >/dev/null && "
                            "%s convert gen:convdiff:4:2 G.mtx >/dev/null && grep -v '^%%' F.mtx >F.txt && "
                            "grep -v '^%%' G.mtx >G.txt && cmp -s F.txt G.txt",
                            d, mg, mg),
                 0);
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s partition F.mtx 3 PF.mtx >/dev/null && "
                            "%s partition gen:convdiff:4:2 3 PG.mtx >/dev/null && cmp -s PF.mtx PG.mtx",
                            d, mg, mg),
                 0);
    tl_test_output o = tl_test_capture("cd %s && %s info gen:hetero2d:5:4", d, mg);
    TL_ASSERT_MSG(o.rc == 0 && strstr(o.out, "rows: 25\n") && strstr(o.out, "symmetric: yes\n"), "exit %d: %s%s", o.rc,
                  o.out, o.err);
    tl_test_output_free(&o);
    o = tl_test_capture("cd %s && %s partition gen:poisson7:4x 2 P.mtx", d, mg);
    TL_ASSERT_MSG(o.rc == 2 && tl_test_count(o.err, "\n") == 1 && strstr(o.err, "'gen:poisson7:4x'") &&
                      !tl_test_sh("test ! -e %s/P.mtx", d),
                  "exit %d: %s", o.rc, o.err);
    tl_test_output_free(&o);
}

/* A 0 x 0 matrix is no system: partition refuses it, one line, exit 1,
 * nothing written (it wrote a file of no parts' rows and advised "use at
 * most 0 parts"); info still describes it. */
TL_TEST(matgen_empty_matrix_not_partitioned)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg));
    char z[PATH_MAX];
    snprintf(z, sizeof z, "%s/Z.mtx", d);
    tl_test_write(z, "%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    tl_test_output o = tl_test_capture("cd %s && %s partition Z.mtx 2 P.mtx", d, mg);
    TL_ASSERT_MSG(o.rc == 1 && !strcmp(o.err, "trilap-matgen: Z.mtx: matrix is 0 x 0, but the solvers need at least "
                                              "one row\n") && !tl_test_sh("test ! -e %s/P.mtx", d),
                  "exit %d: %s", o.rc, o.err);
    tl_test_output_free(&o);
    o = tl_test_capture("cd %s && %s info Z.mtx", d, mg);
    TL_ASSERT_MSG(o.rc == 0 && strstr(o.out, "rows: 0\n"), "exit %d: %s", o.rc, o.err);
    tl_test_output_free(&o);
}

/* Each output (convert's, partition's, a generator's OUT, --rhs) refused
 * in one line, nothing written, the input untouched: the command line's
 * fault exit 2 (an empty name: partition's and --rhs said "an output file
 * name is empty", exit 1, the others "not .tlcsr, .mtx or .mtx.gz"; the
 * input by a link; a partition under a .tlcsr name, written as text, exit
 * 0), the file system's exit 1 (a folder). */
TL_TEST(matgen_outputs_refused_in_one_line)
{
    const char *d = tl_test_tmpdir();
    char mg[PATH_MAX];
    TL_ASSERT(realpath(matgen(), mg)); /* the commands run in d */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s poisson7 3 A.mtx >/dev/null && cp A.mtx A0.mtx && ln -s A.mtx L.mtx && "
                            "ln A.mtx H.mtx && mkdir D.mtx",
                            d, mg),
                 0);
    static const struct {
        const char *args;
        int rc;
        const char *err;
    } cases[] = {
        {"convert A.mtx ''", 2, "invalid output '': an empty file name (try --help)"},
        {"partition A.mtx 2 ''", 2, "invalid output '': an empty file name (try --help)"},
        {"poisson7 3 ''", 2, "invalid output '': an empty file name (try --help)"},
        {"poisson7 3 z.mtx --rhs ''", 2, "invalid --rhs '': an empty file name (try --help)"},
        {"convert A.mtx A.mtx", 2, "invalid output 'A.mtx': the matrix it converts; give the converted matrix a file "
                                   "of its own (try --help)"},
        {"convert A.mtx L.mtx", 2, "invalid output 'L.mtx': the matrix it converts; give the converted matrix a file "
                                   "of its own (try --help)"},
        {"convert L.mtx A.mtx", 2, "invalid output 'A.mtx': the matrix it converts; give the converted matrix a file "
                                   "of its own (try --help)"},
        {"convert A.mtx H.mtx", 2, "invalid output 'H.mtx': the matrix it converts; give the converted matrix a file "
                                   "of its own (try --help)"},
        {"partition A.mtx 2 L.mtx", 2, "invalid output 'L.mtx': the matrix it partitions; give the partition a file "
                                       "of its own (try --help)"},
        {"partition L.mtx 2 H.mtx", 2, "invalid output 'H.mtx': the matrix it partitions; give the partition a file "
                                       "of its own (try --help)"},
        {"partition A.mtx 2 z.tlcsr", 2, "invalid output 'z.tlcsr': a partition is written as Matrix Market text; "
                                         "give it a .mtx or .mtx.gz name (try --help)"},
        {"convert A.mtx D.mtx", 1, "D.mtx: a folder; give a file name"},
        {"partition A.mtx 2 D.mtx", 1, "D.mtx: a folder; give a file name"},
        {"poisson7 3 D.mtx", 1, "D.mtx: a folder; give a file name"},
        {"poisson7 3 z.mtx --rhs D.mtx", 1, "--rhs: D.mtx: a folder; give a file name"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output o = tl_test_capture("cd %s && %s %s", d, mg, cases[k].args);
        char want[256];
        snprintf(want, sizeof want, "trilap-matgen: %s\n", cases[k].err);
        TL_ASSERT_MSG(o.rc == cases[k].rc && !strcmp(o.err, want) && !o.out[0], "%s: exit %d: %s", cases[k].args,
                      o.rc, o.err);
        tl_test_output_free(&o);
        TL_ASSERT_MSG(tl_test_sh("cd %s && test -z \"$(ls -A | grep -v -x -e A.mtx -e A0.mtx -e L.mtx -e H.mtx -e "
                                 "D.mtx)$(ls -A D.mtx)\"",
                                 d) == 0,
                      "%s: wrote a file", cases[k].args);
        TL_ASSERT_MSG(tl_test_sh("cd %s && cmp -s A.mtx A0.mtx && test -L L.mtx", d) == 0, "%s: A.mtx changed",
                      cases[k].args);
    }
}

/* Matrix Market text larger than the disk by the digits of its row
 * numbers: refused at once (before, the bound took every row as 6 bytes,
 * so hetero2d 100000, 10^10 rows of at least 24 bytes, passed 82 GB free
 * and counted rows for ten minutes before writing a byte). N is chosen
 * from this disk: rows = a tenth of its free bytes, which the old bound
 * (6 a row) let through and the digits (2 x 8 or more + 4 a row) do not. */
TL_TEST(matgen_mtx_larger_than_the_disk_by_its_digits)
{
    const char *mg = matgen();
    char cmd[4096], out[8192];
    const char *path = tl_test_path("wide.mtx");
    struct statvfs fs;
    TL_ASSERT_EQ(statvfs(tl_test_tmpdir(), &fs), 0);
    const double avail = (double)fs.f_bavail * (double)fs.f_frsize;
    if (avail < 1e9) TL_SKIP("less than 1 GB free here");
    const long n = (long)ceil(sqrt(avail / 10));
    if (n > 2097151) TL_SKIP("more than 44 TB free here");
    snprintf(cmd, sizeof cmd, "timeout 10 %s hetero2d %ld %s 2>&1", mg, n, path);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
    char want[256];
    snprintf(want, sizeof want, "a hetero2d matrix of %ld rows needs at least ", n * n);
    TL_ASSERT_MSG(tl_test_one_line(out, want), "%s", out);
    TL_ASSERT_MSG(access(path, F_OK) != 0, "%s written", path);
}

/* From a pipe (`zcat m.mtx.gz | trilap-solve /dev/stdin`, `<(...)`), which
 * cannot seek back over the bytes that tell gzip from text: the same
 * matrix, plain or gzip; a binary matrix there is named as one. */
TL_TEST(matgen_reads_a_pipe)
{
    const char *mg = matgen();
    char cmd[4096], out[8192];
    const char *mtx = tl_test_path("q.mtx"), *gz = tl_test_path("q.mtx.gz"), *bin = tl_test_path("q.tlcsr");
    snprintf(cmd, sizeof cmd, "%s poisson27 5 %s >/dev/null && %s poisson27 5 %s >/dev/null && %s poisson27 5 %s >/dev/null",
             mg, mtx, mg, gz, mg, bin);
    TL_ASSERT_EQ(tl_test_sh("%s", cmd), 0);
    const char *src[] = {mtx, gz};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "cat %s | %s info /dev/stdin 2>&1", src[k], mg);
        TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
        TL_ASSERT_MSG(strstr(out, "rows: 125\n") && strstr(out, "nonzeros: 2197\n"), "%s: %s", src[k], out);
    }
    snprintf(cmd, sizeof cmd, "cat %s | %s info /dev/stdin 2>&1", bin, mg);
    TL_ASSERT_EQ(tl_test_popen(cmd, out, sizeof out), 1);
    TL_ASSERT_MSG(strstr(out, "/dev/stdin: a trilap binary matrix, read as one by a file name ending in .tlcsr"), "%s",
                  out);
}

/* Each kind's default parameter is one: the matrix `trilap-matgen KIND N`
 * writes equals gen:KIND:N's, entry by entry (convdiff's Peclet number was
 * 1 in matgen, 0.5 in the spec; hetero2d's decades 4 and 0.5, so
 * gen:hetero2d:20 took pcg 80 iterations where the file took 607). */
TL_TEST(matgen_defaults_equal_the_specs)
{
    const char *mg = matgen();
    static const char *const kinds[] = {"poisson7", "poisson27", "convdiff", "hetero2d"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *a = tl_test_path("cmd.mtx"), *b = tl_test_path("spec.mtx");
        TL_ASSERT_EQ(tl_test_sh("%s %s 5 %s >/dev/null && %s convert gen:%s:5 %s >/dev/null", mg, kinds[k], a, mg,
                                kinds[k], b),
                     0);
        tl_csr x, y;
        TL_ASSERT_OK(tl_mm_read_csr(a, 1, &x, NULL));
        TL_ASSERT_OK(tl_mm_read_csr(b, 1, &y, NULL));
        TL_ASSERT_EQ(x.nrows, y.nrows);
        TL_ASSERT_EQ(x.nnz, y.nnz);
        for (int64_t i = 0; i <= x.nrows; i++)
            TL_ASSERT_EQ(x.rowptr[i], y.rowptr[i]);
        for (int64_t e = 0; e < x.nnz; e++) {
            TL_ASSERT_EQ(x.colidx[e], y.colidx[e]);
            TL_ASSERT_MSG(x.val[e] == y.val[e], "%s entry %lld: %.17g from `trilap-matgen %s`, %.17g from gen:%s:5",
                          kinds[k], (long long)e, x.val[e], kinds[k], y.val[e], kinds[k]);
        }
        tl_csr_free(&x);
        tl_csr_free(&y);
    }
}

TL_TEST_MAIN(poisson7_structure, poisson27_structure, convdiff_structure, hetero2d_structure,
             streamed_equals_memory,
             rhs_is_a_times_ones, bad_generator_arguments, spec_parse_strict, matgen_program, matgen_bad_arguments,
             matgen_matrix_and_rhs_both_or_neither, matgen_unused_options_refused, matgen_to_a_pipe,
             matgen_reads_a_pipe, matgen_output_to_stdout_alone,
             matgen_larger_than_the_disk_refused, matgen_rhs_over_its_matrix_refused, matgen_refusals_say_why,
             matgen_mtx_larger_than_the_disk_by_its_digits, matgen_matrix_to_stdout, matgen_outputs_refused_in_one_line,
             matgen_empty_parts_warned, matgen_empty_parts_one_row, matgen_takes_generated_specs,
             matgen_empty_matrix_not_partitioned, matgen_defaults_equal_the_specs, matgen_output_folders_made_and_said)
