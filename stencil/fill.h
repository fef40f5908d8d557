/* Host-side contents of a subdomain's arrays: the initial condition, the
 * material arrays, the CPML profiles, in the run's precision. Every value
 * is a function of the global point only, so ghosts and owners agree. */
#ifndef TL_FDTD_FILL_H
#define TL_FDTD_FILL_H

#include "stencil/fdtd_impl.h"

int tl_fdtd_heterogeneous(const tl_fdtd_config *c);
tl_fdtd_medium tl_fdtd_medium_of(const tl_fdtd_config *c);
/* buf: sub[sd].full.count elements of f->esz bytes */
tl_status tl_fdtd_fill_field(const tl_fdtd *f, int sd, int field, void *buf);
/* k = 0: K dt at p points; 1..3: dt / rho at vx, vy, vz points */
tl_status tl_fdtd_fill_material(const tl_fdtd *f, int sd, int k, void *buf);
/* the three axes' profiles, one after the other (tl_fdtd_kargs_of's order) */
tl_status tl_fdtd_fill_profiles(const tl_fdtd *f, void *buf);
size_t tl_fdtd_profiles_count(const tl_fdtd *f);

#endif
