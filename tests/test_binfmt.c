/* Binary CSR format: round trip, checksum, and every corruption case. */
#include <fcntl.h>
#include <unistd.h>

#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/outfile.h"
#include "tl_test.h"

static void load_1138(tl_csr *a)
{
    TL_ASSERT_OK(tl_mm_read_csr(tl_test_matrix("1138_bus.mtx"), 1, a, NULL));
}

static void assert_same(const tl_csr *a, const tl_csr *b)
{
    TL_ASSERT_EQ(a->nrows, b->nrows);
    TL_ASSERT_EQ(a->ncols, b->ncols);
    TL_ASSERT_EQ(a->nnz, b->nnz);
    TL_ASSERT(memcmp(a->rowptr, b->rowptr, 8 * (size_t)(a->nrows + 1)) == 0);
    TL_ASSERT(memcmp(a->colidx, b->colidx, 8 * (size_t)a->nnz) == 0);
    TL_ASSERT(memcmp(a->val, b->val, 8 * (size_t)a->nnz) == 0);
}

/* tl_bin_read must fail, and its error line must contain `reason`. */
static void expect_read_error(const char *path, const char *reason)
{
    char log[600], msg[4096];
    tl_csr b = {0};
    snprintf(log, sizeof log, "%s.log", path);
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    TL_ASSERT(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    int st = tl_bin_read(path, &b, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(log, "r");
    msg[fread(msg, 1, sizeof msg - 1, f)] = '\0';
    fclose(f);
    fputs(msg, stderr);
    TL_ASSERT(st != TL_OK);
    TL_ASSERT(b.rowptr == NULL);
    TL_ASSERT_MSG(strstr(msg, path) && strstr(msg, reason), "want '%s' in: %s", reason, msg);
}

/* Write 1138_bus, then apply `damage` to the file bytes and expect failure. */
static void corrupt_case(long offset, int xor_byte, long new_size, uint32_t set_version,
                         const char *reason)
{
    tl_csr a;
    load_1138(&a);
    char path[512];
    snprintf(path, sizeof path, "%s", tl_test_path("c.tlcsr"));
    TL_ASSERT_OK(tl_bin_write(path, &a, TL_BIN_FLAG_SYMMETRIC));
    FILE *f = fopen(path, "r+b");
    TL_ASSERT(f);
    if (xor_byte) {
        unsigned char c;
        fseek(f, offset, SEEK_SET);
        TL_ASSERT(fread(&c, 1, 1, f) == 1);
        c ^= (unsigned char)xor_byte;
        fseek(f, offset, SEEK_SET);
        fwrite(&c, 1, 1, f);
    }
    if (set_version) {
        /* a valid header of another version: re-encode so only the version differs */
        tl_bin_header h;
        unsigned char hb[TL_BIN_HEADER_BYTES];
        fseek(f, 0, SEEK_SET);
        TL_ASSERT(fread(hb, 1, sizeof hb, f) == sizeof hb);
        memcpy(&h.version, hb + 16, 4);
        memcpy(&h.flags, hb + 20, 4);
        memcpy(&h.nrows, hb + 24, 8);
        memcpy(&h.ncols, hb + 32, 8);
        memcpy(&h.nnz, hb + 40, 8);
        memcpy(&h.checksum, hb + 48, 8);
        h.version = set_version;
        tl_bin_header_encode(&h, hb);
        fseek(f, 0, SEEK_SET);
        fwrite(hb, 1, sizeof hb, f);
    }
    fclose(f);
    if (new_size >= 0) TL_ASSERT(truncate(path, new_size) == 0);
    expect_read_error(path, reason);
    tl_csr_free(&a);
}

static long file_size_1138(void)
{
    return TL_BIN_HEADER_BYTES + 8L * (1138 + 1 + 2 * 4054);
}

TL_TEST(round_trip)
{
    tl_csr a, b;
    uint32_t flags = 0;
    tl_bin_header h;
    load_1138(&a);
    const char *p = tl_test_path("a.tlcsr");
    TL_ASSERT_OK(tl_bin_write(p, &a, TL_BIN_FLAG_SYMMETRIC));
    TL_ASSERT_OK(tl_bin_read(p, &b, &flags));
    TL_ASSERT_EQ(flags, TL_BIN_FLAG_SYMMETRIC);
    assert_same(&a, &b);
    TL_ASSERT_OK(tl_bin_read_header(p, &h));
    TL_ASSERT_EQ(h.nnz, 4054);
    TL_ASSERT_EQ(h.version, TL_BIN_VERSION);
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    TL_ASSERT_EQ(ftell(f), file_size_1138());
    fclose(f);
    tl_csr_free(&b);
    /* tl_matrix_read picks the reader by name */
    TL_ASSERT_OK(tl_matrix_read(p, 1, &b));
    assert_same(&a, &b);
    tl_csr_free(&b);
    tl_csr_free(&a);
}

TL_TEST(empty_matrix)
{
    tl_csr a, b;
    TL_ASSERT_OK(tl_csr_alloc(&a, 0, 0, 0));
    const char *p = tl_test_path("e.tlcsr");
    TL_ASSERT_OK(tl_bin_write(p, &a, 0));
    TL_ASSERT_OK(tl_bin_read(p, &b, NULL));
    TL_ASSERT_EQ(b.nrows, 0);
    tl_csr_free(&a);
    tl_csr_free(&b);
}

TL_TEST(checksum_incremental)
{
    uint64_t w[37];
    for (int k = 0; k < 37; k++)
        w[k] = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
    tl_bin_sum s;
    tl_bin_sum_init(&s);
    tl_bin_sum_update(&s, w, 37);
    uint64_t whole = tl_bin_sum_final(&s);
    for (int split = 0; split <= 37; split++) {
        tl_bin_sum_init(&s);
        tl_bin_sum_update(&s, w, (size_t)split);
        tl_bin_sum_update(&s, w + split, (size_t)(37 - split));
        TL_ASSERT(tl_bin_sum_final(&s) == whole);
    }
    /* any single-word change and any swap of two different words changes it */
    for (int k = 0; k < 37; k++) {
        uint64_t c[37];
        memcpy(c, w, sizeof c);
        c[k] ^= 1ull << (k % 64);
        tl_bin_sum_init(&s);
        tl_bin_sum_update(&s, c, 37);
        TL_ASSERT(tl_bin_sum_final(&s) != whole);
    }
    uint64_t c[37];
    memcpy(c, w, sizeof c);
    c[3] = w[4], c[4] = w[3];
    tl_bin_sum_init(&s);
    tl_bin_sum_update(&s, c, 37);
    TL_ASSERT(tl_bin_sum_final(&s) != whole);
    /* the length counts: a trailing zero word is not invisible */
    uint64_t z[38];
    memcpy(z, w, sizeof w);
    z[37] = 0;
    tl_bin_sum_init(&s);
    tl_bin_sum_update(&s, z, 38);
    TL_ASSERT(tl_bin_sum_final(&s) != whole);
}

TL_TEST(bad_magic)
{
    corrupt_case(0, 0x20, -1, 0, "bad magic");
}
TL_TEST(bad_version)
{
    corrupt_case(0, 0, -1, 2, "unsupported version 2");
}
TL_TEST(bad_header_checksum)
{
    corrupt_case(25, 0x01, -1, 0, "header checksum mismatch"); /* nrows changed */
}
TL_TEST(bad_payload_rowptr)
{
    corrupt_case(TL_BIN_HEADER_BYTES + 8 * 7, 0x04, -1, 0, "payload checksum mismatch");
}
TL_TEST(bad_payload_value)
{
    corrupt_case(file_size_1138() - 3, 0x80, -1, 0, "payload checksum mismatch");
}
TL_TEST(truncated_payload)
{
    corrupt_case(0, 0, file_size_1138() - 8, 0, "truncated file: 74032 bytes");
}
TL_TEST(truncated_header)
{
    corrupt_case(0, 0, 40, 0, "shorter than the 64-byte header");
}
TL_TEST(trailing_bytes)
{
    tl_csr a;
    load_1138(&a);
    const char *p = tl_test_path("t.tlcsr");
    TL_ASSERT_OK(tl_bin_write(p, &a, 0));
    FILE *f = fopen(p, "ab");
    fputs("extra", f);
    fclose(f);
    expect_read_error(p, "wrong size: 74045 bytes");
    tl_csr_free(&a);
}

TL_TEST(structure_checked_after_checksum)
{
    /* a well-formed file (valid checksums) whose columns are unsorted is
     * still rejected: the loader checks the CSR invariants */
    tl_csr a;
    TL_ASSERT_OK(tl_csr_alloc(&a, 2, 2, 2));
    a.rowptr[0] = 0, a.rowptr[1] = 2, a.rowptr[2] = 2;
    a.colidx[0] = 1, a.colidx[1] = 0;
    a.val[0] = a.val[1] = 1.0;
    const char *p = tl_test_path("u.tlcsr");
    TL_ASSERT_OK(tl_bin_write(p, &a, 0));
    expect_read_error(p, "row 0: columns not strictly ascending");
    a.colidx[0] = 0, a.colidx[1] = 5;
    TL_ASSERT_OK(tl_bin_write(p, &a, 0));
    expect_read_error(p, "column 5 out of range [0, 2)");
    tl_csr_free(&a);
}

TL_TEST(missing_and_gz_name)
{
    tl_csr a, b = {0};
    TL_ASSERT(tl_bin_read(tl_test_path("nope.tlcsr"), &b, NULL) != TL_OK);
    TL_ASSERT_OK(tl_csr_alloc(&a, 1, 1, 0));
    TL_ASSERT(tl_bin_write(tl_test_path("x.tlcsr.gz"), &a, 0) != TL_OK);
    TL_ASSERT(access(tl_test_path("x.tlcsr.gz"), F_OK) != 0); /* nothing half-written */
    tl_csr_free(&a);
}

/* Text under a .tlcsr name: trilap-solve (--solution, --history) and
 * trilap-matgen (--rhs, partition's output) each had their own copy of
 * this check and its words; one line each, as both programs now print it. */
TL_TEST(text_under_binary_name_refused)
{
    const char *log = tl_test_path("stderr.txt");
    char got[512] = "";
    FILE *f = NULL;
    int saved = dup(STDERR_FILENO);
    TL_ASSERT(saved >= 0 && freopen(log, "w", stderr) != NULL);
    int none = tl_path_refuse_text_binary("p", "--rhs", NULL, "b", TL_TEXT_MATRIX_MARKET) +
               tl_path_refuse_text_binary("p", "--rhs", "b.mtx", "b", TL_TEXT_MATRIX_MARKET) +
               tl_path_refuse_text_binary("p", "--history", "h.csv", "the history", TL_TEXT_CSV);
    int mm = tl_path_refuse_text_binary("p", "--rhs", "d/b.tlcsr", "b", TL_TEXT_MATRIX_MARKET);
    int csv = tl_path_refuse_text_binary("p", "--history", "h.tlcsr", "the history", TL_TEXT_CSV);
    fflush(stderr);
    TL_ASSERT(dup2(saved, STDERR_FILENO) >= 0);
    TL_ASSERT((f = fopen(log, "r")) != NULL);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    TL_ASSERT_EQ(none, 0);
    TL_ASSERT_EQ(mm, 2);
    TL_ASSERT_EQ(csv, 2);
    TL_ASSERT_MSG(!strcmp(got, "p: invalid --rhs 'd/b.tlcsr': b is written as Matrix Market text; give it a .mtx or "
                               ".mtx.gz name (try --help)\n"
                               "p: invalid --history 'h.tlcsr': the history is written as CSV text; give it a .csv "
                               "name (try --help)\n"),
                  "stderr: %s", got);
}

TL_TEST_MAIN(round_trip, empty_matrix, checksum_incremental, bad_magic, bad_version,
             bad_header_checksum, bad_payload_rowptr, bad_payload_value, truncated_payload,
             truncated_header, trailing_bytes, structure_checked_after_checksum,
             missing_and_gz_name, text_under_binary_name_refused)
