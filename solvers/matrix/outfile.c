/* Plain or gzip output, written whole or not at all (runtime/out.h). */
#include "solvers/matrix/outfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "runtime/out.h"
#if TL_HAVE_ZLIB
#include <zlib.h>
#endif

struct tl_outfile {
    tl_out out; /* the file, whole or not at all; out.tmp empty: a device or pipe written in place */
    const char *path; /* out.path */
    FILE *fp;         /* out.f, for plain text */
#if TL_HAVE_ZLIB
    gzFile gz; /* over its own descriptor of the same file: gzclose leaves out.f to tl_out_close */
#endif
    char *vbuf;
};

enum { TL_OUTFILE_BUF = 1 << 22 };

int tl_path_has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && strcmp(path + n - m, suffix) == 0;
}

int tl_path_names_matrix(const char *path)
{
    size_t n = strlen(path);
    return tl_path_has_suffix(path, ".tlcsr") || tl_path_has_suffix(path, ".mtx") ||
           (tl_out_names_gzip(path) && n > 7 && !strncmp(path + n - 7, ".mtx", 4));
}

int tl_path_takes_matrix(const char *path)
{
    return tl_path_names_matrix(path) || tl_out_in_place(path);
}

int tl_path_refuse_text_binary(const char *prog, const char *option, const char *path, const char *it,
                               tl_text_kind kind)
{
    const int mm = kind == TL_TEXT_MATRIX_MARKET;
    if (!path || !tl_path_has_suffix(path, ".tlcsr")) return 0;
    fprintf(stderr, "%s: invalid %s '%s': %s is written as %s text; give it a %s name (try --help)\n", prog, option,
            path, it, mm ? "Matrix Market" : "CSV", mm ? ".mtx or .mtx.gz" : ".csv");
    return 2;
}

tl_status tl_outfile_open(const char *path, tl_outfile **out)
{
    tl_outfile *f = NULL;
    *out = NULL;
    TL_ALLOC(f, 1);
    tl_status st = tl_out_open(&f->out, path);
    if (st != TL_OK) {
        free(f);
        return st;
    }
    f->path = f->out.path;
    if (tl_out_names_gzip(path)) {
#if TL_HAVE_ZLIB
        int fd = dup(fileno(f->out.f));
        f->gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
        if (!f->gz) {
            if (fd >= 0) close(fd);
            goto nomem;
        }
        gzbuffer(f->gz, TL_OUTFILE_BUF);
#else
        tl_outfile_abort(&f);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "%s: writing gzip needs zlib (built without it)", path);
#endif
    } else {
        f->fp = f->out.f;
        f->vbuf = malloc(TL_OUTFILE_BUF);
        if (f->vbuf) setvbuf(f->fp, f->vbuf, _IOFBF, TL_OUTFILE_BUF);
    }
    *out = f;
    return TL_OK;
#if TL_HAVE_ZLIB
nomem:
    tl_outfile_abort(&f);
    return TL_FAIL(TL_ERR_NOMEM, "%s: cannot set up the output file", path);
#endif
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
    TL_CHECK(f->out.tmp[0], TL_ERR_INVAL,
             "%s: a device or a pipe, but this file's header is written last: write it to a file", f->path);
    return TL_OK;
}

tl_status tl_outfile_pwrite(tl_outfile *f, const void *data, size_t bytes, int64_t offset)
{
    TL_CHECK(f->fp, TL_ERR_INVAL, "%s: cannot rewrite a compressed file", f->path);
    if (fflush(f->fp) != 0 || pwrite(fileno(f->fp), data, bytes, (off_t)offset) != (ssize_t)bytes)
        return TL_FAIL(TL_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    return TL_OK;
}

tl_status tl_outfile_finish(tl_outfile *f)
{
#if TL_HAVE_ZLIB
    if (f->gz) {
        int err = gzclose(f->gz);
        f->gz = NULL;
        if (err != Z_OK)
            return TL_FAIL(TL_ERR_IO, "%s: write failed: %s", f->path,
                           err == Z_ERRNO ? strerror(errno) : "zlib could not finish the stream");
    }
#endif
    /* a device or a pipe has nothing to sync */
    if (fflush(f->out.f) != 0 || (f->out.tmp[0] && fsync(fileno(f->out.f)) != 0))
        return TL_FAIL(TL_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
    return TL_OK;
}

tl_status tl_outfile_commit(tl_outfile **pf)
{
    tl_outfile *f = *pf;
    tl_status st = tl_outfile_finish(f);
    if (st == TL_OK) st = tl_out_close(&f->out, 1);
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
    tl_out_close(&f->out, 0);
    free(f->vbuf);
    free(f);
    *pf = NULL;
}
