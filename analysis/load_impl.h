/* Internal to the loader (load.c, load_scan.c, load_meta.c,
 * load_run_files.c): what its parts give each other. Named *_impl.h so
 * that make install leaves it out. */
#ifndef TL_ANALYSIS_LOAD_IMPL_H
#define TL_ANALYSIS_LOAD_IMPL_H

#include <stdint.h>

#include "analysis/analysis.h"

/* load_meta.c: a rank file's metadata */

/* The integer metadata key, *found 0 when the file does not say it; a
 * value that is no integer is refused, naming the file and the key. */
tl_status tl_an_meta_i64_read(const tl_trace_reader *rd, const char *path, const char *key, int64_t *out, int *found);
/* The Kineto GPU rows no tracer writes, as import carries them
 * (kineto_records.c), for the note tl_an_odd_rows_say prints. */
tl_status tl_an_odd_rows_meta_read(const tl_trace_reader *rd, const char *path, tl_an_meta *meta);
/* The clock metadata: clock_sync, the measured offset and drift, whether
 * the rank reads rank 0's very clock; meta->clock_aligned when the offset
 * is applied (not under TL_AN_RAW_CLOCK). */
tl_status tl_an_clock_meta_read(const tl_trace_reader *rd, const char *path, int flags, tl_an_meta *meta);
/* A time of the rank's clock on rank 0's: minus the offset at that time. */
int64_t tl_an_on_rank0_clock(const tl_an_meta *m, int64_t t);

/* load_scan.c: one rank's trace scanned */

/* A kernel, copy or memset. */
int tl_an_record_is_gpu_activity(const tl_trace_record *r);
/* tl_an_scan, also reading the trace's peers (analysis/peers.c) into
 * peers (names interning their names) where it is not NULL. */
tl_status tl_an_scan_with_peers(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                                tl_an_names *names, tl_an_peers *peers);

#endif
