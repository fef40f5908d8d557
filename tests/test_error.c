#include "runtime/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tl_test.h"

static tl_status fails_inner(void) { return TL_FAIL(TL_ERR_PARSE, "m.mtx:3: bad banner"); }
static tl_status fails_outer(void)
{
    TL_TRY(fails_inner());
    return TL_OK;
}
static tl_status checks(int n)
{
    TL_CHECK(n > 0, TL_ERR_INVAL, "n=%d", n);
    return TL_OK;
}

TL_TEST(status_names)
{
    TL_ASSERT_STREQ(tl_strerror(TL_OK), "success");
    TL_ASSERT_STREQ(tl_strerror(TL_ERR_NOMEM), "out of memory");
    TL_ASSERT_STREQ(tl_strerror(-3), "unknown status");
}

TL_TEST(try_passes_status_up)
{
    tl_log_set_prefix("trilap-test", 1);
    TL_ASSERT_EQ(fails_outer(), TL_ERR_PARSE);
    TL_ASSERT_EQ(checks(0), TL_ERR_INVAL);
    TL_ASSERT_EQ(checks(3), TL_OK);
    TL_ASSERT_STREQ(tl_log_prefix(), "trilap-test: rank 1: ");
}

/* Run f with stderr captured into buf. */
static tl_status captured(tl_status (*f)(void), char *buf, size_t n)
{
    char path[300];
    snprintf(path, sizeof path, "%s/err", tl_test_tmpdir());
    fflush(stderr);
    int se = dup(2);
    if (!freopen(path, "w", stderr)) return TL_ERR_IO;
    tl_status st = f();
    fflush(stderr);
    dup2(se, 2);
    close(se);
    FILE *fp = fopen(path, "r");
    size_t got = fp ? fread(buf, 1, n - 1, fp) : 0;
    buf[got] = '\0';
    if (fp) fclose(fp);
    return st;
}

static tl_status check_zero(void)
{
    TL_TRY(checks(0));
    return TL_OK;
}
static tl_status cuda_like(void)
{
    TL_TRY(tl_error_report(TL_ERR_CUDA, __FILE__, __LINE__, "cudaMalloc(&d, 8)", "out of memory"));
    return TL_OK;
}

/* The user's line: the message alone, no position, no C condition, no
 * frames; --debug (TRILAP_DEBUG=1) brings all three back. */
TL_TEST(user_line_and_debug_detail)
{
    char err[4096];
    tl_log_set_prefix("trilap-test", -1);
    unsetenv("TRILAP_DEBUG");
    int before = tl_error_reported();
    TL_ASSERT_EQ(captured(check_zero, err, sizeof err), TL_ERR_INVAL);
    TL_ASSERT_STREQ(err, "trilap-test: n=0\n");
    TL_ASSERT_EQ(tl_error_reported(), before + 1);
    setenv("TRILAP_DEBUG", "1", 1);
    TL_ASSERT_EQ(captured(check_zero, err, sizeof err), TL_ERR_INVAL);
    TL_ASSERT_MSG(strstr(err, "test_error.c:") && strstr(err, "n > 0: n=0") && strstr(err, "    -> test_error.c:"),
                  "%s", err);
    unsetenv("TRILAP_DEBUG");
}

/* An internal failure (CUDA, NCCL, MPI, CUPTI) always shows the call and
 * where, and its frames: a bug report needs them. */
TL_TEST(internal_errors_keep_position)
{
    char err[4096];
    tl_log_set_prefix("trilap-test", -1);
    unsetenv("TRILAP_DEBUG");
    TL_ASSERT_EQ(captured(cuda_like, err, sizeof err), TL_ERR_CUDA);
    TL_ASSERT_MSG(strstr(err, "test_error.c:") && strstr(err, "cudaMalloc(&d, 8): out of memory") && strstr(err, "->"),
                  "%s", err);
    TL_ASSERT_STREQ(tl_strerror(TL_ERR_UNSUPPORTED), "not supported");
}

/* A context's name is said whole: trilap-fdtd's "verify convergence,
 * order 2, n = 30000000000" was cut to 40 characters, "... n = 3000000",
 * a wrong number in the line. One too long for the line is cut with
 * "...", and the prefix before it comes back whole at the end. */
TL_TEST(context_names_said_whole)
{
    tl_log_set_prefix("trilap-fdtd", -1);
    tl_error_context k;
    tl_error_context_begin(&k, "verify convergence, order 2, n = 30000000000");
    TL_ASSERT_STREQ(tl_log_prefix(), "trilap-fdtd: verify convergence, order 2, n = 30000000000: ");
    tl_error_context inner;
    char long_name[1000];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    tl_error_context_begin(&inner, long_name);
    const char *p = tl_log_prefix();
    size_t n = strlen(p);
    TL_ASSERT_MSG(!strncmp(p, "trilap-fdtd: verify convergence, order 2, n = 30000000000: xxx", 62) &&
                      n < TL_ERROR_PREFIX_MAX && !strcmp(p + n - 7, "xx...: "),
                  "%s", p);
    tl_error_context_end(&inner);
    TL_ASSERT_STREQ(tl_log_prefix(), "trilap-fdtd: verify convergence, order 2, n = 30000000000: ");
    tl_error_context_end(&k);
    TL_ASSERT_STREQ(tl_log_prefix(), "trilap-fdtd: ");
}

TL_TEST_MAIN(status_names, try_passes_status_up, user_line_and_debug_detail, internal_errors_keep_position,
             context_names_said_whole)
