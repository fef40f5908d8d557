/* scripts/download-matrices.sh against a local file:// mirror made here:
 * fail-closed verification, recording checksums, skipping, re-fetching a
 * corrupt archive, resuming a partial download, rejecting a tampered
 * mirror, and the unpacked matrices being readable. */
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "solvers/matrix/mmio.h"
#include "tests/tl_test_run.h"
#include "tl_test.h"

static char g_dir[256];

static int sh(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sh(char *out, size_t cap, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = tl_test_popen(cmd, out, cap);
    fprintf(stderr, "$ %s\n%s", cmd, out);
    return rc;
}

static const char *script(void)
{
    static char path[1024];
    if (!getcwd(path, 512)) TL_TEST_FAIL_("getcwd");
    strcat(path, "/scripts/download-matrices.sh");
    TL_ASSERT_MSG(access(path, X_OK) == 0, "%s missing (tests run from the repository root)", path);
    return path;
}

/* mirror/<Group>/<Name>.tar.gz holding <Name>/<Name>.mtx (a shared test matrix) */
static void make_mirror(void)
{
    char out[4096];
    snprintf(g_dir, sizeof g_dir, "%s", tl_test_tmpdir());
    const char *data = tl_test_matrices();
    int rc =
        sh(out, sizeof out,
           "set -e; cd %s; mkdir -p src/Serena src/audikw_1 mirror/Janna mirror/GHS_psdef dest;"
           "cp %s/ani1_nonsymm.mtx src/Serena/Serena.mtx;"
           "cp %s/1138_bus.mtx src/audikw_1/audikw_1.mtx;"
           "tar -czf mirror/Janna/Serena.tar.gz -C src Serena;"
           "tar -czf mirror/GHS_psdef/audikw_1.tar.gz -C src audikw_1 2>&1",
           g_dir, data, data);
    TL_ASSERT_EQ(rc, 0);
}

static int dl(char *out, size_t cap, const char *extra)
{
    return sh(out, cap, "%s --mirror file://%s/mirror --dest %s/dest --checksums %s/sums %s 2>&1",
              script(), g_dir, g_dir, g_dir, extra);
}

TL_TEST(fails_closed_without_checksums)
{
    char out[16384];
    make_mirror();
    TL_ASSERT_EQ(dl(out, sizeof out, "Serena"), 1);
    TL_ASSERT(strstr(out, "no checksum for Serena.tar.gz"));
    TL_ASSERT(strstr(out, "--update-checksums"));
    char p[512];
    snprintf(p, sizeof p, "%s/dest/Serena/Serena.mtx", g_dir);
    TL_ASSERT(access(p, F_OK) != 0);
    snprintf(p, sizeof p, "%s/dest/Serena.tar.gz", g_dir);
    TL_ASSERT(access(p, F_OK) != 0);
}

TL_TEST(record_verify_skip_refetch)
{
    char out[16384], p[512];
    make_mirror();
    TL_ASSERT_EQ(dl(out, sizeof out, "--update-checksums Serena audikw_1"), 0);
    TL_ASSERT(strstr(out, "recorded sha256"));
    /* the recorded list is real sha256sum output */
    TL_ASSERT_EQ(sh(out, sizeof out,
                    "cd %s/mirror/Janna && grep Serena.tar.gz %s/sums | sha256sum -c -", g_dir,
                    g_dir),
                 0);
    tl_csr a;
    snprintf(p, sizeof p, "%s/dest/audikw_1/audikw_1.mtx", g_dir);
    TL_ASSERT_OK(tl_mm_read_csr(p, 1, &a, NULL));
    TL_ASSERT_EQ(a.nrows, 1138);
    tl_csr_free(&a);
    /* second run: present and verified, nothing fetched */
    TL_ASSERT_EQ(dl(out, sizeof out, "Serena audikw_1"), 0);
    TL_ASSERT(strstr(out, "present and verified"));
    TL_ASSERT(!strstr(out, "ok:"));
    /* a corrupted local archive is fetched again */
    TL_ASSERT_EQ(sh(out, sizeof out,
                    "printf 'XX' | dd of=%s/dest/Serena.tar.gz bs=1 seek=100 conv=notrunc 2>&1",
                    g_dir),
                 0);
    TL_ASSERT_EQ(dl(out, sizeof out, "Serena"), 0);
    TL_ASSERT(strstr(out, "fails verification: downloading again"));
    TL_ASSERT(strstr(out, "ok:"));
}

TL_TEST(resume_partial_download)
{
    char out[16384];
    make_mirror();
    TL_ASSERT_EQ(dl(out, sizeof out, "--update-checksums Serena"), 0);
    TL_ASSERT_EQ(sh(out, sizeof out,
                    "cd %s/dest && rm -rf Serena Serena.tar.gz && head -c 700 "
                    "../mirror/Janna/Serena.tar.gz > Serena.tar.gz.part",
                    g_dir),
                 0);
    TL_ASSERT_EQ(dl(out, sizeof out, "Serena"), 0);
    TL_ASSERT(strstr(out, "resuming at byte 700"));
    TL_ASSERT(strstr(out, "ok:"));
    TL_ASSERT_EQ(sh(out, sizeof out, "cmp %s/dest/Serena.tar.gz %s/mirror/Janna/Serena.tar.gz",
                    g_dir, g_dir),
                 0);
}

TL_TEST(tampered_mirror_rejected)
{
    char out[16384], p[512];
    make_mirror();
    TL_ASSERT_EQ(dl(out, sizeof out, "--update-checksums Serena"), 0);
    TL_ASSERT_EQ(sh(out, sizeof out,
                    "cd %s && rm -rf dest/Serena dest/Serena.tar.gz && echo '%% extra' >> "
                    "src/Serena/Serena.mtx && "
                    "tar -czf mirror/Janna/Serena.tar.gz -C src Serena",
                    g_dir),
                 0);
    TL_ASSERT_EQ(dl(out, sizeof out, "Serena"), 1);
    TL_ASSERT(strstr(out, "checksum mismatch"));
    snprintf(p, sizeof p, "%s/dest/Serena/Serena.mtx", g_dir);
    TL_ASSERT(access(p, F_OK) != 0);
    snprintf(p, sizeof p, "%s/dest/Serena.tar.gz.part", g_dir);
    TL_ASSERT(access(p, F_OK) != 0);
    /* --no-verify takes it anyway */
    TL_ASSERT_EQ(dl(out, sizeof out, "--no-verify Serena"), 0);
}

/* An unpack cut short (a full disk, ^C) leaves no part of the matrix: the
 * next run unpacks it again, whole. Before: tar wrote DEST/<Name>/<Name>.mtx
 * in place, and the next run found the archive verified and that file
 * there, said "present and verified" and kept the cut matrix. */
TL_TEST(cut_unpack_leaves_no_matrix)
{
    char out[16384];
    make_mirror();
    TL_ASSERT_EQ(dl(out, sizeof out, "--update-checksums Serena"), 0);
    TL_ASSERT_EQ(sh(out, sizeof out, "rm -rf %s/dest/Serena && mkdir -p %s/cut", g_dir, g_dir), 0);
    /* a tar whose disk fills: the files there, cut, and a failure */
    char p[600];
    snprintf(p, sizeof p, "%s/cut/tar", g_dir);
    tl_test_write(p, "#!/bin/sh\n"
                     "PATH=/usr/bin:/bin tar \"$@\" || exit\n"
                     "while [ $# -gt 0 ]; do [ \"$1\" = -C ] && d=$2; shift; done\n"
                     "find \"$d\" -name '*.mtx' -exec truncate -s 200 {} \\;\n"
                     "echo 'tar: Serena/Serena.mtx: Cannot write: No space left on device' >&2\nexit 2\n");
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    TL_ASSERT_EQ(sh(out, sizeof out,
                    "PATH=%s/cut:$PATH %s --mirror file://%s/mirror --dest %s/dest --checksums %s/sums Serena 2>&1",
                    g_dir, script(), g_dir, g_dir, g_dir),
                 1);
    TL_ASSERT(strstr(out, "cannot unpack"));
    /* nothing of the cut unpack is left, the archive is */
    TL_ASSERT_EQ(sh(out, sizeof out, "cd %s/dest && ls -A", g_dir), 0);
    TL_ASSERT_MSG(!strcmp(out, "Serena.tar.gz\n"), "left in dest: %s", out);
    TL_ASSERT_EQ(dl(out, sizeof out, "Serena"), 0);
    TL_ASSERT(!strstr(out, "present and verified") && strstr(out, "ok:"));
    TL_ASSERT_EQ(sh(out, sizeof out, "cmp %s/dest/Serena/Serena.mtx %s/src/Serena/Serena.mtx 2>&1", g_dir, g_dir), 0);
}

/* A run that fetched nothing leaves none of the folders it made for
 * --dest. Before: the last one alone was removed, so the default
 * data/suitesparse left data/ behind, in whatever folder it ran. */
TL_TEST(failed_run_leaves_no_folders)
{
    char out[16384];
    make_mirror();
    TL_ASSERT_EQ(sh(out, sizeof out, "%s --mirror file://%s/mirror --dest %s/new/a/b --no-verify Geo_1438 2>&1",
                    script(), g_dir, g_dir),
                 1);
    TL_ASSERT(strstr(out, "download failed"));
    TL_ASSERT_EQ(sh(out, sizeof out, "test ! -e %s/new", g_dir), 0);
    /* a folder that was there stays */
    TL_ASSERT_EQ(sh(out, sizeof out, "mkdir -p %s/kept && %s --mirror file://%s/mirror --dest %s/kept/a --no-verify "
                    "Geo_1438 >/dev/null 2>&1; test -d %s/kept && test ! -e %s/kept/a",
                    g_dir, script(), g_dir, g_dir, g_dir, g_dir),
                 0);
}

TL_TEST(bad_arguments_and_missing_archive)
{
    char out[16384];
    make_mirror();
    TL_ASSERT_EQ(dl(out, sizeof out, "NoSuchMatrix"), 2);
    TL_ASSERT(strstr(out, "invalid matrix 'NoSuchMatrix'"));
    TL_ASSERT_EQ(dl(out, sizeof out, "--bogus"), 2);
    /* Geo_1438 is not on this mirror */
    TL_ASSERT_EQ(dl(out, sizeof out, "--no-verify Geo_1438"), 1);
    TL_ASSERT(strstr(out, "download failed"));
    TL_ASSERT_EQ(sh(out, sizeof out, "%s --list", script()), 0);
    TL_ASSERT(strstr(out, "GHS_psdef/audikw_1.tar.gz") && strstr(out, "Janna/Queen_4147.tar.gz"));
}

/* A mirror the network cannot reach (a host no resolver knows, RFC 6761's
 * .invalid; a port nothing listens on) is one line naming the matrix, its
 * URL and curl's reason, exit 1, and nothing made. Before: curl --retry
 * tried the host four times over 15 s, each try its own 'curl: (6)' line
 * before the script's two. */
TL_TEST(unreachable_mirror_one_line)
{
    static const char *const mirrors[][2] = {
        {"https://trilap-test.invalid/MM", "Could not resolve host: trilap-test.invalid (curl exit 6)"},
        {"http://127.0.0.1:1/MM", "(curl exit 7)"},
    };
    if (tl_test_sh("command -v curl >/dev/null") != 0) TL_SKIP("needs curl");
    const char *t = tl_test_tmpdir();
    for (size_t i = 0; i < sizeof mirrors / sizeof mirrors[0]; i++) {
        time_t t0 = time(NULL);
        tl_test_output r = tl_test_capture("%s --no-verify --mirror %s --dest %s/dest Serena audikw_1", script(),
                                           mirrors[i][0], t);
        char want[400];
        snprintf(want, sizeof want, "download-matrices.sh: Serena: cannot reach %s/Janna/Serena.tar.gz: ",
                 mirrors[i][0]);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want) && strstr(r.err, mirrors[i][1]) &&
                          strstr(r.err, "; nothing downloaded\n") && !strstr(r.out, "audikw_1:"),
                      "%s: rc %d: %s", mirrors[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(time(NULL) - t0 < 10, "%s: %lld s", mirrors[i][0], (long long)(time(NULL) - t0));
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/dest", t), 0);
    }
}

/* A --dest or --checksums file it cannot write is one line, exit 1,
 * before anything is fetched. Before: a read-only --dest printed bash's
 * 'line 83: DEST/Serena.tar.gz.part: Read-only file system' and then
 * 'download failed, nothing received', as if the mirror were at fault;
 * --update-checksums into a folder it could not write printed six lines
 * of bash, mktemp, chmod and mv errors, then 'recorded sha256 ... in
 * FILE' and exit 0 with nothing recorded, and on a full disk the same,
 * the list replaced by a cut copy. The read-only --dest is a read-only
 * bind mount (unshare -rm), which root cannot write either. */
TL_TEST(unwritable_dest_and_checksums_one_line)
{
    char out[16384];
    make_mirror();
    TL_ASSERT_EQ(sh(out, sizeof out, "touch %s/file", g_dir), 0);
    static const char *const cases[][2] = {
        {"--dest %s/file/sub --no-verify Serena", "download-matrices.sh: cannot create --dest %s/file/sub: Not a directory\n"},
        {"--dest %s/dest --checksums %s/file/sums --update-checksums Serena",
         "download-matrices.sh: cannot write --checksums %s/file/sums: %s/file is not a folder it can write in\n"},
    };
    for (size_t i = 0; i < 2; i++) {
        char args[1024], want[1024];
        snprintf(args, sizeof args, cases[i][0], g_dir, g_dir);
        snprintf(want, sizeof want, cases[i][1], g_dir, g_dir);
        tl_test_output r = tl_test_capture("%s --mirror file://%s/mirror %s", script(), g_dir, args);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "%s: rc %d: %s%s", args, r.rc, r.out, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(sh(out, sizeof out, "test -z \"$(ls -A %s/dest)\"", g_dir), 0);
    }
    if (tl_test_sh("unshare -rm true 2>/dev/null") != 0) TL_SKIP("a read-only --dest needs unshare -rm");
    tl_test_output r = tl_test_capture("unshare -rm sh -c 'mount --bind -o ro %s/dest %s/dest && "
                                       "%s --mirror file://%s/mirror --dest %s/dest --no-verify Serena'",
                                       g_dir, g_dir, script(), g_dir, g_dir);
    char want[1024];
    snprintf(want, sizeof want, "download-matrices.sh: cannot write in --dest %s/dest\n", g_dir);
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    /* --checksums on a full disk (a tmpfs of 8 kB, filled): one line, the
     * list as it was (before: 'recorded', exit 0, the list cut to nothing) */
    r = tl_test_capture("mkdir %s/full && unshare -rm sh -c 'mount -t tmpfs -o size=8k tmpfs %s/full && "
                        "echo \"00  x.tar.gz\" > %s/full/sums && head -c 1M /dev/zero > %s/full/fill 2>/dev/null; "
                        "%s --mirror file://%s/mirror --dest %s/dest --checksums %s/full/sums --update-checksums Serena; "
                        "echo rc=$?; cat %s/full/sums'",
                        g_dir, g_dir, g_dir, g_dir, script(), g_dir, g_dir, g_dir, g_dir);
    snprintf(want, sizeof want, "download-matrices.sh: cannot record Serena.tar.gz's sha256 in %s/full/sums: "
             "No space left on device\n", g_dir);
    TL_ASSERT_MSG(!strcmp(r.err, want) && strstr(r.out, "\nrc=1\n00  x.tar.gz\n"), "%s%s", r.out, r.err);
    tl_test_output_free(&r);
}

TL_TEST_MAIN(fails_closed_without_checksums, record_verify_skip_refetch, resume_partial_download,
             tampered_mirror_rejected, cut_unpack_leaves_no_matrix, failed_run_leaves_no_folders,
             bad_arguments_and_missing_archive, unreachable_mirror_one_line,
             unwritable_dest_and_checksums_one_line)
