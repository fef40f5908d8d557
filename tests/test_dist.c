/* Distributed CSR and halo plan: runs helper_dist (which checks ownership,
 * the halo plan, halo values and distributed SpMV against the serial SpMV
 * on every rank) over matrices, partitioners and 1..8 ranks, with the
 * thread launcher and under mpirun; and the error paths. */
#include <unistd.h>

#include "config.h"
#include "solvers/matrix/gen.h"
#include "solvers/dist/partition.h"
#include "tests/tl_test_run.h"
#include "tl_test.h"

static const char *helper(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/tests/helper_dist", tl_test_env("TL_BUILD", "build"));
    TL_ASSERT_MSG(access(path, X_OK) == 0, "%s not built", path);
    return path;
}

static void check_threads(const char *matrix, const char *partition, int ranks)
{
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd, "%s --launcher threads --ranks %d --partition %s %s 2>&1", helper(),
             ranks, partition, matrix);
    int rc = tl_test_popen(cmd, out, sizeof out);
    TL_ASSERT_MSG(rc == 0 && strstr(out, "dist check: ok"), "%s\nexit %d:\n%s", cmd, rc, out);
}

static void sweep(const char *matrix, int metis_too)
{
    static const char *const parts[] = {"block", "metis", "metis-recursive"};
    int np = metis_too && TL_HAVE_METIS ? 3 : 1;
    for (int p = 0; p < np; p++)
        for (int r = 1; r <= 8; r++)
            check_threads(matrix, parts[p], r);
}

TL_TEST(threads_1138_bus)
{
    sweep(tl_test_matrix("1138_bus.mtx"), 1);
}
TL_TEST(threads_poisson7)
{
    sweep("poisson7:6", 1);
}
TL_TEST(threads_poisson27)
{
    sweep("poisson27:5", 1);
}
TL_TEST(threads_convdiff)
{
    sweep("convdiff:6", 1);
}
TL_TEST(threads_ani4)
{
    sweep(tl_test_matrix("ani4.mtx"), 1);
}
TL_TEST(threads_ani1_nonsymm)
{
    sweep(tl_test_matrix("ani1_nonsymm.mtx"), 1);
}

TL_TEST(more_ranks_than_rows)
{
    check_threads("poisson7:1", "block", 4); /* three ranks own nothing */
    check_threads("poisson7:2", "block", 8);
}

TL_TEST(binary_input_and_partition_file)
{
    const char *dir = tl_test_tmpdir();
    char mat[512], pf[600];
    snprintf(mat, sizeof mat, "%s/p.tlcsr", dir);
    tl_gen g = {.kind = TL_GEN_POISSON27, .n = 6};
    TL_ASSERT_OK(tl_gen_write(&g, mat));
    /* a scattered (non-contiguous) partition from a file */
    int part[216];
    for (int i = 0; i < 216; i++)
        part[i] = (i * 7 + i / 5) % 3;
    snprintf(pf, sizeof pf, "%s/p.part.mtx", dir);
    TL_ASSERT_OK(tl_partition_write(pf, part, 216));
    check_threads(mat, pf, 3);
}

TL_TEST(mpi_4_ranks)
{
    const char *mpirun = tl_test_env("TL_MPIRUN", "");
    if (strcmp(tl_test_env("TL_HAVE_MPI", "0"), "1") != 0 || !*mpirun)
        TL_SKIP("no MPI (TL_HAVE_MPI=0)");
    const char *cases[][2] = {
        {tl_test_matrix("1138_bus.mtx"), TL_HAVE_METIS ? "metis" : "block"},
        {"convdiff:7", "block"},
        {tl_test_matrix("ani4.mtx"), TL_HAVE_METIS ? "metis-recursive" : "block"}};
    for (int c = 0; c < 3; c++) {
        char cmd[2048], out[16384];
        snprintf(cmd, sizeof cmd, "%s -np 4 --oversubscribe %s --partition %s %s 2>&1", mpirun,
                 helper(), cases[c][1], cases[c][0]);
        int rc = tl_test_popen(cmd, out, sizeof out);
        TL_ASSERT_MSG(rc == 0 && strstr(out, "dist check: ok") && strstr(out, "ranks: 4"),
                      "%s\nexit %d:\n%s", cmd, rc, out);
    }
}

TL_TEST(bad_part_id_fails_on_all_ranks)
{
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd, "%s --launcher threads --ranks 3 --bad-part poisson7:4 2>&1",
             helper());
    int rc = tl_test_popen(cmd, out, sizeof out);
    TL_ASSERT_MSG(rc == 1 && strstr(out, "row 63 assigned to part 3, but there are 3 ranks"),
                  "exit %d:\n%s", rc, out);
    TL_ASSERT(!strstr(out, "dist check: ok"));
}

TL_TEST(partition_file_wrong_length)
{
    const char *dir = tl_test_tmpdir();
    char pf[512], cmd[2048], out[16384];
    snprintf(pf, sizeof pf, "%s/short.part.mtx", dir);
    int part[10] = {0};
    TL_ASSERT_OK(tl_partition_write(pf, part, 10));
    snprintf(cmd, sizeof cmd, "%s --launcher threads --ranks 2 --partition %s %s 2>&1", helper(),
             pf, tl_test_matrix("1138_bus.mtx"));
    int rc = tl_test_popen(cmd, out, sizeof out);
    TL_ASSERT_MSG(
        rc == 1 &&
            strstr(out, "partition file of the wrong length: 10 entries for a matrix of 1138 rows"),
        "exit %d:\n%s", rc, out);
}

TL_TEST_MAIN(threads_1138_bus, threads_poisson7, threads_poisson27, threads_convdiff, threads_ani4,
             threads_ani1_nonsymm, more_ranks_than_rows, binary_input_and_partition_file,
             mpi_4_ranks, bad_part_id_fails_on_all_ranks, partition_file_wrong_length)
