/* The channels of a PyTorch profiler (Kineto) point-to-point operation:
 * its key's text ("nccl:p2p 0->2 x2, 2->0 on process group 1 ..."),
 * written and read back here alone, and the pairing NCCL's message order
 * gives (analysis/README.md, "PyTorch profiler (Kineto) traces"). NCCL
 * delivers the messages of one direction between two ranks of a
 * communicator in issue order, whatever the grouping: the j-th send a->b
 * on rank a meets the j-th recv from a on rank b. */
#ifndef TL_AN_P2P_CHANNELS_H
#define TL_AN_P2P_CHANNELS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* The channels one key holds at most: a batch with four other ranks, both
 * ways; a batch with more stays an operation of its process group. */
#define TL_AN_P2P_MAX_CHANNELS 8
/* Room for the text of that many channels of any ranks and counts
 * ("2147483647->2147483646 x2147483647", ", " between). */
#define TL_AN_P2P_CHANNELS_TEXT 320

/* count messages from rank src to rank dst (global ranks) */
typedef struct tl_an_p2p_channel {
    int32_t src, dst, count;
} tl_an_p2p_channel;

typedef struct tl_an_p2p_channels {
    tl_an_p2p_channel ch[TL_AN_P2P_MAX_CHANNELS];
    int n;
} tl_an_p2p_channels;

/* One message more from src to dst; 0 (the set unchanged) where it would
 * need a channel past TL_AN_P2P_MAX_CHANNELS or a count past INT32_MAX. */
int tl_an_p2p_channels_add(tl_an_p2p_channels *c, int src, int dst);
/* The text, the channels by source then destination, each with its count
 * past one: "0->2 x2, 2->0" (a rank and its one other end: the lower
 * rank's first, the text both ends write). n >= TL_AN_P2P_CHANNELS_TEXT. */
void tl_an_p2p_channels_write(const tl_an_p2p_channels *c, char *out, size_t n);
/* The other ends of `self`'s channels, each once, ascending: "0,2". */
void tl_an_p2p_channels_peers(const tl_an_p2p_channels *c, int self, char *out, size_t n);

typedef enum tl_an_p2p_key {
    TL_AN_P2P_KEY_OTHER,    /* no channel key: an ordinary operation name */
    TL_AN_P2P_KEY_CHANNELS, /* *c and *rest set */
    TL_AN_P2P_KEY_BAD       /* the prefix and a rank, then no channel text: why says what */
} tl_an_p2p_key;

/* A key read back: TL_AN_P2P_CHANNEL, then the channels as written (a
 * rank first: "nccl:p2p on process group 0" is an operation named p2p,
 * an ordinary name), then the rest, empty or from a space on (the
 * process group: " on process group 1 (pp, ranks 0,2)"): *rest its
 * offset in key. Refused (BAD): a channel not "A->B" or "A->B xN" with
 * A != B ranks, N from 2 up to INT32_MAX, or followed by neither ", ",
 * a space (not " x") nor the end; a channel twice, more than
 * TL_AN_P2P_MAX_CHANNELS. */
tl_an_p2p_key tl_an_p2p_channels_read(const char *key, tl_an_p2p_channels *c, size_t *rest, char *why, size_t nwhy);

/* A channel-keyed operation of a rank file, as the pairing needs it. */
typedef struct tl_an_p2p_op {
    size_t file;           /* its rank file (index) */
    int64_t group;         /* its iteration */
    uint32_t pg;           /* its process group: the key past its channels, interned */
    int64_t launch, start; /* issue order on its rank */
    tl_an_p2p_channels ch; /* each naming the file's rank as one end */
} tl_an_p2p_op;

/* The partners of each operation: those on the other ends holding the
 * same-numbered messages of its channels (each channel's messages
 * numbered on each rank, within an iteration and a process group, in
 * issue order). */
typedef struct tl_an_p2p_pairs {
    size_t *first;   /* [op]: its partners are partner[first[op] .. first[op + 1]) */
    size_t *partner; /* operation indices, ascending for each op */
    uint8_t *whole;  /* [op]: it holds a message of an unmatched channel: left whole */
    size_t unmatched_channels; /* (iteration, process group, channel)s whose counts differ between their ends */
    size_t unmatched_ops;      /* operations left whole, an exchange seen from its two ends once */
} tl_an_p2p_pairs;

/* Pairs op[0..n) of rank files whose ranks are file_rank[0..nf). A
 * channel whose message counts differ between its ends is unmatched, but
 * where the end with fewer has its file cut short (file_cut: it holds
 * the first of its messages), whose messages pair with the other's first;
 * a channel whose other end's file is not in the run has no partner
 * there and is no unmatched one. */
tl_status tl_an_p2p_channels_pair(const tl_an_p2p_op *op, size_t n, const int *file_rank, const uint8_t *file_cut,
                                  size_t nf, tl_an_p2p_pairs *out);
void tl_an_p2p_pairs_free(tl_an_p2p_pairs *p);

#endif
