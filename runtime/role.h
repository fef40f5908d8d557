/* Stream roles: the one vocabulary for what a CUDA stream is for, used by
 * the runtime (which stream to create), the probes (the trace's `lane`
 * column), the microbenchmark and the applications' schedules. The first
 * TL_ROLE_NSTREAMS roles are streams every rank's tl_gpu owns; host and
 * other only label trace records. */
#ifndef TL_ROLE_H
#define TL_ROLE_H

#include "runtime/error.h"

typedef enum {
    TL_ROLE_NONE = -1,   /* an operation that is not run (microbench variants) */
    TL_ROLE_COMPUTE = 0, /* kernels of the numerical method */
    TL_ROLE_P2P,         /* halo / ring send-recv */
    TL_ROLE_COLL,        /* allreduce of the dots */
    TL_ROLE_COPY,        /* host <-> device staging, pack/unpack copies */
    TL_ROLE_HOST,        /* host activity (trace lane only) */
    TL_ROLE_OTHER,       /* a stream nobody registered (trace lane only) */
    TL_ROLE_COUNT
} tl_role;

enum { TL_ROLE_NSTREAMS = TL_ROLE_COPY + 1 };

/* "compute", "p2p", "coll", "copy", "host", "other"; "none" for NONE, "?" out of range. */
const char *tl_role_name(tl_role r);
/* Quiet TL_ERR_PARSE on an unknown name (the caller names the input). */
tl_status tl_role_parse(const char *s, tl_role *out);

#endif
