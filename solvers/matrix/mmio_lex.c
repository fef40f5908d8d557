/* The Matrix Market reader's lexer: decimal integers and reals, strictly
 * (a hexadecimal value, a fraction where an integer is due, a value that is
 * not finite: each refused and named for what it is), and the banner's
 * words. */
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/mmio_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int tl_mm_is_blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
        p++;
    return *p == '\0';
}

static int at_token_end(const char *p)
{
    return *p == '\0' || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v';
}

/* A decimal number written with a fraction or an exponent (4.5, 1e3):
 * a number, but not an integer, which is what the user needs to hear. */
static int decimal_non_integer(const char *q)
{
    for (const char *c = q; !at_token_end(c); c++)
        if (*c == 'x' || *c == 'X') return 0;
    char *end;
    double x = strtod(q, &end);
    return end != q && at_token_end(end) && isfinite(x);
}

/* Parse one integer token at *p; 0 on success. */
int tl_mm_parse_i64(const char **p, int64_t *v)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q == '\0') return -1; /* missing */
    char *end;
    errno = 0;
    long long x = strtoll(q, &end, 10);
    if (end == q || !at_token_end(end)) return decimal_non_integer(q) ? -6 : -2;
    if (errno == ERANGE) return -3;
    *v = x;
    *p = end;
    return 0;
}

int tl_mm_parse_f64(const char **p, double *v)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q == '\0') return -1;
    /* decimal only: strtod would also read 0x10 as 16 (inf and nan it
     * reads, and isfinite refuses below) */
    for (const char *c = q; !at_token_end(c); c++)
        if (*c == 'x' || *c == 'X') return -5;
    char *end;
    double x = strtod(q, &end);
    if (end == q || !at_token_end(end)) return -2;
    if (!isfinite(x)) return -4; /* NaN, Inf, or overflow */
    *v = x;
    *p = end;
    return 0;
}

const char *tl_mm_num_reason(int rc)
{
    switch (rc) {
    case -1:
        return "missing";
    case -2:
        return "not a number";
    case -3:
        return "out of range";
    case -5:
        return "not a number (a hexadecimal one: Matrix Market values are decimal)";
    case -6:
        return "not an integer";
    default:
        return "not finite";
    }
}

/* Copy the next whitespace-separated word, lower-cased; NULL at the end. */
const char *tl_mm_next_word(const char **p, char *out, size_t cap)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    size_t n = 0;
    while (!at_token_end(q)) {
        if (n + 1 < cap) out[n++] = (char)tolower((unsigned char)*q);
        q++;
    }
    out[n] = '\0';
    *p = q;
    return n ? out : NULL;
}
