/* Outputs written whole or not at all (runtime/out.h). */
#include "runtime/out.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h" /* TL_HAVE_ZLIB */
#include "runtime/tmpfile.h"

#if TL_HAVE_ZLIB
#include <zlib.h>
#endif

/* "DIR/": a folder's name, missing or not; a file name never ends so */
static int names_a_folder(const char *path)
{
    size_t n = strlen(path);
    return n > 0 && path[n - 1] == '/';
}

static int under_stream_tree(const char *path)
{
    return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

/* N of "/proc/self/fd/N" or "/dev/fd/N", else -1. */
static int own_descriptor(const char *path)
{
    const char *const dirs[] = {"/proc/self/fd/", "/dev/fd/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        size_t k = strlen(dirs[i]);
        if (strncmp(path, dirs[i], k) != 0) continue;
        char *endp;
        long fd = strtol(path + k, &endp, 10);
        if (endp != path + k && !*endp && fd >= 0 && fd <= INT_MAX) return (int)fd;
    }
    return -1;
}

/* Follow `path`'s last component through its links: the file a write
 * reaches (into end, n bytes), and 1 when a hop goes through /dev or /proc
 * (/dev/stdout -> /proc/self/fd/1 -> wherever the shell sent it: the
 * process's stream, whatever file it is), with *fd the process's own
 * descriptor the path names (or -1). */
static int follow_links(const char *path, char *end, size_t n, int *fd)
{
    if (strcmp(path, "-") == 0) { /* the usual name for stdout */
        snprintf(end, n, "/dev/stdout");
        *fd = STDOUT_FILENO;
        return 1;
    }
    snprintf(end, n, "%s", path);
    *fd = -1;
    int stream = 0;
    for (int hop = 0; hop < 40; hop++) {
        if (*fd < 0) *fd = own_descriptor(end);
        stream |= under_stream_tree(end);
        struct stat st;
        if (lstat(end, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        char target[4096];
        ssize_t k = readlink(end, target, sizeof target - 1);
        if (k <= 0) break;
        target[k] = '\0';
        const char *slash = strrchr(end, '/');
        if (target[0] == '/' || !slash)
            snprintf(end, n, "%s", target);
        else { /* relative to the link's folder */
            size_t keep = (size_t)(slash - end) + 1;
            if (keep + strlen(target) >= n) break;
            memcpy(end + keep, target, strlen(target) + 1);
        }
    }
    return stream;
}

tl_status tl_mkdir_p(const char *dir) { return tl_mkdir_p_first(dir, NULL, 0); }

tl_status tl_mkdir_p_first(const char *dir, char *first, size_t nfirst)
{
    if (first && nfirst) first[0] = '\0';
    char path[4096];
    int n = snprintf(path, sizeof path, "%s", dir);
    TL_CHECK(n > 0 && (size_t)n < sizeof path, TL_ERR_INVAL, "folder name empty or too long: %s", dir);
    for (char *s = path + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            sigset_t held;
            tl_tmpfile_hold(&held);
            int made = mkdir(path, 0777) == 0, err = errno;
            /* a folder made for an output goes again if the program fails
             * or is interrupted (only while empty: tl_tmpfile_cleanup) */
            tl_status reg = made ? tl_tmpfile_add(path, TL_TMP_FOLDER) : TL_OK;
            tl_tmpfile_release(&held);
            TL_TRY(reg);
            if (made && first && nfirst && !first[0]) snprintf(first, nfirst, "%s", path);
            if (!made && err != EEXIST)
                return TL_FAIL(TL_ERR_IO, "cannot create folder %s: %s", path, strerror(err));
            *s = c;
            if (!c) break;
        }
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return TL_FAIL(TL_ERR_IO, "%s is not a folder", dir);
    return TL_OK;
}

tl_status tl_mkdir_parent(const char *path)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%s", path);
    TL_CHECK(n > 0 && (size_t)n < sizeof buf, TL_ERR_INVAL, "path empty or too long: %s", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return TL_OK;
    *slash = '\0';
    TL_TRY(tl_mkdir_p(buf));
    return TL_OK;
}

/* The folder of `path` to make (its own, or the one it is in) into dir,
 * trailing slashes dropped; 0 where there is none (a bare file name). */
static int folder_to_make(const char *path, tl_out_folder which, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    if (which == TL_OUT_FOLDER_OF_FILE) {
        char *slash = strrchr(dir, '/');
        if (!slash) return 0;
        if (slash == dir) slash++; /* "/r.csv": the root */
        *slash = '\0';
    }
    for (size_t k = strlen(dir); k > 1 && dir[k - 1] == '/'; k--) dir[k - 1] = '\0';
    return dir[0] != '\0';
}

tl_status tl_out_make_folder(const char *program, const char *option, const char *path, tl_out_folder which)
{
    char dir[4096], top[4096];
    if (!path || !*path || !folder_to_make(path, which, dir, sizeof dir)) return TL_OK;
    TL_TRY(tl_mkdir_p_first(dir, top, sizeof top));
    if (!top[0]) return TL_OK; /* there already */
    if (strcmp(top, dir) == 0) fprintf(stderr, "%s: note: %s %s: created folder %s\n", program, option, path, dir);
    else fprintf(stderr, "%s: note: %s %s: created folders %s to %s\n", program, option, path, top, dir);
    return TL_OK;
}

int tl_out_in_place(const char *path)
{
    char end[4096];
    int fd;
    if (follow_links(path, end, sizeof end, &fd)) return 1;
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

const char *tl_out_written_at(const char *path, char *buf, size_t n)
{
    int fd;
    if (follow_links(path, buf, n, &fd)) return path;
    return buf;
}

/* at (in place): the folder it is in ("." for a bare name, "/" at the root) */
static void cut_to_parent(char *at)
{
    char *slash = strrchr(at, '/');
    if (!slash) snprintf(at, 2, ".");
    else if (slash == at) at[1] = '\0';
    else *slash = '\0';
}

/* at (in place): the nearest path at or above it that exists, its stat in
 * *st; 0, or the errno of a stat that failed for another reason than the
 * path's absence */
static int walk_to_existing(char *at, struct stat *st)
{
    while (stat(at, st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) return errno;
        cut_to_parent(at);
    }
    return 0;
}

int tl_out_nearest_folder(const char *path, char *at, size_t n)
{
    struct stat st;
    snprintf(at, n, "%s", path);
    cut_to_parent(at);
    return walk_to_existing(at, &st);
}

/* `at`, or the nearest folder above it that exists, is a folder this
 * process may write in; errors name `path`, the output asked for. */
static tl_status nearest_folder_takes_files(const char *path, char *at)
{
    struct stat st;
    int stat_errno = walk_to_existing(at, &st);
    if (stat_errno) return TL_FAIL(TL_ERR_IO, "%s: cannot write there: %s: %s", path, at, strerror(stat_errno));
    if (!S_ISDIR(st.st_mode)) return TL_FAIL(TL_ERR_IO, "%s: cannot write there: %s is not a folder", path, at);
    int err = tl_out_folder_refuses(at);
    if (err) return TL_FAIL(TL_ERR_IO, "%s: cannot write in folder %s: %s", path, at, strerror(err));
    return TL_OK;
}

int tl_out_folder_refuses(const char *dir)
{
    if (access(dir, W_OK | X_OK) != 0) return errno;
    /* root passes access() in folders that refuse it a file all the same
     * (sysfs, a root-squashed NFS export): --results /sys/y.csv passed
     * the check and failed after the measurement. There a file is made
     * and removed to know. */
    if (geteuid() != 0) return 0;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.trilap-check.%ld.%ld", dir, (long)getpid(), (long)gettid());
    sigset_t held; /* an interrupt between the two would leave the file */
    tl_tmpfile_hold(&held);
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), err = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    tl_tmpfile_release(&held);
    return fd < 0 && err != EEXIST ? err : 0;
}

/* A regular file that no one may write (no w bit at all, as input data
 * is often kept) is refused even as root: access() lets root through and
 * the rename replaces it, which is how a link in a results folder once
 * wrote over a shared matrix. `end` is the file a write reaches. */
static tl_status refuse_read_only(const char *path, const char *end)
{
    struct stat st;
    if (stat(end, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH))) return TL_OK;
    if (strcmp(path, end) == 0)
        return TL_FAIL(TL_ERR_IO, "%s: cannot write: a read-only file (mode %04o); make it writable or give another name",
                       path, (unsigned)(st.st_mode & 07777));
    return TL_FAIL(TL_ERR_IO,
                   "%s: cannot write: it links to %s, a read-only file (mode %04o); make it writable or give another name",
                   path, end, (unsigned)(st.st_mode & 07777));
}

tl_status tl_out_check(const char *path)
{
    TL_CHECK(path && *path, TL_ERR_INVAL, "an output file name is empty");
    struct stat st;
    TL_CHECK((stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) && !names_a_folder(path), TL_ERR_IO,
             "%s: a folder; give a file name", path);
    char end[4096];
    int fd;
    int stream = follow_links(path, end, sizeof end, &fd);
    if (fd >= 0) return TL_OK; /* this process's own stream ("-", /dev/stdout): open already */
    if (stream || stat(path, &st) == 0) {
        /* it is there (or is a stream): the file itself must take writes; a
         * stream is not opened here (a FIFO's open waits for its reader) */
        TL_TRY(refuse_read_only(path, end));
        if (access(path, W_OK) != 0) return TL_FAIL(TL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        if (tl_out_in_place(path)) return TL_OK;
    }
    /* the writers make the missing folders: the nearest one that exists decides */
    cut_to_parent(end);
    return nearest_folder_takes_files(path, end);
}

tl_status tl_out_check_as(const char *option, tl_status (*check)(const char *path), const char *path)
{
    if (!option) return check(path);
    tl_error_context k;
    tl_error_context_begin(&k, option);
    tl_status st = check(path);
    tl_error_context_end(&k);
    return st;
}

tl_status tl_out_check_folder(const char *dir)
{
    TL_CHECK(dir && *dir, TL_ERR_INVAL, "an output folder name is empty");
    char at[4096];
    snprintf(at, sizeof at, "%s", dir);
    return nearest_folder_takes_files(dir, at);
}

tl_status tl_out_open(tl_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    int n = snprintf(o->path, sizeof o->path, "%s", path);
    TL_CHECK(n > 0 && (size_t)n < sizeof o->path, TL_ERR_INVAL, "output name empty or too long: %.200s", path);
    struct stat st;
    TL_CHECK((stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) && !names_a_folder(path), TL_ERR_IO,
             "%s: a folder; give a file name", path);
    char end[4096];
    int own;
    follow_links(path, end, sizeof end, &own);
    if (own >= 0) {
        /* /dev/stdout and the like: this process's stream itself, at its
         * offset (opening the path again would truncate a file stdout was
         * sent to, and write over what stdout wrote there) */
        fflush(NULL);
        int d = dup(own);
        o->f = d >= 0 ? fdopen(d, "w") : NULL;
        if (!o->f) {
            if (d >= 0) close(d);
            return TL_FAIL(TL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        }
        return TL_OK;
    }
    if (tl_out_in_place(path)) {
        o->f = fopen(path, "w");
        if (!o->f) return TL_FAIL(TL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        return TL_OK;
    }
    TL_TRY(refuse_read_only(path, end));
    /* a link keeps its place: the file it names is the one replaced */
    n = snprintf(o->target, sizeof o->target, "%s", end);
    TL_CHECK((size_t)n < sizeof o->target, TL_ERR_INVAL, "%s: the file it links to has too long a name", path);
    /* the folders it goes in are made (and go again, while empty, if the
     * program fails: tl_mkdir_p registers them), as tl_out_check promises */
    TL_TRY(tl_mkdir_parent(o->target));
    /* pid + thread + clock, created exclusively: unique across the rank
     * threads of one run without shared state */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int fd = -1, err = EEXIST;
    for (int attempt = 0; attempt < 100 && fd < 0 && err == EEXIST; attempt++) {
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%ld.%d", o->target, (long)getpid(), (long)gettid(),
                 (int)(now.tv_nsec % 1000000) + attempt);
        sigset_t held;
        tl_tmpfile_hold(&held);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        err = errno;
        tl_status reg = fd >= 0 ? tl_tmpfile_add(o->tmp, TL_TMP_FILE) : TL_OK;
        tl_tmpfile_release(&held);
        if (reg != TL_OK) {
            close(fd);
            unlink(o->tmp);
            o->tmp[0] = '\0';
            return reg;
        }
    }
    if (fd < 0) {
        o->tmp[0] = '\0';
        return TL_FAIL(TL_ERR_IO, "%s: cannot write (under a temporary name beside it): %s", path, strerror(err));
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        tl_tmpfile_forget(o->tmp);
        o->tmp[0] = '\0';
        return TL_FAIL(TL_ERR_NOMEM, "%s: cannot set up the output", path);
    }
    return TL_OK;
}

#if TL_HAVE_ZLIB
static ssize_t gz_write(void *gz, const char *buf, size_t n)
{
    unsigned chunk = n > (1u << 30) ? 1u << 30 : (unsigned)n;
    int w = chunk ? gzwrite(gz, buf, chunk) : 0;
    return w > 0 || chunk == 0 ? w : -1;
}

static int gz_close(void *gz) { return gzclose(gz) == Z_OK ? 0 : -1; }
#endif

int tl_out_names_gzip(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcasecmp(path + n - 3, ".gz");
}

tl_status tl_out_open_text(tl_out *o, const char *path, FILE **text)
{
    int gz = tl_out_names_gzip(path);
#if !TL_HAVE_ZLIB
    TL_CHECK(!gz, TL_ERR_UNSUPPORTED, "%s: writing gzip needs zlib (built without it)", path);
#endif
    TL_TRY(tl_out_open(o, path));
    *text = o->f;
    if (!gz) return TL_OK;
#if TL_HAVE_ZLIB
    int fd = dup(fileno(o->f));
    gzFile g = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
    if (!g && fd >= 0) close(fd);
    o->gz = g ? fopencookie(g, "w", (cookie_io_functions_t){.write = gz_write, .close = gz_close}) : NULL;
    if (g && !o->gz) gzclose(g);
    if (!o->gz) {
        tl_out_close(o, 0);
        return TL_FAIL(TL_ERR_NOMEM, "%s: cannot set up gzip output", path);
    }
    *text = o->gz;
#endif
    return TL_OK;
}

tl_status tl_out_close(tl_out *o, int commit)
{
    /* a gzip stream's last bytes reach the file only when it ends, and a
     * failed write shows only then; not committed, they are dropped with it */
    int gz_bad = 0;
    if (o->gz) gz_bad = ferror(o->gz) != 0, gz_bad |= fclose(o->gz) != 0;
    o->gz = NULL;
    if (!o->f) return TL_OK;
    int bad = ferror(o->f) || gz_bad;
    int err = errno ? errno : EIO; /* a failed write's, unless a later call took errno */
    /* on disk before it takes the path's place (not for a stream) */
    if (commit && !bad && o->tmp[0] && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)) bad = 1, err = errno;
    if (fclose(o->f) != 0) bad = 1, err = errno;
    o->f = NULL;
    if (!o->tmp[0]) /* in place: nothing to drop or move */
        return commit && bad ? TL_FAIL(TL_ERR_IO, "%s: write failed: %s", o->path, strerror(err)) : TL_OK;
    if (commit && !bad && rename(o->tmp, o->target) == 0) {
        tl_tmpfile_forget(o->tmp);
        return TL_OK;
    }
    if (commit && !bad) err = errno;
    remove(o->tmp);
    tl_tmpfile_forget(o->tmp);
    if (!commit) return TL_OK;
    return TL_FAIL(TL_ERR_IO, "%s: %s failed: %s", o->path, bad ? "write" : "rename", strerror(err));
}

/* Where a file output lands, for telling two spellings of one file apart
 * (same.csv, ./same.csv, a/../same.csv, a folder through a link): the
 * nearest folder above it that exists resolved, then the rest of the
 * path with its "." and ".." taken out (the writers make the missing
 * folders, so those are not there yet to resolve). */
static void landing(const char *path, char *out, size_t n)
{
    char head[4096], real[PATH_MAX], file[4096];
    path = tl_out_written_at(path, file, sizeof file); /* a link to a file lands where the file is */
    snprintf(head, sizeof head, "%s%s", path[0] == '/' ? "" : "./", path);
    /* the longest prefix that is a folder */
    size_t cut = strlen(head);
    for (;;) {
        while (cut > 0 && head[cut - 1] != '/') cut--;
        if (cut == 0) break;
        char c = head[cut - 1];
        head[cut - 1] = '\0';
        struct stat st;
        int found = cut == 1 ? realpath("/", real) != NULL
                             : stat(head, &st) == 0 && S_ISDIR(st.st_mode) && realpath(head, real) != NULL;
        head[cut - 1] = c;
        if (found) break;
        cut--;
    }
    if (cut == 0 || strlen(real) + strlen(head + cut) + 2 > n) {
        snprintf(out, n, "%s", path);
        return;
    }
    snprintf(out, n, "%s", strcmp(real, "/") ? real : "");
    /* the rest, component by component */
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", head + cut);
    for (char *save = NULL, *part = strtok_r(rest, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (!strcmp(part, ".")) continue;
        if (!strcmp(part, "..")) {
            char *slash = strrchr(out, '/');
            if (slash) *slash = '\0';
            continue;
        }
        size_t len = strlen(out);
        snprintf(out + len, n - len, "/%s", part);
    }
}

/* Whether `at` (a landing) is an entry of s, after its line */
static int set_meets_at(const tl_out_set *s, const char *program, const char *option, const char *path, const char *at)
{
    for (size_t k = 0; k < s->n; k++)
        if (!strcmp(s->f[k].at, at)) {
            fprintf(stderr, "%s: %s and %s both name %s: give each a file of its own\n", program, s->f[k].option,
                    option, path);
            return 1;
        }
    return 0;
}

int tl_out_set_add(tl_out_set *s, const char *program, const char *option, const char *path)
{
    if (tl_out_in_place(path) || s->n == TL_OUT_SET_MAX) return 0;
    char *at = s->f[s->n].at;
    landing(path, at, sizeof s->f[s->n].at);
    if (set_meets_at(s, program, option, path, at)) return 1;
    char *label = s->f[s->n++].option;
    const size_t cap = sizeof s->f[0].option;
    /* a label cut is said in the line that names it */
    if ((size_t)snprintf(label, cap, "%s", option) >= cap) memcpy(label + cap - 4, "...", 4);
    return 0;
}

int tl_out_set_meets(const tl_out_set *s, const char *program, const char *option, const char *path)
{
    if (tl_out_in_place(path)) return 0;
    char at[sizeof s->f[0].at];
    landing(path, at, sizeof at);
    if (set_meets_at(s, program, option, path, at)) return 1;
    /* under one of them: the first made would leave no room for the other
     * (--results R --trace R/tr, R not made yet, failed after the run) */
    for (size_t k = 0; k < s->n; k++) {
        const size_t len = strlen(s->f[k].at);
        if (len && !strncmp(at, s->f[k].at, len) && at[len] == '/') {
            fprintf(stderr, "%s: %s %s lies under the file %s names: give each a place of its own\n", program,
                    option, path, s->f[k].option);
            return 1;
        }
    }
    return 0;
}

int tl_out_same_file(const char *out, const char *in)
{
    struct stat so, si;
    return stat(out, &so) == 0 && stat(in, &si) == 0 && S_ISREG(so.st_mode) && S_ISREG(si.st_mode) &&
           so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}

int tl_out_replaces_input(const char *program, const char *option, const char *out, const char *const *inputs,
                          size_t ninputs)
{
    for (size_t k = 0; k < ninputs; k++)
        if (inputs[k] && tl_out_same_file(out, inputs[k])) {
            fprintf(stderr, "%s: %s %s would write over the input %s: give the output a file of its own\n", program,
                    option, out, inputs[k]);
            return 1;
        }
    return 0;
}

/* Whether pid is a zombie: killed, not yet reaped (for seconds where a
 * container's first process reaps late), and kill(pid, 0) still finds it. */
static int zombie(long pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *end = strrchr(stat, ')'); /* the command name may hold spaces and parentheses */
    return end && end[1] == ' ' && end[2] == 'Z';
}

int tl_out_writer_gone(long pid)
{
    return pid > 0 && ((kill((pid_t)pid, 0) != 0 && errno == ESRCH) || zombie(pid));
}

void tl_out_remove_dead_temporaries(const char *target)
{
    char dir[4096];
    const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - target) + 1 : 1, slash ? target : ".");
    DIR *d = opendir(dir);
    if (!d) return;
    size_t k = strlen(base);
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));) {
        long pid = 0, tid = 0;
        int n = 0, end = 0; /* the name tl_out_open gives: TARGET.tmp.PID.TID.N */
        if (strncmp(e->d_name, base, k) || sscanf(e->d_name + k, ".tmp.%ld.%ld.%d%n", &pid, &tid, &n, &end) != 3 ||
            e->d_name[k + (size_t)end] != '\0')
            continue;
        char path[4400];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && now - sb.st_mtime > 60 && tl_out_writer_gone(pid))
            unlink(path);
    }
    closedir(d);
}
