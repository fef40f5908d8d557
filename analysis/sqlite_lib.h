/* The part of SQLite 3's C interface that the Nsight Systems reader
 * (nsys.c) uses, found at run time in libsqlite3.so.0 rather than linked.
 * GPU nodes often lack libsqlite3-dev, so a build there had no reader, and
 * `nsys export --type sqlite` followed by `trilap-analyze diagnose` failed
 * on the very node that made the export (session35's first-hour run). The
 * library itself comes with nearly every distribution (Python and Nsight
 * Systems depend on it); its interface has been stable since 3.6.
 *
 * The constants are SQLite's own values (sqlite3.h); the pointers are
 * called with the library's types, opaque here. */
#ifndef TL_ANALYSIS_SQLITE_LIB_H
#define TL_ANALYSIS_SQLITE_LIB_H

#include "runtime/error.h"

typedef struct tl_an_sqlite_db tl_an_sqlite_db;     /* sqlite3 */
typedef struct tl_an_sqlite_stmt tl_an_sqlite_stmt; /* sqlite3_stmt */

enum {
    TL_SQ_OK = 0,
    TL_SQ_NOMEM = 7,
    TL_SQ_ROW = 100,
    TL_SQ_DONE = 101,
    TL_SQ_INTEGER = 1,
    TL_SQ_FLOAT = 2,
    TL_SQ_TEXT = 3,
    TL_SQ_BLOB = 4,
    TL_SQ_NULL = 5,
    TL_SQ_OPEN_READONLY = 0x01,
    TL_SQ_OPEN_URI = 0x40,
};

typedef struct tl_an_sqlite {
    void *lib; /* the dlopen handle */
    int (*open_v2)(const char *, tl_an_sqlite_db **, int, const char *);
    int (*close)(tl_an_sqlite_db *);
    const char *(*errmsg)(tl_an_sqlite_db *);
    int (*exec)(tl_an_sqlite_db *, const char *, int (*)(void *, int, char **, char **), void *, char **);
    int (*prepare_v2)(tl_an_sqlite_db *, const char *, int, tl_an_sqlite_stmt **, const char **);
    int (*step)(tl_an_sqlite_stmt *);
    int (*finalize)(tl_an_sqlite_stmt *);
    int (*bind_int)(tl_an_sqlite_stmt *, int, int);
    int (*bind_int64)(tl_an_sqlite_stmt *, int, long long);
    /* the destructor NULL is SQLITE_STATIC: the text outlives the statement */
    int (*bind_text)(tl_an_sqlite_stmt *, int, const char *, int, void (*)(void *));
    int (*column_type)(tl_an_sqlite_stmt *, int);
    int (*column_int)(tl_an_sqlite_stmt *, int);
    long long (*column_int64)(tl_an_sqlite_stmt *, int);
    const unsigned char *(*column_text)(tl_an_sqlite_stmt *, int);
} tl_an_sqlite;

/* Loads the library for reading `path` (named in the error): one line that
 * says which library is missing or which symbol it lacks, and how to get it. */
tl_status tl_an_sqlite_load(tl_an_sqlite *sq, const char *path);
void tl_an_sqlite_unload(tl_an_sqlite *sq);

#endif
