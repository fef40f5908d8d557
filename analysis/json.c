/* One JSON value into a tree held in an arena (json.h says what is read).
 *
 * Recursive descent, the depth bounded by the caller's limit. A
 * container's children are parsed onto one stack shared by every depth
 * and copied into the arena, contiguous, when the container closes, so
 * nothing is allocated per node: a trace's events are parsed one after
 * another into the same arena, reset at each parse, with no malloc once
 * it has grown to the largest event. */
#include "analysis/json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct tl_json {
    uint8_t type;
    uint32_t n; /* string bytes; array elements; object members */
    union {
        int b;
        int64_t i;
        double d;
        const char *s;
        const tl_json *items;                /* array */
        const struct tl_json_member *members; /* object */
    } u;
};

typedef struct tl_json_member {
    const char *key; /* NULL on the stack for an array's element */
    tl_json v;
} tl_json_member;

enum {
    ARENA_BLOCK = 64 << 10, /* bytes: every event of a trace fits in one */
    STACK_KEEP = 1 << 16    /* members the stack keeps across parses */
};

typedef struct block {
    struct block *next;
    size_t cap, used;
    max_align_t data[]; /* cap bytes */
} block;

struct tl_json_parser {
    int max_depth;
    block *blocks; /* the newest first; the oldest kept across parses */
    tl_json_member *stack;
    size_t nstack, capstack;
    tl_json root;
    /* the parse in progress */
    const char *text, *p, *end;
    int depth;
    tl_json_error err;
    int nomem;
};

tl_json_parser *tl_json_parser_create(int max_depth)
{
    tl_json_parser *p = calloc(1, sizeof *p);
    if (p) p->max_depth = max_depth;
    return p;
}

/* Frees every block but the oldest if it is of the usual size (the base
 * most values fit in), and a stack grown past it, so that one huge value
 * does not stay allocated while the small ones after it are read. */
static void arena_reset(tl_json_parser *p)
{
    while (p->blocks && (p->blocks->next || p->blocks->cap > ARENA_BLOCK)) {
        block *b = p->blocks;
        p->blocks = b->next;
        free(b);
    }
    if (p->blocks) p->blocks->used = 0;
    if (p->capstack > STACK_KEEP) {
        free(p->stack);
        p->stack = NULL;
        p->capstack = 0;
    }
}

void tl_json_parser_destroy(tl_json_parser **pp)
{
    if (!pp || !*pp) return;
    tl_json_parser *p = *pp;
    arena_reset(p);
    free(p->blocks);
    free(p->stack);
    free(p);
    *pp = NULL;
}

static void *arena_alloc(tl_json_parser *p, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    block *b = p->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b) {
            p->nomem = 1;
            return NULL;
        }
        b->cap = cap;
        b->used = 0;
        b->next = p->blocks;
        p->blocks = b;
    }
    void *r = (char *)b->data + b->used;
    b->used += n;
    return r;
}

static int fail(tl_json_parser *p, const char *at, const char *reason)
{
    if (!p->err.reason) {
        p->err.pos = (size_t)(at - p->text);
        p->err.reason = reason;
    }
    return -1;
}

static int at_end(tl_json_parser *p)
{
    return fail(p, p->end, "the text ends inside the value");
}

static void skip_blanks(tl_json_parser *p)
{
    while (p->p < p->end && tl_json_blank(*p->p)) p->p++;
}

/* ---- strings ---------------------------------------------------------- */

static int hex4(const char *s, unsigned *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++) {
        int c = (unsigned char)s[k], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return k; /* the bad digit's place */
        *v = *v << 4 | (unsigned)d;
    }
    return 4;
}

static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* \uXXXX at s (s[0] is the backslash), a surrogate pair as one code point,
 * a lone surrogate as U+FFFD (json-c's); *len: the escape's bytes. The
 * string's closing quote, no hex digit, bounds every read. */
static int unicode_escape(tl_json_parser *p, const char *s, unsigned *cp, size_t *len)
{
    unsigned v, lo;
    int k = hex4(s + 2, &v);
    if (k < 4) return fail(p, s + 2 + k, "bad \\u escape");
    *len = 6;
    *cp = v >= 0xd800 && v <= 0xdfff ? 0xfffd : v;
    if (v < 0xd800 || v > 0xdbff) return 0;
    /* a high surrogate: its pair must follow at once */
    if (s[6] == '\\' && s[7] == 'u' && hex4(s + 8, &lo) == 4 && lo >= 0xdc00 && lo <= 0xdfff) {
        *cp = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
        *len = 12;
    }
    return 0;
}

/* The escapes of s[0..n) decoded into o (never longer than the text). */
static int decode(tl_json_parser *p, const char *s, size_t n, char *o, size_t *out_len)
{
    char *o0 = o;
    const char *e = s + n;
    while (s < e) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        if (e - s < 2) return at_end(p);
        char c = s[1], r;
        switch (c) {
        case '"': r = '"'; break;
        case '\\': r = '\\'; break;
        case '/': r = '/'; break;
        case 'b': r = '\b'; break;
        case 'f': r = '\f'; break;
        case 'n': r = '\n'; break;
        case 'r': r = '\r'; break;
        case 't': r = '\t'; break;
        case 'u': {
            unsigned cp;
            size_t len;
            if (unicode_escape(p, s, &cp, &len)) return -1;
            o = put_utf8(o, cp);
            s += len;
            continue;
        }
        default: return fail(p, s + 1, "unknown escape");
        }
        *o++ = r;
        s += 2;
    }
    *out_len = (size_t)(o - o0);
    return 0;
}

/* A string at p->p (its opening quote) into the arena. */
static int parse_string(tl_json_parser *p, const char **out, uint32_t *out_len)
{
    const char *s = ++p->p, *q = s;
    int escaped = 0;
    for (;;) {
        while (q < p->end && *q != '"' && *q != '\\' && *q != '\0') q++;
        if (q == p->end) return at_end(p);
        if (*q == '\0') return fail(p, q, "a NUL byte in a string");
        if (*q == '"') break;
        escaped = 1;
        q += 2; /* the escaped byte cannot end the string; decode judges it */
        if (q > p->end) return at_end(p);
    }
    size_t n = (size_t)(q - s), len = n;
    if (n >= UINT32_MAX) return fail(p, s, "a string of 4 GiB or more");
    char *o = arena_alloc(p, n + 1);
    if (!o) return -1;
    if (!escaped) memcpy(o, s, n);
    else if (decode(p, s, n, o, &len)) return -1;
    o[len] = '\0';
    *out = o;
    *out_len = (uint32_t)len;
    p->p = q + 1;
    return 0;
}

/* ---- numbers ---------------------------------------------------------- */

/* Exact powers of ten a double holds (up to 1e22). */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A double from its digits when both the digits (at most 2^53) and the
 * power of ten (at most 22) are exact: one correctly rounded division or
 * product, strtod's result (Clinger's fast path); strtod otherwise (mant
 * UINT64_MAX: digits were dropped). */
static double to_double(tl_json_parser *p, const char *s, const char *e, uint64_t mant, int exp10, int neg)
{
    if (mant <= (uint64_t)1 << 53 && exp10 >= -22 && exp10 <= 22) {
        double d = (double)mant;
        d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
        return neg ? -d : d;
    }
    char small[64], *b = small;
    size_t n = (size_t)(e - s);
    if (n >= sizeof small && !(b = arena_alloc(p, n + 1))) return 0;
    memcpy(b, s, n);
    b[n] = '\0';
    return strtod(b, NULL); /* overflow is ±HUGE_VAL, underflow 0, as json-c keeps them */
}

/* The digits at *q (their count): the first 19 significant ones into
 * d->mant, the others dropped. */
typedef struct {
    uint64_t mant;
    int sig, dropped;
} digits;

static int take_digits(const char **q, const char *e, digits *d)
{
    int n = 0;
    for (; *q < e && **q >= '0' && **q <= '9'; (*q)++, n++) {
        if (d->sig < 19) {
            d->mant = d->mant * 10 + (uint64_t)(**q - '0');
            d->sig += d->mant != 0; /* zeros before the first other digit are not significant */
        } else {
            d->dropped++;
        }
    }
    return n;
}

/* An integer (no fraction, no exponent): beyond int64 saturated, as
 * json-c's json_object_get_int64 gives it. */
static void set_int(tl_json *v, const digits *d, int neg)
{
    v->type = TL_JSON_INT;
    if (d->dropped || d->mant > (uint64_t)INT64_MAX + (uint64_t)neg) v->u.i = neg ? INT64_MIN : INT64_MAX;
    else if (neg && d->mant == (uint64_t)INT64_MAX + 1) v->u.i = INT64_MIN;
    else v->u.i = neg ? -(int64_t)d->mant : (int64_t)d->mant;
}

static int exponent(tl_json_parser *p, const char **q, int *exp10)
{
    const char *e = p->end;
    int neg = *q < e && **q == '-', x = 0, n = 0;
    if (*q < e && (**q == '-' || **q == '+')) ++*q;
    for (; *q < e && **q >= '0' && **q <= '9'; ++*q, n++)
        if (x < 100000) x = x * 10 + (**q - '0'); /* far past any double's range: strtod says 0 or HUGE_VAL */
    if (!n) return *q == e ? at_end(p) : fail(p, *q, "a digit expected in the exponent");
    *exp10 += neg ? -x : x;
    return 0;
}

static int parse_number(tl_json_parser *p, tl_json *v)
{
    const char *s = p->p, *q = s, *e = p->end;
    int neg = *q == '-', exp10 = 0, is_double = 0;
    q += neg;
    if (q == e) return at_end(p);
    if (*q < '0' || *q > '9') return fail(p, q, "a digit expected");
    if (*q == '0' && q + 1 < e && q[1] >= '0' && q[1] <= '9') return fail(p, q + 1, "a number with a leading zero");
    digits d = {0};
    take_digits(&q, e, &d);
    if (q < e && *q == '.') {
        q++;
        is_double = 1;
        int before = d.dropped, nf = take_digits(&q, e, &d);
        if (!nf) return q == e ? at_end(p) : fail(p, q, "a digit expected after the decimal point");
        exp10 -= nf - (d.dropped - before);
    }
    if (q < e && (*q == 'e' || *q == 'E')) {
        q++;
        is_double = 1;
        if (exponent(p, &q, &exp10)) return -1;
    }
    p->p = q;
    if (!is_double) {
        set_int(v, &d, neg);
        return 0;
    }
    v->type = TL_JSON_DOUBLE;
    v->u.d = to_double(p, s, q, d.dropped ? UINT64_MAX : d.mant, exp10, neg);
    return p->nomem ? -1 : 0;
}

/* ---- literals --------------------------------------------------------- */

/* word at p->p, exactly (nocase 0) or in any case */
static int literal(tl_json_parser *p, const char *word, int nocase)
{
    size_t n = strlen(word), have = (size_t)(p->end - p->p);
    size_t k = have < n ? have : n;
    for (size_t i = 0; i < k; i++)
        if (nocase ? (p->p[i] | 0x20) != word[i] : p->p[i] != word[i]) return fail(p, p->p + i, "invalid literal");
    if (have < n) return at_end(p);
    p->p += n;
    return 0;
}

static int parse_word(tl_json_parser *p, tl_json *v)
{
    switch (*p->p) {
    case 't': v->type = TL_JSON_BOOL; v->u.b = 1; return literal(p, "true", 0);
    case 'f': v->type = TL_JSON_BOOL; v->u.b = 0; return literal(p, "false", 0);
    case 'n':
        if (p->end - p->p > 1 && (p->p[1] | 0x20) == 'a') break;
        v->type = TL_JSON_NULL;
        return literal(p, "null", 0);
    case 'N': break;
    default: /* i, I, -: Infinity */
        v->type = TL_JSON_DOUBLE;
        v->u.d = *p->p == '-' ? -HUGE_VAL : HUGE_VAL;
        p->p += *p->p == '-';
        return literal(p, "infinity", 1);
    }
    v->type = TL_JSON_DOUBLE;
    v->u.d = NAN;
    return literal(p, "nan", 1);
}

/* ---- containers ------------------------------------------------------- */

static int parse_value(tl_json_parser *p, tl_json *v);

static int push(tl_json_parser *p, const char *key)
{
    if (p->nstack == p->capstack) {
        size_t cap = p->capstack ? 2 * p->capstack : 256;
        tl_json_member *s = realloc(p->stack, cap * sizeof *s);
        if (!s) {
            p->nomem = 1;
            return -1;
        }
        p->stack = s;
        p->capstack = cap;
    }
    p->stack[p->nstack].key = key;
    p->stack[p->nstack].v.type = TL_JSON_NULL;
    p->nstack++;
    return 0;
}

/* The members from the stack's base on, into the arena. */
static int close_container(tl_json_parser *p, tl_json *v, size_t base, int object)
{
    size_t n = p->nstack - base;
    if (n >= UINT32_MAX) return fail(p, p->p, "a container of 4 billion members or more");
    v->type = object ? TL_JSON_OBJECT : TL_JSON_ARRAY;
    v->n = (uint32_t)n;
    v->u.items = NULL;
    if (n && object) {
        tl_json_member *m = arena_alloc(p, n * sizeof *m);
        if (!m) return -1;
        memcpy(m, p->stack + base, n * sizeof *m);
        v->u.members = m;
    } else if (n) {
        tl_json *a = arena_alloc(p, n * sizeof *a);
        if (!a) return -1;
        for (size_t i = 0; i < n; i++) a[i] = p->stack[base + i].v;
        v->u.items = a;
    }
    p->nstack = base;
    return 0;
}

/* After a member: ',' (more follow) or the closing bracket (*more 0). */
static int separator(tl_json_parser *p, char close, int *more)
{
    skip_blanks(p);
    if (p->p == p->end) return at_end(p);
    if (*p->p == ',') {
        p->p++;
        *more = 1;
        return 0;
    }
    if (*p->p != close) return fail(p, p->p, close == ']' ? "',' or ']' expected" : "',' or '}' expected");
    p->p++;
    *more = 0;
    return 0;
}

static int object_key(tl_json_parser *p, const char **key)
{
    uint32_t len;
    skip_blanks(p);
    if (p->p == p->end) return at_end(p);
    if (*p->p != '"') return fail(p, p->p, "a quoted key expected");
    if (parse_string(p, key, &len)) return -1;
    skip_blanks(p);
    if (p->p == p->end) return at_end(p);
    if (*p->p != ':') return fail(p, p->p, "':' expected after a key");
    p->p++;
    return 0;
}

static int parse_container(tl_json_parser *p, tl_json *v)
{
    int object = *p->p == '{', more = 1;
    char close = object ? '}' : ']';
    if (++p->depth > p->max_depth) return fail(p, p->p, "nested too deep");
    p->p++;
    size_t base = p->nstack;
    skip_blanks(p);
    if (p->p < p->end && *p->p == close) {
        p->p++;
        more = 0;
    }
    while (more) {
        const char *key = NULL;
        if (object && object_key(p, &key)) return -1;
        if (push(p, key)) return -1;
        /* the stack may move while the value is parsed: its place, not a pointer */
        size_t at = p->nstack - 1;
        tl_json tmp;
        if (parse_value(p, &tmp)) return -1;
        p->stack[at].v = tmp;
        if (separator(p, close, &more)) return -1;
    }
    p->depth--;
    return close_container(p, v, base, object);
}

static int parse_value(tl_json_parser *p, tl_json *v)
{
    skip_blanks(p);
    if (p->p == p->end) return at_end(p);
    v->n = 0;
    switch (*p->p) {
    case '{':
    case '[': return parse_container(p, v);
    case '"': v->type = TL_JSON_STRING; return parse_string(p, &v->u.s, &v->n);
    case 't': case 'f': case 'n': case 'N': case 'i': case 'I': return parse_word(p, v);
    case '-':
        if (p->end - p->p > 1 && (p->p[1] | 0x20) == 'i') return parse_word(p, v);
        return parse_number(p, v);
    default:
        if (*p->p >= '0' && *p->p <= '9') return parse_number(p, v);
        return fail(p, p->p, "unexpected character");
    }
}

tl_json_result tl_json_parse(tl_json_parser *p, const char *text, size_t len, const tl_json **root,
                             tl_json_error *err)
{
    *root = NULL;
    arena_reset(p);
    p->nstack = 0;
    p->text = p->p = text;
    p->end = text + len;
    p->depth = 0;
    p->nomem = 0;
    p->err = (tl_json_error){0};
    int bad = parse_value(p, &p->root);
    if (!bad) {
        skip_blanks(p);
        if (p->p != p->end) bad = fail(p, p->p, "text after the value");
    }
    if (p->nomem) {
        *err = (tl_json_error){.pos = (size_t)(p->p - text), .reason = "out of memory"};
        return TL_JSON_NOMEM;
    }
    if (bad) {
        *err = p->err;
        return TL_JSON_INVALID;
    }
    *root = &p->root;
    return TL_JSON_OK;
}

/* ---- the tree --------------------------------------------------------- */

tl_json_type tl_json_type_of(const tl_json *v)
{
    return v ? (tl_json_type)v->type : TL_JSON_NULL;
}

int tl_json_is(const tl_json *v, tl_json_type t)
{
    return v && v->type == t;
}

int tl_json_bool(const tl_json *v)
{
    return tl_json_is(v, TL_JSON_BOOL) && v->u.b;
}

int64_t tl_json_int(const tl_json *v)
{
    return tl_json_is(v, TL_JSON_INT) ? v->u.i : 0;
}

double tl_json_double(const tl_json *v)
{
    if (tl_json_is(v, TL_JSON_INT)) return (double)v->u.i;
    return tl_json_is(v, TL_JSON_DOUBLE) ? v->u.d : 0;
}

const char *tl_json_string(const tl_json *v)
{
    return tl_json_is(v, TL_JSON_STRING) ? v->u.s : NULL;
}

size_t tl_json_string_len(const tl_json *v)
{
    return tl_json_is(v, TL_JSON_STRING) ? v->n : 0;
}

size_t tl_json_length(const tl_json *v)
{
    return tl_json_is(v, TL_JSON_ARRAY) || tl_json_is(v, TL_JSON_OBJECT) ? v->n : 0;
}

const tl_json *tl_json_at(const tl_json *v, size_t i)
{
    return tl_json_is(v, TL_JSON_ARRAY) && i < v->n ? &v->u.items[i] : NULL;
}

const tl_json *tl_json_get(const tl_json *v, const char *key)
{
    if (!tl_json_is(v, TL_JSON_OBJECT)) return NULL;
    for (size_t i = v->n; i-- > 0;) {
        const tl_json_member *m = &v->u.members[i];
        if (m->key[0] == key[0] && !strcmp(m->key, key)) return &m->v;
    }
    return NULL;
}

const char *tl_json_key_at(const tl_json *v, size_t i)
{
    return tl_json_is(v, TL_JSON_OBJECT) && i < v->n ? v->u.members[i].key : NULL;
}

const tl_json *tl_json_value_at(const tl_json *v, size_t i)
{
    return tl_json_is(v, TL_JSON_OBJECT) && i < v->n ? &v->u.members[i].v : NULL;
}

int64_t tl_json_to_int64(const tl_json *v)
{
    switch (tl_json_type_of(v)) {
    case TL_JSON_INT: return v->u.i;
    case TL_JSON_BOOL: return v->u.b;
    case TL_JSON_DOUBLE:
        if (isnan(v->u.d) || v->u.d <= (double)INT64_MIN) return INT64_MIN;
        return v->u.d >= (double)INT64_MAX ? INT64_MAX : (int64_t)v->u.d;
    case TL_JSON_STRING: {
        char *end = NULL;
        errno = 0;
        long long x = strtoll(v->u.s, &end, 10);
        return end == v->u.s || (x == 0 && errno) ? 0 : x;
    }
    default: return 0;
    }
}

/* ---- where a value ends ----------------------------------------------- */

void tl_json_scan_start(tl_json_scan_state *s)
{
    *s = (tl_json_scan_state){0};
}

/* Inside a string from buf[i]: the index past its closing quote, or n. */
static size_t scan_string(tl_json_scan_state *s, const char *buf, size_t i, size_t n, int *closed)
{
    *closed = 0;
    for (; i < n; i++) {
        if (s->escape) {
            s->escape = 0;
            continue;
        }
        if (buf[i] == '\\') s->escape = 1;
        else if (buf[i] == '"') {
            *closed = 1;
            return i + 1;
        }
    }
    return n;
}

static int ends_scalar(char c)
{
    return tl_json_blank(c) || c == ',' || c == ':' || c == ']' || c == '}' || c == '[' || c == '{' || c == '"';
}

size_t tl_json_scan(tl_json_scan_state *s, const char *buf, size_t n, int *done)
{
    size_t i = 0;
    int closed;
    *done = 0;
    if (s->mode == 0) {
        while (i < n && tl_json_blank(buf[i])) i++;
        if (i == n) return n;
        s->mode = buf[i] == '{' || buf[i] == '[' ? 1 : buf[i] == '"' ? 2 : 3;
        if (s->mode == 1) s->depth = 1;
        i++;
    }
    if (s->mode == 2) {
        i = scan_string(s, buf, i, n, &closed);
        *done = closed;
        return i;
    }
    if (s->mode == 3) {
        while (i < n && !ends_scalar(buf[i])) i++;
        *done = i < n;
        return i;
    }
    while (i < n) {
        if (s->in_string) {
            i = scan_string(s, buf, i, n, &closed);
            s->in_string = !closed;
            continue;
        }
        char c = buf[i++];
        if (c == '"') s->in_string = 1;
        else if (c == '{' || c == '[') s->depth++;
        else if ((c == '}' || c == ']') && --s->depth == 0) {
            *done = 1;
            return i;
        }
    }
    return n;
}
