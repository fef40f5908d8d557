/* The progress line: its one format (percent, done/total, elapsed<left,
 * rate), whole lines off a terminal only when asked, redraws in place on
 * a terminal, nothing at all when off. */
#include "runtime/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/error.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

TL_TEST(format)
{
    tl_progress p;
    tl_log_set_prefix("trilap-x", -1);
    tl_progress_begin_on(&p, stderr, 0, "stream --host", 100, "calls", TL_PROGRESS_ON);
    char line[256];
    p.done = 37;
    tl_progress_format(&p, 3.0, line, sizeof line);
    /* 37 calls in 3 s: 12.3 calls/s, 63 left: 5 s */
    TL_ASSERT_STREQ(line, "trilap-x: stream --host  37% 37/100 calls [00:03<00:05, 12.3 calls/s]");
    p.done = 100;
    tl_progress_format(&p, 3725.0, line, sizeof line);
    TL_ASSERT_STREQ(line, "trilap-x: stream --host 100% 100/100 calls [1:02:05, 0.0268 calls/s]");
    p.done = 0;
    tl_progress_format(&p, 0.5, line, sizeof line);
    TL_ASSERT_STREQ(line, "trilap-x: stream --host   0% 0/100 calls [00:00<?, ? calls/s]");
    /* no total: a count and a rate */
    tl_progress_begin_on(&p, stderr, 0, "import", 0, "rows", TL_PROGRESS_ON);
    p.done = 500;
    tl_progress_format(&p, 2.0, line, sizeof line);
    TL_ASSERT_STREQ(line, "trilap-x: import 500 rows [00:02, 250 rows/s]");
}

static char *run_to_file(int tty, tl_progress_mode mode)
{
    char path[300];
    snprintf(path, sizeof path, "%s/progress", tl_test_tmpdir());
    FILE *fp = fopen(path, "w");
    TL_ASSERT(fp);
    tl_progress p;
    tl_progress_begin_on(&p, fp, tty, "work", 3, "steps", mode);
    for (int i = 1; i <= 3; i++) tl_progress_update(&p, i);
    tl_progress_end(&p);
    tl_progress_end(&p); /* a second end prints nothing */
    fclose(fp);
    return tl_test_read(path);
}

TL_TEST(modes)
{
    tl_log_set_prefix("t", -1);
    char *s = run_to_file(0, TL_PROGRESS_AUTO); /* a log, not asked: silent */
    TL_ASSERT_STREQ(s, "");
    free(s);
    s = run_to_file(1, TL_PROGRESS_OFF);
    TL_ASSERT_STREQ(s, "");
    free(s);
    s = run_to_file(0, TL_PROGRESS_ON); /* asked off a terminal: whole lines, the last one final */
    TL_ASSERT_MSG(strstr(s, "t: work 100% 3/3 steps [00:00, ") && !strchr(s, '\r'), "%s", s);
    TL_ASSERT_EQ(s[strlen(s) - 1], '\n');
    free(s);
    s = run_to_file(1, TL_PROGRESS_AUTO); /* a terminal: redrawn in place, a newline at the end */
    TL_ASSERT_MSG(s[0] == '\r' && strstr(s, "\033[K") && strstr(s, "100% 3/3 steps"), "%s", s);
    TL_ASSERT_EQ(s[strlen(s) - 1], '\n');
    free(s);
}

/* A log line between two draws starts at the margin: on a terminal the
 * drawn line is wiped first; off one (whole lines) nothing is written. */
static char *clear_between(int tty)
{
    char path[512];
    snprintf(path, sizeof path, "%s/progress-clear", tl_test_tmpdir());
    FILE *fp = fopen(path, "w");
    TL_ASSERT(fp);
    tl_progress p;
    tl_progress_begin_on(&p, fp, tty, "work", 2, "steps", TL_PROGRESS_ON);
    nanosleep(&(struct timespec){.tv_sec = 1, .tv_nsec = 100000000}, NULL); /* past both periods */
    tl_progress_update(&p, 1);
    tl_progress_clear(&p);
    fputs("LOG\n", fp);
    tl_progress_update(&p, 2); /* drawn again at once after a clear */
    tl_progress_end(&p);
    fclose(fp);
    return tl_test_read(path);
}

TL_TEST(clear_before_a_log)
{
    tl_log_set_prefix("t", -1);
    char *s = clear_between(1);
    char *log = strstr(s, "LOG\n");
    TL_ASSERT_MSG(log && log - s >= 4 && strncmp(log - 4, "\r\033[K", 4) == 0, "%s", s);
    TL_ASSERT_MSG(strstr(log, "\r") && strstr(log, "100% 2/2 steps"), "%s", s);
    free(s);
    s = clear_between(0);
    TL_ASSERT_MSG(!strchr(s, '\r') && !strstr(s, "\033[K") && strstr(s, "LOG\n"), "%s", s);
    free(s);
}

TL_TEST_MAIN(format, modes, clear_before_a_log)
