/* The ranks sharing a host or a GPU, and their needs added up (runtime/hostshare.h). */
#include "runtime/hostshare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/comm.h"

static int same_pool(const tl_hostshare_rank *a, const tl_hostshare_rank *b, tl_hostshare_by by)
{
    return strcmp(a->host, b->host) == 0 && (by == TL_HOSTSHARE_HOST || a->device == b->device);
}

/* Each entry's first rank: the lowest one of its pool. */
static void find_firsts(tl_hostshare *s, tl_hostshare_by by)
{
    for (int r = 0; r < s->size; r++) {
        int f = 0;
        while (!same_pool(&s->rank[f], &s->rank[r], by)) f++;
        s->rank[r].first = f;
    }
}

tl_status tl_hostshare_gather(tl_ctx *ctx, tl_status st, tl_hostshare_by by, double need, double room,
                              tl_hostshare *out)
{
    return tl_hostshare_gather_rooms(ctx, st, by, need, room, INFINITY, out);
}

tl_status tl_hostshare_gather_rooms(tl_ctx *ctx, tl_status st, tl_hostshare_by by, double need, double room,
                                    double own_room, tl_hostshare *out)
{
    memset(out, 0, sizeof *out);
    tl_hostshare_rank mine;
    memset(&mine, 0, sizeof mine);
    if (gethostname(mine.host, sizeof mine.host - 1) != 0) snprintf(mine.host, sizeof mine.host, "unknown");
    mine.device = ctx->device;
    mine.pid = (long)getpid();
    mine.need = need;
    mine.room = room;
    mine.own_room = own_room;
    int alone = ctx->size <= 1, size = alone ? 1 : ctx->size;
    tl_hostshare_rank *all = st == TL_OK ? calloc((size_t)size, sizeof *all) : NULL;
    if (st == TL_OK && !all) st = TL_FAIL(TL_ERR_NOMEM, "the memory needs of %d ranks", size);
    if (!alone) st = tl_comm_agree(ctx, st); /* every rank gathers, or none */
    if (st == TL_OK && alone) all[0] = mine;
    else if (st == TL_OK) st = tl_comm_allgather(ctx, &mine, all, sizeof mine);
    if (st != TL_OK) {
        free(all);
        return st;
    }
    out->size = size;
    out->rank = all;
    find_firsts(out, by);
    return TL_OK;
}

tl_hostshare_pool tl_hostshare_pool_of(const tl_hostshare *s, int r)
{
    tl_hostshare_pool p = {.first = s->rank[r].first, .room = s->rank[s->rank[r].first].room};
    for (int k = p.first; k < s->size; k++)
        if (s->rank[k].first == p.first) {
            p.need += s->rank[k].need;
            p.nranks++;
        }
    return p;
}

int tl_hostshare_next_short(const tl_hostshare *s, int from)
{
    for (int r = from; r < s->size; r++) {
        if (s->rank[r].first != r) continue; /* its pool is judged at its first rank */
        tl_hostshare_pool p = tl_hostshare_pool_of(s, r);
        if (p.need > p.room) return r;
    }
    return -1;
}

int tl_hostshare_same_host(const tl_hostshare *s, int a, int b)
{
    return strcmp(s->rank[a].host, s->rank[b].host) == 0;
}

int tl_hostshare_same_process(const tl_hostshare *s, int a, int b)
{
    return s->rank[a].pid == s->rank[b].pid && tl_hostshare_same_host(s, a, b);
}

tl_hostshare_pool tl_hostshare_process_of(const tl_hostshare *s, int r)
{
    int first = 0;
    while (!tl_hostshare_same_process(s, first, r)) first++;
    tl_hostshare_pool p = {.first = first, .room = s->rank[first].own_room};
    for (int k = first; k < s->size; k++)
        if (tl_hostshare_same_process(s, first, k)) {
            p.need += s->rank[k].need;
            p.nranks++;
        }
    return p;
}

int tl_hostshare_next_short_process(const tl_hostshare *s, int from)
{
    for (int r = from; r < s->size; r++) {
        tl_hostshare_pool p = tl_hostshare_process_of(s, r);
        if (p.first == r && p.need > p.room) return r; /* each process judged at its lowest rank */
    }
    return -1;
}

void tl_hostshare_free(tl_hostshare *s)
{
    if (!s) return;
    free(s->rank);
    s->rank = NULL;
    s->size = 0;
}
