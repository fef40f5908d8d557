/* Initial condition, material and profile arrays on the host. */
#include <string.h>

#include "stencil/fill.h"

int tl_fdtd_heterogeneous(const tl_fdtd_config *c) { return c->layer_k > 0; }

tl_fdtd_medium tl_fdtd_medium_of(const tl_fdtd_config *c)
{
    tl_fdtd_medium m = {.K = c->K, .rho = c->rho, .K2 = c->K2, .rho2 = c->rho2, .layer_k = c->layer_k,
                        .nz = c->n[2], .periodic = c->periodic};
    return m;
}

static void put(void *buf, size_t esz, int64_t i, double v)
{
    if (esz == 4) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
}

tl_status tl_fdtd_fill_field(const tl_fdtd *f, int sd, int field, void *buf)
{
    const tl_fdtd_config *c = &f->cfg;
    const tl_fdtd_sub *s = &f->sub[sd];
    memset(buf, 0, s->full.count * f->esz);
    if (!c->init) return TL_OK;
    const tl_fdtd_layout *l = &s->full;
    for (int64_t z = l->lo[2]; z < l->hi[2]; z++)
        for (int64_t y = l->lo[1]; y < l->hi[1]; y++)
            for (int64_t x = l->lo[0]; x < l->hi[0]; x++) {
                int64_t g[3] = {s->o[0] + x, s->o[1] + y, s->o[2] + z};
                int inside = 1;
                for (int d = 0; d < 3; d++) {
                    if (c->periodic) g[d] = ((g[d] % c->n[d]) + c->n[d]) % c->n[d];
                    else if (g[d] < 0 || g[d] >= c->n[d]) inside = 0;
                }
                if (inside) put(buf, f->esz, tl_fdtd_index(l, x, y, z), c->init(c->init_arg, field, g[0], g[1], g[2]));
            }
    return TL_OK;
}

tl_status tl_fdtd_fill_material(const tl_fdtd *f, int sd, int k, void *buf)
{
    const tl_fdtd_config *c = &f->cfg;
    const tl_fdtd_sub *s = &f->sub[sd];
    const tl_fdtd_layout *l = &s->full;
    memset(buf, 0, l->count * f->esz);
    const int64_t nz = c->n[2];
    const tl_fdtd_medium m = tl_fdtd_medium_of(c);
    for (int64_t z = l->lo[2]; z < l->hi[2]; z++) {
        /* Periodic: a ghost plane is the image of the plane it wraps to, and
         * the vz above the last plane sits between it and plane 0. Clamped
         * instead, that vz had two buoyancies (its owner's and its ghost
         * image's), so a layered periodic run gained energy every step. */
        int64_t gk = s->o[2] + z;
        if (c->periodic) gk = ((gk % nz) + nz) % nz;
        else gk = gk < 0 ? 0 : gk >= nz ? nz - 1 : gk;
        double v;
        if (k == 0) v = tl_fdtd_medium_K(&m, gk) * f->dt;
        else if (k < 3) v = f->dt / tl_fdtd_medium_rho(&m, gk);
        else v = f->dt / tl_fdtd_medium_rho_vz(&m, gk); /* dt 2 / (rho_k + rho_k+1), bit for bit */
        for (int64_t y = l->lo[1]; y < l->hi[1]; y++)
            for (int64_t x = l->lo[0]; x < l->hi[0]; x++) put(buf, f->esz, tl_fdtd_index(l, x, y, z), v);
    }
    return TL_OK;
}

size_t tl_fdtd_profiles_count(const tl_fdtd *f)
{
    size_t n = 0;
    for (int d = 0; d < 3; d++) n += (size_t)(TL_FDTD_PROF_N * f->cfg.n[d]);
    return n;
}

tl_status tl_fdtd_fill_profiles(const tl_fdtd *f, void *buf)
{
    int64_t k = 0;
    for (int d = 0; d < 3; d++)
        for (int64_t i = 0; i < TL_FDTD_PROF_N * f->cfg.n[d]; i++) put(buf, f->esz, k++, f->prof_host[d][i]);
    return TL_OK;
}
