/* An output file that appears complete or not at all, through tl_out
 * (runtime/out.h: a temporary name in the same folder, renamed on commit;
 * a device or pipe written in place); gzip-compressed when the name ends
 * in ".gz". Large buffers, so streaming writers (the generators) are not
 * bound by small writes. */
#ifndef TL_OUTFILE_H
#define TL_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/error.h"

typedef struct tl_outfile tl_outfile;

tl_status tl_outfile_open(const char *path, tl_outfile **out);
tl_status tl_outfile_write(tl_outfile *f, const void *data, size_t bytes);
tl_status tl_outfile_printf(tl_outfile *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Rewrite bytes at an absolute offset (plain files only: headers written last).
 * A writer that will ask first: TL_ERR_INVAL, naming the path, when f
 * writes a device or a pipe in place (runtime/out.h), before anything is
 * written there. */
tl_status tl_outfile_need_seek(const tl_outfile *f);
tl_status tl_outfile_pwrite(tl_outfile *f, const void *data, size_t bytes, int64_t offset);
/* All of commit but the rename: the gzip stream ended, the data flushed
 * and synced. A writer of files that belong together finishes each before
 * it commits any, so that only the renames lie between them. */
tl_status tl_outfile_finish(tl_outfile *f);
/* Finish, close, rename onto the final name. Frees *f (also on failure). */
tl_status tl_outfile_commit(tl_outfile **f);
/* Close and remove the temporary file; NULL-safe. */
void tl_outfile_abort(tl_outfile **f);

/* Does the name end in `suffix`? */
int tl_path_has_suffix(const char *path, const char *suffix);
/* Does the name say a matrix file: .tlcsr, .mtx, or .mtx.gz (.gz in any
 * case, as tl_out_names_gzip)? */
int tl_path_names_matrix(const char *path);
/* May a matrix be written at `path`: a name that says its format
 * (tl_path_names_matrix), or a stream written in place under any name
 * ("-", /dev/stdout, a FIFO: runtime/out.h), which takes Matrix Market
 * text (`trilap-matgen poisson7 50 - | gzip`). */
int tl_path_takes_matrix(const char *path);

/* What a text output is written as, for tl_path_refuse_text_binary. */
typedef enum { TL_TEXT_MATRIX_MARKET, TL_TEXT_CSV } tl_text_kind;
/* A text output (`it`: "x", "b", "a partition", "the history"), given by
 * `option` under a .tlcsr name, which every reader takes for a broken
 * binary matrix: one line on stderr, "PROG: invalid OPTION 'PATH': IT is
 * written as ... text; give it a ... name (try --help)", and 2; else 0
 * (NULL path: 0). trilap-solve and trilap-matgen each had a copy. */
int tl_path_refuse_text_binary(const char *prog, const char *option, const char *path, const char *it,
                               tl_text_kind kind);

#endif
