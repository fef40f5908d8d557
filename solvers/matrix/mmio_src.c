/* The Matrix Market reader's line source: one buffered source over a file
 * (gzip or plain, runtime/gzin.h) or a memory buffer (the fuzzer's), giving
 * NUL-terminated lines and naming file and line in its errors. */
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/mmio_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gzin.h"

enum { MM_BUF = 1 << 20 }; /* also the longest accepted line */

tl_status tl_mm_src_open_file(tl_mm_src *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->name = path;
    TL_TRY(tl_gzin_open(path, &s->in));
    s->cap = MM_BUF;
    s->buf = malloc(s->cap + 1);
    if (!s->buf) return TL_FAIL(TL_ERR_NOMEM, "%s: line buffer", path);
    return TL_OK;
}

tl_status tl_mm_src_open_mem(tl_mm_src *s, const char *name, const char *data, size_t len)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->mem = data;
    s->memlen = len;
    s->cap = len < MM_BUF ? len + 1 : MM_BUF; /* small inputs (the fuzzer's) need no megabyte */
    s->buf = malloc(s->cap + 1);
    if (!s->buf) return TL_FAIL(TL_ERR_NOMEM, "%s: line buffer", name);
    return TL_OK;
}

void tl_mm_src_close(tl_mm_src *s)
{
    tl_gzin_close(s->in);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

/* Append more bytes after s->end; sets eof at the end of input. Errors
 * name the line being read. */
tl_status tl_mm_src_fill(tl_mm_src *s)
{
    size_t room = s->cap - s->end;
    size_t got = 0;
    if (s->mem) {
        got = s->memlen - s->mempos < room ? s->memlen - s->mempos : room;
        memcpy(s->buf + s->end, s->mem + s->mempos, got);
        s->mempos += got;
    } else {
        char where[4200];
        snprintf(where, sizeof where, "%s:%lld", s->name, (long long)s->lineno + 1);
        TL_TRY(tl_gzin_read(s->in, s->buf + s->end, room, &got, where));
    }
    s->end += got;
    if (got == 0) s->eof = 1;
    return TL_OK;
}

/* Next line, NUL-terminated, without its newline (and a trailing \r).
 * *line = NULL at the end of input. */
tl_status tl_mm_src_line(tl_mm_src *s, char **line)
{
    for (;;) {
        char *start = s->buf + s->beg;
        char *nl = memchr(start, '\n', s->end - s->beg);
        if (nl || (s->eof && s->end > s->beg)) {
            char *stop = nl ? nl : s->buf + s->end;
            s->beg = nl ? (size_t)(nl - s->buf) + 1 : s->end;
            s->lineno++;
            if (memchr(start, '\0', (size_t)(stop - start)) != NULL)
                return TL_FAIL(TL_ERR_PARSE, "%s:%lld: binary data (a NUL byte) in a text file",
                               s->name, (long long)s->lineno);
            *stop = '\0';
            if (stop > start && stop[-1] == '\r') stop[-1] = '\0';
            *line = start;
            return TL_OK;
        }
        if (s->eof) {
            *line = NULL;
            return TL_OK;
        }
        if (s->beg > 0) {
            memmove(s->buf, s->buf + s->beg, s->end - s->beg);
            s->end -= s->beg;
            s->beg = 0;
        }
        if (s->end == s->cap)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: line longer than %zu bytes", s->name,
                           (long long)s->lineno + 1, s->cap);
        TL_TRY(tl_mm_src_fill(s));
    }
}

/* Next line that is neither a comment nor blank. */
tl_status tl_mm_src_data_line(tl_mm_src *s, char **line)
{
    for (;;) {
        TL_TRY(tl_mm_src_line(s, line));
        if (!*line) return TL_OK;
        if ((*line)[0] != '%' && !tl_mm_is_blank(*line)) return TL_OK;
    }
}
