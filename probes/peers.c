/* The peers each point-to-point operation involves on this rank, as the
 * program declared them (runtime/marks.h tl_mark_peers), held until the
 * trace is written: one "peers.<i>" metadata line per operation name
 * (probes/trace.h, probes/README.md "Peers of an operation"). A name
 * declared again takes its new sets, in its first place. */
#include <stdlib.h>
#include <string.h>

#include "probes/rank_state.h"
#include "probes/trace.h"

/* The name part of a stored value ("<sets> <name>"). */
static const char *value_name(const char *v) { return strchr(v, ' ') + 1; }

tl_status tl_probe_peers_declare(tl_ctx *ctx, tl_role lane, const char *what, const tl_mark_peerset *sets, int nsets)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p || p->nvtx_only) return TL_OK; /* nothing is written */
    char name[256];
    tl_trace_peers_name(lane, what, name, sizeof name);
    char *v = NULL;
    TL_TRY(tl_trace_peers_format(name, p->rank, sets, nsets, &v));
    for (int i = 0; i < p->npeers; i++)
        if (!strcmp(value_name(p->peers[i]), name)) {
            free(p->peers[i]);
            p->peers[i] = v;
            return TL_OK;
        }
    if (p->npeers == p->cappeers) {
        int cap = p->cappeers ? 2 * p->cappeers : 8;
        char **grown = realloc(p->peers, (size_t)cap * sizeof *grown);
        if (!grown) {
            free(v);
            return TL_FAIL(TL_ERR_NOMEM, "probes: peers of %d operations", cap);
        }
        p->peers = grown;
        p->cappeers = cap;
    }
    p->peers[p->npeers++] = v;
    return TL_OK;
}

tl_status tl_probe_peers_meta(const tl_probes *p, tl_trace_writer *w)
{
    for (int i = 0; i < p->npeers; i++) {
        char key[32];
        snprintf(key, sizeof key, TL_TRACE_PEERS_KEY "%d", i);
        TL_TRY(tl_trace_writer_meta(w, key, p->peers[i]));
    }
    return TL_OK;
}

void tl_probe_peers_free(tl_probes *p)
{
    for (int i = 0; i < p->npeers; i++) free(p->peers[i]);
    free(p->peers);
    p->peers = NULL;
    p->npeers = p->cappeers = 0;
}
