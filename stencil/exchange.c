/* The exchange strategies, one table each, chosen by name. The CPU
 * backend's "copy" lives here; the CUDA ones (host-staged, peer, NCCL) in
 * cuda_exchange.c, stubs there when the build has no CUDA or NCCL. */
#include <string.h>

#include "stencil/fdtd_impl.h"

static tl_status copy_setup(tl_fdtd *f) { return TL_OK; }
static void copy_teardown(tl_fdtd *f) {}

static tl_status copy_transfer(tl_fdtd *f, int phase)
{
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        memcpy(m->recv, m->send, (size_t)m->count * f->esz);
    }
    return TL_OK;
}

static const tl_fdtd_strategy xch_copy = {
    .name = "copy",
    .backend = TL_FDTD_BACKEND_CPU,
    .what = "host memory copies between the subdomains' buffers (cpu backend)",
    .setup = copy_setup,
    .transfer = copy_transfer,
    .teardown = copy_teardown,
};

extern const tl_fdtd_strategy tl_fdtd_xch_host, tl_fdtd_xch_peer, tl_fdtd_xch_nccl;

static const tl_fdtd_strategy *const strategies[] = {&xch_copy, &tl_fdtd_xch_host, &tl_fdtd_xch_peer,
                                                     &tl_fdtd_xch_nccl};

const tl_fdtd_strategy *tl_fdtd_strategy_find(const char *name, tl_fdtd_backend_kind b)
{
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strcmp(strategies[i]->name, name) == 0 && strategies[i]->backend == b) return strategies[i];
    return NULL;
}

const char *tl_fdtd_strategy_names(void) { return "cpu: copy; cuda: host|peer|nccl"; }
