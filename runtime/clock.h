/* The one monotonic clock of trilap: host timings, probes' host ranges and
 * the trace's time axis (CUPTI timestamps are converted to it). */
#ifndef TL_CLOCK_H
#define TL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t tl_clock_ns(void);

/* TRILAP_TEST_CLOCK_SKEW="RANK:NS[,RANK:NS...]" (tests only): the shift of
 * `rank`'s clock, 0 when not named. Read by the probes' clock alignment
 * and trace writer, which shifts every time it writes for that rank, so
 * the trace looks as if that rank's node clock were NS ahead. */
int64_t tl_clock_test_skew(int rank);

#endif
