/* Built-in SimGrid platforms (the papers' machines and the lent H200
 * pair) and the writer that turns one into a platform file for N GPUs. */
#ifndef TL_MODEL_PLATFORM_H
#define TL_MODEL_PLATFORM_H

#include "runtime/error.h"

typedef struct tl_mplatform {
    const char *name;    /* "a100-hdr" */
    const char *gpu;     /* for output */
    const char *network; /* for output */
    int gpus_per_node;
    double mem_gbs;      /* nominal memory bandwidth: scales the measured kernel times */
    const char *devices; /* the CUDA device names ('|' between) whose nominal bandwidth mem_gbs is */
    double mem_gb;       /* memory per GPU, GiB (the vendor's "GB", nvidia-smi's MiB / 1024): a part must fit it */
    double port_gbs, port_lat_us; /* per GPU, into the node's switch (NVLink / PCIe) */
    double nic_gbs, nic_lat_us;   /* per GPU NIC between nodes; 0: one node, no network */
    double core_lat_us;           /* the fat tree's switches */
} tl_mplatform;

/* What a run changes in a platform: the NCCL engine's rate beside compute
 * (model/README.md: measured), and a port fitted to measurements
 * (port_gbs <= 0, port_lat_us < 0: the table's). */
typedef struct tl_mplatform_params {
    double nccl_rate;
    double port_gbs, port_lat_us;
} tl_mplatform_params;

const tl_mplatform *tl_mplatform_find(const char *name);
const tl_mplatform *tl_mplatform_at(int i); /* NULL past the last */
const char *tl_mplatform_choices(void);
/* The platform whose GPU a manifest's gpu.rank<R> model names (runtime's
 * cudaGetDeviceProperties name, e.g. "NVIDIA H200"), NULL where none is:
 * its mem_gbs is that GPU's nominal memory bandwidth. */
const tl_mplatform *tl_mplatform_of_device(const char *device);

/* The most GPUs a built-in platform is written for: a simulation of
 * 4,096 takes minutes a schedule, and the file of every route (`trilap-model
 * platform`) N^2 of them (165 MB of XML at 1,024 GPUs, 2.6 GB at 4,096). */
#define TL_MPLATFORM_MAX_GPUS 4096

/* The most GPUs a platform holds: one node's where it has no network
 * (rtx6000-pcie, seed paper 2's machine), else TL_MPLATFORM_MAX_GPUS. */
int tl_mplatform_max_gpus(const tl_mplatform *p);
/* 0 when every count fits p (counts, n of them, as --gpus listed them in
 * `list`); else 2, after one line naming the list and the reason. */
int tl_mplatform_gpus_refused(const tl_mplatform *p, const int *counts, int n, const char *list);

/* The platform file for nranks GPUs at path (temporary name, then rename),
 * every route listed: a file for any job (trilap-model platform). */
tl_status tl_mplatform_write(const tl_mplatform *p, const tl_mplatform_params *q, int nranks, const char *path);

/* The zone property of a written file naming the built-in platform it was
 * written for (`<prop id="trilap_platform" value="h100-ndr"/>`). */
#define TL_MPLATFORM_GPU_PROP "trilap_platform"
/* The built-in platform a platform file names by that property, as
 * `trilap-model platform` writes it: TL_OK with *out NULL where the file
 * names none (a user's own); TL_ERR_PARSE, said in one line naming the
 * file and line, where it names no built-in one; TL_ERR_IO where it
 * cannot be read. */
tl_status tl_mplatform_named_by(const char *path, const tl_mplatform **out);

struct tl_mjob;
/* The same platform for j's ranks with only the routes j's messages take
 * (tl_mjob_each_route), which is all SimGrid looks up: the same
 * simulation, where every route of 4,096 GPUs was 2.6 GB of XML that
 * took SimGrid about 2 minutes to read for each schedule. */
tl_status tl_mplatform_write_job(const tl_mplatform *p, const tl_mplatform_params *q, const struct tl_mjob *j,
                                 const char *path);

#endif
