/* Atomic (temp + rename) plain or gzip output. */
#include "solvers/matrix/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "runtime/out.h"
#include "runtime/tmpfile.h"
#if TL_HAVE_ZLIB
#include <zlib.h>
#endif

struct tl_outfile {
    char *path, *tmp;
    FILE *fp;
#if TL_HAVE_ZLIB
    gzFile gz;
#endif
    char *vbuf;
};

enum { TL_OUTFILE_BUF = 1 << 22 };

int tl_path_has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && strcmp(path + n - m, suffix) == 0;
}

/* f's stream over fd: gzip by the path's suffix, else buffered plain. */
static tl_status wrap(tl_outfile *f, int fd, const char *path, tl_outfile **out)
{
    if (tl_path_has_suffix(path, ".gz")) {
#if TL_HAVE_ZLIB
        f->gz = gzdopen(fd, "wb6");
        if (!f->gz) goto nomem;
        gzbuffer(f->gz, TL_OUTFILE_BUF);
#else
        close(fd);
        tl_outfile_abort(&f);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "%s: writing gzip needs zlib (built without it)", path);
#endif
    } else {
        f->fp = fdopen(fd, "wb");
        if (!f->fp) goto nomem;
        f->vbuf = malloc(TL_OUTFILE_BUF);
        if (f->vbuf) setvbuf(f->fp, f->vbuf, _IOFBF, TL_OUTFILE_BUF);
    }
    *out = f;
    return TL_OK;
nomem:
    if (!f->fp) close(fd);
    tl_outfile_abort(&f);
    return TL_FAIL(TL_ERR_NOMEM, "%s: cannot set up the output file", path);
}

tl_status tl_outfile_open(const char *path, tl_outfile **out)
{
    tl_outfile *f = NULL;
    *out = NULL;
    TL_ALLOC(f, 1);
    f->path = strdup(path);
    if (!f->path) goto nomem;
    if (tl_out_in_place(path)) { /* a device or a pipe (runtime/out.h): written as it is */
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            tl_status st = TL_FAIL(TL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
            tl_outfile_abort(&f);
            return st;
        }
        return wrap(f, fd, path, out);
    }
    size_t n = strlen(path);
    f->tmp = malloc(n + 16);
    if (!f->tmp) goto nomem;
    snprintf(f->tmp, n + 16, "%s.tmp.XXXXXX", path);
    sigset_t held;
    tl_tmpfile_hold(&held);
    int fd = mkstemp(f->tmp);
    tl_status reg = fd >= 0 ? tl_tmpfile_add(f->tmp, TL_TMP_FILE) : TL_OK;
    tl_tmpfile_release(&held);
    if (reg != TL_OK) {
        close(fd);
        tl_outfile_abort(&f);
        return reg;
    }
    if (fd < 0) {
        tl_status st = TL_FAIL(TL_ERR_IO, "%s: cannot create a temporary file beside it: %s", path,
                               strerror(errno));
        free(f->tmp);
        f->tmp = NULL;
        tl_outfile_abort(&f);
        return st;
    }
    fchmod(fd, 0644); /* mkstemp makes 0600; results are meant to be shared */
    return wrap(f, fd, path, out);
nomem:
    tl_outfile_abort(&f);
    return TL_FAIL(TL_ERR_NOMEM, "%s: cannot set up the output file", path);
}

tl_status tl_outfile_write(tl_outfile *f, const void *data, size_t bytes)
{
    if (bytes == 0) return TL_OK;
#if TL_HAVE_ZLIB
    if (f->gz) {
        const char *p = data;
        while (bytes > 0) {
            unsigned chunk = bytes > (1u << 30) ? (1u << 30) : (unsigned)bytes;
            if (gzwrite(f->gz, p, chunk) != (int)chunk) {
                int err;
                const char *msg = gzerror(f->gz, &err);
                return TL_FAIL(TL_ERR_IO, "%s: write failed: %s", f->path, msg);
            }
            p += chunk;
            bytes -= chunk;
        }
        return TL_OK;
    }
#endif
    if (fwrite(data, 1, bytes, f->fp) != bytes)
        return TL_FAIL(TL_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    return TL_OK;
}

tl_status tl_outfile_printf(tl_outfile *f, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    TL_CHECK(n >= 0 && (size_t)n < sizeof buf, TL_ERR_INVAL, "%s: formatted line too long",
             f->path);
    return tl_outfile_write(f, buf, (size_t)n);
}

tl_status tl_outfile_need_seek(const tl_outfile *f)
{
    TL_CHECK(f->tmp, TL_ERR_INVAL, "%s: a device or a pipe, but this file's header is written last: write it to a file",
             f->path);
    return TL_OK;
}

tl_status tl_outfile_pwrite(tl_outfile *f, const void *data, size_t bytes, int64_t offset)
{
    TL_CHECK(f->fp, TL_ERR_INVAL, "%s: cannot rewrite a compressed file", f->path);
    if (fflush(f->fp) != 0 || pwrite(fileno(f->fp), data, bytes, (off_t)offset) != (ssize_t)bytes)
        return TL_FAIL(TL_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    return TL_OK;
}

tl_status tl_outfile_commit(tl_outfile **pf)
{
    tl_outfile *f = *pf;
    tl_status st = TL_OK;
    int bad = 0;
#if TL_HAVE_ZLIB
    if (f->gz) {
        bad = gzclose(f->gz) != Z_OK;
        f->gz = NULL;
    }
#endif
    if (f->fp) {
        bad = fclose(f->fp) != 0;
        f->fp = NULL;
    }
    if (bad) {
        st = TL_FAIL(TL_ERR_IO, "%s: closing failed: %s", f->path, strerror(errno));
    } else if (f->tmp && rename(f->tmp, f->path) != 0) {
        st = TL_FAIL(TL_ERR_IO, "%s: rename from %s failed: %s", f->path, f->tmp, strerror(errno));
    } else if (f->tmp) { /* else written in place */
        tl_tmpfile_forget(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
    }
    tl_outfile_abort(pf);
    return st;
}

void tl_outfile_abort(tl_outfile **pf)
{
    tl_outfile *f = pf ? *pf : NULL;
    if (!f) return;
#if TL_HAVE_ZLIB
    if (f->gz) gzclose(f->gz);
#endif
    if (f->fp) fclose(f->fp);
    if (f->tmp) {
        unlink(f->tmp);
        tl_tmpfile_forget(f->tmp);
    }
    free(f->vbuf);
    free(f->tmp);
    free(f->path);
    free(f);
    *pf = NULL;
}
