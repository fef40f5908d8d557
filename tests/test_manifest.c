/* Run manifest: every key present, the environment captured, written
 * atomically by rank 0 only; under MPI through helper_launch. And the
 * commit the build is labelled with, which the manifest records. */
#include "runtime/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "runtime/comm.h"
#include "runtime/launch.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

typedef struct job {
    const char *path;
    tl_status st[8];
} job;

static tl_status write_manifest(tl_ctx *ctx, void *arg)
{
    job *j = arg;
    j->st[ctx->rank] = tl_manifest_write(ctx, j->path, "matrix: 1138_bus.mtx\nschedule: three-split");
    return j->st[ctx->rank];
}

static void expect_keys(const char *m, int nranks, const char *launcher)
{
    char want[128];
    const char *keys[] = {"program: ", "\ncommand: ", ("\nversion: " TL_VERSION "\n"), ("\ngit_commit: " TL_GIT_COMMIT),
                          "\ndate: 20", "\ncwd: /", "\ncuda_runtime: ", "\ndriver: ", "\nnccl: ", "\ncupti: ", "\nmpi: ",
                          "\nnccl_nvls_enable: ", "\nranks_per_host: "};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        TL_ASSERT_MSG(strstr(m, keys[i]), "manifest lacks \"%s\":\n%s", keys[i], m);
    snprintf(want, sizeof want, "\nlauncher: %s\n", launcher);
    TL_ASSERT_MSG(strstr(m, want), "manifest lacks \"%s\"", want);
    snprintf(want, sizeof want, "\nranks: %d\n", nranks);
    TL_ASSERT_MSG(strstr(m, want), "manifest lacks \"%s\"", want);
    for (int r = 0; r < nranks; r++) {
        snprintf(want, sizeof want, "\nhost.rank%d: ", r);
        TL_ASSERT_MSG(strstr(m, want), "manifest lacks \"%s\"", want);
        snprintf(want, sizeof want, "\ngpu.rank%d: ", r);
        TL_ASSERT_MSG(strstr(m, want), "manifest lacks \"%s\"", want);
    }
    snprintf(want, sizeof want, "\nhost.rank%d: ", nranks);
    TL_ASSERT(!strstr(m, want));
    TL_ASSERT(strstr(m, "\nmatrix: 1138_bus.mtx\n"));
}

TL_TEST(threads_manifest)
{
    char path[512];
    snprintf(path, sizeof path, "%s/run.manifest", tl_test_tmpdir());
    setenv("NCCL_DEBUG", "WARN", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
    setenv("NCCL_ALGO", "Ring\nTree", 1); /* a newline must not break the key: value format */
    setenv("UNRELATED_SECRET", "nope", 1);
    unsetenv("NCCL_NVLS_ENABLE");
    job j = {.path = path};
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 3, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"trilap-bench", (char *)"--ring-bytes", (char *)"1M", (char *)"my file.mtx", NULL};
    TL_ASSERT_EQ(tl_launch_run("trilap-bench", &lo, 4, argv, write_manifest, &j), 0);
    for (int r = 0; r < 3; r++) TL_ASSERT_EQ(j.st[r], TL_OK);
    char *m = tl_test_read(path);
    expect_keys(m, 3, "threads");
    TL_ASSERT(strncmp(m, "program: trilap-bench\n", 22) == 0);
    TL_ASSERT(strstr(m, "\ncommand: trilap-bench --ring-bytes 1M 'my file.mtx'\n"));
    TL_ASSERT(strstr(m, "\nenv.NCCL_DEBUG: WARN\n"));
    TL_ASSERT(strstr(m, "\nenv.CUDA_VISIBLE_DEVICES: 0,1\n"));
    TL_ASSERT(strstr(m, "\nenv.NCCL_ALGO: Ring Tree\n"));
    TL_ASSERT(strstr(m, "\nnccl_nvls_enable: unset (NCCL default)\n"));
    TL_ASSERT(strstr(m, "\ngpu.rank0: none (a host-only rank, as the command asked: --no-gpu, a host backend or a "
                        "host program)\n"));
    TL_ASSERT(strstr(m, "\nschedule: three-split\n"));
    TL_ASSERT(!strstr(m, "UNRELATED_SECRET"));
    /* every line is "key: value" */
    for (const char *line = m; *line; line = strchr(line, '\n') + 1) {
        const char *colon = strstr(line, ": "), *nl = strchr(line, '\n');
        TL_ASSERT_MSG(nl && colon && colon < nl, "not a key: value line: %.60s", line);
    }
    free(m);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    TL_ASSERT_EQ(tl_launch_run("trilap-bench", &lo, 4, argv, write_manifest, &j), 0);
    m = tl_test_read(path);
    TL_ASSERT(strstr(m, "\nnccl_nvls_enable: 0\n"));
    free(m);
    /* GPUs not refused: a rank without one says why it has none, not that it was asked */
    lo.no_gpu = 0;
    lo.ranks = 1;
    TL_ASSERT_EQ(tl_launch_run("trilap-bench", &lo, 4, argv, write_manifest, &j), 0);
    m = tl_test_read(path);
    const char *gpu = strstr(m, "\ngpu.rank0: ");
    TL_ASSERT(gpu);
    TL_ASSERT_MSG(strncmp(gpu, "\ngpu.rank0: none", 16) || !strncmp(gpu, "\ngpu.rank0: none (no GPU visible to this rank)\n", 47) ||
                      !strncmp(gpu, "\ngpu.rank0: none (built without CUDA)\n", 38),
                  "%.120s", gpu);
    free(m);
}

TL_TEST(unwritable_manifest_fails_cleanly)
{
    char path[600], file[512];
    snprintf(file, sizeof file, "%s/afile", tl_test_tmpdir());
    TL_ASSERT_OK(tl_file_write_atomic(file, "x", 1));
    snprintf(path, sizeof path, "%s/run.manifest", file); /* under a plain file */
    job j = {.path = path};
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 2, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"trilap-bench", NULL};
    TL_ASSERT_EQ(tl_launch_run("trilap-bench", &lo, 1, argv, write_manifest, &j), 1);
    TL_ASSERT_EQ(j.st[0], TL_ERR_IO);
}

TL_TEST(mpi_manifest)
{
    const char *m = tl_test_mpirun();
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/mpi.manifest", tl_test_tmpdir());
    snprintf(cmd, sizeof cmd, "NCCL_PROTO=Simple %s -np 3 --oversubscribe -x NCCL_PROTO %s/tests/helper_launch --manifest %s manifest",
             m, tl_test_env("TL_BUILD", "build"), path);
    int status = system(cmd);
    TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d", cmd, status);
    char *text = tl_test_read(path);
    expect_keys(text, 3, "mpi");
    TL_ASSERT(strstr(text, "\nmpi: ") && !strstr(text, "\nmpi: none"));
    TL_ASSERT(strstr(text, "\nenv.NCCL_PROTO: Simple\n"));
    TL_ASSERT(strstr(text, "\nenv.OMPI_COMM_WORLD_SIZE: 3\n"));
    TL_ASSERT(strstr(text, "\nscenario: manifest\n"));
    free(text);
}

/* The commit a build is labelled with (mk/rules.mk, what git_commit and
 * --version print): a .trilap-commit naming a commit this repository does
 * not have (a tree copied from a newer checkout onto an older one) wins
 * over HEAD; one it has (an old note) does not; TRILAP_COMMIT wins over
 * both. Read off `make summary`'s first line. */
static char *build_label(const char *commit_file, const char *extra)
{
    tl_test_output r = tl_test_capture("make -s summary TRILAP_COMMIT_FILE='%s' %s | head -n1",
                                       commit_file, extra);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    char *open = strchr(r.out, '('), *close = open ? strchr(open, ')') : NULL;
    TL_ASSERT_MSG(open && close, "%s", r.out);
    *close = '\0';
    char *label = strdup(open + 1);
    tl_test_output_free(&r);
    return label;
}

TL_TEST(commit_label_of_a_copied_tree)
{
    tl_test_output g = tl_test_capture("git rev-parse --short=12 HEAD");
    if (g.rc != 0) {
        tl_test_output_free(&g);
        TL_SKIP("no git repository here");
    }
    char head[64] = "", root[64] = "";
    TL_ASSERT_EQ(sscanf(g.out, "%63s", head), 1);
    tl_test_output_free(&g);
    g = tl_test_capture("git rev-list --max-parents=0 HEAD");
    TL_ASSERT_MSG(g.rc == 0 && sscanf(g.out, "%63s", root) == 1, "%s", g.err);
    tl_test_output_free(&g);
    char f[600];
    snprintf(f, sizeof f, "%s/trilap-commit", tl_test_tmpdir());
    tl_test_write(f, "0123456789ab\n"); /* no such commit here */
    char *l = build_label(f, "");
    TL_ASSERT_STREQ(l, "0123456789ab");
    free(l);
    l = build_label(f, "TRILAP_COMMIT=fedcba987654");
    TL_ASSERT_STREQ(l, "fedcba987654");
    free(l);
    char note[80];
    snprintf(note, sizeof note, "%s\n", root); /* a commit this repository has: an old note */
    tl_test_write(f, note);
    l = build_label(f, "");
    TL_ASSERT_MSG(strncmp(l, head, strlen(head)) == 0, "label %s, HEAD %s", l, head);
    free(l);
}

/* A run that appends rows to a results file: its rows and its block. */
typedef struct appender {
    const char *results, *header;
    const char *rows[3];
    int stop; /* 0: ended; 1: stopped after its rows (no end, as a killed command); 2: failed (abort) */
    const char *wait_for; /* after its rows, rank 0 waits for this file to exist (NULL: no wait) */
    tl_status st[2];
} appender;

static tl_status append_and_add(tl_ctx *ctx, void *arg)
{
    appender *a = arg;
    tl_results_rows rows = {0};
    tl_manifest_run mr = {0};
    tl_status st = tl_manifest_begin(ctx, ctx->rank == 0 ? a->results : NULL, ctx->rank == 0 ? a->header : NULL,
                                     "subcommand: x\n", &mr);
    st = tl_comm_agree(ctx, st);
    for (int i = 0; ctx->rank == 0 && st == TL_OK && i < 3 && a->rows[i]; i++)
        st = tl_results_append(a->results, a->header, a->rows[i], &rows);
    while (ctx->rank == 0 && a->wait_for && access(a->wait_for, F_OK) != 0) usleep(10000);
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK && a->stop == 0) st = tl_manifest_end(ctx, &mr, &rows, "tail: yes\n");
    if (st == TL_OK && a->stop == 2) tl_manifest_abort(ctx, &mr, &rows);
    if (a->stop == 1 && ctx->rank == 0) { /* what a killed command leaves: its block begun */
        free(mr.results);
        free(mr.block);
    }
    a->st[ctx->rank] = st;
    return st;
}

static void run_appender(appender *a, const char *label)
{
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 2, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"trilap-bench", (char *)"--label", (char *)label, NULL};
    TL_ASSERT_EQ(tl_launch_run("trilap-bench", &lo, 3, argv, append_and_add, a), 0);
    TL_ASSERT(a->st[0] == TL_OK && a->st[1] == TL_OK);
}

static int count_of(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

/* Rows appended by several commands keep each its provenance: a block per
 * run in manifest.txt naming its results file and lines (the manifest
 * used to be replaced, so the earlier rows named the last command). A
 * results file started afresh drops the blocks that named its old rows,
 * and keeps those of another results file in the same folder. */
TL_TEST(manifest_block_per_run)
{
    char dir[512], csv[600], other[600], man[600];
    snprintf(dir, sizeof dir, "%s/res", tl_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/fdtd.csv", dir);
    snprintf(other, sizeof other, "%s/stream.csv", dir);
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    appender a = {.results = csv, .header = "a,b", .rows = {"1,2", "3,4"}};
    run_appender(&a, "first");
    appender b = {.results = csv, .header = "a,b", .rows = {"5,6"}};
    run_appender(&b, "second");
    appender c = {.results = other, .header = "c", .rows = {"7"}};
    run_appender(&c, "third");
    char *m = tl_test_read(man);
    TL_ASSERT_EQ(count_of(m, "program: trilap-bench\n"), 3);
    TL_ASSERT_MSG(strstr(m, "command: trilap-bench --label first\nresults: fdtd.csv\nresults_lines: 2-3\nrun_id: "), "%s", m);
    TL_ASSERT(strstr(m, "command: trilap-bench --label second\nresults: fdtd.csv\nresults_lines: 4\n"));
    TL_ASSERT(strstr(m, "command: trilap-bench --label third\nresults: stream.csv\nresults_lines: 2\n"));
    TL_ASSERT_EQ(count_of(m, "\n\nprogram: "), 2); /* blocks a blank line apart, in run order */
    TL_ASSERT(strstr(m, "--label first") < strstr(m, "--label second") && strstr(m, "--label second") < strstr(m, "--label third"));
    TL_ASSERT(strstr(m, "\nhost.rank1: ") && strstr(m, "\nsubcommand: x\ntail: yes\n\nprogram: "));
    free(m);
    /* fdtd.csv started over: its old blocks go, stream.csv's stays */
    TL_ASSERT_EQ(unlink(csv), 0);
    appender d = {.results = csv, .header = "a,b", .rows = {"8,9"}};
    run_appender(&d, "fourth");
    m = tl_test_read(man);
    TL_ASSERT_EQ(count_of(m, "program: trilap-bench\n"), 2);
    TL_ASSERT_MSG(!strstr(m, "--label first") && !strstr(m, "--label second"), "%s", m);
    TL_ASSERT(strstr(m, "--label third\nresults: stream.csv\n") < strstr(m, "--label fourth\nresults: fdtd.csv\nresults_lines: 2\n"));
    free(m);
    /* a manifest from before blocks (no results: line) is kept as the first block */
    tl_test_write(man, "program: trilap-fdtd\ncommand: trilap-fdtd run\n");
    appender e = {.results = other, .header = "c", .rows = {"10"}};
    run_appender(&e, "fifth");
    m = tl_test_read(man);
    static const char kept[] = "program: trilap-fdtd\ncommand: trilap-fdtd run\n\nprogram: trilap-bench\n";
    TL_ASSERT_MSG(!strncmp(m, kept, sizeof kept - 1), "%s", m);
    TL_ASSERT(strstr(m, "--label fifth\nresults: stream.csv\nresults_lines: 3\n"));
    free(m);
    /* a command killed after its rows leaves its block open, "from" its
     * first line; one that failed before any row leaves nothing, not even
     * the file it made; one that failed after its rows says so */
    appender f = {.results = csv, .header = "a,b", .rows = {"11,12"}, .stop = 1};
    run_appender(&f, "killed");
    char gone[600];
    snprintf(gone, sizeof gone, "%s/gone.csv", dir);
    appender g = {.results = gone, .header = "g", .stop = 2};
    run_appender(&g, "failed");
    appender h = {.results = other, .header = "c", .rows = {"13"}, .stop = 2};
    run_appender(&h, "failed-late");
    m = tl_test_read(man);
    TL_ASSERT_MSG(strstr(m, "--label killed\nresults: fdtd.csv\nresults_lines: from 3 (while the command runs;"), "%s", m);
    TL_ASSERT(!strstr(m, "--label failed\n") && access(gone, F_OK) != 0);
    TL_ASSERT(strstr(m, "--label failed-late\nresults: stream.csv\nresults_lines: 4\n"));
    TL_ASSERT(strstr(m, "stopped: the command failed after these rows\n"));
    free(m);
    /* a file of other rows is refused before any row, the manifest as it was */
    char *before = tl_test_read(man);
    appender x = {.results = csv, .header = "z", .rows = {"1"}};
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 2, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"trilap-bench", NULL};
    TL_ASSERT_EQ(tl_launch_run("trilap-bench", &lo, 1, argv, append_and_add, &x), 1);
    char *after = tl_test_read(man);
    TL_ASSERT_STREQ(after, before);
    free(before);
    free(after);
    /* no temporary left beside them */
    tl_test_output r = tl_test_capture("ls -A '%s'", dir);
    TL_ASSERT_STREQ(r.out, "fdtd.csv\nmanifest.txt\nstream.csv\n");
    tl_test_output_free(&r);
}

/* What a killed command leaves: its block open (said by the next command
 * to write the manifest, once its process is gone: before, it read "while
 * the command runs" for ever), and a rewrite's temporary, removed by the
 * next writer once a minute old and its process gone. */
TL_TEST(manifest_left_by_a_killed_command)
{
    char dir[512], csv[600], man[600], old_tmp[700], new_tmp[700], live_tmp[700];
    snprintf(dir, sizeof dir, "%s/killed", tl_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/fdtd.csv", dir);
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    pid_t child = fork();
    TL_ASSERT(child >= 0);
    if (child == 0) {
        appender k = {.results = csv, .header = "a,b", .rows = {"1,2"}, .stop = 1};
        run_appender(&k, "killed");
        _exit(0);
    }
    int ws = 0;
    TL_ASSERT(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    snprintf(old_tmp, sizeof old_tmp, "%s/manifest.txt.tmp.%ld.%ld.0", dir, (long)child, (long)child);
    snprintf(new_tmp, sizeof new_tmp, "%s/manifest.txt.tmp.%ld.%ld.1", dir, (long)child, (long)child);
    snprintf(live_tmp, sizeof live_tmp, "%s/manifest.txt.tmp.%ld.%ld.0", dir, (long)getpid(), (long)getpid());
    tl_test_write(old_tmp, "program: trilap-bench\n");
    tl_test_write(new_tmp, "program: trilap-bench\n");
    tl_test_write(live_tmp, "program: trilap-bench\n");
    TL_ASSERT_EQ(tl_test_sh("touch -d '2 hours ago' %s %s", old_tmp, live_tmp), 0);
    char *m = tl_test_read(man);
    TL_ASSERT_MSG(strstr(m, "--label killed\nresults: fdtd.csv\nresults_lines: from 2 (while the command runs;"), "%s", m);
    free(m);
    appender n = {.results = csv, .header = "a,b", .rows = {"3,4"}};
    run_appender(&n, "next");
    m = tl_test_read(man);
    TL_ASSERT_MSG(strstr(m, "--label killed\nresults: fdtd.csv\nresults_lines: from 2 (the command stopped without "
                            "ending its block, as a later command found: killed, most likely; its rows are those from "
                            "here on that no later block names)\nrun_id: "),
                  "%s", m);
    TL_ASSERT(strstr(m, "--label next\nresults: fdtd.csv\nresults_lines: 3\n") && !strstr(m, "while the command runs"));
    free(m);
    TL_ASSERT_MSG(access(old_tmp, F_OK) != 0 && access(new_tmp, F_OK) == 0 && access(live_tmp, F_OK) == 0,
                  "dead and old %d, dead and new %d, live %d", access(old_tmp, F_OK), access(new_tmp, F_OK),
                  access(live_tmp, F_OK));
    /* killed and not yet reaped (a zombie, as under a container's first
     * process for seconds): gone too (kill(pid, 0) still found it) */
    child = fork();
    TL_ASSERT(child >= 0);
    if (child == 0) {
        appender z = {.results = csv, .header = "a,b", .rows = {"5,6"}, .stop = 1};
        run_appender(&z, "zombie");
        _exit(0);
    }
    char stat_path[64];
    snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", (long)child);
    int z = 0;
    for (int k = 0; k < 3000 && !z; k++) { /* until it has exited, unreaped (/proc's files have no size to read by) */
        char st[512] = "";
        FILE *f = fopen(stat_path, "r");
        size_t got = f ? fread(st, 1, sizeof st - 1, f) : 0;
        if (f) fclose(f);
        st[got] = '\0';
        const char *end = strrchr(st, ')');
        z = end && end[1] == ' ' && end[2] == 'Z';
        if (!z) usleep(10000);
    }
    TL_ASSERT_MSG(z, "the child %ld never showed as a zombie", (long)child);
    appender after = {.results = csv, .header = "a,b", .rows = {"7,8"}};
    run_appender(&after, "after");
    TL_ASSERT(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    m = tl_test_read(man);
    TL_ASSERT_MSG(strstr(m, "--label zombie\nresults: fdtd.csv\nresults_lines: from 4 (the command stopped without "
                            "ending its block"),
                  "%s", m);
    free(m);
}

/* A results file removed and started again by another command while the
 * first ran: the first's block, dropped by the second's start, comes back
 * at its end saying that its earlier lines are not in this file (it came
 * back with lines that named the other's rows). */
TL_TEST(manifest_results_file_made_again_meanwhile)
{
    char dir[512], csv[600], man[600], go[600];
    snprintf(dir, sizeof dir, "%s/again", tl_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    snprintf(go, sizeof go, "%s/go", tl_test_tmpdir());
    pid_t a = fork();
    TL_ASSERT(a >= 0);
    if (a == 0) {
        appender first = {.results = csv, .header = "p", .rows = {"1", "2"}, .wait_for = go};
        tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 2, .timeout_s = 300, .no_gpu = 1};
        char *argv[] = {(char *)"trilap-bench", (char *)"--label", (char *)"first", NULL};
        _exit(tl_launch_run("trilap-bench", &lo, 3, argv, append_and_add, &first) == 0 ? 0 : 3);
    }
    for (int i = 0; i < 3000; i++) { /* its two rows written */
        char *t = access(csv, F_OK) == 0 ? tl_test_read(csv) : NULL;
        int done = t && count_of(t, "\n") == 3;
        free(t);
        if (done) break;
        usleep(10000);
    }
    TL_ASSERT_EQ(unlink(csv), 0);
    appender second = {.results = csv, .header = "p", .rows = {"3"}};
    run_appender(&second, "second");
    tl_test_write(go, "");
    int status = 0;
    TL_ASSERT_EQ(waitpid(a, &status, 0), a);
    TL_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *m = tl_test_read(man);
    TL_ASSERT_MSG(strstr(m, "--label second\nresults: r.csv\nresults_lines: 2\n"), "%s", m);
    TL_ASSERT_MSG(strstr(m, "--label first\nresults: r.csv\nresults_lines: 2-3 (this block was gone from manifest.txt "
                            "when the command ended: the results file was started again meanwhile, or the block "
                            "removed; lines before a restart are not in this file)\n"),
                  "%s", m);
    free(m);
}

/* Commands at once, six starting one new results file and four writing
 * files of their own in the same folder: every command keeps its block
 * naming its own lines (the run that wrote the header used to drop the
 * blocks of the others, and blocks of one folder were rewritten unlocked). */
TL_TEST(manifest_blocks_of_commands_at_once)
{
    enum { P = 10 };
    char dir[512], man[600];
    snprintf(dir, sizeof dir, "%s/at-once", tl_test_tmpdir());
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    for (int round = 0; round < 3; round++) {
        tl_test_sh("rm -rf '%s'", dir);
        pid_t pids[P];
        for (int p = 0; p < P; p++) {
            pids[p] = fork();
            TL_ASSERT(pids[p] >= 0);
            if (pids[p] == 0) {
                char csv[600], label[32], row[32];
                snprintf(csv, sizeof csv, p < 6 ? "%s/one.csv" : "%s/own%d.csv", dir, p);
                snprintf(label, sizeof label, "cmd%d", p);
                snprintf(row, sizeof row, "%d", p);
                appender a = {.results = csv, .header = "p", .rows = {row}};
                tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 2, .timeout_s = 300, .no_gpu = 1};
                char *argv[] = {(char *)"trilap-bench", (char *)"--label", label, NULL};
                _exit(tl_launch_run("trilap-bench", &lo, 3, argv, append_and_add, &a) == 0 ? 0 : 3);
            }
        }
        for (int p = 0; p < P; p++) {
            int status = 0;
            TL_ASSERT_EQ(waitpid(pids[p], &status, 0), pids[p]);
            TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "command %d failed (status %d)", p, status);
        }
        char *m = tl_test_read(man), path[600];
        snprintf(path, sizeof path, "%s/one.csv", dir);
        char *one = tl_test_read(path);
        for (int p = 0; p < P; p++) {
            char want[96];
            snprintf(want, sizeof want, "--label cmd%d\nresults: ", p);
            const char *b = strstr(m, want);
            TL_ASSERT_MSG(b, "round %d: no block for command %d:\n%s", round, p, m);
            long line = atol(strstr(b, "\nresults_lines: ") + 16);
            /* that line of its file is its row */
            char *text = p < 6 ? one : NULL;
            if (!text) {
                snprintf(path, sizeof path, "%s/own%d.csv", dir, p);
                text = tl_test_read(path);
            }
            const char *at = text;
            for (long l = 1; l < line && at; l++) at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
            TL_ASSERT_MSG(at && atoi(at) == p && at[0] != 'p', "round %d: command %d's line %ld is '%.8s'", round, p, line,
                          at ? at : "");
            if (text != one) free(text);
        }
        free(one);
        free(m);
    }
}

/* A results name with a newline, or one that differs from another only
 * there: each block's results line is one line that names its own file,
 * and a file started again drops its own blocks, not its neighbour's. */
TL_TEST(manifest_results_names_told_apart)
{
    char dir[512], nl[600], blank[600], back[600], man[600];
    snprintf(dir, sizeof dir, "%s/names", tl_test_tmpdir());
    snprintf(nl, sizeof nl, "%s/a\nb.csv", dir);
    snprintf(blank, sizeof blank, "%s/a b.csv", dir);
    snprintf(back, sizeof back, "%s/a\\nb.csv", dir); /* a backslash and an n */
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    appender a = {.results = nl, .header = "a", .rows = {"1"}};
    run_appender(&a, "newline");
    appender b = {.results = blank, .header = "a", .rows = {"2"}};
    run_appender(&b, "blank");
    appender c = {.results = back, .header = "a", .rows = {"3"}};
    run_appender(&c, "backslash");
    char *m = tl_test_read(man);
    TL_ASSERT_MSG(strstr(m, "--label newline\nresults: a\\nb.csv\nresults_lines: 2\n"), "%s", m);
    TL_ASSERT(strstr(m, "--label blank\nresults: a b.csv\nresults_lines: 2\n"));
    TL_ASSERT(strstr(m, "--label backslash\nresults: a\\\\nb.csv\nresults_lines: 2\n"));
    free(m);
    TL_ASSERT_EQ(unlink(nl), 0);
    appender d = {.results = nl, .header = "a", .rows = {"4"}};
    run_appender(&d, "again");
    m = tl_test_read(man);
    TL_ASSERT_MSG(!strstr(m, "--label newline\n") && strstr(m, "--label blank\n") && strstr(m, "--label backslash\n"),
                  "%s", m);
    TL_ASSERT(strstr(m, "--label again\nresults: a\\nb.csv\nresults_lines: 2\n"));
    free(m);
}

TL_TEST_MAIN(manifest_results_names_told_apart, threads_manifest, unwritable_manifest_fails_cleanly, mpi_manifest,
             commit_label_of_a_copied_tree, manifest_block_per_run, manifest_results_file_made_again_meanwhile,
             manifest_blocks_of_commands_at_once, manifest_left_by_a_killed_command)
