/* An input file, gzip or plain, read as a stream (see gzin.h). */
#include "runtime/gzin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#if TL_HAVE_ZLIB
#include <zlib.h>
#endif

enum { GZIN_CHUNK = 1 << 18 };

struct tl_gzin {
    char *path;
    FILE *fp;
    unsigned char head[2]; /* the magic bytes of a pipe, which cannot seek back */
    size_t nhead;
    int gz;
#if TL_HAVE_ZLIB
    z_stream zs;
    unsigned char *zin;
    int zeof, member_done;
    char corrupt[160]; /* zlib's word on damage found after bytes already handed over: said by the next read */
#endif
};

tl_status tl_gzin_open(const char *path, tl_gzin **out)
{
    *out = NULL;
    tl_gzin *in = calloc(1, sizeof *in);
    TL_CHECK(in, TL_ERR_NOMEM, "%s: reader", path);
    in->path = strdup(path);
    in->fp = in->path ? fopen(path, "rb") : NULL;
    if (!in->fp) {
        int e = errno;
        tl_gzin_close(in);
        return TL_FAIL(e == ENOMEM ? TL_ERR_NOMEM : TL_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    unsigned char head[2];
    size_t nhead = fread(head, 1, sizeof head, in->fp);
    in->gz = nhead == 2 && head[0] == 0x1f && head[1] == 0x8b;
    if (fseek(in->fp, 0, SEEK_SET) != 0) {
        int e = errno;
        if (e != ESPIPE) {
            tl_gzin_close(in);
            return TL_FAIL(TL_ERR_IO, "%s: cannot read: %s", path, strerror(e));
        }
        memcpy(in->head, head, nhead);
        in->nhead = nhead;
    }
#if TL_HAVE_ZLIB
    if (in->gz) {
        in->zin = malloc(GZIN_CHUNK);
        if (!in->zin || inflateInit2(&in->zs, 15 + 16) != Z_OK) {
            free(in->zin);
            in->zin = NULL;
            in->gz = 0; /* nothing to end in close */
            tl_gzin_close(in);
            return TL_FAIL(TL_ERR_NOMEM, "%s: gzip input buffer", path);
        }
        memcpy(in->zin, in->head, in->nhead);
        in->zs.next_in = in->zin;
        in->zs.avail_in = (unsigned)in->nhead;
        in->nhead = 0;
    }
#else
    size_t n = strlen(path);
    if (in->gz || (n > 3 && strcmp(path + n - 3, ".gz") == 0)) {
        tl_gzin_close(in);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "%s: reading gzip needs zlib (built without it)", path);
    }
#endif
    *out = in;
    return TL_OK;
}

#if TL_HAVE_ZLIB
static tl_status gz_read(tl_gzin *in, unsigned char *buf, size_t n, size_t *got, const char *where)
{
    z_stream *z = &in->zs;
    if (in->corrupt[0]) return TL_FAIL(TL_ERR_IO, "%s: truncated or corrupt file: %s", where, in->corrupt);
    unsigned room = n > (size_t)1 << 30 ? 1u << 30 : (unsigned)n;
    z->next_out = buf;
    z->avail_out = room;
    while (z->avail_out == room) {
        if (z->avail_in == 0 && !in->zeof) {
            size_t r = fread(in->zin, 1, GZIN_CHUNK, in->fp);
            if (r == 0 && ferror(in->fp)) return TL_FAIL(TL_ERR_IO, "%s: read error: %s", where, strerror(errno));
            if (r == 0) in->zeof = 1;
            z->next_in = in->zin;
            z->avail_in = (unsigned)r;
        }
        if (z->avail_in == 0) {
            if (!in->member_done)
                return TL_FAIL(TL_ERR_IO, "%s: truncated or corrupt file: gzip data ends inside a member", where);
            break;
        }
        if (in->member_done) {
            if (z->next_in[0] != 0x1f)
                return TL_FAIL(TL_ERR_PARSE, "%s: %u bytes or more after the end of the gzip data (not another gzip member)",
                               where, z->avail_in);
            inflateReset(z);
            in->member_done = 0;
        }
        int rc = inflate(z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) in->member_done = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(in->corrupt, sizeof in->corrupt, "%s", z->msg ? z->msg : "inflate failed");
            /* the bytes before the damage first, so that the caller's
             * place in the file counts them (as gzread hands them over) */
            if (z->avail_out < room) break;
            return TL_FAIL(TL_ERR_IO, "%s: truncated or corrupt file: %s", where, in->corrupt);
        }
    }
    *got = room - z->avail_out;
    return TL_OK;
}
#endif

tl_status tl_gzin_read(tl_gzin *in, void *buf, size_t n, size_t *got, const char *where)
{
    *got = 0;
    if (!where) where = in->path;
    if (n == 0) return TL_OK;
#if TL_HAVE_ZLIB
    if (in->gz) return gz_read(in, buf, n, got, where);
#endif
    unsigned char *b = buf;
    size_t k = 0;
    for (; k < n && in->nhead > 0; k++) { /* a pipe's magic bytes first */
        b[k] = in->head[0];
        in->head[0] = in->head[1];
        in->nhead--;
    }
    k += fread(b + k, 1, n - k, in->fp);
    if (k < n && ferror(in->fp)) return TL_FAIL(TL_ERR_IO, "%s: read error: %s", where, strerror(errno));
    *got = k;
    return TL_OK;
}

void tl_gzin_close(tl_gzin *in)
{
    if (!in) return;
#if TL_HAVE_ZLIB
    if (in->gz) inflateEnd(&in->zs);
    free(in->zin);
#endif
    if (in->fp) fclose(in->fp);
    free(in->path);
    free(in);
}
