/* Results CSV: header once, rows appended under an exclusive flock in one
 * write(2), so rows from concurrent ranks and processes never interleave.
 * And tl_file_write_atomic: a whole file through runtime/out.h. */
#include "runtime/results.h"
#include "runtime/out.h"
#include "runtime/tmpfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static tl_status write_all(int fd, const char *buf, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return TL_FAIL(TL_ERR_IO, "%s: write: %s", path, w < 0 ? strerror(errno) : "no progress");
        buf += w;
        n -= (size_t)w;
    }
    return TL_OK;
}

/* The file's first line (without '\n') into a malloc'd string. */
static tl_status read_first_line(int fd, const char *path, char **line)
{
    size_t cap = 256, len = 0;
    char *buf = malloc(cap);
    if (!buf) return TL_FAIL(TL_ERR_NOMEM, "%zu bytes", cap);
    off_t off = 0;
    for (;;) {
        if (len + 128 > cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return TL_FAIL(TL_ERR_NOMEM, "%zu bytes", cap * 2);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = pread(fd, buf + len, 128, off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(buf);
            return TL_FAIL(TL_ERR_IO, "%s: read: %s", path, strerror(errno));
        }
        char *nl = memchr(buf + len, '\n', (size_t)r);
        if (nl) {
            *nl = '\0';
            break;
        }
        len += (size_t)r;
        off += r;
        if (r == 0) {
            buf[len] = '\0';
            break;
        }
    }
    *line = buf;
    return TL_OK;
}

static size_t chomp_len(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
    return n;
}

void tl_results_manifest_path(const char *results, char *buf, size_t n)
{
    const char *slash = strrchr(results, '/');
    if (!slash)
        snprintf(buf, n, "manifest.txt");
    else
        snprintf(buf, n, "%.*s/manifest.txt", (int)(slash - results), results);
}

int tl_results_set_add(tl_out_set *s, const char *program, const char *results)
{
    char manifest[4096];
    tl_results_manifest_path(results, manifest, sizeof manifest);
    return tl_out_set_add(s, program, "--results", results) ||
           tl_out_set_add(s, program, "--results (its manifest)", manifest);
}

const char *tl_results_quote(char *buf, size_t n, const char *s)
{
    if (n < 3) {
        if (n) buf[0] = '\0';
        return buf;
    }
    size_t k = 0;
    buf[k++] = '"';
    /* room kept for the closing quote and the terminator; a quote is
     * written doubled or not at all, so a cut never leaves one unpaired */
    for (; *s; s++) {
        size_t need = *s == '"' ? 2 : 1;
        if (k + need + 2 > n) break;
        if (*s == '"') buf[k++] = '"';
        buf[k++] = *s == '\n' || *s == '\r' ? ' ' : *s;
    }
    buf[k++] = '"';
    buf[k] = '\0';
    return buf;
}

const char *tl_results_field(char *buf, size_t n, const char *s)
{
    if (strpbrk(s, ",\"\r\n")) return tl_results_quote(buf, n, s);
    if (n) snprintf(buf, n, "%s", s);
    return buf;
}

/* A quoted field from just past its opening quote: its text moved down
 * over the doubled quotes, ended with NUL. Returns past the closing quote,
 * NULL where the line ends first. */
static char *unquote(char *p)
{
    char *w = p;
    for (;;) {
        if (*p == '\0' || *p == '\n' || *p == '\r') return NULL;
        if (*p == '"' && p[1] != '"') break;
        if (*p == '"') p++;
        *w++ = *p++;
    }
    *w = '\0';
    return p + 1;
}

int tl_results_split(char *line, char **f, int maxf, char *why, size_t nwhy)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == maxf) {
            snprintf(why, nwhy, "more than %d fields", maxf);
            return -1;
        }
        if (*p == '"') {
            f[n++] = p + 1;
            char *end = unquote(p + 1);
            if (!end) {
                snprintf(why, nwhy, "quoted field %d not closed on its line", n);
                return -1;
            }
            if (*end != ',' && *end != '\0' && *end != '\n' && *end != '\r') {
                snprintf(why, nwhy, "text after the closing quote of field %d", n);
                return -1;
            }
            p = end;
        } else {
            f[n++] = p;
            p += strcspn(p, ",\r\n");
        }
        char sep = *p;
        *p = '\0';
        if (sep != ',') return n;
        p++;
    }
}

/* The next comma-separated field of [*p, end) in *at and *n, *p moved
 * past it (NULL after the last); 0 when none is left. */
static int next_field(const char **p, const char *end, const char **at, size_t *n)
{
    if (!*p) return 0;
    const char *c = memchr(*p, ',', (size_t)(end - *p));
    *at = *p;
    *n = (size_t)((c ? c : end) - *p);
    *p = c ? c + 1 : NULL;
    return 1;
}

/* A results file's first line is this program's header: a file of other
 * rows is an error, not a silent mix. Where they part is named by column
 * (a header of 20-odd columns cut at 80 characters hid where). */
static tl_status same_header(const char *path, const char *first, const char *header)
{
    size_t flen = chomp_len(first), hlen = chomp_len(header);
    if (flen == hlen && strncmp(first, header, hlen) == 0) return TL_OK;
    const char *fp = first, *hp = header, *fa = NULL, *ha = NULL;
    size_t fn = 0, hn = 0;
    int k = 0, fhas, hhas;
    do {
        k++;
        fhas = next_field(&fp, first + flen, &fa, &fn);
        hhas = next_field(&hp, header + hlen, &ha, &hn);
    } while (fhas && hhas && fn == hn && strncmp(fa, ha, fn) == 0);
    char there[64], here[64];
    if (fhas) snprintf(there, sizeof there, "'%.*s' there", (int)(fn < 40 ? fn : 40), fa);
    else snprintf(there, sizeof there, "none there");
    if (hhas) snprintf(here, sizeof here, "'%.*s' here", (int)(hn < 40 ? hn : 40), ha);
    else snprintf(here, sizeof here, "none here");
    return TL_FAIL(TL_ERR_INVAL, "%s:1: header '%.*s%s' differs from this program's at column %d (%s, %s); write to a new file",
                   path, (int)(flen < 80 ? flen : 80), first, flen > 80 ? "..." : "", k, there, here);
}

tl_status tl_results_check(const char *path, const char *header)
{
    const char *unfit = tl_results_unfit(path);
    TL_CHECK(!unfit, TL_ERR_INVAL, "%s: %s", path, unfit);
    char manifest[4096];
    tl_results_manifest_path(path, manifest, sizeof manifest);
    TL_TRY(tl_out_check(path));
    TL_TRY(tl_out_check(manifest));
    /* the manifest is read and rewritten whole: not a device or a FIFO
     * (nor the results file itself: tl_results_unfit) */
    TL_CHECK(!tl_out_in_place(manifest), TL_ERR_INVAL,
             "%s: a device or a FIFO, where the manifest beside %s is written whole", manifest, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return TL_OK; /* not there yet: it will be made */
    char *first = NULL;
    struct stat sb;
    /* an empty file takes the header; anything else must begin with it
     * (a file of blank lines was let through, and refused after the work) */
    tl_status st = fstat(fd, &sb) == 0 ? TL_OK : TL_FAIL(TL_ERR_IO, "%s: fstat: %s", path, strerror(errno));
    if (st == TL_OK && sb.st_size > 0) st = read_first_line(fd, path, &first);
    close(fd);
    TL_TRY(st);
    if (first) st = same_header(path, first, header);
    free(first);
    return st;
}

const char *tl_results_unfit(const char *path)
{
    if (tl_out_in_place(path))
        return "a device, a pipe or a name under /dev or /proc (or a link to one, as /dev/stdout is): results are "
               "rows appended to a CSV file, with manifest.txt beside it; give a file name";
    /* every other .gz output is gzip; rows appended and a header read back
     * are plain text (r.csv.gz held plain CSV under a gzip name) */
    if (tl_out_names_gzip(path))
        return "a gzip name: results are rows appended to a plain CSV file; give a .csv name (gzip a copy to "
               "ship it)";
    /* the manifest is read and rewritten whole beside the rows: the two
     * cannot be one file (trilap-solve and trilap-bench each checked this
     * themselves, and tl_results_check a third time, as a file error) */
    char manifest[4096];
    tl_results_manifest_path(path, manifest, sizeof manifest);
    if (!strcmp(path, manifest)) return "the manifest beside a results file is named so; give the results another name";
    return NULL;
}

/* Newlines in the first `size` bytes of fd. */
static tl_status count_lines(int fd, const char *path, off_t size, long *lines)
{
    char buf[65536];
    long n = 0;
    for (off_t off = 0; off < size;) {
        ssize_t r = pread(fd, buf, sizeof buf, off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return TL_FAIL(TL_ERR_IO, "%s: read: %s", path, r < 0 ? strerror(errno) : "shorter than its size");
        for (ssize_t i = 0; i < r; i++) n += buf[i] == '\n';
        off += r;
    }
    *lines = n;
    return TL_OK;
}

static void rows_take(tl_results_rows *rows, long line)
{
    if (!rows) return;
    rows->count++;
    int n = rows->nranges;
    if (n > 0 && line == rows->hi[n - 1] + 1) {
        rows->hi[n - 1] = line;
    } else if (n < TL_RESULTS_MAX_RANGES) {
        rows->lo[n] = rows->hi[n] = line;
        rows->nranges++;
    } else { /* out of ranges: the last one widened, and said */
        rows->hi[n - 1] = line;
        rows->merged = 1;
    }
}

/* Under the file's lock: its header written when it is empty (*fresh),
 * checked otherwise, then row (NULL: none); *line the line the row took,
 * or would take. */
static tl_status results_write(const char *path, const char *header, const char *row, int *fresh, long *line)
{
    const char *unfit = tl_results_unfit(path);
    TL_CHECK(!unfit, TL_ERR_INVAL, "%s: %s", path, unfit);
    size_t hlen = chomp_len(header), rlen = row ? chomp_len(row) : 0;
    TL_CHECK(!memchr(header, '\n', hlen) && (!row || !memchr(row, '\n', rlen)), TL_ERR_INVAL,
             "%s: header and row must be single lines", path);
    tl_status st = TL_OK;
    char *first = NULL, *buf = NULL;
    TL_TRY(tl_mkdir_parent(path));
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) return TL_FAIL(TL_ERR_IO, "%s: open: %s", path, strerror(errno));
    while (flock(fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            st = TL_FAIL(TL_ERR_IO, "%s: flock: %s", path, strerror(errno));
            goto fail;
        }
    }
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        st = TL_FAIL(TL_ERR_IO, "%s: fstat: %s", path, strerror(errno));
        goto fail;
    }
    int need_header = sb.st_size == 0, need_newline = 0;
    long lines = 0;
    if (!need_header) {
        TL_TRYGOTO(read_first_line(fd, path, &first), st, fail);
        TL_TRYGOTO(same_header(path, first, header), st, fail);
        /* a file written by hand may end without one: the row starts its own line */
        char last = '\n';
        if (pread(fd, &last, 1, sb.st_size - 1) != 1) {
            st = TL_FAIL(TL_ERR_IO, "%s: read failed: %s", path, strerror(errno));
            goto fail;
        }
        need_newline = last != '\n';
        if (line) TL_TRYGOTO(count_lines(fd, path, sb.st_size, &lines), st, fail);
    }
    /* one write for header and row, so a reader never sees half of either */
    size_t n = (need_header ? hlen + 1 : 0) + (row ? (size_t)need_newline + rlen + 1 : 0);
    buf = malloc(n + 1);
    if (!buf) {
        st = TL_FAIL(TL_ERR_NOMEM, "%zu bytes", n);
        goto fail;
    }
    size_t at = 0;
    if (need_header) {
        memcpy(buf, header, hlen);
        buf[hlen] = '\n';
        at = hlen + 1;
    }
    if (row) {
        if (need_newline) buf[at++] = '\n';
        memcpy(buf + at, row, rlen);
        buf[at + rlen] = '\n';
    }
    /* the cleanup signals held off over the write: a SIGXFSZ (ulimit -f)
     * or a ^C inside it ended the program with half a row in the file,
     * before the write could return and be taken back (below) */
    sigset_t held;
    tl_tmpfile_hold(&held);
    if (n) st = write_all(fd, buf, n, path);
    if (n && st != TL_OK) {
        /* a write stopped short (a full disk, a file-size limit): the file
         * back to what it was, under the lock, so that no half row stays
         * for the next append to continue (before: '7,7,777777' and the
         * next row on its line) */
        if (ftruncate(fd, sb.st_size) < 0)
            tl_log("%s: could not take back a cut row: %s", path, strerror(errno));
        tl_tmpfile_release(&held);
        goto fail;
    }
    tl_tmpfile_release(&held);
    if (fresh) *fresh = need_header;
    if (line) *line = need_header ? 2 : lines + need_newline + 1;
fail:
    free(first);
    free(buf);
    close(fd); /* releases the lock */
    return st;
}

tl_status tl_results_append(const char *path, const char *header, const char *row, tl_results_rows *rows)
{
    TL_CHECK(path && header && row, TL_ERR_INVAL, "path, header and row are required");
    long line = 0;
    TL_TRY(results_write(path, header, row, NULL, rows ? &line : NULL));
    rows_take(rows, line);
    return TL_OK;
}

tl_status tl_results_start(const char *path, const char *header, int *fresh, long *next_line)
{
    TL_CHECK(path && header, TL_ERR_INVAL, "path and header are required");
    return results_write(path, header, NULL, fresh, next_line);
}

tl_status tl_file_write_atomic(const char *path, const void *data, size_t bytes)
{
    TL_CHECK(path && (data || bytes == 0), TL_ERR_INVAL, "path and data are required");
    tl_out o;
    TL_TRY(tl_out_open(&o, path));
    if (bytes && fwrite(data, 1, bytes, o.f) != bytes) {
        tl_status st = TL_FAIL(TL_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        tl_out_close(&o, 0);
        return st;
    }
    return tl_out_close(&o, 1);
}
