/* Internal to the Matrix Market reader (mmio.c, mmio_src.c, mmio_lex.c,
 * mmio_header.c, mmio_vector.c): the line source, the header and the
 * triplets its parts share, and what they give each other. Named *_impl.h
 * so that make install leaves it out. */
#ifndef TL_MMIO_IMPL_H
#define TL_MMIO_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/gzin.h"
#include "solvers/matrix/mmio.h"

typedef struct tl_mm_src {
    const char *name;
    tl_gzin *in; /* a file, gzip or plain (runtime/gzin.h) */
    const char *mem;
    size_t memlen, mempos;
    char *buf;
    size_t cap; /* buffer bytes (plus one for a final NUL); the longest line */
    size_t beg, end;
    int eof;
    int64_t lineno;
} tl_mm_src;

typedef enum { TL_MM_COORD, TL_MM_ARRAY } tl_mm_format;

typedef struct tl_mm_header {
    tl_mm_format format;
    tl_mm_field field;
    tl_mm_symmetry symmetry;
    int64_t nrows, ncols, nentries;
} tl_mm_header;

/* Growable triplet list. Grows with the file, not with the declared count,
 * so a lying header cannot make us allocate more than the data holds. */
typedef struct tl_mm_trip {
    int64_t *i, *j;
    double *v;
    int64_t n, cap;
} tl_mm_trip;

/* mmio_src.c: the line source */

/* Open a file, gzip or plain, for reading line by line. */
tl_status tl_mm_src_open_file(tl_mm_src *s, const char *path);
/* Read `len` bytes at `data` line by line; `name` stands for the file in messages. */
tl_status tl_mm_src_open_mem(tl_mm_src *s, const char *name, const char *data, size_t len);
/* Close the file and free the buffer (of a source that failed to open too). */
void tl_mm_src_close(tl_mm_src *s);
/* Append more bytes after s->end; sets eof at the end of input. */
tl_status tl_mm_src_fill(tl_mm_src *s);
/* Next line, NUL-terminated, without its newline; *line = NULL at the end of input. */
tl_status tl_mm_src_line(tl_mm_src *s, char **line);
/* Next line that is neither a comment nor blank; *line = NULL at the end of input. */
tl_status tl_mm_src_data_line(tl_mm_src *s, char **line);

/* mmio_lex.c: the numbers and words of a line */

/* Whether only blanks (space, tab, \r, \f, \v) are left at p. */
int tl_mm_is_blank(const char *p);
/* One decimal integer token at *p, *p moved past it; 0, or a code for tl_mm_num_reason. */
int tl_mm_parse_i64(const char **p, int64_t *v);
/* One finite decimal real token at *p, *p moved past it; 0, or a code for tl_mm_num_reason. */
int tl_mm_parse_f64(const char **p, double *v);
/* Why a token was refused, from the parsers' code: "missing", "not a number", ... */
const char *tl_mm_num_reason(int rc);
/* Copy the next whitespace-separated word, lower-cased; NULL at the end. */
const char *tl_mm_next_word(const char **p, char *out, size_t cap);

/* mmio_header.c: the banner and the size line */

/* Read and check the header into h; max_dim > 0 refuses more rows or columns. */
tl_status tl_mm_read_header(tl_mm_src *s, tl_mm_header *h, int64_t max_dim);

/* mmio.c: coordinate entries (vectors read them too) */

/* Read the coordinate entries into t, expanding symmetric storage. */
tl_status tl_mm_read_coord(tl_mm_src *s, const tl_mm_header *h, tl_mm_trip *t);
/* Free the triplets and zero t. */
void tl_mm_trip_free(tl_mm_trip *t);
/* Refuse, before it is allocated, a declared matrix the host cannot hold while reading it. */
tl_status tl_mm_check_memory(const tl_mm_src *s, const tl_mm_header *h);

#endif
