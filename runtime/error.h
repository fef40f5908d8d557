/* Status codes and the checking macros every trilap file uses.
 *
 * A failing call prints one line where it failed,
 *   trilap-solve: rank 1: halo.c:88: cudaMalloc(&d_buf, 4096): out of memory
 * and every TL_TRY it passes through on the way up adds a frame,
 *     -> solver.c:120
 * so the log reads like a traceback. Library code returns the status; only
 * main() decides to exit. */
#ifndef TL_ERROR_H
#define TL_ERROR_H

#include <stdarg.h>

typedef int tl_status;

enum {
    TL_OK = 0,
    TL_ERR_CUDA,
    TL_ERR_NCCL,
    TL_ERR_MPI,
    TL_ERR_CUPTI,
    TL_ERR_IO,
    TL_ERR_PARSE,
    TL_ERR_INVAL,
    TL_ERR_NOMEM,
    TL_ERR_UNSUPPORTED,
    TL_ERR_SYS,
    TL_ERR_TIMEOUT,
    TL_ERR_NUMERIC,
    TL_ERR_REMOTE, /* another rank failed; this one stopped to avoid a hang */
    TL_ERR_COUNT_
};

const char *tl_strerror(tl_status st);

/* Set once per rank (thread or process) by the launcher; the error lines of
 * that thread carry it. Thread-local: the only mutable state outside a
 * context, because parsers and allocators report errors without one. */
void tl_log_set_prefix(const char *program, int rank);
const char *tl_log_prefix(void);

/* The input a check is about, said in its error line: between
 * tl_error_context_begin and _end this thread's error lines read
 * "program: WHAT: reason" (after the rank, where there is one), so a
 * refusal from a library names the option or list entry it came from
 * ("trilap-solve: --history: afile/h.csv: cannot write there: ..."). */
#define TL_ERROR_PREFIX_MAX 384 /* the program, the rank and the contexts' names of an error line */
typedef struct tl_error_context {
    char saved[TL_ERROR_PREFIX_MAX]; /* the prefix to restore, without its ": " */
} tl_error_context;
void tl_error_context_begin(tl_error_context *k, const char *what);
void tl_error_context_end(const tl_error_context *k);

/* TRILAP_DEBUG is set and not "0" (--debug sets it): developer detail. */
int tl_error_debug(void);
/* Errors this thread has reported so far: a caller that would add a closing
 * "failed" line adds it only when nothing has said why. */
int tl_error_reported(void);

/* Print "<prefix>detail" (debug or internal: "<prefix>file:line: what:
 * detail") once, return st. */
tl_status tl_error_report(tl_status st, const char *file, int line, const char *what,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Print "    -> file:line" for a status passing through (debug or internal). */
tl_status tl_error_frame(tl_status st, const char *file, int line);
/* Plain log line on stderr with the prefix (progress, warnings). */
void tl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define TL_FILE_ __FILE__

/* Pass a failing status up, adding a frame. */
#define TL_TRY(expr)                                                        \
    do {                                                                    \
        tl_status tl_st_ = (expr);                                          \
        if (tl_st_ != TL_OK) return tl_error_frame(tl_st_, TL_FILE_, __LINE__); \
    } while (0)

/* Same, but jump to a cleanup label with the status stored in `res`. */
#define TL_TRYGOTO(expr, res, label)                                        \
    do {                                                                    \
        (res) = (expr);                                                     \
        if ((res) != TL_OK) {                                               \
            tl_error_frame((res), TL_FILE_, __LINE__);                      \
            goto label;                                                     \
        }                                                                   \
    } while (0)

/* Precondition: TL_CHECK(n > 0, TL_ERR_INVAL, "n=%d", n) */
#define TL_CHECK(cond, code, ...)                                           \
    do {                                                                    \
        if (!(cond)) return tl_error_report((code), TL_FILE_, __LINE__, #cond, __VA_ARGS__); \
    } while (0)
#define TL_CHECKGOTO(cond, code, res, label, ...)                           \
    do {                                                                    \
        if (!(cond)) {                                                      \
            (res) = tl_error_report((code), TL_FILE_, __LINE__, #cond, __VA_ARGS__); \
            goto label;                                                     \
        }                                                                   \
    } while (0)

/* Raise an error unconditionally: return TL_FAIL(TL_ERR_PARSE, "%s:%d: bad banner", f, l); */
#define TL_FAIL(code, ...) tl_error_report((code), TL_FILE_, __LINE__, NULL, __VA_ARGS__)

/* libc / POSIX calls that return -1 (or NULL via TL_SYSP) and set errno. */
tl_status tl_error_errno(const char *file, int line, const char *expr);
#define TL_SYS(expr)                                                        \
    do {                                                                    \
        if ((expr) < 0) return tl_error_errno(TL_FILE_, __LINE__, #expr);   \
    } while (0)

/* Allocation: TL_ALLOC(p, n) allocates n elements of *p, zeroed. */
#define TL_ALLOC(p, n)                                                      \
    do {                                                                    \
        size_t tl_n_ = (size_t)(n);                                         \
        (p) = calloc(tl_n_ ? tl_n_ : 1, sizeof(*(p)));                      \
        if (!(p)) return tl_error_report(TL_ERR_NOMEM, TL_FILE_, __LINE__, "calloc", \
                                         "%zu x %zu bytes", tl_n_, sizeof(*(p))); \
    } while (0)

/* Library-specific wrappers (TL_CUDA, TL_NCCL, TL_MPI, TL_CUPTI) live in
 * runtime/check_cuda.h and runtime/check_mpi.h so host-only files need not
 * include those libraries. */

#endif
