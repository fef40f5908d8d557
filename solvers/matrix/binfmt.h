/* trilap binary CSR (".tlcsr"): loads a 100M-nonzero matrix in seconds.
 *
 * Layout, all little-endian, version 1:
 *   offset size
 *        0   16  magic "TRILAPCSR" followed by 7 zero bytes
 *       16    4  uint32 version (1)
 *       20    4  uint32 flags: bit 0 = the matrix is symmetric (full storage
 *                is always written; the flag records the property)
 *       24    8  int64 nrows
 *       32    8  int64 ncols
 *       40    8  int64 nnz
 *       48    8  uint64 payload checksum
 *       56    8  uint64 header checksum (over bytes 0..55)
 *       64       payload: rowptr int64[nrows+1], colidx int64[nnz] (0-based,
 *                ascending within a row), val double[nnz]
 * File size is exactly 64 + 8 * (nrows + 1 + 2 nnz).
 *
 * Checksum (tl_bin_checksum): the data is read as 64-bit little-endian words
 * w_0, w_1, ...; four lanes h_0..h_3 start at the FNV-1a offset basis
 * 0xcbf29ce484222325 and word k updates lane k mod 4 as
 * h = (h ^ w_k) * 0x100000001b3 (mod 2^64); the result is 64-bit FNV-1a over
 * the 32 bytes of h_0..h_3 (little-endian) followed by the 8 bytes of the
 * word count. Word-wise lanes keep it at memory speed, and a change of any
 * single word always changes the result. The header checksum is the same
 * function over the first 56 bytes (7 words). */
#ifndef TL_BINFMT_H
#define TL_BINFMT_H

#include <stddef.h>
#include <stdint.h>

#include "solvers/matrix/csr.h"

#define TL_BIN_MAGIC "TRILAPCSR"
#define TL_BIN_VERSION 1u
#define TL_BIN_HEADER_BYTES 64
#define TL_BIN_FLAG_SYMMETRIC 1u

/* Incremental checksum (the payload is written in pieces). */
typedef struct tl_bin_sum {
    uint64_t lane[4];
    uint64_t nwords;
} tl_bin_sum;
void tl_bin_sum_init(tl_bin_sum *s);
/* `nwords` 64-bit words (host order is little-endian on every supported machine). */
void tl_bin_sum_update(tl_bin_sum *s, const void *words, size_t nwords);
uint64_t tl_bin_sum_final(const tl_bin_sum *s);

typedef struct tl_bin_header {
    uint32_t version, flags;
    int64_t nrows, ncols, nnz;
    uint64_t checksum;
} tl_bin_header;

/* Encode a header (computes the header checksum) into 64 bytes. */
void tl_bin_header_encode(const tl_bin_header *h, unsigned char out[TL_BIN_HEADER_BYTES]);

tl_status tl_bin_write(const char *path, const tl_csr *a, uint32_t flags);
/* Load and verify (magic, version, sizes against the file size, both
 * checksums, CSR structure). `flags` may be NULL. */
tl_status tl_bin_read(const char *path, tl_csr *a, uint32_t *flags);
/* Only the header (verified), e.g. to print sizes. */
tl_status tl_bin_read_header(const char *path, tl_bin_header *h);

/* Read a matrix by its name: .tlcsr -> binary, else Matrix Market
 * (.mtx, .mtx.gz). */
tl_status tl_matrix_read(const char *path, int square, tl_csr *a);

#endif
