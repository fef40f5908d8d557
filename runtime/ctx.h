/* The rank context: everything a rank's code needs, passed first to every
 * call. One per rank, whether ranks are MPI processes or threads of one
 * process, so the same code runs under both launchers. */
#ifndef TL_CTX_H
#define TL_CTX_H

#include <stdint.h>

#include "config.h"
#include "runtime/error.h"

typedef enum { TL_LAUNCH_AUTO = 0, TL_LAUNCH_THREADS, TL_LAUNCH_MPI } tl_launch_mode;

typedef struct tl_hostcomm tl_hostcomm; /* runtime/comm.h */
typedef struct tl_gpu tl_gpu;           /* runtime/gpu.h */
typedef struct tl_probes tl_probes;     /* probes/probes.h */
typedef struct tl_comm_marks tl_comm_marks; /* runtime/marks.h */
typedef struct tl_trace_request tl_trace_request; /* probes/probes.h */

typedef struct tl_ctx {
    const char *program;    /* "trilap-bench", for messages */
    int rank, size;         /* in the world */
    int local_rank, local_size; /* on this host */
    int device;             /* CUDA device bound to this rank, -1 for none */
    int host_only;          /* the command asked for no GPU (--no-gpu, a host backend, a host program) */
    int gpu_shared;         /* other ranks of this host use the same device (--device-comm host) */
    int device_comm;        /* tl_devcomm_kind chosen with --device-comm (runtime/devcomm.h) */
    double timeout_s;       /* --nccl-timeout: watched GPU waits give up after this long, and so do
                               the probes' clock exchange's waits where it is shorter than theirs */
    tl_launch_mode mode;    /* THREADS or MPI once launched */
    tl_hostcomm *hc;        /* host collectives and messages (MPI or threads) */
    tl_gpu *gpu;            /* streams and NCCL communicators; NULL until tl_gpu_create */
    tl_probes *probes;      /* tracing; NULL when off */
    const tl_trace_request *trace; /* what the program was asked to trace (--trace), set by the
                                      probes' rank main wrapper; NULL: nothing */
    const tl_comm_marks *marks; /* host communication marks (runtime/marks.h), set by the probes */
    const void *opts;       /* the program's parsed options, read-only */
    int argc;
    char **argv;            /* the command line, for manifests */
} tl_ctx;

#endif
