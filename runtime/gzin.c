/* An input file, gzip or plain, read as a stream (see gzin.h). */
#include "runtime/gzin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "runtime/out.h"

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
    int accept_cut, was_cut; /* tl_gzin_on_cut */
    const char *cut_hint;
    char corrupt[160]; /* zlib's word on damage found after bytes already handed over: said by the next read */
    /* the first decompressed bytes, inflated at the open to tell a file
     * gzipped twice, handed over by the first read */
    unsigned char inner[2];
    size_t ninner;
#endif
};

#if TL_HAVE_ZLIB
static void gz_first_bytes(tl_gzin *in);
#endif

/* The reader, or NULL with the reason in why (a tl_status code returned). */
static tl_status open_quiet(const char *path, tl_gzin **out, char *why, size_t nwhy)
{
    *out = NULL;
    tl_gzin *in = calloc(1, sizeof *in);
    if (!in) return snprintf(why, nwhy, "reader"), TL_ERR_NOMEM;
    in->path = strdup(path);
    in->fp = in->path ? fopen(path, "rb") : NULL;
    if (!in->fp) {
        int e = errno;
        tl_gzin_close(in);
        snprintf(why, nwhy, "cannot open: %s", strerror(e));
        return e == ENOMEM ? TL_ERR_NOMEM : TL_ERR_IO;
    }
    struct stat sb;
    /* fopen takes a folder, whose first read said "read error: Is a directory" */
    if (fstat(fileno(in->fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        tl_gzin_close(in);
        snprintf(why, nwhy, "a folder, where a file is read");
        return TL_ERR_IO;
    }
    unsigned char head[2];
    size_t nhead = fread(head, 1, sizeof head, in->fp);
    in->gz = nhead == 2 && head[0] == 0x1f && head[1] == 0x8b;
    /* A .gz name over less than the magic, and what there is of it
     * (nothing, 0x1f alone), is a gzip file cut short (gzip -t: "unexpected
     * end of file"), refused as such by the first read; before, read as
     * text ("empty file", "bad banner"), while the same file cut after its
     * magic was refused. Other bytes stay text whatever the name, as zcat
     * -f reads them. */
    if (nhead < 2 && (nhead == 0 || head[0] == 0x1f) && tl_out_names_gzip(path)) in->gz = 1;
    if (fseek(in->fp, 0, SEEK_SET) != 0) {
        int e = errno;
        if (e != ESPIPE) {
            tl_gzin_close(in);
            snprintf(why, nwhy, "cannot read: %s", strerror(e));
            return TL_ERR_IO;
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
            snprintf(why, nwhy, "gzip input buffer");
            return TL_ERR_NOMEM;
        }
        memcpy(in->zin, in->head, in->nhead);
        in->zs.next_in = in->zin;
        in->zs.avail_in = (unsigned)in->nhead;
        in->nhead = 0;
        gz_first_bytes(in);
    }
#else
    if (in->gz || tl_out_names_gzip(path)) {
        tl_gzin_close(in);
        snprintf(why, nwhy, "reading gzip needs zlib (built without it)");
        return TL_ERR_UNSUPPORTED;
    }
#endif
    *out = in;
    return TL_OK;
}

int tl_gzin_inside(const void *head, long got, int was_gzip)
{
    const unsigned char *h = head;
    return was_gzip == 1 && got >= 2 && h[0] == 0x1f && h[1] == 0x8b;
}

void tl_gzin_twice_why(const char *path, char *why, size_t n)
{
    /* X.gz.gz: one .gz too many, dropped; any other name kept, since the
     * readers take gzip whatever the name and a rank folder holding both
     * trace.rank1.csv.gz and trace.rank1.csv has two files of rank 1 */
    size_t len = strlen(path);
    if (len > 6 && tl_out_names_gzip(path)) {
        char stem[4096];
        snprintf(stem, sizeof stem, "%.*s", (int)(len - 3), path);
        if (tl_out_names_gzip(stem)) {
            snprintf(why, n, "gzip data inside gzip data (the file gzipped twice): gunzip it once (gunzip -c %s > %s)",
                     path, stem);
            return;
        }
    }
    snprintf(why, n,
             "gzip data inside gzip data (the file gzipped twice): gunzip it once, keeping its name (gunzip -c %s > "
             "%s.once && mv %s.once %s)",
             path, path, path, path);
}

tl_status tl_gzin_open(const char *path, tl_gzin **out)
{
    char why[4096];
    tl_status code = open_quiet(path, out, why, sizeof why);
    if (code != TL_OK) return TL_FAIL(code, "%s: %s", path, why);
#if TL_HAVE_ZLIB
    /* whichever reader (matrices, traces, Kineto JSON): what it would see
     * is binary data ("NUL byte in line 1", "bad banner") */
    if (tl_gzin_inside((*out)->inner, (long)(*out)->ninner, (*out)->gz)) {
        tl_gzin_close(*out);
        *out = NULL;
        tl_gzin_twice_why(path, why, sizeof why);
        return TL_FAIL(TL_ERR_PARSE, "%s: %s", path, why);
    }
#endif
    return TL_OK;
}

#if TL_HAVE_ZLIB
static tl_status gz_read(tl_gzin *in, unsigned char *buf, size_t n, size_t *got, char *why, size_t nwhy)
{
    z_stream *z = &in->zs;
    if (in->corrupt[0]) return snprintf(why, nwhy, "truncated or corrupt file: %s", in->corrupt), TL_ERR_IO;
    unsigned room = n > (size_t)1 << 30 ? 1u << 30 : (unsigned)n;
    z->next_out = buf;
    z->avail_out = room;
    while (z->avail_out == room) {
        if (z->avail_in == 0 && !in->zeof) {
            size_t r = fread(in->zin, 1, GZIN_CHUNK, in->fp);
            if (r == 0 && ferror(in->fp)) return snprintf(why, nwhy, "read error: %s", strerror(errno)), TL_ERR_IO;
            if (r == 0) in->zeof = 1;
            z->next_in = in->zin;
            z->avail_in = (unsigned)r;
        }
        if (z->avail_in == 0) {
            if (!in->member_done && in->accept_cut) in->was_cut = 1; /* the end, what it held handed over */
            else if (!in->member_done)
                return snprintf(why, nwhy, "truncated or corrupt file: gzip data ends inside a member%s",
                                in->cut_hint ? in->cut_hint : ""),
                       TL_ERR_IO;
            break;
        }
        if (in->member_done) {
            if (z->next_in[0] != 0x1f)
                return snprintf(why, nwhy, "%u bytes or more after the end of the gzip data (not another gzip member)",
                                z->avail_in),
                       TL_ERR_PARSE;
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
            return snprintf(why, nwhy, "truncated or corrupt file: %s", in->corrupt), TL_ERR_IO;
        }
    }
    *got = room - z->avail_out;
    return TL_OK;
}
#endif

#if TL_HAVE_ZLIB
/* Up to two bytes inflated at the open (in->inner). What stops it short
 * is met again by the first read after them, which says it in the
 * caller's words: damage and bytes after the gzip data stay where they
 * are, and a member cut short is left to the caller's tl_gzin_on_cut
 * (accepted here, its mark taken back). */
static void gz_first_bytes(tl_gzin *in)
{
    char why[256];
    size_t got = 1;
    in->accept_cut = 1;
    while (in->ninner < sizeof in->inner && got > 0 &&
           gz_read(in, in->inner + in->ninner, sizeof in->inner - in->ninner, &got, why, sizeof why) == TL_OK)
        in->ninner += got;
    in->accept_cut = in->was_cut = 0;
}

/* gz_read after the bytes the open inflated, handed over alone so that an
 * error after them comes with the next read, as gz_read's own do */
static tl_status gz_read_after_first(tl_gzin *in, unsigned char *buf, size_t n, size_t *got, char *why, size_t nwhy)
{
    if (in->ninner > 0) {
        size_t k = in->ninner < n ? in->ninner : n;
        memcpy(buf, in->inner, k);
        memmove(in->inner, in->inner + k, in->ninner - k);
        in->ninner -= k;
        *got = k;
        return TL_OK;
    }
    return gz_read(in, buf, n, got, why, nwhy);
}
#endif

static tl_status read_quiet(tl_gzin *in, void *buf, size_t n, size_t *got, char *why, size_t nwhy)
{
    *got = 0;
    if (n == 0) return TL_OK;
#if TL_HAVE_ZLIB
    if (in->gz) return gz_read_after_first(in, buf, n, got, why, nwhy);
#endif
    unsigned char *b = buf;
    size_t k = 0;
    for (; k < n && in->nhead > 0; k++) { /* a pipe's magic bytes first */
        b[k] = in->head[0];
        in->head[0] = in->head[1];
        in->nhead--;
    }
    k += fread(b + k, 1, n - k, in->fp);
    if (k < n && ferror(in->fp)) return snprintf(why, nwhy, "read error: %s", strerror(errno)), TL_ERR_IO;
    *got = k;
    return TL_OK;
}

tl_status tl_gzin_read(tl_gzin *in, void *buf, size_t n, size_t *got, const char *where)
{
    char why[256];
    tl_status code = read_quiet(in, buf, n, got, why, sizeof why);
    return code == TL_OK ? TL_OK : TL_FAIL(code, "%s: %s", where ? where : in->path, why);
}

long tl_gzin_peek(const char *path, void *buf, size_t n, int *was_gzip)
{
    char why[256];
    tl_gzin *in = NULL;
    *was_gzip = 0;
    tl_status code = open_quiet(path, &in, why, sizeof why);
    *was_gzip = code == TL_ERR_UNSUPPORTED || (in && in->gz); /* unsupported: gzip in a build without zlib */
    if (code != TL_OK) return -1;
    size_t have = 0, got = 1;
    while (have < n && got > 0 && read_quiet(in, (char *)buf + have, n - have, &got, why, sizeof why) == TL_OK)
        have += got;
    tl_gzin_close(in);
    return (long)have;
}

void tl_gzin_on_cut(tl_gzin *in, int accept, const char *hint)
{
#if TL_HAVE_ZLIB
    in->accept_cut = accept;
    in->cut_hint = hint;
#else
    (void)in, (void)accept, (void)hint;
#endif
}

int tl_gzin_cut(const tl_gzin *in)
{
#if TL_HAVE_ZLIB
    return in->was_cut;
#else
    (void)in;
    return 0;
#endif
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
