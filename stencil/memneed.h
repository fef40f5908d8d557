/* What a run's arrays will claim, checked before any is allocated: a grid
 * the host or a GPU cannot hold is refused in one line naming the need and
 * what is available, not killed by the kernel (or failed by cudaMalloc)
 * half-way through the set-up. */
#ifndef TL_FDTD_MEMNEED_H
#define TL_FDTD_MEMNEED_H

#include "stencil/fdtd_impl.h"

/* Bytes of subdomain sd's arrays on its backend: the four fields, the
 * material arrays of a layered medium, the CPML memory slabs, the
 * profiles, and the ghost messages it sends and receives. */
double tl_fdtd_sub_bytes(const tl_fdtd *f, int sd);
/* "the 1250x1250x1250 grid (order 8, CPML 20, float)" into buf */
const char *tl_fdtd_run_label(const tl_fdtd *f, char *buf, size_t n);
/* The subdomains this process holds, against the host's available
 * memory (the cpu backend), plus `extra` bytes of staging. */
tl_status tl_fdtd_check_host_memory(const tl_fdtd *f, double extra);

/* Before anything is printed or built, in one process: the four fields
 * over all the points, a lower bound of the cpu backend's need, against
 * the host. The exact need is checked again when the arrays are set up. */
tl_status tl_fdtd_check_host_memory_early(const tl_fdtd_config *c);

/* The same on several ranks, one subdomain each (collective on ctx): each
 * subdomain's exact need (tl_fdtd_sub_bytes, from its layout; nothing
 * allocated), added up over the ranks that share a host's memory (the
 * same host name: every thread rank of a process, the MPI ranks of a
 * node), against that host's available memory. The set-up's check, rank
 * by rank and rank 0 first, cannot add them up. One line from rank 0 for
 * the first host short of memory; TL_ERR_REMOTE on the others. */
tl_status tl_fdtd_check_host_memory_ranks(const tl_fdtd_config *c, tl_ctx *ctx);

#endif
