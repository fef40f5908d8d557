/* Point-to-point operations paired with the rank's peers, not with every
 * rank (DESIGN.md "Wave 3"; probes/README.md "Peers of an operation";
 * analysis/README.md "Waiting and transfer"): a halo exchange waits for
 * its neighbours alone. Synthetic traces through trilap-analyze (with and
 * without the peers metadata, a cycle of sets, bad values refused), and
 * the peers trilap-solve and trilap-fdtd write on host ranks. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "probes/trace.h"
#include "tl_test.h"
#include "tl_test_run.h"

/* A rank file written by hand: a host-only rank of an nranks run. */
static void write_rank(const char *dir, int rank, int nranks, const char *extra_meta, const char *rows)
{
    char p[1100], *body = malloc(strlen(rows) + strlen(extra_meta) + 1024);
    TL_ASSERT(body);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s", dir), 0);
    sprintf(body,
            "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=%d\n# host=node7\n# device=-1\n"
            "# clock=CLOCK_MONOTONIC\n# program=trilap-solve\n# clock_shared=process\n%s# complete=yes\n" TL_TRACE_HEADER
            "\n%s",
            rank, nranks, extra_meta, rows);
    snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, rank);
    tl_test_write(p, body);
    free(body);
}

/* overlap's waiting of `name` on `rank` (us), and its matched count */
static double waiting(const char *o, int rank, const char *name, long *matched)
{
    char key[160];
    /* the table quotes a name with a blank */
    snprintf(key, sizeof key, strchr(name, ' ') ? "\n  %d    \"%s\" " : "\n  %d    %s ", rank, name);
    const char *p = strstr(o, key);
    double w = -1;
    TL_ASSERT_MSG(p && sscanf(p + strlen(key), "%ld %lf", matched, &w) == 2, "no row %d %s in\n%s", rank, name, o);
    return w;
}

static const char *const pairing_note =
    "# note: point-to-point operations (p2p:halo_wait) were paired across every rank (of their process group, "
    "where the trace names it): the trace does not name "
    "each rank's peers (no peers.N metadata: a trace written before it, Nsight Systems, a Kineto trace whose sends "
    "and recvs name no other end, or a batch of more than 8 channels), so a rank's "
    "waiting may count ranks it does not exchange with\n";

/* Four ranks in a row (rank r's neighbours r - 1 and r + 1), rank 3 late
 * by 30 us at every halo_wait; an allreduce they reach together. */
static void write_row_of_four(const char *dir, int with_peers)
{
    static const char *const nbrs[4] = {"1", "0,2", "1,3", "2"};
    for (int r = 0; r < 4; r++) {
        char rows[8192], meta[128] = "";
        int w = 0;
        for (int i = 0; i < 4; i++) {
            long long t = 1000000000LL + 100000LL * i, late = r == 3 ? 30000 : 0;
            w += snprintf(rows + w, sizeof rows - (size_t)w,
                          "%d,-1,0,host,range,host,iter,%lld,%lld,0,-1,%d\n"
                          "%d,-1,0,p2p,range,host,p2p:halo_wait,%lld,%lld,0,-1,%d\n"
                          "%d,-1,0,coll,range,host,coll:allreduce,%lld,%lld,0,-1,%d\n",
                          r, t, t + 100000, i, r, t + 10000 + late, t + 60000, i, r, t + 70000, t + 90000, i);
        }
        if (with_peers) snprintf(meta, sizeof meta, "# peers.0=%s p2p:halo_wait\n", nbrs[r]);
        write_rank(dir, r, 4, meta, rows);
    }
}

/* With the peers named, rank 0 waits for rank 1 alone (which came with
 * it: 0 us), rank 2 for ranks 1 and 3 (rank 3's 30 us, four times);
 * before, every rank but 3 waited 120 us for rank 3, and late-ranks fired
 * on ranks 0, 1 and 2. */
TL_TEST(halo_waits_for_its_neighbours_only)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/row4", tl_test_tmpdir());
    write_row_of_four(dir, 1);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    static const double want[4] = {0.0, 0.0, 120.0, 0.0};
    for (int r = 0; r < 4; r++) {
        long m = 0;
        double w = waiting(o, r, "p2p:halo_wait", &m);
        TL_ASSERT_MSG(m == 4 && w == want[r], "rank %d: halo_wait %ld matched, %.1f us waiting (want %.1f)\n%s", r, m,
                      w, want[r], o);
        TL_ASSERT_MSG(waiting(o, r, "coll:allreduce", &m) == 0.0 && m == 4, "%s", o);
    }
    TL_ASSERT_MSG(!strstr(o, "# note: point-to-point operations"), "%s", o);
    /* the most delayed operations name the ranks each paired: rank 2 and its
     * peers (rank 3 with rank 2 saw the same wait: one row) */
    const char *d = strstr(o, "# table: most delayed operations");
    TL_ASSERT_MSG(d && tl_test_count(d, " 2:1,3\n") == 4 && strstr(d, "# 4 rows") && !strstr(d, " 3:2\n") &&
                      !strstr(d, " 0:1\n") && !strstr(d, " 1:0,2\n"),
                  "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze diagnose %s --wait-share 30", tl_test_bin(), dir);
    for (int r = 0; r < 4; r++)
        TL_ASSERT_MSG(!strcmp(tl_test_diagnose_verdict(o, "late-ranks", r), r == 2 ? "FINDING" : "ok"), "rank %d\n%s", r, o);
    TL_ASSERT_MSG(strstr(o, "most delayed: p2p:halo_wait (the host), #0 of it (iteration 0): rank 3 came 30.0 us after "
                            "the first"),
                  "%s", o);
    TL_ASSERT_MSG(!strstr(o, "# note: point-to-point operations"), "%s", o);
    free(o);
}

/* The same run without peers metadata (a trace from before it): paired
 * across every rank as before, and said once under the table. */
TL_TEST(halo_without_peers_paired_across_all_said)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/row4-old", tl_test_tmpdir());
    write_row_of_four(dir, 0);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    for (int r = 0; r < 4; r++) {
        long m = 0;
        double w = waiting(o, r, "p2p:halo_wait", &m);
        TL_ASSERT_MSG(m == 4 && w == (r == 3 ? 0.0 : 120.0), "rank %d: %.1f us\n%s", r, w, o);
    }
    TL_ASSERT_MSG(tl_test_count(o, pairing_note) == 1, "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze diagnose %s --wait-share 30", tl_test_bin(), dir);
    for (int r = 0; r < 3; r++) TL_ASSERT_MSG(!strcmp(tl_test_diagnose_verdict(o, "late-ranks", r), "FINDING"), "rank %d\n%s", r, o);
    TL_ASSERT_MSG(tl_test_count(o, pairing_note) == 1, "%s", o);
    free(o);
    /* two ranks: every rank is the other's neighbour, nothing to say */
    snprintf(dir, sizeof dir, "%s/row2-old", tl_test_tmpdir());
    for (int r = 0; r < 2; r++)
        write_rank(dir, r, 2, "",
                   r ? "1,-1,0,p2p,range,host,p2p:halo_wait,1000030000,1000060000,0,-1,-1\n"
                     : "0,-1,0,p2p,range,host,p2p:halo_wait,1000000000,1000060000,0,-1,-1\n");
    o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(!strstr(o, "# note: point-to-point operations"), "%s", o);
    free(o);
}

/* An operation that alternates between neighbour sets (the FDTD's y then
 * z phases on a 2 x 2 grid of ranks, through one host-staged exchange):
 * its k-th instance pairs with set k mod 2. Rank 3 is late at its z
 * exchanges only, so only rank 1, its z neighbour, waits. */
TL_TEST(alternating_sets_pair_each_phase)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/cycle", tl_test_tmpdir());
    static const char *const sets[4] = {"1;2", "0;3", "3;0", "2;1"};
    for (int r = 0; r < 4; r++) {
        char rows[8192], meta[128];
        int w = 0;
        for (int k = 0; k < 6; k++) {
            long long t = 1000000000LL + 100000LL * k, late = r == 3 && k % 2 ? 40000 : 0;
            w += snprintf(rows + w, sizeof rows - (size_t)w,
                          "%d,-1,0,p2p,range,host,p2p:staged exchange,%lld,%lld,0,-1,%d\n", r, t + late, t + 60000,
                          k / 2);
        }
        snprintf(meta, sizeof meta, "# peers.0=%s p2p:staged exchange\n", sets[r]);
        write_rank(dir, r, 4, meta, rows);
    }
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    static const double want[4] = {0.0, 120.0, 0.0, 0.0};
    for (int r = 0; r < 4; r++) {
        long m = 0;
        double w = waiting(o, r, "p2p:staged exchange", &m);
        TL_ASSERT_MSG(m == 6 && w == want[r], "rank %d: %ld matched, %.1f us waiting (want %.1f)\n%s", r, m, w, want[r],
                      o);
    }
    free(o);
}

/* A peers value the analysis cannot use is refused in one line naming the
 * file, the key and the reason. */
TL_TEST(bad_peers_refused)
{
    static const struct {
        const char *value, *why;
    } bad[] = {
        {"1,x p2p:halo_wait", "'x' is not a rank"},
        {"7 p2p:halo_wait", "rank 7 is not one of the run's 4"},
        {"0 p2p:halo_wait", "rank 0 is this rank itself"},
        {"1,1 p2p:halo_wait", "rank 1 twice in one set"},
        {"1", "no operation name after the ranks"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[1024], want[1600];
        snprintf(dir, sizeof dir, "%s/bad%zu", tl_test_tmpdir(), i);
        write_row_of_four(dir, 1);
        TL_ASSERT_EQ(tl_test_sh("sed -i 's/^# peers.0=.*$/# peers.0=%s/' %s/trace.rank0.csv", bad[i].value, dir), 0);
        snprintf(want, sizeof want, "%s/trace.rank0.csv: metadata peers.0='%s': %s", dir, bad[i].value, bad[i].why);
        tl_test_refused(1, want, "%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    }
    /* the same name twice */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/twice", tl_test_tmpdir());
    write_row_of_four(dir, 1);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/^# peers.0=.*$/&\\n# peers.1=1 p2p:halo_wait/' %s/trace.rank0.csv", dir), 0);
    char want[1200];
    snprintf(want, sizeof want, "%s/trace.rank0.csv: metadata peers.1='1 p2p:halo_wait': p2p:halo_wait is named "
                                "again (peers.0 named it)",
             dir);
    tl_test_refused(1, want, "%s/trilap-analyze overlap %s", tl_test_bin(), dir);
}

/* The peers.<i> lines are numbered from 0 without a gap; one missing (a
 * line lost or cut out by hand) is refused naming the file and the index,
 * where the reader read peers.0 alone and dropped the lines past the gap
 * without a word. */
TL_TEST(peers_gap_refused)
{
    char dir[1024], want[1400];
    snprintf(dir, sizeof dir, "%s/gap", tl_test_tmpdir());
    write_row_of_four(dir, 1);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/^# peers.0=.*$/&\\n# peers.2=1 p2p:halo_post/' %s/trace.rank0.csv", dir), 0);
    snprintf(want, sizeof want,
             "%s/trace.rank0.csv: metadata peers.2='1 p2p:halo_post' follows a gap: peers.1 is missing (the "
             "peers.<i> lines are numbered from 0 without one: a damaged or hand-edited trace)",
             dir);
    tl_test_refused(1, want, "%s/trilap-analyze overlap %s", tl_test_bin(), dir);
}

/* The `unmatched` figure of overlap's output, -1 without the line. */
static long unmatched_ops(const char *o)
{
    const char *p = strstr(o, "# unmatched: ");
    long n = -1;
    if (p && sscanf(p, "# unmatched: %ld operations", &n) != 1) n = -1;
    return n;
}

/* A peered operation left whole is counted once per exchange, not once on
 * each rank of it: on the row of four, rank 3 lost its last halo_wait (3
 * against rank 2's 4), so rank 2's four exchanges (each also with rank 3)
 * and rank 3's three stay whole: four exchanges, as the same trace without
 * peers (paired across every rank, counted once on rank 0) says; before,
 * 4 + 3 = 7. Rank 3 with a fifth instead: rank 2's four and rank 3's
 * fifth, which has no partner on rank 2, five (before, 4 + 5 = 9). */
TL_TEST(peered_unmatched_counted_once)
{
    static const struct {
        const char *sed; /* what rank 3's file loses or gains */
        int with_peers;
        long want;
    } cases[] = {
        {"/p2p:halo_wait.*,3$/d", 1, 4},
        {"/p2p:halo_wait.*,3$/d", 0, 4},
        {"/p2p:halo_wait.*,3$/{p;s/,3$/,4/}", 1, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/unmatched%zu", tl_test_tmpdir(), i);
        write_row_of_four(dir, cases[i].with_peers);
        TL_ASSERT_EQ(tl_test_sh("sed -i '%s' %s/trace.rank3.csv", cases[i].sed, dir), 0);
        char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
        TL_ASSERT_MSG(unmatched_ops(o) == cases[i].want && strstr(o, "operations of 1 name "),
                      "case %zu: unmatched %ld, want %ld\n%s", i, unmatched_ops(o), cases[i].want, o);
        free(o);
    }
}

/* The value of key `peers.N` naming `name` in file, NULL when none does. */
static char *peers_line(const char *file, const char *name)
{
    char *text = tl_test_read(file), *found = NULL;
    for (char *l = text; l && *l == '#'; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char *eol = strchr(l, '\n'), *sp;
        if (eol) *eol = '\0';
        if (!strncmp(l, "# peers.", 8) && (sp = strchr(strchr(l, '=') + 1, ' ')) && !strcmp(sp + 1, name)) {
            found = strdup(strchr(l, '=') + 1);
            break;
        }
        if (eol) *eol = '\n';
    }
    free(text);
    return found;
}

static void expect_peers(const char *dir, int rank, const char *name, const char *want)
{
    char file[1200];
    snprintf(file, sizeof file, "%s/trace.rank%d.csv", dir, rank);
    char *v = peers_line(file, name), line[256];
    snprintf(line, sizeof line, "%s %s", want, name);
    TL_ASSERT_MSG(v && !strcmp(v, line), "rank %d: peers of %s: '%s', want '%s'", rank, name, v ? v : "(none)", line);
    free(v);
}

/* trilap-solve on four thread ranks of the host backend, a Poisson matrix
 * split in row blocks (a 1-D split: blocks of three of its 12 planes): each
 * rank's halo is its row neighbours, and its trace says so for both halves
 * of the exchange. */
TL_TEST(solver_threads_write_row_neighbours)
{
    char dir[1024], run[1200];
    snprintf(dir, sizeof dir, "%s/solve", tl_test_tmpdir());
    char *o = tl_test_output_of("%s/trilap-solve gen:poisson7:12 --backend host --partition block --launcher threads --ranks 4 "
                      "--trace %s",
                      tl_test_bin(), dir);
    free(o);
    TL_ASSERT_EQ(tl_test_sh_to(run, sizeof run, "dirname $(find %s -name trace.rank0.csv)", dir), 0);
    run[strcspn(run, "\n")] = '\0';
    static const char *const nbrs[4] = {"1", "0,2", "1,3", "2"};
    for (int r = 0; r < 4; r++) {
        expect_peers(run, r, "p2p:halo_post", nbrs[r]);
        expect_peers(run, r, "p2p:halo_wait", nbrs[r]);
    }
    o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), run);
    TL_ASSERT_MSG(!strstr(o, "# note: point-to-point operations"), "%s", o);
    free(o);
}

/* trilap-fdtd on four host ranks, 1 x 2 x 2: rank (y, z) = (r % 2, r / 2)
 * exchanges along y with r ^ 1 and along z with r ^ 2. */
TL_TEST(fdtd_ranks_write_axis_neighbours)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fdtd", tl_test_tmpdir());
    char *o = tl_test_output_of("%s/trilap-fdtd run --no-gpu --ranks 4 --decomp pencil-yz --grid 24 --cpml 4 --steps 2 --trace %s",
                      tl_test_bin(), dir);
    free(o);
    for (int r = 0; r < 4; r++) {
        char y[8], z[8];
        snprintf(y, sizeof y, "%d", r ^ 1);
        snprintf(z, sizeof z, "%d", r ^ 2);
        expect_peers(dir, r, "p2p:exchange_y", y);
        expect_peers(dir, r, "p2p:exchange_z", z);
    }
}

TL_TEST_MAIN(halo_waits_for_its_neighbours_only, halo_without_peers_paired_across_all_said,
             alternating_sets_pair_each_phase, bad_peers_refused, peers_gap_refused,
             peered_unmatched_counted_once, solver_threads_write_row_neighbours,
             fdtd_ranks_write_axis_neighbours)
