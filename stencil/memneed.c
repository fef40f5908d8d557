/* Memory a run needs, and the host check (stencil/memneed.h). */
#include "stencil/memneed.h"

#include <stdio.h>

#include "runtime/hostmem.h"
#include "stencil/fill.h"

double tl_fdtd_sub_bytes(const tl_fdtd *f, int sd)
{
    const tl_fdtd_sub *s = &f->sub[sd];
    double elems = (double)TL_FDTD_NFIELDS * (double)s->full.count;
    if (tl_fdtd_heterogeneous(&f->cfg)) elems += 4.0 * (double)s->full.count;
    for (int m = 0; m < TL_FDTD_NPSI; m++)
        for (int side = 0; side < 2; side++) elems += (double)s->psi[m][side].count;
    elems += (double)tl_fdtd_profiles_count(f);
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            const tl_fdtd_msg *m = &f->msg[d][k];
            if (m->from == sd) elems += (double)m->count;
            if (m->to == sd) elems += (double)m->count;
        }
    return elems * (double)f->esz;
}

const char *tl_fdtd_run_label(const tl_fdtd *f, char *buf, size_t n)
{
    snprintf(buf, n, "the %lldx%lldx%lld grid (order %d, CPML %lld, %s, %d subdomain%s)",
             (long long)f->cfg.n[0], (long long)f->cfg.n[1], (long long)f->cfg.n[2], f->cfg.order,
             (long long)f->cfg.cpml, f->esz == 8 ? "double" : "float", f->nsub, f->nsub == 1 ? "" : "s");
    return buf;
}

tl_status tl_fdtd_check_host_memory(const tl_fdtd *f, double extra)
{
    double need = extra;
    for (int i = 0; i < f->nsub; i++)
        if (tl_fdtd_mine(f, i)) need += tl_fdtd_sub_bytes(f, i);
    char what[256];
    tl_fdtd_run_label(f, what, sizeof what);
    return tl_hostmem_check(what, need);
}

tl_status tl_fdtd_check_host_memory_early(const tl_fdtd_config *c, int nranks)
{
    if (c->backend != TL_FDTD_BACKEND_CPU) return TL_OK; /* the GPUs' share: checked at set-up */
    double pts = (double)c->n[0] * (double)c->n[1] * (double)c->n[2] / (nranks > 1 ? nranks : 1);
    char what[256];
    snprintf(what, sizeof what, "the %lldx%lldx%lld grid (%s%s)", (long long)c->n[0], (long long)c->n[1],
             (long long)c->n[2], c->dbl ? "double" : "float", nranks > 1 ? ", this rank's share" : "");
    return tl_hostmem_check(what, (double)TL_FDTD_NFIELDS * pts * (c->dbl ? 8.0 : 4.0));
}
