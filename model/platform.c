/* Built-in platforms: the papers' machines and the lent H200 pair, written
 * out as SimGrid platform files (one zone, Full routing: every route
 * listed, so what a message crosses is explicit). Per GPU: host gpu<R>
 * (compute), host nccl<R> (the NCCL engine: alone, and beside compute), a
 * full-duplex port into the node's switch (NVSwitch or the PCIe root) and a
 * full-duplex NIC; one shared core link per fat tree carries every
 * inter-node message, so NICs and the core contend. Host cpu<N> per node
 * stages host-staged halos over the GPUs' ports. A job's platform lists
 * only the routes its messages take; `trilap-model platform` all of them. */
#include "model/platform.h"

#include "model/model.h"
#include "runtime/out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Latencies per hop are NCCL's own LL-protocol hardware latencies
 * (src/graph/tuning.cc, hwLat: NVLink ~0.5 us, PCI 1.0 us, network 5 us
 * split over NIC, core, NIC). Bandwidths: vendor sheets and the centres'
 * node descriptions, except the H200 pair's port, measured
 * (results/comm-h200x2: sendrecv at 128 MB, 287 GB/s). Memory bandwidths
 * (mem_gbs) are NVIDIA's datasheet figures of the devices named, the
 * nominal figure a calibration of that device is scaled from: H200 SXM
 * and NVL 4.8 TB/s; A100 SXM 80 GB 2,039 GB/s, also taken for Leonardo's
 * 64 GB part, which has no public figure of its own; H100 SXM5 80 GB
 * 3.35 TB/s; Quadro RTX 6000 672 GB/s. A device of the same family with
 * another figure (A100 40 GB 1,555 GB/s, H100 PCIe 2.0 TB/s) is not
 * listed: its calibration is refused rather than scaled by a wrong one. */
static const tl_mplatform platforms[] = {
    {.name = "h200-nvlink",
     .gpu = "H200 SXM (141 GB)",
     .network = "NVLink 4 (NV18) inside one node; NDR 400 Gb/s NIC per GPU beyond",
     .gpus_per_node = 8,
     .mem_gbs = 4800,
     .devices = "NVIDIA H200|NVIDIA H200 NVL",
     .mem_gb = 141,
     .port_gbs = 287,
     .port_lat_us = 0.5,
     .nic_gbs = 50,
     .nic_lat_us = 2.0,
     .core_lat_us = 1.0},
    {.name = "a100-hdr",
     .gpu = "A100 SXM (Leonardo Booster: 4 per node)",
     .network = "NVLink 3 inside a node; HDR100 (100 Gb/s) per GPU, fat tree",
     .gpus_per_node = 4,
     .mem_gbs = 2039,
     .devices = "NVIDIA A100-SXM4-80GB|NVIDIA A100-SXM-64GB",
     .mem_gb = 64,
     .port_gbs = 200,
     .port_lat_us = 0.5,
     .nic_gbs = 12.5,
     .nic_lat_us = 2.0,
     .core_lat_us = 1.0},
    {.name = "h100-ndr",
     .gpu = "H100 SXM (MareNostrum 5 ACC: 4 per node)",
     .network = "NVLink 4 inside a node; NDR200 (200 Gb/s) per GPU, fat tree",
     .gpus_per_node = 4,
     .mem_gbs = 3350,
     .devices = "NVIDIA H100 80GB HBM3",
     .mem_gb = 64,
     .port_gbs = 300,
     .port_lat_us = 0.5,
     .nic_gbs = 25,
     .nic_lat_us = 2.0,
     .core_lat_us = 1.0},
    {.name = "rtx6000-pcie",
     .gpu = "Quadro RTX 6000 (4 in one PCIe node)",
     .network = "PCIe 3.0 x16 per GPU to the root complex; no network",
     .gpus_per_node = 4,
     .mem_gbs = 672,
     .devices = "Quadro RTX 6000",
     .mem_gb = 24,
     .port_gbs = 12,
     .port_lat_us = 1.0},
};

const tl_mplatform *tl_mplatform_find(const char *name)
{
    for (size_t i = 0; i < sizeof platforms / sizeof platforms[0]; i++)
        if (strcmp(platforms[i].name, name) == 0) return &platforms[i];
    return NULL;
}

const char *tl_mplatform_choices(void)
{
    return "h200-nvlink|a100-hdr|h100-ndr|rtx6000-pcie";
}

const tl_mplatform *tl_mplatform_of_device(const char *device)
{
    size_t len = strlen(device);
    for (size_t i = 0; i < sizeof platforms / sizeof platforms[0]; i++)
        for (const char *d = platforms[i].devices; *d; d += strcspn(d, "|"), d += *d == '|') {
            size_t n = strcspn(d, "|");
            if (n == len && strncmp(d, device, n) == 0) return &platforms[i];
        }
    return NULL;
}

const tl_mplatform *tl_mplatform_at(int i)
{
    return i >= 0 && i < (int)(sizeof platforms / sizeof platforms[0]) ? &platforms[i] : NULL;
}

int tl_mplatform_max_gpus(const tl_mplatform *p)
{
    return p->nic_gbs > 0 ? TL_MPLATFORM_MAX_GPUS : p->gpus_per_node;
}

/* Before, 8 or 64 GPUs of rtx6000-pcie were predicted over a NIC and a fat
 * tree the platform does not have ("no network" in the preamble). */
int tl_mplatform_gpus_refused(const tl_mplatform *p, const int *counts, int n, const char *list)
{
    for (int i = 0; i < n; i++)
        if (counts[i] > tl_mplatform_max_gpus(p)) {
            fprintf(stderr,
                    "trilap-model: invalid --gpus '%s': %s is one node of %d GPUs without a network (%s); for more, "
                    "a platform file with one (solver --platform-file; model/README.md)\n",
                    list, p->name, p->gpus_per_node, p->gpu);
            return 2;
        }
    return 0;
}

static void link_ctn(FILE *f, const char *prefix, int i, const char *dir)
{
    fprintf(f, "<link_ctn id=\"%s%d\" direction=\"%s\"/>", prefix, i, dir);
}

/* Host number of a route's end: gpu<R> is R, cpu<N> is nranks + N. */
static int64_t route_end(int cpu, int i, int nranks)
{
    return cpu ? (int64_t)nranks + i : i;
}

/* The route from host a to host b (route_end numbers) as the platform
 * has it: GPUs of one node over their ports, of two nodes over their NICs
 * and the core; a GPU to its node's host over its port (host staging).
 * 0, nothing written, where the platform has no such route. */
static int write_route(FILE *f, const tl_mplatform *p, int nranks, int64_t a, int64_t b)
{
    int g = p->gpus_per_node;
    int a_cpu = a >= nranks, b_cpu = b >= nranks;
    int ai = (int)(a_cpu ? a - nranks : a), bi = (int)(b_cpu ? b - nranks : b);
    if (a == b || (a_cpu && b_cpu) || (a_cpu && ai != bi / g) || (b_cpu && bi != ai / g)) return 0;
    fprintf(f, "<route src=\"%s%d\" dst=\"%s%d\" symmetrical=\"NO\">", a_cpu ? "cpu" : "gpu", ai,
            b_cpu ? "cpu" : "gpu", bi);
    if (a_cpu || b_cpu) {
        link_ctn(f, "port", a_cpu ? bi : ai, a_cpu ? "DOWN" : "UP");
    } else if (ai / g == bi / g) {
        link_ctn(f, "port", ai, "UP");
        link_ctn(f, "port", bi, "DOWN");
    } else {
        link_ctn(f, "nic", ai, "UP");
        fprintf(f, "<link_ctn id=\"core\"/>");
        link_ctn(f, "nic", bi, "DOWN");
    }
    fprintf(f, "</route>\n");
    return 1;
}

/* The routes a job takes, each once: (src << 32 | dst) keys */
typedef struct route_set {
    int64_t *key;
    size_t n, cap;
    int nranks;
} route_set;

static int route_collect(const tl_mroute *rt, void *arg)
{
    route_set *rs = arg;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 1024;
        int64_t *k = realloc(rs->key, cap * sizeof *k);
        if (!k) return 1;
        rs->key = k;
        rs->cap = cap;
    }
    rs->key[rs->n++] = route_end(rt->src_cpu, rt->src, rs->nranks) << 32 | route_end(rt->dst_cpu, rt->dst, rs->nranks);
    return 0;
}

static int key_order(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Every route between the platform's hosts, or (j) those j's messages take */
static tl_status write_routes(FILE *f, const tl_mplatform *p, int nranks, const tl_mjob *j)
{
    int g = p->gpus_per_node, nodes = (nranks + g - 1) / g;
    if (!j) {
        for (int64_t a = 0; a < nranks + nodes; a++)
            for (int64_t b = 0; b < nranks + nodes; b++) write_route(f, p, nranks, a, b);
        return TL_OK;
    }
    route_set rs = {.nranks = nranks};
    int *node = malloc((size_t)nranks * sizeof *node);
    int failed = !node;
    for (int r = 0; node && r < nranks; r++) node[r] = r / g;
    if (node) failed = tl_mjob_each_route(j, node, route_collect, &rs);
    free(node);
    if (failed) {
        free(rs.key);
        return TL_FAIL(TL_ERR_NOMEM, "the routes of %d GPUs", nranks);
    }
    if (rs.n) qsort(rs.key, rs.n, sizeof *rs.key, key_order);
    for (size_t i = 0; i < rs.n; i++)
        if (i == 0 || rs.key[i] != rs.key[i - 1]) write_route(f, p, nranks, rs.key[i] >> 32, rs.key[i] & 0xffffffff);
    free(rs.key);
    return TL_OK;
}

static tl_status write_platform(const tl_mplatform *p, const tl_mplatform_params *q, int nranks, const tl_mjob *j,
                                const char *path)
{
    TL_CHECK(nranks >= 1 && nranks <= tl_mplatform_max_gpus(p), TL_ERR_INVAL, "%d GPUs of %s (1 to %d)", nranks,
             p->name, tl_mplatform_max_gpus(p));
    TL_CHECK(q->nccl_rate > 0 && q->nccl_rate <= 1, TL_ERR_INVAL,
             "the NCCL rate beside compute must lie in (0, 1] (got %g)", q->nccl_rate);
    tl_out o;
    TL_TRY(tl_out_open(&o, path));
    FILE *f = o.f;
    double port_gbs = q->port_gbs > 0 ? q->port_gbs : p->port_gbs;
    double port_lat = q->port_lat_us >= 0 ? q->port_lat_us : p->port_lat_us;
    int g = p->gpus_per_node;
    int nodes = (nranks + g - 1) / g;
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(f, "<!-- trilap-model built-in platform %s: %s; %s; %d GPUs, %d per node -->\n", p->name, p->gpu,
            p->network, nranks, g);
    /* the GPU it was written for, which solver --platform-file takes for
     * the kernels where --platform is not given (TL_MPLATFORM_GPU_PROP) */
    fprintf(f, "<platform version=\"4.1\">\n<zone id=\"world\" routing=\"Full\">\n<prop id=\"%s\" value=\"%s\"/>\n",
            TL_MPLATFORM_GPU_PROP, p->name);
    for (int r = 0; r < nranks; r++) {
        fprintf(f, "<host id=\"gpu%d\" speed=\"1Gf\"><prop id=\"node\" value=\"%d\"/></host>\n", r, r / g);
        /* cores: NCCL kernels of different communicators run side by side */
        fprintf(f, "<host id=\"nccl%d\" speed=\"1Gf,%.9gGf\" core=\"%d\" pstate=\"0\"/>\n", r, q->nccl_rate,
                TL_MODEL_MAX_CHANS);
    }
    for (int n = 0; n < nodes; n++) fprintf(f, "<host id=\"cpu%d\" speed=\"1Gf\"/>\n", n);
    for (int r = 0; r < nranks; r++) {
        fprintf(f, "<link id=\"port%d\" bandwidth=\"%.9gGBps\" latency=\"%.9gus\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                r, port_gbs, port_lat);
        if (nodes > 1)
            fprintf(f, "<link id=\"nic%d\" bandwidth=\"%.9gGBps\" latency=\"%.9gus\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                    r, p->nic_gbs, p->nic_lat_us);
    }
    /* non-blocking fat tree: the core carries every NIC at once */
    if (nodes > 1)
        fprintf(f, "<link id=\"core\" bandwidth=\"%.9gGBps\" latency=\"%.9gus\"/>\n", p->nic_gbs * nranks,
                p->core_lat_us);
    tl_status st = write_routes(f, p, nranks, j);
    fprintf(f, "</zone>\n</platform>\n");
    tl_status cst = tl_out_close(&o, st == TL_OK);
    return st != TL_OK ? st : cst;
}

tl_status tl_mplatform_write(const tl_mplatform *p, const tl_mplatform_params *q, int nranks, const char *path)
{
    return write_platform(p, q, nranks, NULL, path);
}

tl_status tl_mplatform_write_job(const tl_mplatform *p, const tl_mplatform_params *q, const tl_mjob *j,
                                 const char *path)
{
    return write_platform(p, q, j->nranks, j, path);
}

/* Before qa-model11 the file said its GPU only in a comment, and solver
 * --platform-file took --platform's default, a100-hdr, for the kernels:
 * an exported h100-ndr file read back predicted A100 kernels (Poisson
 * 128^3 on 4 GPUs, compute 118.95 us where h100-ndr's is 82.96). */
tl_status tl_mplatform_named_by(const char *path, const tl_mplatform **out)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "trilap-model: --platform-file: %s: cannot open: %s\n", path, strerror(errno));
        return TL_ERR_IO;
    }
    static const char key[] = "<prop id=\"" TL_MPLATFORM_GPU_PROP "\" value=\"";
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    tl_status st = TL_OK;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        const char *at = strstr(line, key);
        if (!at) continue;
        at += sizeof key - 1;
        size_t len = strcspn(at, "\"");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), at);
        *out = tl_mplatform_find(name);
        if (!*out) {
            fprintf(stderr,
                    "trilap-model: platform %s refused: %s:%ld: %s '%s' names no built-in platform (%s): the GPU "
                    "the kernels are scaled to; give one, or leave the property out and name it with --platform\n",
                    path, path, lineno, TL_MPLATFORM_GPU_PROP, name, tl_mplatform_choices());
            st = TL_ERR_PARSE;
        }
        break;
    }
    if (st == TL_OK && ferror(f)) {
        fprintf(stderr, "trilap-model: --platform-file: %s: read error\n", path);
        st = TL_ERR_IO;
    }
    free(line);
    fclose(f);
    return st;
}
