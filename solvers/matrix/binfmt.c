/* The binary CSR format (layout and checksum in binfmt.h). */
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/input_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "solvers/matrix/mmio.h"
#include "runtime/hostmem.h"
#include "runtime/out.h"
#include "solvers/matrix/outfile.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .tlcsr reader and writer assume a little-endian host"
#endif

#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

void tl_bin_sum_init(tl_bin_sum *s)
{
    for (int k = 0; k < 4; k++)
        s->lane[k] = FNV_BASIS;
    s->nwords = 0;
}

void tl_bin_sum_update(tl_bin_sum *s, const void *words, size_t nwords)
{
    const unsigned char *p = words;
    uint64_t h[4] = {s->lane[0], s->lane[1], s->lane[2], s->lane[3]};
    size_t k = 0;
    unsigned lane = (unsigned)(s->nwords & 3);
    /* align to lane 0 so the main loop can do four independent lanes */
    for (; k < nwords && lane != 0; k++, lane = (lane + 1) & 3) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        h[lane] = (h[lane] ^ w) * FNV_PRIME;
    }
    for (; k + 4 <= nwords; k += 4) {
        uint64_t w[4];
        memcpy(w, p + 8 * k, 32);
        h[0] = (h[0] ^ w[0]) * FNV_PRIME;
        h[1] = (h[1] ^ w[1]) * FNV_PRIME;
        h[2] = (h[2] ^ w[2]) * FNV_PRIME;
        h[3] = (h[3] ^ w[3]) * FNV_PRIME;
    }
    for (; k < nwords; k++, lane = (lane + 1) & 3) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        h[lane] = (h[lane] ^ w) * FNV_PRIME;
    }
    memcpy(s->lane, h, sizeof h);
    s->nwords += nwords;
}

uint64_t tl_bin_sum_final(const tl_bin_sum *s)
{
    unsigned char bytes[40];
    memcpy(bytes, s->lane, 32);
    memcpy(bytes + 32, &s->nwords, 8);
    uint64_t h = FNV_BASIS;
    for (int k = 0; k < 40; k++)
        h = (h ^ bytes[k]) * FNV_PRIME;
    return h;
}

static uint64_t header_sum(const unsigned char *b)
{
    tl_bin_sum s;
    tl_bin_sum_init(&s);
    tl_bin_sum_update(&s, b, 7);
    return tl_bin_sum_final(&s);
}

void tl_bin_header_encode(const tl_bin_header *h, unsigned char out[TL_BIN_HEADER_BYTES])
{
    memset(out, 0, TL_BIN_HEADER_BYTES);
    memcpy(out, TL_BIN_MAGIC, strlen(TL_BIN_MAGIC));
    memcpy(out + 16, &h->version, 4);
    memcpy(out + 20, &h->flags, 4);
    memcpy(out + 24, &h->nrows, 8);
    memcpy(out + 32, &h->ncols, 8);
    memcpy(out + 40, &h->nnz, 8);
    memcpy(out + 48, &h->checksum, 8);
    uint64_t hs = header_sum(out);
    memcpy(out + 56, &hs, 8);
}

tl_status tl_bin_write(const char *path, const tl_csr *a, uint32_t flags)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    unsigned char hdr[TL_BIN_HEADER_BYTES] = {0};
    tl_bin_sum s;
    TL_INPUT_CHECK(!tl_out_names_gzip(path), TL_ERR_INVAL,
                   "%s: the binary format is not compressed", path);
    tl_bin_sum_init(&s);
    tl_bin_sum_update(&s, a->rowptr, (size_t)a->nrows + 1);
    tl_bin_sum_update(&s, a->colidx, (size_t)a->nnz);
    tl_bin_sum_update(&s, a->val, (size_t)a->nnz);
    tl_bin_header h = {.version = TL_BIN_VERSION,
                       .flags = flags,
                       .nrows = a->nrows,
                       .ncols = a->ncols,
                       .nnz = a->nnz,
                       .checksum = tl_bin_sum_final(&s)};
    tl_bin_header_encode(&h, hdr);
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(tl_outfile_write(f, hdr, sizeof hdr), st, fail);
    TL_TRYGOTO(tl_outfile_write(f, a->rowptr, 8 * ((size_t)a->nrows + 1)), st, fail);
    TL_TRYGOTO(tl_outfile_write(f, a->colidx, 8 * (size_t)a->nnz), st, fail);
    TL_TRYGOTO(tl_outfile_write(f, a->val, 8 * (size_t)a->nnz), st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}

static tl_status decode_header(const char *path, const unsigned char *b, tl_bin_header *h)
{
    if (memcmp(b, TL_BIN_MAGIC, strlen(TL_BIN_MAGIC)) != 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: bad magic: not a trilap binary matrix (.tlcsr)", path);
    memcpy(&h->version, b + 16, 4);
    memcpy(&h->flags, b + 20, 4);
    memcpy(&h->nrows, b + 24, 8);
    memcpy(&h->ncols, b + 32, 8);
    memcpy(&h->nnz, b + 40, 8);
    memcpy(&h->checksum, b + 48, 8);
    if (h->version != TL_BIN_VERSION)
        return TL_FAIL(TL_ERR_PARSE, "%s: unsupported version %u (this build reads version %u)",
                       path, h->version, TL_BIN_VERSION);
    uint64_t want;
    memcpy(&want, b + 56, 8);
    if (header_sum(b) != want)
        return TL_FAIL(TL_ERR_PARSE, "%s: header checksum mismatch (corrupt header)", path);
    if (h->nrows < 0 || h->ncols < 0 || h->nnz < 0 || h->nrows > (INT64_MAX >> 5) ||
        h->nnz > (INT64_MAX >> 5))
        return TL_FAIL(TL_ERR_PARSE, "%s: bad sizes %lld x %lld, %lld nonzeros", path,
                       (long long)h->nrows, (long long)h->ncols, (long long)h->nnz);
    return TL_OK;
}

static tl_status open_checked(const char *path, FILE **fp, tl_bin_header *h)
{
    unsigned char b[TL_BIN_HEADER_BYTES];
    struct stat sb;
    *fp = fopen(path, "rb");
    if (!*fp) return TL_FAIL(TL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    tl_status st = TL_OK;
    if (fstat(fileno(*fp), &sb) != 0) {
        st = TL_FAIL(TL_ERR_IO, "%s: stat: %s", path, strerror(errno));
    } else if (fread(b, 1, sizeof b, *fp) != sizeof b) {
        st =
            TL_FAIL(TL_ERR_PARSE, "%s: truncated file: %lld bytes, shorter than the %d-byte header",
                    path, (long long)sb.st_size, TL_BIN_HEADER_BYTES);
    } else if ((st = decode_header(path, b, h)) == TL_OK) {
        int64_t want = TL_BIN_HEADER_BYTES + 8 * (h->nrows + 1 + 2 * h->nnz);
        if ((int64_t)sb.st_size < want)
            st = TL_FAIL(TL_ERR_PARSE, "%s: truncated file: %lld bytes, the header promises %lld",
                         path, (long long)sb.st_size, (long long)want);
        else if ((int64_t)sb.st_size > want)
            st = TL_FAIL(TL_ERR_PARSE, "%s: wrong size: %lld bytes, the header promises %lld", path,
                         (long long)sb.st_size, (long long)want);
    }
    if (st != TL_OK) {
        fclose(*fp);
        *fp = NULL;
    }
    return st;
}

tl_status tl_bin_read_header(const char *path, tl_bin_header *h)
{
    FILE *fp;
    TL_TRY(open_checked(path, &fp, h));
    fclose(fp);
    return TL_OK;
}

static tl_status read_words(FILE *fp, const char *path, void *dst, size_t nwords, tl_bin_sum *s)
{
    /* big blocks: one fread per 64 MiB keeps the checksum in cache-friendly strides */
    const size_t block = (size_t)1 << 23;
    unsigned char *p = dst;
    for (size_t done = 0; done < nwords;) {
        size_t n = nwords - done < block ? nwords - done : block;
        if (fread(p + 8 * done, 8, n, fp) != n)
            return TL_FAIL(TL_ERR_IO, "%s: read failed: %s", path,
                           ferror(fp) ? strerror(errno) : "unexpected end");
        tl_bin_sum_update(s, p + 8 * done, n);
        done += n;
    }
    return TL_OK;
}

tl_status tl_bin_read(const char *path, tl_csr *a, uint32_t *flags)
{
    FILE *fp = NULL;
    tl_bin_header h;
    tl_bin_sum s;
    tl_status st = TL_OK;
    memset(a, 0, sizeof *a);
    TL_TRY(open_checked(path, &fp, &h));
    char what[600];
    snprintf(what, sizeof what, "%s: a %lld x %lld matrix with %lld nonzeros", path,
             (long long)h.nrows, (long long)h.ncols, (long long)h.nnz);
    TL_TRYGOTO(tl_hostmem_check(what, 8.0 * ((double)h.nrows + 1) + 16.0 * (double)h.nnz), st, fail);
    TL_TRYGOTO(tl_csr_alloc(a, h.nrows, h.ncols, h.nnz), st, fail);
    tl_bin_sum_init(&s);
    TL_TRYGOTO(read_words(fp, path, a->rowptr, (size_t)h.nrows + 1, &s), st, fail);
    TL_TRYGOTO(read_words(fp, path, a->colidx, (size_t)h.nnz, &s), st, fail);
    TL_TRYGOTO(read_words(fp, path, a->val, (size_t)h.nnz, &s), st, fail);
    TL_INPUT_CHECKGOTO(tl_bin_sum_final(&s) == h.checksum, TL_ERR_PARSE, st, fail,
                       "%s: payload checksum mismatch (corrupt data)", path);
    TL_TRYGOTO(tl_csr_check(a, path), st, fail);
    if (flags) *flags = h.flags;
    fclose(fp);
    return TL_OK;
fail:
    if (fp) fclose(fp);
    tl_csr_free(a);
    return st;
}

tl_status tl_matrix_read(const char *path, int square, tl_csr *a)
{
    if (tl_path_has_suffix(path, ".tlcsr")) {
        TL_TRY(tl_bin_read(path, a, NULL));
        if (square && a->nrows != a->ncols) {
            tl_status st =
                TL_FAIL(TL_ERR_PARSE, TL_MM_NOT_SQUARE, path, (long long)a->nrows, (long long)a->ncols);
            tl_csr_free(a);
            return st;
        }
        return TL_OK;
    }
    TL_TRY(tl_mm_read_csr(path, square, a, NULL));
    return TL_OK;
}
