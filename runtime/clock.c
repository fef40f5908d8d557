#include "runtime/clock.h"

#include <stdlib.h>
#include <time.h>

int64_t tl_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t tl_clock_test_skew(int rank)
{
    const char *s = getenv("TRILAP_TEST_CLOCK_SKEW");
    while (s && *s) {
        char *end = NULL;
        long r = strtol(s, &end, 10);
        if (end == s || *end != ':') return 0;
        const char *v = end + 1;
        long long ns = strtoll(v, &end, 10);
        if (end == v) return 0;
        if (r == rank) return ns;
        s = *end == ',' ? end + 1 : NULL;
    }
    return 0;
}
