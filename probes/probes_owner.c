/* Which rank of a collection round issued a GPU record (the rules are in
 * rank_state.h, "probes_owner.c"). Pure bookkeeping, no CUPTI: the host
 * tests drive it with the cases the GPU cannot show on one machine. */
#include "probes/rank_state.h"

#include <stdlib.h>
#include <string.h>

const char *tl_owner_rule_name(tl_owner_rule r)
{
    static const char *const names[TL_OWN_COUNT] = {"device", "stream", "thread", "vote", "guess"};
    return (unsigned)r < TL_OWN_COUNT ? names[r] : "?";
}

static int on_device(const tl_owner_rank *r, int device)
{
    return r->device == device || r->device == TL_PROBE_ALL_DEVICES;
}

static int registered(const tl_owner_rank *r, int device, uint32_t stream)
{
    for (int i = 0; i < r->nstreams; i++)
        if (r->streams[i].id == stream && stream != 0 &&
            (r->streams[i].device == device || r->streams[i].device == -1))
            return 1;
    return 0;
}

static const tl_owner_vote *find_vote(const tl_probe_owners *o, int device, uint32_t stream)
{
    for (size_t i = 0; i < o->nvotes; i++)
        if (o->votes[i].device == device && o->votes[i].stream == stream) return &o->votes[i];
    return NULL;
}

/* Index of the lowest rank of the round on device (any device: every
 * rank), -1 when none: by rank number, not by place in the round, which
 * is the order the ranks reached collection (before, the first to arrive
 * was taken for the lowest: rank 1 of a thread-launcher run got every
 * guessed wait of rank 0). */
static int lowest_rank(const tl_probe_owners *o, int device, int any_device)
{
    int best = -1;
    for (int i = 0; i < o->n; i++)
        if ((any_device || on_device(&o->ranks[i], device)) &&
            (best < 0 || o->ranks[i].rank < o->ranks[best].rank))
            best = i;
    return best;
}

int tl_probe_owner_of(const tl_probe_owners *o, int device, uint32_t stream, uint32_t tid,
                      tl_owner_rule *rule)
{
    int first = -1, ncand = 0;
    for (int i = 0; i < o->n; i++)
        if (on_device(&o->ranks[i], device)) {
            if (first < 0) first = i;
            ncand++;
        }
    *rule = TL_OWN_DEVICE;
    if (ncand <= 1) return first;
    int hit = -1, nhit = 0;
    for (int i = 0; i < o->n; i++)
        if (on_device(&o->ranks[i], device) && registered(&o->ranks[i], device, stream)) {
            hit = i;
            nhit++;
        }
    *rule = TL_OWN_STREAM;
    if (nhit == 1) return hit;
    for (int i = 0; tid && i < o->n; i++)
        if (on_device(&o->ranks[i], device) && o->ranks[i].tid == tid) {
            *rule = TL_OWN_THREAD;
            return i;
        }
    const tl_owner_vote *v = find_vote(o, device, stream);
    if (v) {
        int best = -1;
        for (int i = 0; i < o->n; i++) /* a tie goes to the lower rank */
            if (v->count[i] &&
                (best < 0 || v->count[i] > v->count[best] ||
                 (v->count[i] == v->count[best] && o->ranks[i].rank < o->ranks[best].rank)))
                best = i;
        if (best >= 0) {
            *rule = TL_OWN_VOTE;
            return best;
        }
    }
    *rule = TL_OWN_GUESS;
    return lowest_rank(o, device, 0);
}

int tl_probe_owner_of_wait(const tl_probe_owners *o, uint32_t tid, tl_owner_rule *rule)
{
    *rule = TL_OWN_DEVICE;
    if (o->n == 1) return 0; /* a process of one rank: everything in its buffers is its */
    for (int i = 0; tid && i < o->n; i++)
        if (o->ranks[i].tid == tid) {
            *rule = TL_OWN_THREAD;
            return i;
        }
    *rule = TL_OWN_GUESS;
    return lowest_rank(o, -1, 1);
}

int tl_probe_owners_of_round(tl_probe_owners *o, tl_owner_rank *ranks, tl_probes *const *round,
                             int nround, const tl_probes *p)
{
    int me = -1;
    for (int i = 0; i < nround; i++) {
        ranks[i] = (tl_owner_rank){.rank = round[i]->rank,
                                   .device = round[i]->device,
                                   .tid = round[i]->tid,
                                   .streams = round[i]->streams,
                                   .nstreams = round[i]->nstreams};
        if (round[i] == p) me = i;
    }
    *o = (tl_probe_owners){.ranks = ranks, .n = nround};
    return me;
}

tl_status tl_probe_owner_vote(tl_probe_owners *o, int device, uint32_t stream, int idx)
{
    TL_CHECK(idx >= 0 && idx < o->n, TL_ERR_INVAL, "owner %d of %d ranks", idx, o->n);
    tl_owner_vote *v = (tl_owner_vote *)find_vote(o, device, stream);
    if (!v) {
        if (o->nvotes == o->capvotes) {
            size_t cap = o->capvotes ? 2 * o->capvotes : 16;
            tl_owner_vote *nv = realloc(o->votes, cap * sizeof *nv);
            TL_CHECK(nv, TL_ERR_NOMEM, "probes: %zu stream votes", cap);
            o->votes = nv;
            o->capvotes = cap;
        }
        uint32_t *c = calloc((size_t)o->n, sizeof *c);
        TL_CHECK(c, TL_ERR_NOMEM, "probes: stream votes of %d ranks", o->n);
        v = &o->votes[o->nvotes++];
        *v = (tl_owner_vote){.device = device, .stream = stream, .count = c};
    }
    v->count[idx]++;
    return TL_OK;
}

void tl_probe_owners_free(tl_probe_owners *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->nvotes; i++)
        free(o->votes[i].count);
    free(o->votes);
    o->votes = NULL;
    o->nvotes = o->capvotes = 0;
}
