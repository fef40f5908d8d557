/* A rank's peers of its point-to-point operations, read from its trace's
 * peers.<i> metadata (probes/trace.h, probes/README.md "Peers of an
 * operation") or, for a Kineto trace, from the same lines its reader makes
 * of the sends and recvs whose ends it names: the one place the analysis
 * learns which ranks a halo exchange or a pipeline's send of a rank
 * involves. match.c pairs an operation with them; a trace that names none
 * (written before the key, Nsight Systems, Kineto without the ends) leaves
 * every operation paired across all ranks. */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

/* How far past the first missing peers.<i> a line is looked for: the
 * reader keeps no more than 512 metadata lines (probes/trace_read.c), so a
 * line lost from a trace's numbering (a damaged or hand-edited trace)
 * leaves the next ones within this of the gap. The reader has no way to
 * list its keys, so each is asked for by name. */
enum { PEERS_PAST_GAP = 512 };

/* A peers.<j> line past the first missing index `gap`: refused, naming
 * both, rather than read as the end of the numbering (the lines past it
 * were dropped without a word). */
static tl_status peers_gap(const tl_trace_reader *rd, const char *path, int gap)
{
    for (int j = gap + 1; j <= gap + PEERS_PAST_GAP; j++) {
        char key[32];
        snprintf(key, sizeof key, TL_TRACE_PEERS_KEY "%d", j);
        const char *v = tl_trace_reader_meta(rd, key);
        if (v)
            return TL_FAIL(TL_ERR_PARSE,
                           "%s: metadata %s='%.200s' follows a gap: " TL_TRACE_PEERS_KEY "%d is missing (the "
                           TL_TRACE_PEERS_KEY "<i> lines are numbered from 0 without one: a damaged or hand-edited "
                           "trace)",
                           path, key, v, gap);
    }
    return TL_OK;
}

void tl_an_peers_free(tl_an_peers *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) tl_trace_peers_free(&p->op[i].tp);
    free(p->op);
    memset(p, 0, sizeof *p);
}

tl_status tl_an_peers_add(tl_an_peers *p, const char *path, const char *key, const char *value, int self,
                          int nranks, tl_an_names *names)
{
    char why[160];
    tl_an_peer_op *op = realloc(p->op, (p->n + 1) * sizeof *op);
    TL_CHECK(op, TL_ERR_NOMEM, "%s: %s", path, key);
    p->op = op;
    op = &p->op[p->n];
    memset(op, 0, sizeof *op);
    tl_status st = tl_trace_peers_parse(value, self, nranks, &op->tp, why, sizeof why);
    if (st == TL_ERR_PARSE) st = TL_FAIL(TL_ERR_PARSE, "%s: metadata %s='%.200s': %s", path, key, value, why);
    TL_TRY(st);
    p->n++;
    for (size_t j = 0; j + 1 < p->n; j++)
        TL_CHECK(strcmp(p->op[j].tp.name, op->tp.name) != 0, TL_ERR_PARSE,
                 "%s: metadata %s='%.200s': %s is named again (" TL_TRACE_PEERS_KEY "%zu named it)", path, key, value,
                 op->tp.name, j);
    op->nccl = !strcmp(op->tp.name, "nccl:p2p");
    if (names && !op->nccl) TL_TRY(tl_an_names_intern(names, op->tp.name, &op->name));
    return TL_OK;
}

tl_status tl_an_peers_read(const tl_trace_reader *rd, const char *path, int self, int nranks, tl_an_names *names,
                           tl_an_peers *out)
{
    tl_an_peers got = {0};
    tl_status st = TL_OK;
    for (int i = 0;; i++) {
        char key[32];
        snprintf(key, sizeof key, TL_TRACE_PEERS_KEY "%d", i);
        const char *v = tl_trace_reader_meta(rd, key);
        if (!v) {
            TL_TRYGOTO(peers_gap(rd, path, i), st, fail);
            break;
        }
        TL_TRYGOTO(tl_an_peers_add(&got, path, key, v, self, nranks, names), st, fail);
    }
    if (out)
        *out = got;
    else
        tl_an_peers_free(&got);
    return TL_OK;
fail:
    tl_an_peers_free(&got);
    return st;
}

const tl_trace_peers *tl_an_peers_find(const tl_an_peers *p, uint32_t name, int p2p_kernel)
{
    const tl_trace_peers *nccl = NULL;
    for (size_t i = 0; i < p->n; i++) {
        if (p->op[i].nccl)
            nccl = &p->op[i].tp;
        else if (p->op[i].name == name)
            return &p->op[i].tp;
    }
    return p2p_kernel ? nccl : NULL;
}
