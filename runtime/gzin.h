/* An input file read as a stream of bytes, gzip (by its magic bytes,
 * whatever the name) or plain: the readers of matrices, traces and Kineto
 * JSON read through it, so that the three refuse the same damage.
 *
 * gzip through inflate itself, not gzread: gzread ignores bytes after the
 * last member, and a file with something appended is not the file that
 * was written (gzip -t warns about it, exit 2). Members may follow one
 * another (pigz, bgzip); anything else after a member is refused, as is
 * a member cut short. A pipe (<(zcat m.mtx.gz)) works: the two bytes
 * read to tell gzip from plain are kept. A .gz name decides only where the
 * bytes cannot: an empty file or 0x1f alone is gzip cut short. */
#ifndef TL_GZIN_H
#define TL_GZIN_H

#include <stddef.h>

#include "runtime/error.h"

typedef struct tl_gzin tl_gzin;

/* Opens path (one error line naming it: cannot open, gzip without zlib
 * in this build, or gzip data inside gzip data, a file gzipped twice,
 * which every reader would take for binary data: tl_gzin_twice_why). */
tl_status tl_gzin_open(const char *path, tl_gzin **in);
/* Up to n bytes into buf; *got is 0 only at the end of the input. An
 * error names `where` (the caller's place in the file, "m.mtx:1234"; NULL:
 * the path) and what is wrong. */
tl_status tl_gzin_read(tl_gzin *in, void *buf, size_t n, size_t *got, const char *where);
/* A gzip stream that ends inside a member (a file cut short: a copy
 * stopped, a disk full, a writer killed, where damage is refused
 * whatever this says): accept 1, the end of the input, what it held
 * handed over first, and tl_gzin_cut says so after; accept 0, an error
 * ending with hint (NULL: none), which says how to read it anyway. */
void tl_gzin_on_cut(tl_gzin *in, int accept, const char *hint);
int tl_gzin_cut(const tl_gzin *in);
void tl_gzin_close(tl_gzin *in);
/* Up to n bytes from the start of path's (decompressed) text into buf,
 * saying nothing: for format sniffers, which must stay silent on files
 * that are not theirs. Returns the bytes read (fewer at the end of the
 * data or at damage; -1: cannot open), *was_gzip whether it is gzip
 * (also where the build cannot read it: -1 then). */
long tl_gzin_peek(const char *path, void *buf, size_t n, int *was_gzip);
/* 1 when the first bytes tl_gzin_peek gave (`got` of them, `was_gzip` its
 * flag) are gzip's magic inside gzip: a file gzipped twice. */
int tl_gzin_inside(const void *head, long got, int was_gzip);
/* Why such a file is refused and how to mend it, the words every reader
 * says after "PATH: " (tl_gzin_open's line): `gzip data inside gzip data
 * (the file gzipped twice): gunzip it once, keeping its name (gunzip -c P >
 * P.once && mv P.once P)`, or for a name ending .gz.gz `gunzip it once
 * (gunzip -c X.gz.gz > X.gz)`. */
void tl_gzin_twice_why(const char *path, char *why, size_t n);

#endif
