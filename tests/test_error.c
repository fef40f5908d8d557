#include "runtime/error.h"

#include <stdlib.h>

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

TL_TEST_MAIN(status_names, try_passes_status_up)
