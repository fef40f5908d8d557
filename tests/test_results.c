/* Results writer: header once, header mismatch refused, concurrent appends
 * from several processes neither interleave nor get lost; atomic files,
 * whole-or-nothing outputs (runtime/out.h), pipes written in place. */
#include "runtime/results.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/out.h"
#include "runtime/timing.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    TL_ASSERT(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

TL_TEST(header_once)
{
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", tl_test_tmpdir());
    tl_results_rows first = {0}, later = {0};
    TL_ASSERT_OK(tl_results_append(path, "variant,nranks,rep,us_per_iter", "three-split,2,0,81.2", &first));
    TL_ASSERT_OK(tl_results_append(path, "variant,nranks,rep,us_per_iter\n", "three-split,2,1,80.9\n", &later));
    TL_ASSERT_OK(tl_results_append(path, "variant,nranks,rep,us_per_iter", "two-stream,2,0,95", &later));
    char *s = tl_test_read(path);
    TL_ASSERT_STREQ(s, "variant,nranks,rep,us_per_iter\nthree-split,2,0,81.2\nthree-split,2,1,80.9\ntwo-stream,2,0,95\n");
    free(s);
    /* the lines each run's rows took, as ranges */
    TL_ASSERT(first.nranges == 1 && first.lo[0] == 2 && first.hi[0] == 2 && first.count == 1);
    TL_ASSERT(later.nranges == 1 && later.lo[0] == 3 && later.hi[0] == 4 && later.count == 2 && !later.merged);
    /* started: the next line said, the header checked; a new file made with it */
    int fresh = -1;
    long next = 0;
    TL_ASSERT_OK(tl_results_start(path, "variant,nranks,rep,us_per_iter", &fresh, &next));
    TL_ASSERT(fresh == 0 && next == 5);
    TL_ASSERT_EQ(tl_results_start(path, "a,b", &fresh, &next), TL_ERR_INVAL);
    char other[600];
    snprintf(other, sizeof other, "%s/new/r.csv", tl_test_tmpdir());
    TL_ASSERT_OK(tl_results_start(other, "a,b", &fresh, &next));
    TL_ASSERT(fresh == 1 && next == 2);
    s = tl_test_read(other);
    TL_ASSERT_STREQ(s, "a,b\n");
    free(s);
}

/* A file written by hand without a final newline: the row starts its own
 * line (it was glued to the header, and the next run refused the file). */
TL_TEST(header_without_final_newline)
{
    const char *path = tl_test_path("hand.csv");
    TL_ASSERT_OK(tl_file_write_atomic(path, "a,b", 3));
    tl_results_rows rows = {0};
    TL_ASSERT_OK(tl_results_append(path, "a,b", "1,2", &rows));
    TL_ASSERT_OK(tl_results_append(path, "a,b", "3,4", &rows));
    char *text = tl_test_read(path);
    TL_ASSERT_STREQ(text, "a,b\n1,2\n3,4\n");
    TL_ASSERT(rows.nranges == 1 && rows.lo[0] == 2 && rows.hi[0] == 3 && rows.count == 2);
    free(text);
    TL_ASSERT_OK(tl_results_check(path, "a,b"));
    TL_ASSERT(tl_results_check(path, "a,c") == TL_ERR_INVAL);
}

TL_TEST(header_mismatch_is_an_error)
{
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", tl_test_tmpdir());
    TL_ASSERT_OK(tl_results_append(path, "a,b", "1,2", NULL));
    TL_ASSERT_EQ(tl_results_append(path, "a,b,c", "1,2,3", NULL), TL_ERR_INVAL);
    TL_ASSERT_EQ(tl_results_append(path, "a", "1", NULL), TL_ERR_INVAL);
    char *s = tl_test_read(path);
    TL_ASSERT_STREQ(s, "a,b\n1,2\n");
    free(s);
    /* a file of blank lines is not empty: refused before the run, as the
     * append refuses it (it was let through, and the rows lost after) */
    char blank[600];
    snprintf(blank, sizeof blank, "%s/blank.csv", tl_test_tmpdir());
    TL_ASSERT_OK(tl_file_write_atomic(blank, "\n\n", 2));
    TL_ASSERT_EQ(tl_results_check(blank, "a,b"), TL_ERR_INVAL);
    /* results named as their own manifest, and a FIFO where the manifest
     * goes (its read would hang): refused before the run */
    char named[600], fifo_dir[600], fifo[700], beside[700];
    snprintf(named, sizeof named, "%s/manifest.txt", tl_test_tmpdir());
    TL_ASSERT_EQ(tl_results_check(named, "a,b"), TL_ERR_INVAL);
    snprintf(fifo_dir, sizeof fifo_dir, "%s/fifo", tl_test_tmpdir());
    snprintf(fifo, sizeof fifo, "%s/manifest.txt", fifo_dir);
    snprintf(beside, sizeof beside, "%s/r.csv", fifo_dir);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s && mkfifo %s", fifo_dir, fifo), 0);
    TL_ASSERT_EQ(tl_results_check(beside, "a,b"), TL_ERR_INVAL);
    /* multi-line rows would break the one-row-per-run format */
    TL_ASSERT_EQ(tl_results_append(path, "a,b", "1,2\n3,4", NULL), TL_ERR_INVAL);
    /* a missing folder is made; a place under a plain file is an I/O error */
    char deep[600], under_file[600];
    snprintf(deep, sizeof deep, "%s.d/run1/r.csv", path);
    TL_ASSERT_OK(tl_results_append(deep, "a", "1", NULL));
    snprintf(under_file, sizeof under_file, "%s/r.csv", path);
    TL_ASSERT_EQ(tl_results_append(under_file, "a", "1", NULL), TL_ERR_IO);
}

TL_TEST(concurrent_appends_from_processes)
{
    enum { P = 4, ROWS = 1000 };
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", tl_test_tmpdir());
    const char *header = "proc,row,payload";
    pid_t pids[P];
    for (int p = 0; p < P; p++) {
        pids[p] = fork();
        TL_ASSERT(pids[p] >= 0);
        if (pids[p] == 0) {
            char row[600], pad[513];
            /* long rows: a torn write would show as a broken payload */
            memset(pad, 'a' + p, 512);
            pad[512] = '\0';
            tl_results_rows rows = {0};
            for (int i = 0; i < ROWS; i++) {
                snprintf(row, sizeof row, "%d,%d,%s", p, i, pad);
                if (tl_results_append(path, header, row, &rows) != TL_OK) _exit(3);
            }
            /* the lines it was told, checked against the file below */
            char side[600], text[96];
            snprintf(side, sizeof side, "%s.%d", path, p);
            int n = snprintf(text, sizeof text, "%ld %ld %ld", rows.lo[0], rows.hi[rows.nranges - 1], rows.count);
            _exit(tl_file_write_atomic(side, text, (size_t)n) == TL_OK ? 0 : 4);
        }
    }
    for (int p = 0; p < P; p++) {
        int status = 0;
        TL_ASSERT_EQ(waitpid(pids[p], &status, 0), pids[p]);
        TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed (status %d)", p, status);
    }
    char *s = tl_test_read(path);
    static unsigned char seen[P][ROWS];
    static long line_of[P][ROWS];
    int lines = 0, headers = 0;
    for (char *save = NULL, *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++) {
        if (strcmp(line, header) == 0) {
            TL_ASSERT_EQ(lines, 0);
            headers++;
            continue;
        }
        int p = -1, i = -1, off = 0;
        TL_ASSERT_MSG(sscanf(line, "%d,%d,%n", &p, &i, &off) == 2 && p >= 0 && p < P && i >= 0 && i < ROWS,
                      "bad line %d: %.60s", lines, line);
        TL_ASSERT_EQ(strlen(line + off), 512);
        for (int k = 0; k < 512; k++) TL_ASSERT_MSG(line[off + k] == 'a' + p, "torn line %d", lines);
        TL_ASSERT_MSG(!seen[p][i], "row %d,%d twice", p, i);
        seen[p][i] = 1;
        line_of[p][i] = lines + 1;
    }
    TL_ASSERT_EQ(headers, 1);
    TL_ASSERT_EQ(lines, 1 + P * ROWS);
    free(s);
    for (int p = 0; p < P; p++) {
        char side[600];
        snprintf(side, sizeof side, "%s.%d", path, p);
        char *t = tl_test_read(side);
        long first = 0, last = 0, count = 0;
        TL_ASSERT(sscanf(t, "%ld %ld %ld", &first, &last, &count) == 3);
        TL_ASSERT_MSG(first == line_of[p][0] && last == line_of[p][ROWS - 1] && count == ROWS,
                      "writer %d was told lines %ld-%ld (%ld), its rows are on %ld-%ld", p, first, last, count,
                      line_of[p][0], line_of[p][ROWS - 1]);
        free(t);
    }
}

TL_TEST(atomic_write)
{
    const char *dir = tl_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    TL_ASSERT_OK(tl_file_write_atomic(path, "one\n", 4));
    TL_ASSERT_OK(tl_file_write_atomic(path, "two lines\nhere\n", 15));
    char *s = tl_test_read(path);
    TL_ASSERT_STREQ(s, "two lines\nhere\n");
    free(s);
    TL_ASSERT_EQ(count_entries(dir), 1); /* no temporary left behind */
    TL_ASSERT_OK(tl_file_write_atomic(path, "", 0));
    s = tl_test_read(path);
    TL_ASSERT_STREQ(s, "");
    free(s);
    /* under a plain file: an I/O error, nothing written */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/x.txt", path);
    TL_ASSERT_EQ(tl_file_write_atomic(bad, "x", 1), TL_ERR_IO);
    TL_ASSERT_EQ(count_entries(dir), 1);
    /* a folder that is not there is made */
    snprintf(bad, sizeof bad, "%s/missing/x.txt", dir);
    TL_ASSERT_OK(tl_file_write_atomic(bad, "x", 1));
    TL_ASSERT_EQ(count_entries(dir), 2);
}

TL_TEST(out_whole_or_not_at_all)
{
    const char *dir = tl_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/table.csv", dir);
    tl_out o;
    TL_ASSERT_OK(tl_out_open(&o, path));
    fputs("a,b\n1,2\n", o.f);
    TL_ASSERT_EQ(count_entries(dir), 1); /* only the temporary so far */
    TL_ASSERT(access(path, F_OK) != 0);
    TL_ASSERT_OK(tl_out_close(&o, 1));
    char *s = tl_test_read(path);
    TL_ASSERT_STREQ(s, "a,b\n1,2\n");
    free(s);
    /* dropped: the old file stays as it was, no temporary left */
    TL_ASSERT_OK(tl_out_open(&o, path));
    fputs("half", o.f);
    TL_ASSERT_OK(tl_out_close(&o, 0));
    TL_ASSERT_OK(tl_out_close(&o, 1)); /* closed already: nothing */
    s = tl_test_read(path);
    TL_ASSERT_STREQ(s, "a,b\n1,2\n");
    free(s);
    TL_ASSERT_EQ(count_entries(dir), 1);
    /* under a plain file */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/x.csv", path);
    TL_ASSERT_EQ(tl_out_open(&o, bad), TL_ERR_IO);
    /* a folder: refused at once, nothing written beside it */
    TL_ASSERT_EQ(tl_out_open(&o, dir), TL_ERR_IO);
    TL_ASSERT(o.f == NULL);
    TL_ASSERT(!tl_out_in_place(path) && !tl_out_in_place(dir) && !tl_out_in_place(bad));
}

/* A pipe (as behind /dev/stdout) is written in place and stays a pipe: a
 * temporary file renamed over it would put a regular file there. */
static void expect_through_fifo(const char *fifo, int rd, const char *want)
{
    char *got = tl_test_fifo_read(fifo, rd);
    TL_ASSERT_STREQ(got, want);
    free(got);
}

TL_TEST(pipes_written_in_place)
{
    const char *dir = tl_test_tmpdir();
    char fifo[512], link[600];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(link, sizeof link, "%s/stdout", dir);
    int rd = tl_test_fifo(fifo);
    TL_ASSERT(symlink(fifo, link) == 0); /* as /dev/stdout -> /proc/self/fd/1 */
    TL_ASSERT(tl_out_in_place(fifo) && tl_out_in_place(link));
    tl_out o;
    TL_ASSERT_OK(tl_out_open(&o, link));
    fputs("row 1\n", o.f);
    TL_ASSERT_OK(tl_out_close(&o, 1));
    struct stat st;
    TL_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    expect_through_fifo(fifo, rd, "row 1\n");
    TL_ASSERT_OK(tl_file_write_atomic(fifo, "manifest\n", 9));
    expect_through_fifo(fifo, rd, "manifest\n");
    TL_ASSERT_EQ(count_entries(dir), 2); /* the pipe and the link, no temporary */
    close(rd);
}

/* Links. /dev/stdout when the shell sent stdout to a file (a link through
 * /proc/self/fd): the stream itself, at its offset, as a stream; the file
 * neither truncated nor replaced, the link kept. A link to an ordinary
 * file: that file replaced whole, the link kept. --results refuses the
 * first. */
TL_TEST(links_written_through)
{
    const char *dir = tl_test_tmpdir();
    char log[512], out[600], real[512], link[600], fdpath[64];
    snprintf(log, sizeof log, "%s/job.log", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    TL_ASSERT(fd >= 0 && write(fd, "report\n", 7) == 7);
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    TL_ASSERT(symlink(fdpath, out) == 0);
    TL_ASSERT(tl_out_in_place(out) && tl_out_in_place("/dev/stdout"));
    TL_ASSERT(tl_results_unfit(out) != NULL);
    tl_out o;
    TL_ASSERT_OK(tl_out_open(&o, out));
    fputs("rows\n", o.f);
    TL_ASSERT_OK(tl_out_close(&o, 1));
    TL_ASSERT(write(fd, "more\n", 5) == 5);
    close(fd);
    char *text = tl_test_read(log);
    TL_ASSERT_STREQ(text, "report\nrows\nmore\n");
    free(text);
    struct stat st;
    TL_ASSERT(lstat(out, &st) == 0 && S_ISLNK(st.st_mode));

    snprintf(real, sizeof real, "%s/real.csv", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    TL_ASSERT_OK(tl_file_write_atomic(real, "old\n", 4));
    TL_ASSERT(symlink("real.csv", link) == 0); /* relative, as ln -s makes it */
    TL_ASSERT(!tl_out_in_place(link));
    TL_ASSERT_OK(tl_file_write_atomic(link, "new\n", 4));
    TL_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    text = tl_test_read(real);
    TL_ASSERT_STREQ(text, "new\n");
    free(text);
    TL_ASSERT_EQ(count_entries(dir), 4); /* the log, two links, the file: no temporary */
}

/* tl_out_check answers before the work: a file under a file, a folder
 * (there, or named by a trailing '/'), an empty name refused naming the path; missing folders and a stream
 * pass. */
TL_TEST(out_check_before_the_work)
{
    const char *dir = tl_test_tmpdir();
    char file[512], under[600], deep[600];
    snprintf(file, sizeof file, "%s/afile", dir);
    snprintf(under, sizeof under, "%s/afile/h.csv", dir);
    snprintf(deep, sizeof deep, "%s/new/er/h.csv", dir);
    TL_ASSERT_OK(tl_file_write_atomic(file, "x", 1));
    TL_ASSERT(tl_out_check(under) == TL_ERR_IO);
    TL_ASSERT(tl_out_check(dir) == TL_ERR_IO);
    TL_ASSERT(tl_out_check("") == TL_ERR_INVAL);
    char slashed[700];
    snprintf(slashed, sizeof slashed, "%s/new/er/", dir); /* a folder's name, though missing */
    TL_ASSERT(tl_out_check(slashed) == TL_ERR_IO);
    tl_out o;
    TL_ASSERT(tl_out_open(&o, slashed) == TL_ERR_IO);
    TL_ASSERT_OK(tl_out_check(deep));
    TL_ASSERT_OK(tl_out_check(file));
    TL_ASSERT_OK(tl_out_check("/dev/null"));
    TL_ASSERT(tl_out_check_folder(under) == TL_ERR_IO); /* a folder under a file */
    TL_ASSERT(tl_out_check_folder(file) == TL_ERR_IO);
    TL_ASSERT_OK(tl_out_check_folder(deep));
    TL_ASSERT_OK(tl_out_check_folder(dir));
    TL_ASSERT_EQ(count_entries(dir), 1); /* nothing made */
}

/* As root, access() says yes in a folder that refuses root a file all the
 * same: sysfs. tl_out_check makes (and removes) a file there to know
 * (before: --results /sys/y.csv passed and failed after the measurement). */
TL_TEST(out_check_as_root_tries_the_folder)
{
    struct stat sb;
    if (geteuid() != 0) TL_SKIP("not root: access() answers for this user");
    if (stat("/sys/kernel", &sb) != 0) TL_SKIP("no sysfs at /sys");
    TL_ASSERT(access("/sys", W_OK) == 0); /* what let it through */
    TL_ASSERT(tl_out_check("/sys/trilap-y.csv") == TL_ERR_IO);
    TL_ASSERT(tl_out_check_folder("/sys/trilap-out") == TL_ERR_IO);
    const char *dir = tl_test_tmpdir();
    char ok[600];
    snprintf(ok, sizeof ok, "%s/y.csv", dir);
    int before = count_entries(dir);
    TL_ASSERT_OK(tl_out_check(ok));
    TL_ASSERT_EQ(count_entries(dir), before); /* the trial file removed */
}

/* A file no one may write is refused by the check and by the writer, as
 * root too (access() lets root through and a rename replaces the file),
 * named or through a link; it stays as it was. */
TL_TEST(read_only_file_refused)
{
    const char *dir = tl_test_tmpdir();
    char ro[600], ln[600], err[600];
    snprintf(ro, sizeof ro, "%s/input.mtx", dir);
    snprintf(ln, sizeof ln, "%s/out.mtx", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    TL_ASSERT_OK(tl_file_write_atomic(ro, "kept\n", 5));
    TL_ASSERT(chmod(ro, 0444) == 0 && symlink("input.mtx", ln) == 0);
    fflush(stderr);
    const int saved = dup(2);
    TL_ASSERT(saved >= 0 && freopen(err, "w", stderr));
    tl_out o;
    const tl_status checked = tl_out_check(ro), linked = tl_out_check(ln), opened = tl_out_open(&o, ln);
    fflush(stderr);
    TL_ASSERT(dup2(saved, 2) == 2);
    close(saved);
    TL_ASSERT_EQ(checked, TL_ERR_IO);
    TL_ASSERT_EQ(linked, TL_ERR_IO);
    TL_ASSERT_EQ(opened, TL_ERR_IO);
    TL_ASSERT(o.f == NULL);
    char *text = tl_test_slurp(err);
    TL_ASSERT(text);
    TL_ASSERT_MSG(strstr(text, "input.mtx: cannot write: a read-only file (mode 0444)"), "%s", text);
    TL_ASSERT_MSG(strstr(text, "out.mtx: cannot write: it links to ") && strstr(text, "a read-only file (mode 0444)"),
                  "%s", text);
    free(text);
    char *s = tl_test_read(ro);
    TL_ASSERT_STREQ(s, "kept\n");
    free(s);
    TL_ASSERT_EQ(count_entries(dir), 3); /* no temporary left beside it */
    /* writable again: written as before */
    TL_ASSERT(chmod(ro, 0644) == 0);
    TL_ASSERT_OK(tl_out_check(ln));
}

/* Free text in a row, RFC 4180: quoted where a comma, quote or newline
 * is in it, inner quotes doubled, newlines as spaces (a row is one line);
 * cut inside the quotes, never unpaired. A command line as the shell
 * reads it back. */
TL_TEST(fields_and_commands_quoted)
{
    char b[64];
    TL_ASSERT_STREQ(tl_results_field(b, sizeof b, "plain-name.mtx"), "plain-name.mtx");
    TL_ASSERT_STREQ(tl_results_field(b, sizeof b, "x,y"), "\"x,y\"");
    TL_ASSERT_STREQ(tl_results_field(b, sizeof b, "say \"hi\""), "\"say \"\"hi\"\"\"");
    TL_ASSERT_STREQ(tl_results_field(b, sizeof b, "a\nb\r"), "\"a b \"");
    TL_ASSERT_STREQ(tl_results_quote(b, sizeof b, "m.mtx"), "\"m.mtx\"");
    TL_ASSERT_STREQ(tl_results_quote(b, sizeof b, ""), "\"\"");
    TL_ASSERT_STREQ(tl_results_quote(b, 7, "abcdef"), "\"abcd\"");
    TL_ASSERT_STREQ(tl_results_quote(b, 7, "ab\"cd"), "\"ab\"\"\"");
    TL_ASSERT_STREQ(tl_results_quote(b, 6, "ab\"cd"), "\"ab\"");
    char *argv[] = {"trilap-x", "--label", "x,y", "--receivers", "1,2,3;4,5,6", "it's", "", "a\nb"};
    char *cmd = tl_manifest_command(8, argv);
    TL_ASSERT(cmd);
    TL_ASSERT_STREQ(cmd, "trilap-x --label x,y --receivers '1,2,3;4,5,6' 'it'\\''s' '' 'a b'");
    free(cmd);
    cmd = tl_manifest_command(0, NULL);
    TL_ASSERT(cmd && !cmd[0]);
    free(cmd);
}

/* Rows read back as they were written: what tl_results_field quoted
 * comes back whole; a broken row is refused saying how. */
TL_TEST(rows_split_as_written)
{
    char q1[64], q2[64], line[256], *f[8], why[64];
    snprintf(line, sizeof line, "a,%s,,%s,last\r\n", tl_results_field(q1, sizeof q1, "x,y"),
             tl_results_field(q2, sizeof q2, "say \"hi\""));
    TL_ASSERT_EQ(tl_results_split(line, f, 8, why, sizeof why), 5);
    TL_ASSERT_STREQ(f[0], "a");
    TL_ASSERT_STREQ(f[1], "x,y");
    TL_ASSERT_STREQ(f[2], "");
    TL_ASSERT_STREQ(f[3], "say \"hi\"");
    TL_ASSERT_STREQ(f[4], "last");
    snprintf(line, sizeof line, "\"\",");
    TL_ASSERT_EQ(tl_results_split(line, f, 8, why, sizeof why), 2);
    TL_ASSERT(!f[0][0] && !f[1][0]);
    snprintf(line, sizeof line, "a,\"open,b\n");
    TL_ASSERT_EQ(tl_results_split(line, f, 8, why, sizeof why), -1);
    TL_ASSERT_STREQ(why, "quoted field 2 not closed on its line");
    snprintf(line, sizeof line, "\"x\"y,b");
    TL_ASSERT_EQ(tl_results_split(line, f, 8, why, sizeof why), -1);
    TL_ASSERT_STREQ(why, "text after the closing quote of field 1");
    snprintf(line, sizeof line, "1,2,3");
    TL_ASSERT_EQ(tl_results_split(line, f, 2, why, sizeof why), -1);
    TL_ASSERT_STREQ(why, "more than 2 fields");
    snprintf(line, sizeof line, "1,2,3");
    TL_ASSERT_EQ(tl_results_split(line, f, 3, why, sizeof why), 3);
}

TL_TEST(stats_and_clock)
{
    double v[] = {5, 1, 4, 2, 3};
    tl_stats s = tl_stats_of(v, 5);
    TL_ASSERT_NEAR(s.min, 1, 0);
    TL_ASSERT_NEAR(s.median, 3, 0);
    TL_ASSERT_NEAR(s.max, 5, 0);
    TL_ASSERT_NEAR(s.mean, 3, 0);
    TL_ASSERT_EQ(s.n, 5);
    double w[] = {4, 1, 3, 2};
    s = tl_stats_of(w, 4);
    TL_ASSERT_NEAR(s.median, 2.5, 0);
    s = tl_stats_of(NULL, 0);
    TL_ASSERT_EQ(s.n, 0);
    int64_t t0 = tl_clock_ns();
    usleep(2000);
    TL_ASSERT(tl_clock_ns() - t0 >= 2000000);
}

/* Two outputs at one landing refused (two spellings; a link to the file),
 * and one under another's file, each in one line naming both labels, a
 * label cut saying so. */
TL_TEST(out_set_labels_and_landings)
{
    const char *t = tl_test_tmpdir();
    char a[600], b[600], under[700], err[600], label[200];
    snprintf(a, sizeof a, "%s/same.csv", t);
    snprintf(b, sizeof b, "%s/./sub/../same.csv", t);
    snprintf(under, sizeof under, "%s/same.csv/tr", t);
    snprintf(err, sizeof err, "%s/err.txt", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/sub && ln -s ../same.csv %s/sub/ln.csv", t, t), 0);
    char ln[600];
    snprintf(ln, sizeof ln, "%s/sub/ln.csv", t);
    memset(label, 'x', 150);
    label[150] = '\0';
    memcpy(label, "--a-long-label", 14);
    tl_out_set s = {0};
    fflush(stderr);
    const int saved = dup(2);
    TL_ASSERT(saved >= 0 && freopen(err, "w", stderr));
    const int first = tl_out_set_add(&s, "prog", label, a), again = tl_out_set_add(&s, "prog", "--other", b);
    const int meets = tl_out_set_meets(&s, "prog", "--trace", under);
    const int apart = tl_out_set_meets(&s, "prog", "--trace", t);
    /* a link to the file: a write replaces that file (tl_out_open), so
     * one landing (it was a second file) */
    const int linked = tl_out_set_meets(&s, "prog", "--link", ln);
    fflush(stderr);
    TL_ASSERT(dup2(saved, 2) == 2);
    close(saved);
    TL_ASSERT_EQ(first, 0);
    TL_ASSERT_EQ(again, 1);
    TL_ASSERT_EQ(meets, 1);
    TL_ASSERT_EQ(apart, 0);
    TL_ASSERT_EQ(linked, 1);
    char *text = tl_test_slurp(err);
    TL_ASSERT(text);
    TL_ASSERT_EQ(tl_test_count(text, "\n"), 3);
    TL_ASSERT_MSG(strstr(text, "xxx... and --link both name ") && strstr(text, "/sub/ln.csv: give each a file"), "%s",
                  text);
    TL_ASSERT_MSG(strstr(text, "prog: --a-long-labelxxx") && strstr(text, "xxx... and --other both name "), "%s", text);
    TL_ASSERT_MSG(strstr(text, "prog: --trace ") && strstr(text, "/same.csv/tr lies under the file --a-long-label"), "%s",
                  text);
    free(text);
}

/* `cmd` (a program and its arguments, in tmpdir t) exits 0, and its
 * stderr holds each line of `said` (NULL-ended), or nothing when said is
 * NULL. */
static void made_and_said(const char *t, const char *cmd, const char *const *said)
{
    char bin[4096];
    TL_ASSERT(realpath(tl_test_bin(), bin));
    tl_test_output o = tl_test_capture("cd %s && %s/%s", t, bin, cmd);
    TL_ASSERT_MSG(o.rc == 0, "%s: rc %d\n%s", cmd, o.rc, o.err);
    int lines = 0;
    for (; said && said[lines]; lines++)
        TL_ASSERT_MSG(strstr(o.err, said[lines]), "%s: no '%s' in\n%s", cmd, said[lines], o.err);
    TL_ASSERT_MSG(tl_test_count(o.err, "created folder") == lines, "%s:\n%s", cmd, o.err);
    tl_test_output_free(&o);
}

/* Each of files (NULL-ended), under t, was written. */
static void all_written(const char *t, const char *const *files)
{
    for (size_t k = 0; files[k]; k++) {
        char p[1024];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", t, files[k]);
        TL_ASSERT_MSG(stat(p, &sb) == 0, "%s not written", p);
    }
}

/* A results file's folder or a trace folder not there yet is made before
 * the work and said in one line naming it, the same in the three programs
 * (tl_results_make_folder), so that a typo shows at once; before, each
 * made the tree in silence. Nothing is said where it is there. */
TL_TEST(results_folder_made_and_said)
{
    const char *t = tl_test_tmpdir();
    const char *fdtd = "trilap-fdtd run --grid 16 --steps 1 --cpml 0 --source none --results f/x/r.csv --trace ft";
    const char *const fdtd_said[] = {"trilap-fdtd: note: --results f/x/r.csv: created folders f to f/x\n",
                                     "trilap-fdtd: note: --trace ft: created folder ft\n", NULL};
    made_and_said(t, fdtd, fdtd_said);
    made_and_said(t, fdtd, NULL);
    const char *solve = "trilap-solve gen:poisson7:8 --results s/r.csv --trace st/a/";
    const char *const solve_said[] = {"trilap-solve: note: --results s/r.csv: created folder s\n",
                                      "trilap-solve: note: --trace st/a/: created folders st to st/a\n", NULL};
    made_and_said(t, solve, solve_said);
    const char *bench = "trilap-bench stream --host --no-gpu --count 4K --iters 2 --results b/r.csv";
    const char *const bench_said[] = {"trilap-bench: note: --results b/r.csv: created folder b\n", NULL};
    made_and_said(t, bench, bench_said);
    static const char *const files[] = {"f/x/r.csv", "ft/trace.rank0.csv", "s/r.csv", "st/a/trace.rank0.csv",
                                        "b/r.csv", NULL};
    all_written(t, files);
}

/* Every output's folder, not only --results' and --trace's, is made before
 * the work and said in the same one line (tl_results_make_folder): before,
 * --seismogram, --energy-out, --slice-dir, --history and --solution made
 * theirs in silence when written (tl_out_open), a typo in a path unseen. */
TL_TEST(output_folders_made_and_said)
{
    const char *t = tl_test_tmpdir();
    const char *fdtd = "trilap-fdtd run --grid 16 --steps 4 --cpml 0 --f0 0.3 --receivers 8,8,8 --seismogram sg/x/s.csv "
                       "--energy-every 1 --energy-out en/e.csv --slice-every 2 --slice-dir sl/d";
    const char *const fdtd_said[] = {"trilap-fdtd: note: --seismogram sg/x/s.csv: created folders sg to sg/x\n",
                                     "trilap-fdtd: note: --energy-out en/e.csv: created folder en\n",
                                     "trilap-fdtd: note: --slice-dir sl/d: created folders sl to sl/d\n", NULL};
    made_and_said(t, fdtd, fdtd_said);
    made_and_said(t, fdtd, NULL);
    const char *solve = "trilap-solve gen:poisson7:8 --history h/x/h.csv --solution so/x.mtx";
    const char *const solve_said[] = {"trilap-solve: note: --history h/x/h.csv: created folders h to h/x\n",
                                      "trilap-solve: note: --solution so/x.mtx: created folder so\n", NULL};
    made_and_said(t, solve, solve_said);
    made_and_said(t, solve, NULL);
    static const char *const files[] = {"sg/x/s.csv", "en/e.csv", "sl/d/p-000002.txt", "h/x/h.csv", "so/x.mtx", NULL};
    all_written(t, files);
}

/* trilap-model says the folders of its outputs as the measuring programs
 * do (tl_out_make_folder, tl_results_make_folder), once its inputs are
 * read: before, tl_out_open and the manifest made them in silence. */
TL_TEST(model_output_folders_said)
{
    const char *t = tl_test_tmpdir();
    const char *const platform_said[] = {"trilap-model: note: --out mp/x/p.txt: created folders mp to mp/x\n", NULL};
    made_and_said(t, "trilap-model platform -o mp/x/p.txt", platform_said);
    made_and_said(t, "trilap-model platform -o mp/x/p.txt", NULL);
    const char *const tristream_said[] = {"trilap-model: note: --results mr/r.csv: created folder mr\n", NULL};
    made_and_said(t, "trilap-model tristream --results mr/r.csv", tristream_said);
    static const char *const files[] = {"mp/x/p.txt", "mr/r.csv", "mr/manifest.txt", NULL};
    all_written(t, files);
}

TL_TEST_MAIN(out_set_labels_and_landings, header_once, header_without_final_newline, header_mismatch_is_an_error, concurrent_appends_from_processes, atomic_write, out_whole_or_not_at_all,
             pipes_written_in_place, links_written_through, out_check_before_the_work, out_check_as_root_tries_the_folder, read_only_file_refused, fields_and_commands_quoted, rows_split_as_written,
             stats_and_clock, results_folder_made_and_said, output_folders_made_and_said,
             model_output_folders_said)
