/* Helpers for tests that run programs or read what they wrote: a whole
 * file as a string, a command line with its output captured. */
#ifndef TL_TEST_RUN_H
#define TL_TEST_RUN_H

#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tl_test.h"

/* system()/pclose() status as an exit code; 128 when killed by a signal. */
static inline int tl_test_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The whole of `path`, malloc'd and NUL-terminated; NULL when it cannot be
 * opened. */
static inline char *tl_test_slurp_or_null(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (!s) TL_TEST_FAIL_("out of memory reading %s", path);
    size_t got = n > 0 ? fread(s, 1, (size_t)n, f) : 0;
    s[got] = '\0';
    fclose(f);
    return s;
}

/* The whole of `path` (malloc'd), "" when it cannot be opened: for output a
 * failing program may not have written. */
static inline char *tl_test_slurp(const char *path)
{
    char *s = tl_test_slurp_or_null(path);
    if (!s && !(s = strdup(""))) TL_TEST_FAIL_("out of memory");
    return s;
}

/* How many times `needle` occurs in `s`. */
static inline int tl_test_count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *q = strstr(s, needle); q; q = strstr(q + 1, needle))
        n++;
    return n;
}

/* The fields of the CSV line s begins (up to its newline) as RFC 4180
 * reads them: commas inside double quotes do not count. */
static inline int tl_test_csv_fields(const char *s)
{
    int n = 1, quoted = 0;
    for (; *s && *s != '\n'; s++) {
        if (*s == '"') quoted = !quoted; /* a doubled quote toggles twice */
        else if (*s == ',' && !quoted) n++;
    }
    return n;
}

/* Whether s prints a NaN: "nan", "-nan" or "NaN" as a word of its own,
 * not letters inside a word (a temporary folder's random name held
 * "nnan", and a test read that as a NaN). */
static inline int tl_test_says_nan(const char *s)
{
    for (const char *p = s; *p; p++) {
        if (tolower((unsigned char)p[0]) != 'n' || tolower((unsigned char)p[1]) != 'a' ||
            tolower((unsigned char)p[2]) != 'n')
            continue;
        int before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[3]) || p[3] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

/* s past its leading note lines ("PROG: note: ...", such as an option
 * given twice: runtime/options.c), what a refusal after them says */
static inline const char *tl_test_past_notes(const char *s)
{
    for (const char *nl; (nl = strchr(s, '\n')) && strstr(s, ": note: ") && strstr(s, ": note: ") < nl;) s = nl + 1;
    return s;
}

/* Whether s is one line, its only newline at its end, that holds want:
 * a refusal said once. */
static inline int tl_test_one_line(const char *s, const char *want)
{
    return strstr(s, want) && strchr(s, '\n') == s + strlen(s) - 1;
}

/* The whole of `path` (malloc'd); the test fails when it cannot be opened. */
static inline char *tl_test_read(const char *path)
{
    char *s = tl_test_slurp_or_null(path);
    TL_ASSERT_MSG(s, "cannot open %s", path);
    return s;
}

/* Write text to `path` (created or truncated); the test fails when it
 * cannot be written. */
static inline void tl_test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    TL_ASSERT_MSG(f, "cannot write %s", path);
    fputs(text, f);
    TL_ASSERT_MSG(fclose(f) == 0, "cannot write %s", path);
}

/* An n x 1 Matrix Market array vector at `path`, every entry `value`. */
static inline void tl_test_write_constant(const char *path, int n, const char *value)
{
    FILE *f = fopen(path, "w");
    TL_ASSERT_MSG(f, "cannot write %s", path);
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
    for (int i = 0; i < n; i++) fprintf(f, "%s\n", value);
    TL_ASSERT_MSG(fclose(f) == 0, "cannot write %s", path);
}

/* Run `cmd` through the shell with stdout, and stderr unless `err` is NULL,
 * sent to files in a temporary directory of its own. Returns the exit code;
 * the output in *out and *err (malloc'd, the caller frees). */
static inline int tl_test_run(const char *cmd, char **out, char **err)
{
    /* not tl_test_tmpdir(): its buffer may hold the caller's directory */
    static char dir[256];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/trilap-run-XXXXXX", tl_test_env("TMPDIR", "/tmp"));
        if (!mkdtemp(dir)) TL_TEST_FAIL_("mkdtemp failed");
    }
    char o[512], e[512], full[8192];
    snprintf(o, sizeof o, "%s/out", dir);
    snprintf(e, sizeof e, "%s/err", dir);
    if (err)
        snprintf(full, sizeof full, "%s >%s 2>%s", cmd, o, e);
    else
        snprintf(full, sizeof full, "%s >%s", cmd, o);
    int rc = tl_test_exit_code(system(full));
    *out = tl_test_slurp(o);
    if (err) *err = tl_test_slurp(e);
    return rc;
}

/* Run the program argv[0] (a path) with argv (NULL-ended), its stdout and
 * stderr together into the file `path`, without a shell: a loop over
 * hundreds of runs paid a shell's start for each (some 7 ms of CPU on
 * CI's two cores). Returns the exit code (128 when killed by a signal);
 * the test fails when it cannot be started. */
static inline int tl_test_spawn_to(const char *path, char *const argv[])
{
    extern char **environ;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st = 0, rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&fa, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (rc == 0) rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    TL_ASSERT_MSG(rc == 0, "cannot start %s: %s", argv[0], strerror(rc));
    while (waitpid(pid, &st, 0) < 0)
        TL_ASSERT_MSG(errno == EINTR, "waiting for %s: %s", argv[0], strerror(errno));
    return tl_test_exit_code(st);
}

/* The printf-style command `fmt` in cmd; one too long for it fails the
 * test rather than run cut short. */
static inline void tl_test_vcommand(char *cmd, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static inline void tl_test_vcommand(char *cmd, size_t cap, const char *fmt, va_list ap)
{
    int n = vsnprintf(cmd, cap, fmt, ap);
    TL_ASSERT_MSG(n >= 0 && (size_t)n < cap, "command too long: %.100s...", cmd);
}

/* A program's exit code and its whole stdout and stderr (malloc'd). */
typedef struct tl_test_output {
    int rc;
    char *out, *err;
} tl_test_output;

/* tl_test_run of the printf-style command `fmt`, logged on stderr with its
 * exit code and output. */
static inline tl_test_output tl_test_capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline tl_test_output tl_test_capture(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    tl_test_vcommand(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    tl_test_output r;
    r.rc = tl_test_run(cmd, &r.out, &r.err);
    fprintf(stderr, "$ %s -> %d\n%s%s", cmd, r.rc, r.out, r.err);
    return r;
}

static inline void tl_test_output_free(tl_test_output *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* tl_test_refused's check; `whole`: stderr is `want` itself and stdout
 * is empty, for a refusal whose whole line is known. */
static inline void tl_test_vrefused(int rc, const char *want, int whole, const char *fmt, va_list ap)
{
    char cmd[4096];
    tl_test_vcommand(cmd, sizeof cmd, fmt, ap);
    tl_test_output r = tl_test_capture("%s", cmd);
    int ok = r.rc == rc && (whole ? !strcmp(r.err, want) && !r.out[0] : tl_test_one_line(r.err, want));
    char said[1600];
    snprintf(said, sizeof said, "%.300s: exit %d, want %d:\n%.600s%s%.300s\nwant:\n%.300s", cmd, r.rc, rc, r.err,
             r.out[0] && whole ? "stdout:\n" : "", whole ? r.out : "", want);
    tl_test_output_free(&r);
    TL_ASSERT_MSG(ok, "%s", said);
}

/* The printf-style command `fmt` refused as a refusal must be: exit `rc`
 * and one line on stderr holding `want` (the shape of most refusal checks:
 * capture, one line, free). */
static inline void tl_test_refused(int rc, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void tl_test_refused(int rc, const char *want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_test_vrefused(rc, want, 0, fmt, ap);
    va_end(ap);
}

/* The same, the whole of stderr known: exit `rc`, stderr exactly `line`,
 * nothing on stdout (a refusal before the work: test_fdtd_cli's). */
static inline void tl_test_refused_whole(int rc, const char *line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void tl_test_refused_whole(int rc, const char *line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_test_vrefused(rc, line, 1, fmt, ap);
    va_end(ap);
}

/* Run `cmd` through popen; the first cap - 1 bytes of its stdout in `out`.
 * Returns the exit code. */
static inline int tl_test_popen(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    TL_ASSERT(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    return tl_test_exit_code(pclose(p));
}

/* Run the printf-style command `fmt` with stderr merged into stdout, the
 * first cap - 1 bytes of that in `out`; the command, its output and exit
 * code are logged on stderr. Returns the exit code. */
static inline int tl_test_vsh(char *out, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static inline int tl_test_vsh(char *out, size_t cap, const char *fmt, va_list ap)
{
    char cmd[2048], full[2100];
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    fprintf(stderr, "$ %s\n", cmd);
    int rc = tl_test_popen(full, out, cap);
    fprintf(stderr, "%s(exit %d)\n", out, rc);
    return rc;
}

/* tl_test_vsh with its arguments inline. */
static inline int tl_test_sh_to(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int tl_test_sh_to(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tl_test_vsh(out, cap, fmt, ap);
    va_end(ap);
    return rc;
}

/* Run the printf-style command `fmt` through the shell, its output going
 * where the test's goes (redirect it in `fmt` to keep it). Returns the exit
 * code. */
static inline int tl_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int tl_test_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    tl_test_vcommand(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return tl_test_exit_code(system(cmd));
}

/* The printf-style command `fmt`'s stdout and stderr together (malloc'd),
 * the test failing where it exits other than 0 (the command and its output
 * said): the shape of a run whose output the test reads next. */
static inline char *tl_test_output_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *tl_test_output_of(const char *fmt, ...)
{
    char cmd[4096], path[1024];
    va_list ap;
    va_start(ap, fmt);
    tl_test_vcommand(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s", tl_test_path("out"));
    int rc = tl_test_sh("( %s ) >%s 2>&1", cmd, path);
    TL_ASSERT_MSG(rc == 0, "%s: exit %d: %s", cmd, rc, tl_test_read(path));
    return tl_test_read(path);
}

/* The verdict column of `trilap-analyze diagnose`'s row for `rule` on
 * `rank` in its output ("FINDING", "ok", "n/a"); the test fails where
 * there is no such row. */
static inline const char *tl_test_diagnose_verdict(const char *out, const char *rule, int rank)
{
    static char verdict[16];
    char key[128];
    snprintf(key, sizeof key, "\n  %s", rule);
    for (const char *p = strstr(out, key); p; p = strstr(p + 1, key)) {
        int rk = -1;
        if (sscanf(p + strlen(key), " %d %15s", &rk, verdict) == 2 && rk == rank) return verdict;
    }
    TL_TEST_FAIL_("no row for %s rank %d in\n%s", rule, rank, out);
    return "";
}

/* A FIFO at `path` whose read end this process holds (O_RDWR does not
 * wait for a writer), so that a program run on it writes as to a pipe
 * behind `|` or /dev/stdout, up to the pipe's 64 KiB. Returns the read end. */
static inline int tl_test_fifo(const char *path)
{
    TL_ASSERT_MSG(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    int rd = open(path, O_RDWR | O_NONBLOCK);
    TL_ASSERT_MSG(rd >= 0, "open %s", path);
    return rd;
}

/* What has arrived in the FIFO at `path` (malloc'd), which must still be
 * a FIFO: an output renamed over it would have put a regular file there. */
static inline char *tl_test_fifo_read(const char *path, int rd)
{
    struct stat st;
    TL_ASSERT_MSG(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "%s is no longer a FIFO", path);
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    TL_ASSERT(s);
    for (ssize_t k; n < cap && (k = read(rd, s + n, cap - n)) > 0;)
        n += (size_t)k;
    s[n] = '\0';
    return s;
}

/* $TL_BIN, where the programs are; $TL_BUILD, where the test binaries and
 * helpers are. */
static inline const char *tl_test_bin(void) { return tl_test_env("TL_BIN", "bin"); }
static inline const char *tl_test_build(void) { return tl_test_env("TL_BUILD", "build"); }

/* $TL_BUILD/tests/NAME, a test helper program. The path lives in one of four
 * buffers taken in turn, so a few can stand in one command line. */
static inline const char *tl_test_helper(const char *name)
{
    static char path[4][512];
    static unsigned next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/tests/%s", tl_test_build(), name);
    return p;
}

/* $TL_MPIRUN; skips the test when built without MPI, when the runner
 * did not say (make sets TL_HAVE_MPI from the build, as
 * device-session.sh does where it finds mpirun; tests/run.sh alone does
 * not) or when TL_MPIRUN is unset. */
static inline const char *tl_test_mpirun(void)
{
    if (!getenv("TL_HAVE_MPI"))
        TL_SKIP("TL_HAVE_MPI is not set (make check sets it from the build; tests/run.sh alone does not)");
    if (strcmp(tl_test_env("TL_HAVE_MPI", "0"), "1") != 0)
        TL_SKIP("built without MPI (TL_HAVE_MPI=0)");
    const char *m = tl_test_env("TL_MPIRUN", "");
    if (!*m) TL_SKIP("TL_MPIRUN is not set");
    return m;
}

/* trilap-fdtd verify decomp's rows of `strategy`: `rows` of them, every
 * one identical to the single domain (max_abs_diff 0), and the closing
 * count line saying so. */
static inline void tl_test_decomp_identical(const tl_test_output *r, const char *strategy, int rows)
{
    TL_ASSERT_EQ(r->rc, 0);
    char key[64], tail[64];
    snprintf(key, sizeof key, ",%s,", strategy);
    int n = 0;
    for (const char *q = strstr(r->out, key); q; q = strstr(q + 1, key)) {
        const char *eol = strchr(q, '\n');
        TL_ASSERT(eol && eol - q > (long)strlen(key) + 15 && !strncmp(eol - 14, ",0.000e+00,yes", 14));
        n++;
    }
    TL_ASSERT_EQ(n, rows);
    snprintf(tail, sizeof tail, "# %d rows, 0 not identical\n", rows);
    TL_ASSERT(strstr(r->out, tail));
}

/* The FDTD run files a decomposed run must write byte for byte as the one
 * domain wrote them: dir/X1 against dir/X4 for the seismogram, the energy
 * and two slices (tests of one subdomain per rank, CPU and GPU). */
static inline void tl_test_same_run_files(const char *dir)
{
    static const char *const pairs[][2] = {{"s1.csv", "s4.csv"},
                                           {"e1.csv", "e4.csv"},
                                           {"sl1/p-000015.txt", "sl4/p-000015.txt"},
                                           {"sl1/p-000030.txt", "sl4/p-000030.txt"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/%s", dir, pairs[i][0]);
        snprintf(pb, sizeof pb, "%s/%s", dir, pairs[i][1]);
        char *x = tl_test_slurp(pa), *y = tl_test_slurp(pb);
        TL_ASSERT_MSG(strlen(x) > 40, "%s: %zu bytes", pa, strlen(x));
        TL_ASSERT_MSG(strcmp(x, y) == 0, "%s and %s differ", pa, pb);
        free(x);
        free(y);
    }
}

#endif
