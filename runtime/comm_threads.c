/* Host communication between the rank threads of one process.
 *
 * One mutex and one condition variable guard everything shared; ranks are
 * few (1-8), so a broadcast wake-up is cheaper than being clever.
 * - Blocking collectives: each rank posts a pointer to its buffer in its
 *   slot, a barrier makes all slots visible, each rank reads what it needs,
 *   and a second barrier keeps every buffer alive until all have read.
 * - Messages: rendezvous. A send and a receive are matched on (channel, src,
 *   dst, tag) in posting order, the data is copied once straight from the
 *   sender's buffer into the receiver's, and both requests complete.
 * - Non-blocking allreduce: the i-th call on a channel of every rank forms
 *   one instance (per-channel sequence numbers); the last rank to arrive
 *   reduces all contributions in rank order into the instance's result, and
 *   each rank copies it out in wait.
 * Once a rank is marked failed, every blocked or later call of the others
 * returns TL_ERR_REMOTE instead of waiting. */
#include "runtime/comm_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TC_SEND, TC_RECV, TC_ALLRED };

typedef struct tc_coll {
    uint64_t seq;
    size_t count;
    int arrived, consumed, done;
    tl_status err;
    const double **contrib;
    double *result;
    struct tc_coll *next;
} tc_coll;

typedef struct tc_req {
    struct tl_request base;
    int kind, done;
    tl_status err;
    tl_chan ch;
    int src, dst, tag;
    const void *sbuf;
    void *rbuf;
    size_t bytes;
    tc_coll *coll;
    struct tc_req *next;
} tc_req;

/* What a rank is doing in a blocking collective, checked against the others. */
enum { TC_K_BARRIER, TC_K_ALLREDUCE, TC_K_BCAST, TC_K_ALLGATHER, TC_K_GATHERV };
static const char *const tc_kind_names[] = {"barrier", "allreduce", "bcast", "allgather", "gatherv"};

typedef struct tc_slot {
    int kind;
    long param; /* dtype/op, root */
    const void *ptr;
    size_t bytes;
} tc_slot;

struct tl_threadcomm_shared {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int size;
    int failed, failed_rank;
    int bar_count;
    unsigned long bar_gen;
    tc_slot *slots;
    tc_req *sends[TL_CHAN_COUNT], *recvs[TL_CHAN_COUNT];
    tc_coll *colls[TL_CHAN_COUNT];
};

typedef struct tl_threadcomm {
    tl_hostcomm base;
    tl_threadcomm_shared *sh;
    uint64_t seq[TL_CHAN_COUNT];
} tl_threadcomm;

static tl_threadcomm_shared *shared_of(tl_hostcomm *hc) { return ((tl_threadcomm *)hc)->sh; }

/* ---- barrier (called with mu held) ---------------------------------------- */

/* abortable: give up when a rank has failed. Only the first barrier of a
 * collective is; once it has completed every rank is bound to reach the
 * second one, and leaving early could free a buffer another still reads. */
static tl_status barrier_locked(tl_threadcomm_shared *sh, int abortable)
{
    if (abortable && sh->failed) return TL_ERR_REMOTE;
    unsigned long gen = sh->bar_gen;
    if (++sh->bar_count == sh->size) {
        sh->bar_count = 0;
        sh->bar_gen++;
        pthread_cond_broadcast(&sh->cv);
        return TL_OK;
    }
    while (gen == sh->bar_gen && !(abortable && sh->failed)) pthread_cond_wait(&sh->cv, &sh->mu);
    if (gen == sh->bar_gen) {
        sh->bar_count--; /* withdraw, so nobody completes this barrier without us */
        return TL_ERR_REMOTE;
    }
    return TL_OK;
}

/* Post this rank's slot and wait for all; then check they all do the same thing. */
static tl_status coll_enter(tl_hostcomm *hc, int kind, long param, const void *ptr, size_t bytes)
{
    tl_threadcomm_shared *sh = shared_of(hc);
    pthread_mutex_lock(&sh->mu);
    sh->slots[hc->rank] = (tc_slot){kind, param, ptr, bytes};
    tl_status st = barrier_locked(sh, 1);
    pthread_mutex_unlock(&sh->mu);
    if (st != TL_OK) return st;
    for (int r = 0; r < hc->size; r++) {
        const tc_slot *s = &sh->slots[r];
        if (s->kind != kind || s->param != param)
            return TL_FAIL(TL_ERR_INVAL, "collective mismatch: rank %d is in %s(%ld), rank %d in %s(%ld)",
                           hc->rank, tc_kind_names[kind], param, r, tc_kind_names[s->kind], s->param);
    }
    return TL_OK;
}

static void coll_leave(tl_hostcomm *hc)
{
    tl_threadcomm_shared *sh = shared_of(hc);
    pthread_mutex_lock(&sh->mu);
    barrier_locked(sh, 0);
    pthread_mutex_unlock(&sh->mu);
}

/* ---- blocking collectives -------------------------------------------------- */

static tl_status tc_barrier(tl_hostcomm *hc)
{
    tl_status st = coll_enter(hc, TC_K_BARRIER, 0, NULL, 0);
    if (st == TL_ERR_REMOTE) return st;
    coll_leave(hc);
    return st;
}

static tl_status tc_allreduce(tl_hostcomm *hc, void *buf, size_t count, tl_dtype t, tl_op op)
{
    size_t bytes = count * tl_dtype_size(t);
    void *tmp = malloc(bytes ? bytes : 1);
    /* an allocation failure still has to pass both barriers, or the others hang */
    tl_status st = coll_enter(hc, TC_K_ALLREDUCE, (long)t * 16 + (long)op, buf, bytes);
    if (st == TL_ERR_REMOTE) {
        free(tmp);
        return st;
    }
    tl_threadcomm_shared *sh = shared_of(hc);
    if (st == TL_OK) {
        for (int r = 0; r < hc->size; r++)
            if (sh->slots[r].bytes != bytes) {
                st = TL_FAIL(TL_ERR_INVAL, "allreduce of %zu bytes on rank %d, %zu bytes on rank %d",
                             bytes, hc->rank, sh->slots[r].bytes, r);
                break;
            }
    }
    if (st == TL_OK && !tmp) st = TL_FAIL(TL_ERR_NOMEM, "%zu bytes", bytes);
    if (st == TL_OK) {
        /* every rank reduces in rank order: bitwise identical results everywhere */
        memcpy(tmp, sh->slots[0].ptr, bytes);
        for (int r = 1; r < hc->size; r++) tl_reduce_local(tmp, sh->slots[r].ptr, count, t, op);
    }
    coll_leave(hc);
    if (st == TL_OK) memcpy(buf, tmp, bytes);
    free(tmp);
    return st;
}

static tl_status tc_bcast(tl_hostcomm *hc, void *buf, size_t bytes, int root)
{
    tl_status st = coll_enter(hc, TC_K_BCAST, root, buf, bytes);
    if (st == TL_ERR_REMOTE) return st;
    tl_threadcomm_shared *sh = shared_of(hc);
    if (st == TL_OK && sh->slots[root].bytes != bytes)
        st = TL_FAIL(TL_ERR_INVAL, "bcast of %zu bytes on rank %d, %zu bytes on root %d", bytes, hc->rank,
                     sh->slots[root].bytes, root);
    if (st == TL_OK && hc->rank != root) memcpy(buf, sh->slots[root].ptr, bytes);
    coll_leave(hc);
    return st;
}

static tl_status tc_allgather(tl_hostcomm *hc, const void *send, void *recv, size_t bytes)
{
    tl_status st = coll_enter(hc, TC_K_ALLGATHER, 0, send, bytes);
    if (st == TL_ERR_REMOTE) return st;
    tl_threadcomm_shared *sh = shared_of(hc);
    for (int r = 0; st == TL_OK && r < hc->size; r++)
        if (sh->slots[r].bytes != bytes)
            st = TL_FAIL(TL_ERR_INVAL, "allgather of %zu bytes on rank %d, %zu bytes on rank %d", bytes,
                         hc->rank, sh->slots[r].bytes, r);
    /* memmove: a rank's own block may be its send buffer (in place) */
    for (int r = 0; st == TL_OK && r < hc->size; r++)
        memmove((char *)recv + (size_t)r * bytes, sh->slots[r].ptr, bytes);
    coll_leave(hc);
    return st;
}

static tl_status tc_gatherv(tl_hostcomm *hc, const void *send, size_t bytes, void *recv,
                            const size_t *counts, int root)
{
    tl_status st = coll_enter(hc, TC_K_GATHERV, root, send, bytes);
    if (st == TL_ERR_REMOTE) return st;
    tl_threadcomm_shared *sh = shared_of(hc);
    if (st == TL_OK && hc->rank == root) {
        size_t at = 0;
        for (int r = 0; r < hc->size; r++) {
            if (sh->slots[r].bytes != counts[r]) {
                st = TL_FAIL(TL_ERR_INVAL, "gatherv: rank %d sent %zu bytes, root expected %zu", r,
                             sh->slots[r].bytes, counts[r]);
                break;
            }
            if (counts[r]) memmove((char *)recv + at, sh->slots[r].ptr, counts[r]);
            at += counts[r];
        }
    }
    coll_leave(hc);
    return st;
}

/* ---- messages ------------------------------------------------------------- */

static void list_append(tc_req **head, tc_req *r)
{
    while (*head) head = &(*head)->next;
    r->next = NULL;
    *head = r;
}

static int list_remove(tc_req **head, tc_req *r)
{
    for (; *head; head = &(*head)->next)
        if (*head == r) {
            *head = r->next;
            r->next = NULL;
            return 1;
        }
    return 0;
}

/* First request in posting order that matches; unlinked. */
static tc_req *list_take(tc_req **head, int src, int dst, int tag)
{
    for (; *head; head = &(*head)->next) {
        tc_req *r = *head;
        if (r->src == src && r->dst == dst && r->tag == tag) {
            *head = r->next;
            r->next = NULL;
            return r;
        }
    }
    return NULL;
}

/* Deliver a matched pair (mu held). */
static void deliver(tl_threadcomm_shared *sh, tc_req *send, tc_req *recv)
{
    if (send->bytes > recv->bytes) {
        /* report on both sides: a truncated halo is a bug in the plan */
        send->err = recv->err = TL_ERR_INVAL;
        recv->bytes = send->bytes; /* for the message */
    } else {
        if (send->bytes) memcpy(recv->rbuf, send->sbuf, send->bytes);
        recv->bytes = send->bytes;
    }
    send->done = recv->done = 1;
    pthread_cond_broadcast(&sh->cv);
}

static tl_status post(tl_hostcomm *hc, int kind, tl_chan ch, const void *sbuf, void *rbuf, size_t bytes,
                      int peer, int tag, tl_request **req)
{
    tl_threadcomm_shared *sh = shared_of(hc);
    tc_req *r = calloc(1, sizeof *r);
    if (!r) return TL_FAIL(TL_ERR_NOMEM, "request");
    r->base.ops = hc->ops;
    r->kind = kind;
    r->ch = ch;
    r->src = kind == TC_SEND ? hc->rank : peer;
    r->dst = kind == TC_SEND ? peer : hc->rank;
    r->tag = tag;
    r->sbuf = sbuf;
    r->rbuf = rbuf;
    r->bytes = bytes;
    pthread_mutex_lock(&sh->mu);
    if (sh->failed) {
        pthread_mutex_unlock(&sh->mu);
        free(r);
        return TL_ERR_REMOTE;
    }
    if (kind == TC_SEND) {
        tc_req *m = list_take(&sh->recvs[ch], r->src, r->dst, tag);
        if (m) deliver(sh, r, m);
        else list_append(&sh->sends[ch], r);
    } else {
        tc_req *m = list_take(&sh->sends[ch], r->src, r->dst, tag);
        if (m) deliver(sh, m, r);
        else list_append(&sh->recvs[ch], r);
    }
    pthread_mutex_unlock(&sh->mu);
    *req = &r->base;
    return TL_OK;
}

static tl_status tc_isend(tl_hostcomm *hc, tl_chan ch, const void *buf, size_t bytes, int peer, int tag,
                          tl_request **req)
{
    return post(hc, TC_SEND, ch, buf, NULL, bytes, peer, tag, req);
}

static tl_status tc_irecv(tl_hostcomm *hc, tl_chan ch, void *buf, size_t bytes, int peer, int tag,
                          tl_request **req)
{
    return post(hc, TC_RECV, ch, NULL, buf, bytes, peer, tag, req);
}

/* ---- non-blocking allreduce ------------------------------------------------- */

static tl_status tc_iallreduce(tl_hostcomm *hc, tl_chan ch, double *buf, size_t count, tl_request **req)
{
    tl_threadcomm *tc = (tl_threadcomm *)hc;
    tl_threadcomm_shared *sh = tc->sh;
    tc_req *r = calloc(1, sizeof *r);
    tc_coll *fresh = calloc(1, sizeof *fresh);
    const double **contrib = calloc((size_t)hc->size, sizeof *contrib);
    double *result = malloc(count ? count * sizeof(double) : 1);
    if (!r || !fresh || !contrib || !result) {
        free(r), free(fresh), free(contrib), free(result);
        return TL_FAIL(TL_ERR_NOMEM, "iallreduce of %zu doubles", count);
    }
    r->base.ops = hc->ops;
    r->kind = TC_ALLRED;
    r->ch = ch;
    r->rbuf = buf;
    r->bytes = count * sizeof(double);
    pthread_mutex_lock(&sh->mu);
    if (sh->failed) {
        pthread_mutex_unlock(&sh->mu);
        free(r), free(fresh), free(contrib), free(result);
        return TL_ERR_REMOTE;
    }
    uint64_t seq = tc->seq[ch]++;
    tc_coll **at = &sh->colls[ch];
    while (*at && (*at)->seq != seq) at = &(*at)->next;
    tc_coll *c = *at;
    if (!c) {
        /* first to arrive: the instance is ours */
        c = fresh;
        c->seq = seq;
        c->count = count;
        c->contrib = contrib;
        c->result = result;
        *at = c;
        fresh = NULL, contrib = NULL, result = NULL;
    }
    if (c->count != count) c->err = TL_ERR_INVAL;
    c->contrib[hc->rank] = buf;
    r->coll = c;
    if (++c->arrived == hc->size) {
        if (c->err == TL_OK) {
            memcpy(c->result, c->contrib[0], count * sizeof(double));
            for (int k = 1; k < hc->size; k++) tl_reduce_local(c->result, c->contrib[k], count, TL_DOUBLE, TL_SUM);
        }
        c->done = 1;
        pthread_cond_broadcast(&sh->cv);
    }
    pthread_mutex_unlock(&sh->mu);
    free(fresh), free(contrib), free(result);
    *req = &r->base;
    return TL_OK;
}

static void coll_unlink_free(tl_threadcomm_shared *sh, tc_coll *c)
{
    for (int ch = 0; ch < TL_CHAN_COUNT; ch++)
        for (tc_coll **at = &sh->colls[ch]; *at; at = &(*at)->next)
            if (*at == c) {
                *at = c->next;
                free(c->contrib);
                free(c->result);
                free(c);
                return;
            }
}

/* ---- completion ------------------------------------------------------------ */

/* timeout_s < 0: no limit. An allreduce waits without one: the last rank
 * to arrive reads every contribution, so one cannot be withdrawn while the
 * others still come. */
static tl_status tc_wait_for(tl_hostcomm *hc, tl_request *req, double timeout_s)
{
    tc_req *r = (tc_req *)req;
    tl_threadcomm_shared *sh = shared_of(hc);
    struct timespec until;
    int limited = timeout_s >= 0 && r->kind != TC_ALLRED, timed_out = 0;
    if (limited) {
        clock_gettime(CLOCK_REALTIME, &until); /* the condition variable's clock */
        double s = (double)until.tv_nsec * 1e-9 + timeout_s;
        until.tv_sec += (time_t)s;
        until.tv_nsec = (long)((s - (double)(time_t)s) * 1e9);
    }
    int done_flag;
    pthread_mutex_lock(&sh->mu);
    for (;;) {
        done_flag = r->kind == TC_ALLRED ? r->coll->done : r->done;
        if (done_flag || sh->failed || timed_out) break;
        if (limited) timed_out = pthread_cond_timedwait(&sh->cv, &sh->mu, &until) == ETIMEDOUT;
        else pthread_cond_wait(&sh->cv, &sh->mu);
    }
    tl_status st = TL_OK;
    size_t coll_count = 0;
    if (!done_flag) {
        /* a peer failed, or did not come in time: withdraw so nobody
         * touches our buffer later */
        if (r->kind == TC_SEND) list_remove(&sh->sends[r->ch], r);
        else if (r->kind == TC_RECV) list_remove(&sh->recvs[r->ch], r);
        else r->coll->contrib[hc->rank] = NULL;
        st = sh->failed ? TL_ERR_REMOTE : TL_ERR_TIMEOUT;
    } else if (r->kind == TC_ALLRED) {
        tc_coll *c = r->coll;
        st = c->err;
        coll_count = c->count;
        if (st == TL_OK) memcpy(r->rbuf, c->result, c->count * sizeof(double));
        if (++c->consumed == hc->size) coll_unlink_free(sh, c);
    } else {
        st = r->err;
    }
    pthread_mutex_unlock(&sh->mu);
    if (st != TL_OK && st != TL_ERR_REMOTE && st != TL_ERR_TIMEOUT) {
        if (r->kind == TC_ALLRED)
            st = TL_FAIL(st, "iallreduce on channel %d: ranks passed different counts (this rank %zu)",
                         (int)r->ch, coll_count ? coll_count : r->bytes / sizeof(double));
        else
            st = TL_FAIL(st, "%s rank %d -> rank %d, tag %d, channel %d: message of %zu bytes does not fit",
                         r->kind == TC_SEND ? "send" : "recv", r->src, r->dst, r->tag, (int)r->ch, r->bytes);
    }
    free(r);
    return st;
}

static tl_status tc_wait(tl_hostcomm *hc, tl_request *req) { return tc_wait_for(hc, req, -1); }

static int tc_peer_failed(tl_hostcomm *hc)
{
    tl_threadcomm_shared *sh = shared_of(hc);
    pthread_mutex_lock(&sh->mu);
    int f = sh->failed && sh->failed_rank != hc->rank;
    pthread_mutex_unlock(&sh->mu);
    return f;
}

static void tc_announce_failure(tl_hostcomm *hc) { tl_threadcomm_fail(shared_of(hc), hc->rank); }

static void tc_destroy(tl_hostcomm *hc) { free(hc); }

static const tl_comm_ops tl_comm_threads = {
    .name = "threads",
    .barrier = tc_barrier,
    .allreduce = tc_allreduce,
    .bcast = tc_bcast,
    .allgather = tc_allgather,
    .gatherv = tc_gatherv,
    .iallreduce = tc_iallreduce,
    .isend = tc_isend,
    .irecv = tc_irecv,
    .wait = tc_wait,
    .wait_for = tc_wait_for,
    .peer_failed = tc_peer_failed,
    .announce_failure = tc_announce_failure,
    .destroy = tc_destroy,
};

/* ---- lifetime ---------------------------------------------------------------- */

tl_status tl_threadcomm_shared_create(int size, tl_threadcomm_shared **out)
{
    TL_CHECK(size >= 1, TL_ERR_INVAL, "size %d", size);
    tl_threadcomm_shared *sh = NULL;
    TL_ALLOC(sh, 1);
    sh->slots = calloc((size_t)size, sizeof *sh->slots);
    if (!sh->slots) {
        free(sh);
        return TL_FAIL(TL_ERR_NOMEM, "%d slots", size);
    }
    sh->size = size;
    sh->failed_rank = -1;
    pthread_mutex_init(&sh->mu, NULL);
    pthread_cond_init(&sh->cv, NULL);
    *out = sh;
    return TL_OK;
}

void tl_threadcomm_shared_destroy(tl_threadcomm_shared **psh)
{
    if (!psh || !*psh) return;
    tl_threadcomm_shared *sh = *psh;
    for (int ch = 0; ch < TL_CHAN_COUNT; ch++) {
        /* requests still queued belong to ranks that never waited (after a
         * failure); their owners are gone, so free them here */
        for (tc_req *r = sh->sends[ch], *n; r; r = n) n = r->next, free(r);
        for (tc_req *r = sh->recvs[ch], *n; r; r = n) n = r->next, free(r);
        while (sh->colls[ch]) coll_unlink_free(sh, sh->colls[ch]);
    }
    pthread_cond_destroy(&sh->cv);
    pthread_mutex_destroy(&sh->mu);
    free(sh->slots);
    free(sh);
    *psh = NULL;
}

tl_status tl_threadcomm_create(tl_threadcomm_shared *sh, int rank, tl_hostcomm **out)
{
    TL_CHECK(rank >= 0 && rank < sh->size, TL_ERR_INVAL, "rank %d of %d", rank, sh->size);
    tl_threadcomm *tc = NULL;
    TL_ALLOC(tc, 1);
    tc->base.ops = &tl_comm_threads;
    tc->base.rank = rank;
    tc->base.size = sh->size;
    tc->sh = sh;
    *out = &tc->base;
    return TL_OK;
}

void tl_threadcomm_fail(tl_threadcomm_shared *sh, int rank)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->failed) sh->failed_rank = rank;
    sh->failed = 1;
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
}
