/* The one monotonic clock of trilap: host timings, probes' host ranges and
 * the trace's time axis (CUPTI timestamps are converted to it). */
#ifndef TL_CLOCK_H
#define TL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t tl_clock_ns(void);

#endif
