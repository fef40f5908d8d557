/* Host memory an input may still claim, checked before a large
 * allocation: Linux overcommits, so a calloc of 30 GB "succeeds" and the
 * kernel kills the program when the pages are touched. Every reader and
 * generator asks here first and refuses what cannot fit, in one line
 * naming the need and what is available. */
#ifndef TL_HOSTMEM_H
#define TL_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/error.h"

/* MemAvailable from /proc/meminfo (sysconf's available pages where there
 * is none), lowered to what RLIMIT_AS (ulimit -v) leaves when that is
 * set: the limit less what the process maps now (VmSize), which the limit
 * counts too. TRILAP_TEST_HOST_MEM (bytes) replaces it, so tests can
 * play a small machine. */
tl_status tl_hostmem_available(double *bytes);

/* The same in its two parts: `host`, what the machine has available
 * (MemAvailable, or TRILAP_TEST_HOST_MEM), which every process on it
 * shares, and `process`, what RLIMIT_AS leaves this process, its own
 * (INFINITY where no limit is set, or TRILAP_TEST_HOST_MEM is).
 * tl_hostmem_available is the lesser. */
tl_status tl_hostmem_rooms(double *host, double *process);

/* TL_ERR_NOMEM when `need` bytes exceed what is available:
 * "<what> needs 31.9 GiB of host memory; 21.7 GiB is available". */
tl_status tl_hostmem_check(const char *what, double need);

/* A byte count from the environment variable `name` (the tests' stand-ins
 * for a machine's memory): *set = 0 when it is unset or empty, else the
 * value; TL_ERR_INVAL when it is not a byte count. */
tl_status tl_env_bytes(const char *name, double *bytes, int *set);

/* Bytes as "31.9 GiB" / "512.0 MiB" into buf. */
const char *tl_bytes_str(double bytes, char *buf, size_t n);

#endif
