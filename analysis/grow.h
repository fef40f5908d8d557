/* Row arrays grown in one place: the readers and commands of analysis/
 * keep rows whose number they learn only at the end in arrays they grow
 * as rows come (they grew them by hand some forty times, with as many
 * growth rules and messages, some by one row per realloc). */
#ifndef TL_AN_GROW_H
#define TL_AN_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/error.h"

/* Room for row n (rows of `size` bytes) in the array that `arrp` (a T **
 * of any T) points to, of capacity *cap rows: when full, half again (16
 * rows at first, at least n + 1), so that n rows cost O(n) copies however
 * they come; a realloc of one more row per row was quadratic on large
 * traces. When it cannot: TL_ERR_NOMEM naming `what`, and *arrp and *cap
 * as they were, the array still the caller's to free. The pointer is read
 * and written by memcpy, T * and void * sharing a representation, so no
 * T ** is accessed as a void **. */
static inline tl_status tl_an_grow_at(void *arrp, size_t *cap, size_t n, size_t size, const char *what,
                                      const char *file, int line)
{
    if (n < *cap) return TL_OK;
    size_t c = *cap ? *cap + *cap / 2 : 16;
    if (c <= n) c = n + 1;
    void *arr, *na = NULL;
    memcpy(&arr, arrp, sizeof arr);
    if (size == 0 || c <= SIZE_MAX / size) na = realloc(arr, c * size);
    if (!na) return tl_error_report(TL_ERR_NOMEM, file, line, NULL, "%s: out of memory for %zu rows", what, c);
    memcpy(arrp, &na, sizeof na);
    *cap = c;
    return TL_OK;
}

/* Room for row n of `arrp`'s array, rows of `size` bytes (a row of
 * several elements: a segment's two ends, a table row's cells). */
#define tl_an_grow(arrp, cap, n, size, what) tl_an_grow_at((arrp), (cap), (n), (size), (what), TL_FILE_, __LINE__)

/* Room for row n of `arr` (a T *, rows of one T; `cap` a size_t). */
#define TL_AN_GROW(arr, n, cap, what) tl_an_grow_at(&(arr), &(cap), (n), sizeof *(arr), (what), TL_FILE_, __LINE__)

#endif
