/* Provenance shared by the run manifest (runtime/manifest.c) and the trace
 * metadata (probes/probes.c): every field names its value or why there is
 * none, so that a result never reads "unknown" without a reason. Plain C,
 * no CUDA: the probes' shared libraries link it. */
#ifndef TL_PROVENANCE_H
#define TL_PROVENANCE_H

#include <stddef.h>

/* The commit this build was made from (mk/rules.mk bakes it in from git or
 * .trilap-commit), with the reason when it is unknown or the tree was dirty:
 *   "1db48034f93d", "1db48034f93d-dirty (the build tree had uncommitted changes)",
 *   "unknown (built outside a git checkout and without .trilap-commit)" */
const char *tl_provenance_commit(char *buf, size_t n);

/* The NVIDIA kernel module's version ("580.95.05") from
 * /proc/driver/nvidia/version; "" when no NVIDIA driver is loaded. */
void tl_provenance_driver_module(char *buf, size_t n);

#endif
