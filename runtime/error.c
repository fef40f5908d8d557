#include "runtime/error.h"

#include <errno.h>
#include <stdio.h>
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
    [TL_ERR_UNSUPPORTED] = "not supported in this build",
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

static _Thread_local char tl_prefix_buf[128] = "trilap: ";

void tl_log_set_prefix(const char *program, int rank)
{
    if (rank >= 0)
        snprintf(tl_prefix_buf, sizeof tl_prefix_buf, "%s: rank %d: ", program, rank);
    else
        snprintf(tl_prefix_buf, sizeof tl_prefix_buf, "%s: ", program);
}

const char *tl_log_prefix(void) { return tl_prefix_buf; }

static const char *tl_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

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
    if (what && detail[0])
        fprintf(stderr, "%s%s:%d: %s: %s\n", tl_prefix_buf, tl_basename(file), line, what, detail);
    else
        fprintf(stderr, "%s%s:%d: %s\n", tl_prefix_buf, tl_basename(file), line,
                detail[0] ? detail : (what ? what : tl_strerror(st)));
    return st;
}

tl_status tl_error_frame(tl_status st, const char *file, int line)
{
    if (st != TL_ERR_REMOTE) fprintf(stderr, "%s    -> %s:%d\n", tl_prefix_buf, tl_basename(file), line);
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
