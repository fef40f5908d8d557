/* One output file, written whole or not at all.
 *
 * It is written under a temporary name beside it (unique to the process
 * and thread, registered with tmpfile.h so that a signal removes it),
 * synced, and renamed over the path on commit; abort, or a failed commit,
 * removes it and leaves the path as it was. tl_file_write_atomic
 * (results.h) writes a whole buffer through it.
 *
 * A path that exists and is neither a regular file nor a folder (a device
 * such as /dev/null, the terminal or pipe behind /dev/stdout, a FIFO, a
 * socket) is written in place: a rename would put a regular file where
 * the device or pipe was (root may, even in /dev), and a stream's reader
 * takes what arrives anyway. */
#ifndef TL_OUT_H
#define TL_OUT_H

#include <stdio.h>

#include "runtime/error.h"

typedef struct tl_out {
    FILE *f;
    FILE *gz;                   /* tl_out_open_text on a .gz name: the gzip stream into f's file; NULL: none */
    char path[4096], tmp[4200]; /* tmp empty: written in place */
    char target[4096];          /* what the rename replaces: path, or the file its link names */
} tl_out;

/* mkdir -p: the folder and its parents, each made registered with
 * tmpfile.h (removed, while empty, if the program fails); an error names
 * the folder that could not be made, or a path that exists and is no
 * folder. */
tl_status tl_mkdir_p(const char *dir);
/* The same, the first (highest) folder it made in first ("" where dir
 * was there already): what a program may say it created. */
tl_status tl_mkdir_p_first(const char *dir, char *first, size_t nfirst);
/* mkdir -p of the folder that holds `path` (nothing for a bare file name). */
tl_status tl_mkdir_parent(const char *path);
/* The folder an output option needs, made before the work and said: the
 * one `path` goes in (TL_OUT_FOLDER_OF_FILE: --results out/x/r.csv,
 * out/x) or `path` itself (TL_OUT_FOLDER_ITSELF: --trace DIR). Where any
 * part of it is missing it is made (tl_mkdir_p_first: removed, while
 * empty, if the program fails) and one line on stderr names the highest
 * folder made, the wording of every output of every program:
 *   trilap-fdtd: note: --seismogram out/x/s.csv: created folder out/x
 *   trilap-solve: note: --history h/x/h.csv: created folders h to h/x
 * so that a typo in a path shows at once instead of a tree made in
 * silence. Nothing is said where it is there; path NULL or "": nothing
 * to make. For one process (tl_results_make_folder: rank 0 of a run). */
typedef enum { TL_OUT_FOLDER_OF_FILE, TL_OUT_FOLDER_ITSELF } tl_out_folder;
tl_status tl_out_make_folder(const char *program, const char *option, const char *path, tl_out_folder which);

/* Open `path` for writing, making the folders it goes in; o->f takes
 * the text. */
tl_status tl_out_open(tl_out *o, const char *path);
/* Whether path names a gzip file: it ends in .gz, in any case (X.JSON.GZ
 * held plain text where .gz alone was gzip'd). */
int tl_out_names_gzip(const char *path);
/* As tl_out_open, *text the stream to write: gzip'd through zlib where
 * the name ends in .gz (tl_out_names_gzip; a stream of its own over the file's descriptor,
 * ended by tl_out_close before the file is put in place), else o->f.
 * Without zlib a .gz name is refused, naming the path. */
tl_status tl_out_open_text(tl_out *o, const char *path, FILE **text);
/* commit: close and put the file in place (an error names the path and
 * leaves it untouched); not commit: close and drop what was written.
 * Closing a closed (or zeroed) tl_out does nothing. */
tl_status tl_out_close(tl_out *o, int commit);
/* 1 when `path` is written in place (above): also a path under /dev or
 * /proc, or a link through them (/dev/stdout is one whatever the shell
 * sent the stream to), and "-", stdout. A link to a file is followed: the
 * file is replaced whole, the link stays. */
int tl_out_in_place(const char *path);
/* Where a write to `path` lands: a link at its last component followed to
 * the file it names (as tl_out_open follows it: that file replaced, the
 * link kept; also a link whose file is not there yet), into buf (n
 * bytes), which is returned; `path` itself for a stream or device. So
 * link.csv -> d/x.csv and d/x.csv are told to be one file. */
const char *tl_out_written_at(const char *path, char *buf, size_t n);
/* Whether `path` could be written, before the work that makes it: not a
 * folder; a file or stream that is there takes writes; else the nearest
 * folder above it that exists is a folder this process may write in (the
 * writers make the missing ones). One line naming the path and the
 * reason on failure. */
tl_status tl_out_check(const char *path);
/* The same for a folder the work will fill (a trace folder): it, or the
 * nearest folder above it that exists, is a folder this process may
 * write in. */
tl_status tl_out_check_folder(const char *dir);
/* Whether files can be made in existing folder dir: 0, or the errno that
 * refuses them (as root, by making and removing one: access() lets root
 * through where sysfs or a root-squashed export refuses it a file) */
int tl_out_folder_refuses(const char *dir);
/* The folder an output at `path` lands on: the one it is in, or the
 * nearest above it that exists (the writers make the missing ones), in at
 * (n bytes); 0, or the errno of a stat that failed otherwise. */
int tl_out_nearest_folder(const char *path, char *at, size_t n);
/* check(path), its error line naming the option the path came from
 * ("prog: --history: a/h.csv: cannot write there: a is not a folder");
 * option NULL: the path alone. */
tl_status tl_out_check_as(const char *option, tl_status (*check)(const char *path), const char *path);

/* The files one run writes, for refusing two of them at one path: the
 * second would replace the first's table without a word (same.csv and
 * ./same.csv, or a folder reached through a link, alike). */
enum { TL_OUT_SET_MAX = 16 };
typedef struct tl_out_set {
    size_t n;
    struct {
        char option[128]; /* a longer label is kept cut, ending in "..." */
        char at[4352]; /* the folder resolved, then the name */
    } f[TL_OUT_SET_MAX];
} tl_out_set;
/* Add `path`, written for `option` ("--history"); 1, after one line
 * "PROGRAM: --A and --B both name PATH: give each a file of its own",
 * when it lands where an earlier one does. A stream or device
 * (tl_out_in_place) takes both, and is not kept; past TL_OUT_SET_MAX
 * files none is. */
int tl_out_set_add(tl_out_set *s, const char *program, const char *option, const char *path);
/* The same test without keeping `path`: 1, after the same line, when it
 * lands where an entry of s does, or under one (the entries are files
 * then: "PROGRAM: --A PATH lies under the file --B names: ..."). For
 * outputs checked against a few files (a trace folder per run against the
 * results file and its manifest), which would fill the set. */
int tl_out_set_meets(const tl_out_set *s, const char *program, const char *option, const char *path);

/* Whether process pid of this host is gone, or only a zombie (killed,
 * not yet reaped): a writer that will not finish what it began. */
int tl_out_writer_gone(long pid);
/* Removes target's temporaries (tl_out_open's TARGET.tmp.PID.TID.N) that a
 * killed writer left (SIGKILL skips the cleanup): its process gone and the
 * file a minute old, where a live one lasts the milliseconds of a write.
 * Best effort, in silence; for a caller that holds a lock every writer of
 * target takes (manifest.txt's folder lock). */
void tl_out_remove_dead_temporaries(const char *target);

/* Whether output `out` would replace input `in`: both regular files
 * there, one file (a link or another spelling alike). A stream or a
 * device is never the same (/dev/stdin and /dev/stdout may be one tty). */
int tl_out_same_file(const char *out, const char *in);
/* tl_out_same_file against each input (NULL entries skipped): 1 after one
 * line "PROGRAM: OPTION PATH would write over the input INPUT: give the
 * output a file of its own"; else 0. */
int tl_out_replaces_input(const char *program, const char *option, const char *out, const char *const *inputs,
                          size_t ninputs);

#endif
