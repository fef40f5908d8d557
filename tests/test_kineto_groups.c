/* A process group's collectives in PyTorch profiler (Kineto) traces,
 * paired on the group's ranks by the peers lines the reader makes of its
 * "Process Group Ranks" (analysis/README.md, "PyTorch profiler (Kineto)
 * traces"), at the sizes a trace can reach: groups of thousands of ranks,
 * ranks in hundreds of groups, thousands of steps. Each trace here is
 * read as it is and as `import` wrote it, which must read back alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "tl_test.h"
#include "tl_test_run.h"

/* The shape of a run's traces: `world` ranks, files for ranks[0..nfiles),
 * `steps` ProfilerSteps, in each an all_reduce on each of `groups`
 * process groups (names 1, 2, ...), every group's "Process Group Ranks"
 * `members` (the same list for all: "[0, 2]" or "[0, 1, ..., 4095]"). */
typedef struct run_shape {
    int world, nfiles, ranks[4], steps, groups;
    const char *members;
} run_shape;

static void write_trace(const char *dir, const run_shape *s, int rank)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/rank%d.json", dir, rank);
    FILE *f = fopen(p, "w");
    TL_ASSERT_MSG(f, "%s", p);
    fprintf(f, "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d}, \"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 2, "
               "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}",
            rank, s->world);
    long c = 2;
    for (int i = 0; i < s->steps; i++) {
        double t0 = 100.0 * s->groups * (i + 1);
        fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %.1f, \"dur\": %d}",
                i, t0, 90 * s->groups);
        for (int g = 0; g < s->groups; g++, c++) {
            double at = t0 + 10 + 80 * g;
            fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, "
                       "\"ts\": %.1f, \"dur\": 10, \"args\": {\"Collective name\": \"allreduce\", \"Process Group "
                       "Name\": \"%d\", \"Process Group Description\": \"tp\", \"Process Group Ranks\": \"%s\"}}"
                       ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"nccl:all_reduce\", \"pid\": 1, \"tid\": 1, "
                       "\"ts\": %.1f, \"dur\": 6}"
                       ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                       "\"tid\": 1, \"ts\": %.1f, \"dur\": 4, \"args\": {\"correlation\": %ld}}"
                       ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", "
                       "\"pid\": 0, \"tid\": 20, \"ts\": %.1f, \"dur\": 50, \"args\": {\"device\": 0, \"stream\": 20, "
                       "\"correlation\": %ld}}",
                    at - 3, g + 1, s->members, at - 2, at, c, at + 5, c);
        }
    }
    fprintf(f, "\n]}\n");
    TL_ASSERT(fclose(f) == 0);
}

static const char *write_run(const char *name, const run_shape *s)
{
    static char dir[1100];
    snprintf(dir, sizeof dir, "%s/%s", tl_test_tmpdir(), name);
    TL_ASSERT(mkdir(dir, 0755) == 0);
    for (int i = 0; i < s->nfiles; i++) write_trace(dir, s, s->ranks[i]);
    return dir;
}

/* "[0, 1, ..., n-1]" */
static char *first_ranks(int n)
{
    char *l = malloc(12 * (size_t)n + 3);
    TL_ASSERT(l);
    size_t len = (size_t)sprintf(l, "[");
    for (int r = 0; r < n; r++) len += (size_t)sprintf(l + len, "%s%d", r ? ", " : "", r);
    sprintf(l + len, "]");
    return l;
}

/* overlap's table of waiting and transfer, from its header to its end */
static char *waiting_table(const char *out)
{
    const char *a = strstr(out, "# table: communication waiting and transfer");
    TL_ASSERT_MSG(a, "%s", out);
    const char *b = strstr(a, "\n\n");
    size_t n = b ? (size_t)(b - a) : strlen(a);
    char *t = malloc(n + 1);
    TL_ASSERT(t);
    memcpy(t, a, n);
    t[n] = '\0';
    return t;
}

/* overlap of dir's Kineto traces and of what `import` wrote of them: both
 * read (exit 0) to the same waiting and transfer table; *out: the
 * first's output */
static void reads_back_alike(const char *dir, char **out)
{
    char imported[1200], *o[2] = {NULL, NULL}, *err = NULL, cmd[2600];
    snprintf(imported, sizeof imported, "%s.imported", dir);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s > /dev/null 2>&1", tl_test_bin(), dir, imported), 0);
    const char *in[2] = {dir, imported};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap %s", tl_test_bin(), in[k]);
        int rc = tl_test_run(cmd, &o[k], &err);
        TL_ASSERT_MSG(rc == 0, "%s: exit %d\n%.600s", cmd, rc, err);
        free(err);
    }
    char *t0 = waiting_table(o[0]), *t1 = waiting_table(o[1]);
    TL_ASSERT_MSG(!strcmp(t0, t1), "the Kineto traces:\n%s\nthe import:\n%s", t0, t1);
    free(t0);
    free(t1);
    free(o[1]);
    *out = o[0];
}

/* A group of 4096 of 8192 ranks: its peers line would hold 4095 ranks,
 * 19421 bytes, past what a trace file keeps of a value (16384 bytes): the
 * group's operations are paired across the ranks given, as before the
 * peers lines, and the import reads back. Before, `import` wrote the line
 * cut ("...[19421 bytes, cut]") and reading it back was refused:
 * "metadata peers.0='1,2,3,...': '3492...[19421' is not a rank". */
TL_TEST(group_of_thousands_reads_back)
{
    char *members = first_ranks(4096), *o = NULL;
    run_shape s = {.world = 8192, .nfiles = 2, .ranks = {0, 1}, .steps = 3, .groups = 1, .members = members};
    reads_back_alike(write_run("thousands", &s), &o);
    TL_ASSERT_MSG(strstr(o, "  0    \"nccl:all_reduce on process group 1 (tp, ranks 0-4095)\"") && !strstr(o, "# unmatched"),
                  "%s", o);
    free(o);
    free(members);
}

/* A rank in 520 process groups gets the peers lines of the first 480 (a
 * trace file keeps 512 metadata lines): the others' operations are paired
 * across the ranks given, as before the peers lines, in the traces and
 * their import alike. Before, `import` wrote 520 and reading it back was
 * refused: "trace.rank0.csv:513: more than 512 metadata lines". */
TL_TEST(rank_in_hundreds_of_groups_reads_back)
{
    char *o = NULL;
    run_shape s = {.world = 4, .nfiles = 2, .ranks = {0, 2}, .steps = 1, .groups = 520, .members = "[0, 2]"};
    reads_back_alike(write_run("hundreds", &s), &o);
    TL_ASSERT_MSG(strstr(o, "  2    \"nccl:all_reduce on process group 520 (tp, ranks 0,2)\"") && !strstr(o, "# unmatched"),
                  "%s", o);
    free(o);
}

/* overlap's processor time (the time its process ran, whatever else the
 * machine runs) on the import of run s, the rank files the lines name the
 * peers in; the traces and their import removed after */
static double seconds_of(const char *name, const run_shape *s)
{
    const char *dir = write_run(name, s);
    char imported[1200];
    snprintf(imported, sizeof imported, "%s.imported", dir);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s > /dev/null 2>&1 && rm -r %s", tl_test_bin(), dir,
                            imported, dir),
                 0);
    struct rusage a, b;
    TL_ASSERT(getrusage(RUSAGE_CHILDREN, &a) == 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > /dev/null", tl_test_bin(), imported), 0);
    TL_ASSERT(getrusage(RUSAGE_CHILDREN, &b) == 0);
    TL_ASSERT_EQ(tl_test_sh("rm -r %s", imported), 0);
    return (double)(b.ru_utime.tv_sec - a.ru_utime.tv_sec) + 1e-6 * (double)(b.ru_utime.tv_usec - a.ru_utime.tv_usec);
}

/* Pairing a process group's operations on its ranks costs about what
 * pairing them across every rank does: each (step, operation) the peers
 * lines cover was looked for among all those found before it, so 1000
 * steps of 40 took 4.3 times as long on a group of two (1.0 s) as on the
 * whole world (0.23 s); twice is the bound. */
TL_TEST(group_steps_paired_in_linear_time)
{
    run_shape s = {.world = 4, .nfiles = 2, .ranks = {0, 2}, .steps = 1000, .groups = 40, .members = "[0, 1, 2, 3]"};
    double world = seconds_of("world", &s);
    s.members = "[0, 2]";
    double group = seconds_of("group", &s);
    printf("overlap: 1000 steps of 40 operations on the whole world %.2f s, on a group of two %.2f s\n", world, group);
    TL_ASSERT_MSG(group < 2 * world + 0.1, "1000 steps of 40 operations: on the whole world %.2f s, on a group of two "
                  "%.2f s", world, group);
}

TL_TEST_MAIN(group_of_thousands_reads_back, rank_in_hundreds_of_groups_reads_back, group_steps_paired_in_linear_time)
