/* Matrix Market reader and writers: formats, expansion, gzip, and every
 * error case with its file:line message. */
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "runtime/gzin.h"
#include "solvers/matrix/mmio.h"
#include "tl_test.h"
#include "tl_test_run.h"
#if TL_HAVE_ZLIB
#include <zlib.h>
#endif

static char g_path[400];
static char g_log[512];

static const char *write_file(const char *name, const char *text)
{
    static char dir[256];
    if (!dir[0]) snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    snprintf(g_path, sizeof g_path, "%s/%s", dir, name);
    snprintf(g_log, sizeof g_log, "%s/stderr.log", dir);
    FILE *f = fopen(g_path, "w");
    TL_ASSERT(f);
    fputs(text, f);
    fclose(f);
    return g_path;
}

/* stderr into g_log until stderr_release, which returns what was said
 * there (and says it again on the test's stderr). */
static int stderr_capture(void)
{
    fflush(stderr);
    int saved = dup(2);
    int fd = open(g_log, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    TL_ASSERT(fd >= 0 && saved >= 0);
    dup2(fd, 2);
    close(fd);
    return saved;
}

static void stderr_release(int saved, char *msg, size_t cap)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(g_log, "r");
    size_t n = f ? fread(msg, 1, cap - 1, f) : 0;
    msg[n] = '\0';
    if (f) fclose(f);
    fprintf(stderr, "%s", msg);
}

/* Run the reader with stderr captured; return the status and the text. */
static int read_capture(const char *path, int square, tl_csr *a, char *msg, size_t cap)
{
    int saved = stderr_capture();
    int st = tl_mm_read_csr(path, square, a, NULL);
    stderr_release(saved, msg, cap);
    return st;
}

/* The file must be rejected with "name:line:" and `reason` in the message. */
static void expect_error(const char *text, int square, int line, const char *reason)
{
    tl_csr a = {0};
    char msg[4096], where[512];
    const char *path = write_file("bad.mtx", text);
    int st = read_capture(path, square, &a, msg, sizeof msg);
    TL_ASSERT_MSG(st != TL_OK, "accepted a bad file (expected '%s')", reason);
    TL_ASSERT(a.rowptr == NULL);
    if (line > 0)
        snprintf(where, sizeof where, "%s:%d:", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    TL_ASSERT_MSG(strstr(msg, where), "message lacks '%s': %s", where, msg);
    TL_ASSERT_MSG(strstr(msg, reason), "message lacks '%s': %s", reason, msg);
}

static double entry(const tl_csr *a, int64_t i, int64_t j)
{
    for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
        if (a->colidx[k] == j) return a->val[k];
    return NAN;
}

static void assert_sorted(const tl_csr *a)
{
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i] + 1; k < a->rowptr[i + 1]; k++)
            TL_ASSERT(a->colidx[k] > a->colidx[k - 1]);
}

TL_TEST(general_with_comments)
{
    tl_csr a;
    tl_mm_info info;
    const char *p =
        write_file("g.mtx", "%%MatrixMarket matrix coordinate real general\n"
                            "% a comment\n%\n\n3 4 5\n"
                            "3 4 -2.5e1\n1 1 1.0\n% inside\n2 3 7\n1 4 0.5\r\n\n3 1 -1\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 0, &a, &info));
    TL_ASSERT_EQ(a.nrows, 3);
    TL_ASSERT_EQ(a.ncols, 4);
    TL_ASSERT_EQ(a.nnz, 5);
    TL_ASSERT_EQ(info.symmetry, TL_MM_GENERAL);
    TL_ASSERT_EQ(info.nentries, 5);
    int64_t rp[] = {0, 2, 3, 5}, ci[] = {0, 3, 2, 0, 3};
    double v[] = {1.0, 0.5, 7.0, -1.0, -25.0};
    for (int i = 0; i < 4; i++)
        TL_ASSERT_EQ(a.rowptr[i], rp[i]);
    for (int k = 0; k < 5; k++) {
        TL_ASSERT_EQ(a.colidx[k], ci[k]);
        TL_ASSERT_NEAR(a.val[k], v[k], 0);
    }
    tl_csr_free(&a);
    TL_ASSERT(a.rowptr == NULL);
}

TL_TEST(symmetric_expansion_1138_bus)
{
    char path[1024];
    tl_csr a;
    tl_mm_info info;
    snprintf(path, sizeof path, "%s", tl_test_matrix("1138_bus.mtx"));
    TL_ASSERT_OK(tl_mm_read_csr(path, 1, &a, &info));
    TL_ASSERT_EQ(info.symmetry, TL_MM_SYMMETRIC);
    TL_ASSERT_EQ(info.nentries, 2596);
    TL_ASSERT_EQ(a.nrows, 1138);
    TL_ASSERT_EQ(a.nnz, 2 * 2596 - 1138); /* every diagonal entry present once */
    assert_sorted(&a);
    TL_ASSERT_NEAR(entry(&a, 0, 0), 1474.779, 0);
    TL_ASSERT_NEAR(entry(&a, 4, 0), -9.017133, 0);
    TL_ASSERT_NEAR(entry(&a, 0, 4), -9.017133, 0);
    for (int64_t i = 0; i < a.nrows; i++)
        for (int64_t k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
            TL_ASSERT(entry(&a, a.colidx[k], i) == a.val[k]);
    tl_csr_free(&a);
}

TL_TEST(general_ani4)
{
    char path[1024];
    tl_csr a;
    snprintf(path, sizeof path, "%s", tl_test_matrix("ani4.mtx"));
    TL_ASSERT_OK(tl_mm_read_csr(path, 1, &a, NULL));
    TL_ASSERT_EQ(a.nrows, 3081);
    TL_ASSERT_EQ(a.nnz, 20971);
    TL_ASSERT_OK(tl_csr_check(&a, path));
    TL_ASSERT_NEAR(entry(&a, 1, 0), -0.0004995004995004994, 0);
    tl_csr_free(&a);
}

TL_TEST(skew_symmetric_expansion)
{
    tl_csr a;
    const char *p = write_file("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                           "3 3 2\n2 1 4\n3 2 -1.5\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_EQ(a.nnz, 4);
    TL_ASSERT_NEAR(entry(&a, 1, 0), 4, 0);
    TL_ASSERT_NEAR(entry(&a, 0, 1), -4, 0);
    TL_ASSERT_NEAR(entry(&a, 2, 1), -1.5, 0);
    TL_ASSERT_NEAR(entry(&a, 1, 2), 1.5, 0);
    tl_csr_free(&a);
    expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n", 0, 3,
                 "diagonal");
}

/* A symmetric file holds one triangle. The upper alone is read as the
 * lower would be; entries in both are refused, naming both lines (before:
 * each mirrored onto the other, a general matrix under a symmetric banner
 * read with every off-diagonal pair summed twice, and no word). */
TL_TEST(symmetric_one_triangle)
{
    tl_csr a;
    const char *p = write_file("up.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n1 2 1\n2 2 4\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_EQ(a.nnz, 4);
    TL_ASSERT_NEAR(entry(&a, 1, 0), 1, 0);
    TL_ASSERT_NEAR(entry(&a, 0, 1), 1, 0);
    tl_csr_free(&a);
    expect_error("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 1\n3 3 4\n1 2 1\n", 1, 6,
                 "entry (1, 2) above the diagonal, where line 4 holds one below it: a symmetric file stores one "
                 "triangle, and each pair in both would count twice");
    expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n1 3 1\n3 2 1\n", 1, 4,
                 "entry (3, 2) below the diagonal, where line 3 holds one above it: a skew-symmetric file");
    expect_error("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n1 2\n", 1, 4, "count twice");
}

TL_TEST(pattern_and_integer)
{
    tl_csr a;
    const char *p = write_file(
        "pat.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 3\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_EQ(a.nnz, 4);
    TL_ASSERT_NEAR(entry(&a, 0, 2), 1.0, 0);
    TL_ASSERT_NEAR(entry(&a, 2, 0), 1.0, 0);
    tl_csr_free(&a);
    p = write_file("int.mtx",
                   "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 12\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_NEAR(entry(&a, 0, 1), -7.0, 0);
    TL_ASSERT_NEAR(entry(&a, 1, 0), 12.0, 0);
    tl_csr_free(&a);
    /* a number that is no integer is said to be one, not "not a number" */
    expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 4.5\n", 0, 3,
                 "value not an integer (the banner says integer)");
    expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 four\n", 0, 3,
                 "value not a number (the banner says integer)");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1.5 2 1\n", 0, 3,
                 "row index not an integer");
    expect_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 1.5\n", 0, 3,
                 "unexpected text");
}

TL_TEST(duplicates_summed_rows_sorted)
{
    tl_csr a;
    const char *p = write_file("dup.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 7\n"
                                          "3 3 1\n1 3 2\n1 1 3\n1 3 4\n2 2 5\n3 3 0.25\n1 2 6\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_EQ(a.nnz, 5);
    assert_sorted(&a);
    TL_ASSERT_NEAR(entry(&a, 0, 2), 6.0, 0);
    TL_ASSERT_NEAR(entry(&a, 2, 2), 1.25, 0);
    TL_ASSERT_NEAR(entry(&a, 0, 1), 6.0, 0);
    TL_ASSERT_EQ(a.rowptr[1], 3);
    tl_csr_free(&a);
}

/* Duplicates are summed however many there are: a 1 x 1 file with its one
 * entry on two lines was refused, "wrong counts: 2 entries declared for a
 * 1 x 1 matrix". A header declaring 10^15 entries is still refused before
 * anything of that size is allocated (the address space is capped at
 * 1 GiB over what the test maps, so an up-front reservation would fail as
 * out of memory, not as this refusal). */
TL_TEST(duplicates_beyond_rows_times_cols)
{
    tl_csr a;
    const char *p = write_file("dup1.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 3\n"
                                           "1 1 1\n1 1 1\n1 1 0.5\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_EQ(a.nrows, 1);
    TL_ASSERT_EQ(a.nnz, 1);
    TL_ASSERT_NEAR(a.val[0], 2.5, 0);
    tl_csr_free(&a);
    TL_TEST_CAP_ADDRESS_SPACE(1ull << 30);
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1000000000000000\n1 1 1\n", 0, 2,
                 "a 2 x 2 matrix with 1000000000000000 entries needs ");
}

TL_TEST(gzip_round_trip)
{
#if TL_HAVE_ZLIB
    char path[1024], gzpath[1100];
    tl_csr a, b;
    snprintf(path, sizeof path, "%s", tl_test_matrix("ani4.mtx"));
    TL_ASSERT_OK(tl_mm_read_csr(path, 1, &a, NULL));
    write_file("x", "");
    snprintf(gzpath, sizeof gzpath, "%s.mtx.gz", g_path);
    TL_ASSERT_OK(tl_mm_write_csr(gzpath, &a, 0));
    FILE *f = fopen(gzpath, "rb");
    unsigned char magic[2] = {0, 0};
    TL_ASSERT(f && fread(magic, 1, 2, f) == 2);
    fclose(f);
    TL_ASSERT(magic[0] == 0x1f && magic[1] == 0x8b); /* really compressed */
    TL_ASSERT_OK(tl_mm_read_csr(gzpath, 1, &b, NULL));
    TL_ASSERT_EQ(b.nnz, a.nnz);
    for (int64_t i = 0; i <= a.nrows; i++)
        TL_ASSERT_EQ(a.rowptr[i], b.rowptr[i]);
    for (int64_t k = 0; k < a.nnz; k++) {
        TL_ASSERT_EQ(a.colidx[k], b.colidx[k]);
        TL_ASSERT(a.val[k] == b.val[k]); /* %.17g round-trips exactly */
    }
    tl_csr_free(&a);
    tl_csr_free(&b);
#else
    TL_SKIP("built without zlib");
#endif
}

TL_TEST(gzip_truncated)
{
#if TL_HAVE_ZLIB
    char gzpath[512];
    write_file("t", "");
    snprintf(gzpath, sizeof gzpath, "%s.mtx.gz", g_path);
    gzFile gz = gzopen(gzpath, "wb9");
    TL_ASSERT(gz);
    gzprintf(gz, "%%%%MatrixMarket matrix coordinate real general\n200 200 4000\n");
    unsigned s = 12345;
    for (int k = 0; k < 4000; k++) {
        s = s * 1103515245u + 12345u;
        gzprintf(gz, "%d %d %.17g\n", k % 200 + 1, (int)(s >> 8) % 200 + 1, (double)s / 7.0);
    }
    gzclose(gz);
    FILE *f = fopen(gzpath, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    TL_ASSERT(truncate(gzpath, size / 2) == 0);
    tl_csr a = {0};
    char msg[4096];
    int st = read_capture(gzpath, 0, &a, msg, sizeof msg);
    TL_ASSERT(st != TL_OK);
    TL_ASSERT_MSG(strstr(msg, gzpath) && (strstr(msg, "truncated") || strstr(msg, "corrupt")), "%s",
                  msg);
#else
    TL_SKIP("built without zlib");
#endif
}

/* tl_gzin_peek, the format sniffers' read: the start of plain and gzip
 * text, the bytes before damage, -1 for no file, and not a word said. */
TL_TEST(gzin_peek_is_silent)
{
#if TL_HAVE_ZLIB
    char plain[400], gz[420], cut[420], junk[420], buf[64], msg[256];
    snprintf(plain, sizeof plain, "%s", write_file("peek.txt", "{\"traceEvents\": []}\n"));
    snprintf(gz, sizeof gz, "%s.gz", plain);
    snprintf(cut, sizeof cut, "%s.cut.gz", plain);
    snprintf(junk, sizeof junk, "%s.junk.gz", plain);
    TL_ASSERT_EQ(tl_test_sh("(gzip -c %s; gzip -c %s) > %s && head -c 12 %s > %s && printf '\\037\\213xxxxxxxx' > %s",
                            plain, plain, gz, gz, cut, junk),
                 0);
    int was_gzip = -1, saved = stderr_capture(), before = tl_error_reported();
    long n_plain = tl_gzin_peek(plain, buf, 9, &was_gzip);
    TL_ASSERT(n_plain == 9 && !memcmp(buf, "{\"traceEv", 9) && was_gzip == 0);
    long n_two = tl_gzin_peek(gz, buf, sizeof buf, &was_gzip); /* two members: one text */
    TL_ASSERT(n_two == 40 && !memcmp(buf + 20, "{\"traceEvents", 13) && was_gzip == 1);
    long n_cut = tl_gzin_peek(cut, buf, sizeof buf, &was_gzip);
    TL_ASSERT(n_cut == 0 && was_gzip == 1);
    long n_junk = tl_gzin_peek(junk, buf, sizeof buf, &was_gzip);
    TL_ASSERT(n_junk == 0 && was_gzip == 1);
    TL_ASSERT_EQ(tl_gzin_peek("/nonexistent/peek", buf, sizeof buf, &was_gzip), -1);
    int reported = tl_error_reported() - before;
    stderr_release(saved, msg, sizeof msg);
    TL_ASSERT_MSG(reported == 0 && msg[0] == '\0', "%d errors said: %s", reported, msg);
#else
    TL_SKIP("built without zlib");
#endif
}

TL_TEST(error_banner)
{
    expect_error("", 0, 1, "empty file");
    expect_error("%%MatrixMarket matrix coordinate\n1 1 1\n1 1 1\n", 0, 1, "bad banner");
    expect_error("MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", 0, 1, "bad banner");
    expect_error("%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 0, 1,
                 "bad banner");
    expect_error("%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 0, 1, "bad banner");
    expect_error("%%MatrixMarket matrix coordinate real upper\n1 1 1\n1 1 1\n", 0, 1, "bad banner");
    expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 0, 1,
                 "complex");
    expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 0, 1,
                 "coordinate matrix is needed");
}

TL_TEST(error_counts)
{
    expect_error("%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 1 1\n2 2 2\n", 0, 5,
                 "truncated file: 2 of 3");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n", 0, 4,
                 "more entries");
    /* more entries than rows x cols is no error (duplicates are summed):
     * the file is short of what it declares */
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 5\n1 1 1\n", 0, 3,
                 "truncated file: 1 of 5 declared entries");
    expect_error("%%MatrixMarket matrix coordinate real general\n% only comments\n", 0, 2,
                 "no size line");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3\n", 0, 2,
                 "entry count missing");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 -3 1\n", 0, 2, "negative");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1 9\n", 0, 2,
                 "more than 3 numbers");
}

TL_TEST(error_indices)
{
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 1\n", 0, 4,
                 "row index 4 out of range [1, 3]");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n1 0 1\n", 0, 4,
                 "column index 0 out of range");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 x 1\n", 0, 3,
                 "column index not a number");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1\n", 0, 3,
                 "column index missing");
    expect_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n99999999999999999999 1 1\n",
                 0, 3, "row index out of range");
}

TL_TEST(error_values)
{
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 abc\n", 0, 4,
                 "value not a number");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n", 0, 3,
                 "value not finite");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 -Inf\n", 0, 3,
                 "value not finite");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e999\n", 0, 3,
                 "value not finite");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", 0, 3,
                 "value missing");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0x\n", 0, 3,
                 "value not a number");
}

TL_TEST(error_square_and_missing)
{
    expect_error("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n", 1, 0,
                 "matrix is 2 x 3, but the solvers need a square matrix");
    expect_error("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 0, 2,
                 "not square");
    tl_csr a = {0};
    write_file("x", "");
    char missing[512], msg[2048];
    snprintf(missing, sizeof missing, "%s.does-not-exist.mtx", g_path);
    int st = read_capture(missing, 0, &a, msg, sizeof msg);
    TL_ASSERT(st != TL_OK);
    TL_ASSERT_MSG(strstr(msg, missing) && strstr(msg, "cannot open"), "%s", msg);
    /* a rectangular matrix is fine when no square one is needed */
    const char *p =
        write_file("rect.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n2 3 1\n");
    TL_ASSERT_OK(tl_mm_read_csr(p, 0, &a, NULL));
    TL_ASSERT_EQ(a.ncols, 3);
    tl_csr_free(&a);
}

TL_TEST(vectors)
{
    double v[5] = {1.0, -2.5, 1.0 / 3.0, 1e-300, 0.0}, *r = NULL;
    int64_t n = 0;
    write_file("x", "");
    char path[512];
    snprintf(path, sizeof path, "%s.vec.mtx", g_path);
    TL_ASSERT_OK(tl_mm_write_vector(path, v, 5));
    TL_ASSERT_OK(tl_mm_read_vector(path, 5, &r, &n));
    TL_ASSERT_EQ(n, 5);
    for (int k = 0; k < 5; k++)
        TL_ASSERT(r[k] == v[k]);
    free(r);
    TL_ASSERT(tl_mm_read_vector(path, 6, &r, &n) != TL_OK);
    TL_ASSERT(r == NULL);
    int64_t iv[4] = {3, 0, 2, 1}, *ri = NULL;
    snprintf(path, sizeof path, "%s.part.mtx", g_path);
    TL_ASSERT_OK(tl_mm_write_ivector(path, iv, 4));
    TL_ASSERT_OK(tl_mm_read_ivector(path, -1, &ri, &n));
    TL_ASSERT_EQ(n, 4);
    for (int k = 0; k < 4; k++)
        TL_ASSERT_EQ(ri[k], iv[k]);
    free(ri);
    /* coordinate n x 1 and a 1 x n row are vectors too */
    const char *p = write_file(
        "cv.mtx", "%%MatrixMarket matrix coordinate real general\n4 1 2\n2 1 5\n4 1 -1\n");
    TL_ASSERT_OK(tl_mm_read_vector(p, 4, &r, &n));
    TL_ASSERT(r[0] == 0 && r[1] == 5 && r[2] == 0 && r[3] == -1);
    free(r);
    p = write_file("rv.mtx", "%%MatrixMarket matrix array real general\n1 3\n1\n2\n3\n");
    TL_ASSERT_OK(tl_mm_read_vector(p, 3, &r, &n));
    TL_ASSERT(r[2] == 3);
    free(r);
    /* errors */
    p = write_file("short.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n");
    TL_ASSERT(tl_mm_read_vector(p, -1, &r, &n) != TL_OK);
    p = write_file("long.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n");
    TL_ASSERT(tl_mm_read_vector(p, -1, &r, &n) != TL_OK);
    p = write_file("nan.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\nNaN\n");
    TL_ASSERT(tl_mm_read_vector(p, -1, &r, &n) != TL_OK);
    p = write_file("mat.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
    TL_ASSERT(tl_mm_read_vector(p, -1, &r, &n) != TL_OK);
    p = write_file("frac.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2.5\n");
    TL_ASSERT(tl_mm_read_ivector(p, -1, &ri, &n) != TL_OK);
    TL_ASSERT(ri == NULL);
}

/* An integer vector holding 4.5 (a partition file): "not an integer" with
 * its line, whether the banner says integer or real. */
TL_TEST(vector_not_an_integer_names_the_line)
{
    static const char *const files[] = {
        "%%MatrixMarket matrix array integer general\n% parts\n3 1\n0\n4.5\n1\n",
        "%%MatrixMarket matrix array real general\n% parts\n3 1\n0\n4.5\n1\n",
    };
    static const char *const reasons[] = {"frac.mtx:5: value not an integer (the banner says integer)",
                                          "frac.mtx:5: value 4.5 is not an integer"};
    for (int k = 0; k < 2; k++) {
        const char *p = write_file("frac.mtx", files[k]);
        int64_t *ri = NULL, n = 0;
        char msg[2048];
        int saved = stderr_capture();
        tl_status st = tl_mm_read_ivector(p, -1, &ri, &n);
        stderr_release(saved, msg, sizeof msg);
        TL_ASSERT(st != TL_OK && ri == NULL);
        TL_ASSERT_MSG(strstr(msg, reasons[k]), "expected '%s': %s", reasons[k], msg);
    }
}

TL_TEST(parse_buffer_limits)
{
    tl_csr a;
    const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3\n";
    TL_ASSERT_OK(tl_mm_parse_csr("mem", text, strlen(text), 1, 0, &a, NULL));
    TL_ASSERT_NEAR(entry(&a, 1, 0), 3, 0);
    tl_csr_free(&a);
    const char *big =
        "%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 3\n";
    TL_ASSERT(tl_mm_parse_csr("mem", big, strlen(big), 1, 1000, &a, NULL) != TL_OK);
    /* a line without a final newline still counts */
    TL_ASSERT_OK(tl_mm_parse_csr("mem", text, strlen(text) - 1, 1, 0, &a, NULL));
    tl_csr_free(&a);
    /* a NUL byte inside the text */
    char bin[] = "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3\0junk\n";
    TL_ASSERT(tl_mm_parse_csr("mem", bin, sizeof bin - 1, 1, 0, &a, NULL) != TL_OK);
    /* a line longer than the reader's buffer (1 MiB) is an error, not a split line */
    size_t n = (1u << 20) + 100;
    char *huge = malloc(n + 200);
    strcpy(huge, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 ");
    size_t at = strlen(huge);
    memset(huge + at, '0', n);
    strcpy(huge + at + n, "1\n");
    const char *p = write_file("long.mtx", huge);
    char msg[4096];
    TL_ASSERT(read_capture(p, 0, &a, msg, sizeof msg) != TL_OK);
    TL_ASSERT_MSG(strstr(msg, "long.mtx:3: line longer than"), "%s", msg);
    free(huge);
}

TL_TEST_MAIN(general_with_comments, symmetric_expansion_1138_bus, general_ani4,
             skew_symmetric_expansion, symmetric_one_triangle, pattern_and_integer, duplicates_summed_rows_sorted,
             duplicates_beyond_rows_times_cols, gzip_round_trip, gzip_truncated, gzin_peek_is_silent, error_banner, error_counts, error_indices,
             error_values, error_square_and_missing, vectors, vector_not_an_integer_names_the_line,
             parse_buffer_limits)
