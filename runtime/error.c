#include "runtime/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tl_status_names[TL_ERR_COUNT_] = {
    [TL_OK] = "success",
    [TL_ERR_CUDA] = "CUDA error",
    [TL_ERR_NCCL] = "NCCL error",
    [TL_ERR_MPI] = "MPI error",
    [TL_ERR_CUPTI] = "CUPTI error",
    [TL_ERR_IO] = "I/O error",
    [TL_ERR_PARSE] = "parse error",
    [TL_ERR_INVAL] = "invalid argument",
    [TL_ERR_NOMEM] = "out of memory",
    [TL_ERR_UNSUPPORTED] = "not supported",
    [TL_ERR_SYS] = "system error",
    [TL_ERR_TIMEOUT] = "timed out",
    [TL_ERR_NUMERIC] = "numerical breakdown",
    [TL_ERR_REMOTE] = "another rank failed",
};

const char *tl_strerror(tl_status st)
{
    if (st < 0 || st >= TL_ERR_COUNT_) return "unknown status";
    return tl_status_names[st];
}

static _Thread_local char tl_prefix_buf[TL_ERROR_PREFIX_MAX] = "trilap: ";

void tl_log_set_prefix(const char *program, int rank)
{
    if (rank >= 0)
        snprintf(tl_prefix_buf, sizeof tl_prefix_buf, "%s: rank %d: ", program, rank);
    else
        snprintf(tl_prefix_buf, sizeof tl_prefix_buf, "%s: ", program);
}

const char *tl_log_prefix(void) { return tl_prefix_buf; }

/* n bytes of s at *at in b (cap bytes), as many as fit before its NUL */
static void put(char *b, size_t cap, size_t *at, const char *s, size_t n)
{
    size_t room = cap - 1 - *at;
    if (n > room) n = room;
    memcpy(b + *at, s, n);
    *at += n;
    b[*at] = '\0';
}

void tl_error_context_begin(tl_error_context *k, const char *what)
{
    snprintf(k->saved, sizeof k->saved, "%s", tl_prefix_buf);
    size_t n = strlen(k->saved);
    if (n >= 2 && !strcmp(k->saved + n - 2, ": ")) k->saved[n - 2] = '\0';
    /* a context cut short says so: "n = 30000000000" cut to 40 characters
     * read "n = 3000000", a wrong number in the error line */
    const size_t cap = sizeof tl_prefix_buf, ns = strlen(k->saved), nw = strlen(what);
    size_t at = 0;
    put(tl_prefix_buf, cap, &at, k->saved, ns);
    put(tl_prefix_buf, cap, &at, ": ", 2);
    const size_t room = cap - 1 - at > 2 ? cap - 1 - at - 2 : 0; /* the closing ": " kept */
    if (nw <= room) {
        put(tl_prefix_buf, cap, &at, what, nw);
    } else {
        put(tl_prefix_buf, cap, &at, what, room > 3 ? room - 3 : 0);
        put(tl_prefix_buf, cap, &at, "...", 3);
    }
    put(tl_prefix_buf, cap, &at, ": ", 2);
}

void tl_error_context_end(const tl_error_context *k)
{
    snprintf(tl_prefix_buf, sizeof tl_prefix_buf, "%.*s: ", (int)sizeof tl_prefix_buf - 3, k->saved);
}

static const char *tl_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int tl_error_debug(void)
{
    /* read at each error rather than cached: errors are rare, and a cache
     * would be one more piece of mutable process state (--debug sets the
     * variable before any rank starts, so every rank sees it) */
    const char *v = getenv("TRILAP_DEBUG");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* A CUDA, NCCL, MPI or CUPTI failure is not the user's input: the call, the
 * file and the line are what a bug report needs, so they always show. */
static int internal_error(tl_status st)
{
    return st == TL_ERR_CUDA || st == TL_ERR_NCCL || st == TL_ERR_MPI || st == TL_ERR_CUPTI;
}

static _Thread_local int tl_reported;

int tl_error_reported(void) { return tl_reported; }

tl_status tl_error_report(tl_status st, const char *file, int line, const char *what,
                          const char *fmt, ...)
{
    char detail[1024] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
    }
    tl_reported++;
    if (!tl_error_debug() && !internal_error(st)) {
        /* the user's line: the message alone; the C condition and the
         * source position mean nothing to the person who typed the command */
        fprintf(stderr, "%s%s\n", tl_prefix_buf, detail[0] ? detail : tl_strerror(st));
        return st;
    }
    if (what && detail[0])
        fprintf(stderr, "%s%s:%d: %s: %s\n", tl_prefix_buf, tl_basename(file), line, what, detail);
    else
        fprintf(stderr, "%s%s:%d: %s\n", tl_prefix_buf, tl_basename(file), line,
                detail[0] ? detail : (what ? what : tl_strerror(st)));
    return st;
}

tl_status tl_error_frame(tl_status st, const char *file, int line)
{
    if (st != TL_ERR_REMOTE && (internal_error(st) || tl_error_debug()))
        fprintf(stderr, "%s    -> %s:%d\n", tl_prefix_buf, tl_basename(file), line);
    return st;
}

tl_status tl_error_errno(const char *file, int line, const char *expr)
{
    return tl_error_report(TL_ERR_SYS, file, line, expr, "%s", strerror(errno));
}

void tl_log(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s%s\n", tl_prefix_buf, msg);
}
