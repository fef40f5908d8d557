/* Multi-rank truth on one GPU (DESIGN.md "Wave 3"): ranks sharing the GPU
 * over --device-comm host, as threads of one process and as MPI processes,
 * traced with CUPTI. Every GPU record is in exactly one rank's trace, the
 * ranks issue the same work and keep their own host waits, the
 * host-staged communication is in the trace (the host's exchanges, the
 * staging copies on the p2p/coll lanes) and the
 * analysis counts it: U_comm > 0 on every rank, and diagnose names the
 * exposed communication; a one-rank run has no communication finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static void need_gpu(void)
{
    if (tl_gpu_count() < 1) TL_SKIP("no GPU visible");
}

#define SOLVE "--backend cuda --solver pipecg --device-comm host gen:poisson7:48 --rtol 0 --atol 0 " \
              "--max-iterations 40 --warmup 0 --repeat 1 --cupti"

typedef struct rank_rows {
    long kernels, copies, comm_copies, marks, event_waits;
    long long *key; /* start_ns of GPU rows, for the disjointness check */
    size_t n, cap;
} rank_rows;

/* Fields of one trace row (names hold no comma in these traces: mangled or plain). */
static void read_rank(const char *dir, int rank, rank_rows *rr)
{
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/trace.rank%d.csv", dir, rank);
    FILE *f = fopen(path, "r");
    TL_ASSERT_MSG(f, "cannot open %s", path);
    memset(rr, 0, sizeof *rr);
    int header = 1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (header) {
            header = 0;
            continue;
        }
        char *fld[12], *p = line;
        int k = 0;
        for (char *t; k < 12 && (t = strsep(&p, ",")); k++) fld[k] = t;
        if (k < 12 || strchr(fld[6], '"')) continue;
        TL_ASSERT_EQ(atoi(fld[0]), rank);
        const char *lane = fld[3], *kind = fld[5];
        int gpu = !strcmp(kind, "kernel") || !strcmp(kind, "memcpy") || !strcmp(kind, "memset");
        rr->kernels += !strcmp(kind, "kernel");
        rr->copies += !strcmp(kind, "memcpy");
        rr->comm_copies += !strcmp(kind, "memcpy") && (!strcmp(lane, "p2p") || !strcmp(lane, "coll"));
        rr->marks += !strcmp(kind, "host") && (!strcmp(lane, "p2p") || !strcmp(lane, "coll"));
        rr->event_waits += !strcmp(kind, "sync") && !strcmp(fld[6], "cudaEventSynchronize");
        if (!gpu) continue;
        if (rr->n == rr->cap) {
            rr->cap = rr->cap ? 2 * rr->cap : 1024;
            rr->key = realloc(rr->key, rr->cap * sizeof *rr->key);
            TL_ASSERT(rr->key);
        }
        /* start, end and correlation id: a record twice (one rank's record
         * in another's file) has all three alike; separate processes'
         * records differ in at least one */
        rr->key[rr->n++] = (atoll(fld[7]) * 1000003LL + atoll(fld[8])) * 1000003LL + atoll(fld[9]);
    }
    fclose(f);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Every GPU record in one rank's file only; same_work: the ranks issued
 * the same kernels (the solver; the FDTD's source lives on one rank). */
static void check_attribution(const char *dir, int nranks, int same_work)
{
    rank_rows rr[4];
    long long *all = NULL;
    size_t n = 0;
    for (int r = 0; r < nranks; r++) {
        read_rank(dir, r, &rr[r]);
        TL_ASSERT_MSG(rr[r].kernels > 0, "rank %d: no kernels", r);
        TL_ASSERT_MSG(rr[r].comm_copies > 0, "rank %d: no staging copies on the p2p/coll lanes", r);
        TL_ASSERT_MSG(rr[r].marks > 0, "rank %d: no host exchanges", r);
        all = realloc(all, (n + rr[r].n) * sizeof *all);
        TL_ASSERT(all);
        memcpy(all + n, rr[r].key, rr[r].n * sizeof *all);
        n += rr[r].n;
    }
    for (int r = 1; r < nranks && same_work; r++)
        TL_ASSERT_MSG(rr[r].kernels * 10 >= rr[0].kernels * 9 && rr[r].kernels * 9 <= rr[0].kernels * 10,
                      "rank %d: %ld kernels, rank 0: %ld", r, rr[r].kernels, rr[0].kernels);
    /* a wait is its caller's (the thread rule): before, thread ranks'
     * cudaEventSynchronize were all guessed into one rank's trace */
    TL_ASSERT_MSG(!same_work || rr[0].event_waits > 0, "rank 0: no cudaEventSynchronize rows");
    for (int r = 1; r < nranks && same_work; r++)
        TL_ASSERT_MSG(rr[r].event_waits * 10 >= rr[0].event_waits * 9 &&
                          rr[r].event_waits * 9 <= rr[0].event_waits * 10,
                      "rank %d: %ld cudaEventSynchronize rows, rank 0: %ld", r, rr[r].event_waits, rr[0].event_waits);
    qsort(all, n, sizeof *all, cmp_ll);
    for (size_t i = 1; i < n; i++) TL_ASSERT_MSG(all[i] != all[i - 1], "a GPU record in two ranks' traces");
    free(all);
    for (int r = 0; r < nranks; r++) free(rr[r].key);
}

/* overlap's U_comm on every rank > 0, diagnose names exposed communication */
static void check_analysis(const char *dir, int nranks, int has_coll)
{
    char csv[1100];
    snprintf(csv, sizeof csv, "%s/overlap.csv", dir);
    tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s --csv %s", tl_test_bin(), dir, csv);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT(!tl_test_says_nan(r.out));
    tl_test_output_free(&r);
    char *c = tl_test_read(csv);
    for (int k = 0; k < nranks; k++) {
        char key[16];
        snprintf(key, sizeof key, "\n%d,", k);
        const char *row = strstr(c, key);
        TL_ASSERT_MSG(row, "no row for rank %d in %s", k, c);
        double w, uc, up, ucoll, ucomm;
        TL_ASSERT_EQ(sscanf(row + strlen(key), "%lf,%lf,%lf,%lf,%lf", &w, &uc, &up, &ucoll, &ucomm), 5);
        TL_ASSERT_MSG(ucomm > 0 && up > 0 && (ucoll > 0 || !has_coll), "rank %d: U_p2p %g U_coll %g U_comm %g", k, up, ucoll, ucomm);
    }
    free(c);
    r = tl_test_capture("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_MSG(strstr(r.out, "[exposed-communication]: communication takes"), "%s", r.out);
    TL_ASSERT_MSG(strstr(r.out, "[host-staging]: communication is staged"), "%s", r.out);
    TL_ASSERT(!tl_test_says_nan(r.out));
    tl_test_output_free(&r);
}

TL_TEST(gpu_solver_threads_share_one_gpu)
{
    need_gpu();
    const char *d = tl_test_path("threads");
    tl_test_output r = tl_test_capture("%s/trilap-solve " SOLVE " --ranks 2 --trace %s", tl_test_bin(), d);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    check_attribution(d, 2, 1);
    check_analysis(d, 2, 1);
}

TL_TEST(gpu_solver_mpi_ranks_share_one_gpu)
{
    need_gpu();
    const char *mpirun = tl_test_mpirun(); /* skips without MPI */
    const char *d = tl_test_path("mpi");
    tl_test_output r =
        tl_test_capture("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 %s -np 2 --oversubscribe "
                        "%s/trilap-solve " SOLVE " --launcher mpi --trace %s",
                        mpirun, tl_test_bin(), d);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    check_attribution(d, 2, 1);
    check_analysis(d, 2, 1);
}

TL_TEST(gpu_fdtd_four_ranks_share_one_gpu)
{
    need_gpu();
    const char *d = tl_test_path("fdtd");
    tl_test_output r = tl_test_capture("OMP_NUM_THREADS=1 %s/trilap-fdtd run --backend cuda --ranks 4 --device-comm host "
                                       "--decomp pencil-yz --grid 96 --steps 20 --trace %s",
                                       tl_test_bin(), d);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    check_attribution(d, 4, 0);
    check_analysis(d, 4, 0); /* the FDTD reduces nothing */
    /* the host-staged exchange's peers, one call per phase (y, then z):
     * rank r exchanges with r ^ 1, then r ^ 2 (probes/README.md "Peers of
     * an operation"), so the analysis pairs it with those alone */
    for (int k = 0; k < 4; k++)
        TL_ASSERT_MSG(tl_test_sh("grep -qx '# peers.0=%d;%d p2p:staged exchange' %s/trace.rank%d.csv", k ^ 1, k ^ 2, d,
                                 k) == 0,
                      "rank %d: no peers %d;%d of its staged exchange in %s", k, k ^ 1, k ^ 2, d);
    r = tl_test_capture("%s/trilap-analyze overlap %s", tl_test_bin(), d);
    TL_ASSERT_MSG(r.rc == 0 && !strstr(r.out, "# note: point-to-point operations"), "%s%s", r.out, r.err);
    tl_test_output_free(&r);
}

TL_TEST(gpu_one_rank_no_communication_finding)
{
    need_gpu();
    const char *d = tl_test_path("one");
    tl_test_output r = tl_test_capture("%s/trilap-solve " SOLVE " --ranks 1 --trace %s", tl_test_bin(), d);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("%s/trilap-analyze diagnose %s", tl_test_bin(), d);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    static const char *const comm_rules[] = {"serialised-communicators", "serialised-host-lane",
                                             "no-comm-compute-overlap", "exposed-communication", "late-ranks",
                                             "host-staging", "starved-communication"};
    for (size_t i = 0; i < sizeof comm_rules / sizeof comm_rules[0]; i++) {
        char ok[96];
        snprintf(ok, sizeof ok, "ok [%s]", comm_rules[i]);
        TL_ASSERT_MSG(strstr(r.out, ok), "%s fired on one rank:\n%s", comm_rules[i], r.out);
    }
    TL_ASSERT(!tl_test_says_nan(r.out));
    tl_test_output_free(&r);
}

TL_TEST_MAIN(gpu_solver_threads_share_one_gpu, gpu_solver_mpi_ranks_share_one_gpu, gpu_fdtd_four_ranks_share_one_gpu,
             gpu_one_rank_no_communication_finding)
