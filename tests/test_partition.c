/* Partitioners, partition files and partition statistics. */
#include <fcntl.h>
#include <unistd.h>

#include "config.h"
#include "solvers/matrix/gen.h"
#include "solvers/matrix/mmio.h"
#include "solvers/dist/partition.h"
#include "tests/tl_test_run.h"
#include "tl_test.h"

static void load(const char *name, tl_csr *a)
{
    TL_ASSERT_OK(tl_mm_read_csr(tl_test_matrix(name), 1, a, NULL));
}

static void need_metis(void)
{
    if (!TL_HAVE_METIS) TL_SKIP("built without METIS");
}

TL_TEST(block_partition)
{
    int part[10];
    TL_ASSERT_OK(tl_partition_block(10, 3, part));
    int want[10] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
    for (int i = 0; i < 10; i++)
        TL_ASSERT_EQ(part[i], want[i]);
    TL_ASSERT_OK(tl_partition_block(2, 4, part)); /* more parts than rows: empty parts */
    TL_ASSERT(part[0] == 0 && part[1] == 1);
    TL_ASSERT(tl_partition_block(10, 0, part) != TL_OK);
}

/* The blocks without a row array (trilap-model's statistics of 10^9 rows):
 * each part's first row and each row's owner as tl_partition_block puts
 * them, for rows the parts divide or not, and more parts than rows. */
TL_TEST(block_partition_ranges)
{
    static const int sizes[][2] = {{10, 3}, {12, 4}, {1000, 7}, {2, 4}, {64, 64}, {5, 1}};
    int part[1000];
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int n = sizes[c][0], np = sizes[c][1];
        TL_ASSERT_OK(tl_partition_block(n, np, part));
        TL_ASSERT_EQ(tl_partition_block_first(n, np, 0), 0);
        TL_ASSERT_EQ(tl_partition_block_first(n, np, np), n);
        for (int i = 0; i < n; i++) {
            int p = tl_partition_block_owner(n, np, i);
            TL_ASSERT_MSG(p == part[i] && tl_partition_block_first(n, np, p) <= i &&
                              i < tl_partition_block_first(n, np, p + 1),
                          "n=%d, %d parts, row %d: owner %d, block part %d", n, np, i, p, part[i]);
        }
    }
}

TL_TEST(symmetrised_graph)
{
    /* nonsymmetric pattern with a diagonal and a duplicate-by-symmetry edge */
    tl_csr a;
    TL_ASSERT_OK(tl_csr_alloc(&a, 3, 3, 5));
    int64_t rp[] = {0, 3, 4, 5}, ci[] = {0, 1, 2, 0, 2};
    memcpy(a.rowptr, rp, sizeof rp);
    memcpy(a.colidx, ci, sizeof ci);
    for (int k = 0; k < 5; k++)
        a.val[k] = 1;
    int64_t *xadj, *adj;
    TL_ASSERT_OK(tl_graph_symmetrize(&a, &xadj, &adj));
    /* 0-1, 0-2 (both directions), no self loops, no duplicates */
    int64_t wx[] = {0, 2, 3, 4}, wa[] = {1, 2, 0, 0};
    for (int i = 0; i < 4; i++)
        TL_ASSERT_EQ(xadj[i], wx[i]);
    for (int k = 0; k < 4; k++)
        TL_ASSERT_EQ(adj[k], wa[k]);
    free(xadj), free(adj);
    int part[3] = {0, 0, 1};
    tl_partition_stats s;
    TL_ASSERT_OK(tl_partition_stats_compute(&a, part, 2, &s));
    TL_ASSERT_EQ(s.edgecut, 1);
    TL_ASSERT_EQ(s.max_rows, 2);
    TL_ASSERT_NEAR(s.imbalance, 2.0 / 1.5, 1e-15);
    tl_csr_free(&a);
}

TL_TEST(stats_on_grid)
{
    /* an n^3 7-point grid cut into k slabs along z: (k-1) n^2 edges */
    tl_gen g = {.kind = TL_GEN_POISSON7, .n = 6};
    tl_csr a;
    int part[216];
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    TL_ASSERT_OK(tl_partition_block(216, 3, part));
    tl_partition_stats s;
    TL_ASSERT_OK(tl_partition_stats_compute(&a, part, 3, &s));
    TL_ASSERT_EQ(s.edgecut, 2 * 36);
    TL_ASSERT_NEAR(s.imbalance, 1.0, 0);
    tl_csr_free(&a);
}

/* one part: every row on it, no edge cut, its rows and entries the
 * matrix's (without building the graph) */
TL_TEST(stats_of_one_part)
{
    tl_gen g = {.kind = TL_GEN_POISSON7, .n = 6};
    tl_csr a;
    int part[216] = {0};
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    tl_partition_stats s;
    TL_ASSERT_OK(tl_partition_stats_compute(&a, part, 1, &s));
    TL_ASSERT_EQ(s.nparts, 1);
    TL_ASSERT_EQ(s.edgecut, 0);
    TL_ASSERT_EQ(s.min_rows, 216);
    TL_ASSERT_EQ(s.max_rows, 216);
    TL_ASSERT_EQ(s.max_nnz, 216 * 7 - 6 * 36);
    TL_ASSERT_NEAR(s.imbalance, 1.0, 0);
    tl_csr_free(&a);
}

static void check_metis(const char *what, const tl_csr *a, int recursive)
{
    int *part = malloc((size_t)a->nrows * sizeof *part),
        *blk = malloc((size_t)a->nrows * sizeof *blk);
    for (int k = 1; k <= 8; k++) {
        TL_ASSERT_OK(tl_partition_metis(a, k, recursive, part));
        int64_t *rows = calloc((size_t)k, sizeof *rows);
        for (int64_t i = 0; i < a->nrows; i++) {
            TL_ASSERT(part[i] >= 0 && part[i] < k);
            rows[part[i]]++;
        }
        for (int p = 0; p < k; p++)
            TL_ASSERT_MSG(rows[p] > 0, "%s: part %d of %d empty", what, p, k);
        free(rows);
        tl_partition_stats s, sb;
        TL_ASSERT_OK(tl_partition_stats_compute(a, part, k, &s));
        TL_ASSERT_OK(tl_partition_block(a->nrows, k, blk));
        TL_ASSERT_OK(tl_partition_stats_compute(a, blk, k, &sb));
        printf("%s %s k=%d: edge cut %lld (block %lld), imbalance %.3f\n", what,
               recursive ? "recursive" : "kway", k, (long long)s.edgecut, (long long)sb.edgecut,
               s.imbalance);
        TL_ASSERT(s.imbalance < 1.25);
        if (k == 1)
            TL_ASSERT_EQ(s.edgecut, 0);
        else
            TL_ASSERT(s.edgecut > 0 &&
                      s.edgecut <= 2 * sb.edgecut); /* a random split cuts far more */
    }
    free(part);
    free(blk);
}

TL_TEST(metis_1138_bus)
{
    need_metis();
    tl_csr a;
    load("1138_bus.mtx", &a);
    check_metis("1138_bus", &a, 0);
    check_metis("1138_bus", &a, 1);
    tl_csr_free(&a);
}

TL_TEST(metis_generated_and_nonsymmetric)
{
    need_metis();
    tl_gen g = {.kind = TL_GEN_CONVDIFF, .n = 10, .peclet = 1.0};
    tl_csr a;
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    check_metis("convdiff10", &a, 0);
    tl_csr_free(&a);
    load("ani1_nonsymm.mtx", &a);
    check_metis("ani1_nonsymm", &a, 1);
    tl_csr_free(&a);
}

/* More parts than rows: a row to each of the first parts, the others
 * empty. METIS's k-way put all 36 rows in part 0 (edge cut 0, imbalance
 * 37), and its bisection printed errors on stdout. */
TL_TEST(metis_more_parts_than_rows)
{
    need_metis();
    tl_csr a;
    load("ani1_nonsymm.mtx", &a);
    int *part = malloc((size_t)a.nrows * sizeof *part);
    static const int counts[] = {36, 37, 100};
    for (int recursive = 0; recursive < 2; recursive++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            int k = counts[c];
            TL_ASSERT_OK(tl_partition_metis(&a, k, recursive, part));
            for (int64_t i = 0; i < a.nrows; i++)
                TL_ASSERT_MSG(part[i] == (int)i, "%s k=%d: row %lld in part %d",
                              recursive ? "recursive" : "kway", k, (long long)i, part[i]);
            tl_partition_stats s;
            TL_ASSERT_OK(tl_partition_stats_compute(&a, part, k, &s));
            TL_ASSERT_EQ(s.max_rows, 1);
        }
    TL_ASSERT(tl_partition_metis_called(36, 35) && !tl_partition_metis_called(36, 36) &&
              !tl_partition_metis_called(36, 1) && !tl_partition_metis_called(0, 4));
    free(part);
    tl_csr_free(&a);
    /* the reports name the split they gave: not METIS's */
    char cmd[2048], out[8192], mtx[1024];
    snprintf(mtx, sizeof mtx, "%s/matrices/ani1_nonsymm.mtx", tl_test_env("TL_DATA", "../shared/data"));
    snprintf(cmd, sizeof cmd, "%s/trilap-matgen partition %s 37 %s --method metis-recursive 2>&1",
             tl_test_env("TL_BIN", "bin"), mtx, tl_test_path("p37.mtx"));
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT_MSG(strstr(out, "method: metis-recursive (as many parts as rows or more: a row each, METIS not "
                              "called)\n") && !strstr(out, "bisect"),
                  "%s", out);
    snprintf(cmd, sizeof cmd, "%s/trilap-solve --backend host --ranks 40 --partition metis --solver bicgstab "
             "--max-iterations 5 --rtol 0 --warmup 0 --repeat 1 %s 2>&1", tl_test_env("TL_BIN", "bin"), mtx);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT_MSG(strstr(out, "partition: metis (40 parts, edge cut ") &&
                      strstr(out, "; as many parts as rows or more: a row each, METIS not called)\n"),
                  "%s", out);
    snprintf(cmd, sizeof cmd, "%s/trilap-solve --backend host --ranks 4 --partition metis --solver bicgstab "
             "--max-iterations 5 --rtol 0 --warmup 0 --repeat 1 %s 2>&1", tl_test_env("TL_BIN", "bin"), mtx);
    TL_ASSERT_MSG(tl_test_popen(cmd, out, sizeof out) == 0, "%s", out);
    TL_ASSERT_MSG(strstr(out, "partition: metis (4 parts") && !strstr(out, "METIS not called"), "%s", out);
}

/* A coordinate partition file's entry may be the sum of several lines
 * (README): four lines for three rows were refused, "wrong counts: 4
 * entries declared for a 3 x 1 matrix". */
TL_TEST(partition_coordinate_lines_summed)
{
    const char *p = tl_test_path("sum.part.mtx");
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fputs("%%MatrixMarket matrix coordinate integer general\n3 1 4\n1 1 1\n3 1 1\n3 1 1\n2 1 0\n", f);
    fclose(f);
    int part[3] = {-1, -1, -1};
    TL_ASSERT_OK(tl_partition_read(p, 3, 3, part));
    TL_ASSERT_EQ(part[0], 1);
    TL_ASSERT_EQ(part[1], 0);
    TL_ASSERT_EQ(part[2], 2);
}

TL_TEST(partition_file_round_trip)
{
    int part[7] = {2, 0, 1, 1, 0, 2, 2}, back[7];
    const char *p = tl_test_path(TL_HAVE_ZLIB ? "p.mtx.gz" : "p.mtx");
    TL_ASSERT_OK(tl_partition_write(p, part, 7));
    TL_ASSERT_OK(tl_partition_read(p, 7, 3, back));
    for (int i = 0; i < 7; i++)
        TL_ASSERT_EQ(back[i], part[i]);
    tl_csr a;
    tl_gen g = {.kind = TL_GEN_POISSON7, .n = 2};
    TL_ASSERT_OK(tl_gen_csr(&g, &a));
    int p8[8], q8[8] = {0};
    TL_ASSERT_OK(tl_partition_block(8, 2, p8));
    TL_ASSERT_OK(tl_partition_write(tl_test_path("b.mtx"), p8, 8));
    TL_ASSERT_OK(tl_partition_by_spec(tl_test_path("b.mtx"), &a, 2, q8));
    TL_ASSERT(memcmp(p8, q8, sizeof p8) == 0);
    tl_csr_free(&a);
}

/* Expect tl_partition_read to fail with `reason` in its message. */
static void expect_bad(const char *text, int64_t n, int nparts, const char *reason)
{
    const char *p = tl_test_path("bad.part.mtx");
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    char log[600];
    snprintf(log, sizeof log, "%s.log", p);
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    dup2(fd, 2);
    close(fd);
    int part[16];
    int st = tl_partition_read(p, n, nparts, part);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char msg[4096] = "";
    f = fopen(log, "r");
    msg[fread(msg, 1, sizeof msg - 1, f)] = '\0';
    fclose(f);
    fputs(msg, stderr);
    TL_ASSERT(st != TL_OK);
    TL_ASSERT_MSG(strstr(msg, "bad.part.mtx") && strstr(msg, reason), "want '%s' in: %s", reason,
                  msg);
}

TL_TEST(partition_file_errors)
{
    expect_bad("%%MatrixMarket matrix array integer general\n3 1\n0\n1\n0\n", 4, 2,
               "wrong length: 3 entries for a matrix of 4 rows");
    expect_bad("%%MatrixMarket matrix array integer general\n3 1\n0\n2\n1\n", 3, 2,
               "part id 2 out of range [0, 1]: the file has parts up to 2, for at least 3 ranks, and this run has 2 "
               "(run on 3 ranks, or make a file for 2: trilap-matgen partition MATRIX 2 OUT)");
    /* the greatest id named, wherever it is (the first one out of range was) */
    expect_bad("%%MatrixMarket matrix array integer general\n4 1\n0\n2\n3\n1\n", 4, 2,
               "entry 3: part id 3 out of range [0, 1]: the file has parts up to 3, for at least 4 ranks");
    expect_bad("%%MatrixMarket matrix array integer general\n3 1\n0\n-1\n1\n", 3, 2,
               "entry 2: part id -1 out of range [0, 1]: negative");
    expect_bad("%%MatrixMarket matrix array real general\n2 1\n0\n0.5\n", 2, 2, "not an integer");
    expect_bad("%%MatrixMarket matrix array integer general\n3 1\n0\n1\n", 3, 2, "truncated");
    expect_bad("%%MatrixMarket matrix array integer general\n2 1\n0\nx\n", 2, 2, "not a number");
    int part[4];
    tl_csr a = {0};
    a.nrows = 4;
    TL_ASSERT(tl_partition_by_spec(tl_test_path("missing.mtx"), &a, 2, part) != TL_OK);
}

TL_TEST(metis_stub_or_single_part)
{
    tl_csr a;
    load("ani4.mtx", &a);
    int *part = malloc((size_t)a.nrows * sizeof *part);
    for (int64_t i = 0; i < a.nrows; i++)
        part[i] = 7;
    TL_ASSERT_OK(tl_partition_metis(&a, 1, 0, part)); /* no METIS needed for one part */
    for (int64_t i = 0; i < a.nrows; i++)
        TL_ASSERT_EQ(part[i], 0);
    int st = tl_partition_metis(&a, 4, 0, part);
    if (TL_HAVE_METIS)
        TL_ASSERT_EQ(st, TL_OK);
    else
        TL_ASSERT_EQ(st, TL_ERR_UNSUPPORTED);
    free(part);
    tl_csr_free(&a);
}

TL_TEST_MAIN(block_partition, block_partition_ranges, symmetrised_graph, stats_on_grid, stats_of_one_part, metis_1138_bus,
             metis_generated_and_nonsymmetric, metis_more_parts_than_rows, partition_coordinate_lines_summed, partition_file_round_trip, partition_file_errors,
             metis_stub_or_single_part)
