/* A reader of one JSON value at a time into a small tree (the Kineto
 * reader's: analysis/kineto.c), of trilap's own so that trilap-analyze
 * needs no JSON library to read a PyTorch profiler trace.
 *
 * tl_json_parse reads one whole value; its tree lives in the parser until
 * the next parse (one arena, reused: a trace's events are parsed one after
 * another, each used and dropped). tl_json_scan finds where a value ends in
 * text fed in pieces (a value that straddles read chunks), so the caller
 * can gather exactly its bytes and parse them whole.
 *
 * What is read: RFC 8259, and of json-c's non-strict extensions the ones a
 * PyTorch profiler trace can hold: NaN and Infinity, -Infinity in any case
 * (Python's json.dump writes them; fmt writes a float's NaN as `nan`), and
 * raw control characters in strings (Kineto writes names unescaped). No
 * comments, single quotes, trailing commas or leading zeros. Strings are
 * their bytes, unchecked (UTF-8 is the caller's to check), \u escapes
 * decoded to UTF-8; a surrogate without its pair becomes U+FFFD, as json-c
 * does. An integer (no fraction, no exponent) is kept exact; beyond int64
 * it is INT64_MAX or INT64_MIN, as json-c's json_object_get_int64 gives it.
 * Objects keep every member in order; a lookup finds a key's last one. */
#ifndef TL_JSON_H
#define TL_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    TL_JSON_NULL,
    TL_JSON_BOOL,
    TL_JSON_INT,    /* no fraction and no exponent: exact int64 */
    TL_JSON_DOUBLE, /* a fraction or an exponent, NaN, Infinity */
    TL_JSON_STRING,
    TL_JSON_ARRAY,
    TL_JSON_OBJECT
} tl_json_type;

typedef struct tl_json tl_json;
typedef struct tl_json_parser tl_json_parser;

typedef enum { TL_JSON_OK, TL_JSON_INVALID, TL_JSON_NOMEM } tl_json_result;

typedef struct {
    size_t pos;         /* byte offset within the text given */
    const char *reason; /* a short phrase: "unexpected character" */
} tl_json_error;

/* NULL when out of memory. max_depth: arrays and objects nested deeper
 * are refused (json-c's default is 32). */
tl_json_parser *tl_json_parser_create(int max_depth);
void tl_json_parser_destroy(tl_json_parser **p);

/* text[0..len) as one JSON value, blanks around it allowed. *root lives
 * until the next parse or the parser's destruction. */
tl_json_result tl_json_parse(tl_json_parser *p, const char *text, size_t len, const tl_json **root,
                             tl_json_error *err);

/* JSON's blank between tokens (RFC 8259: space, tab, newline, return). */
static inline int tl_json_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The type; TL_JSON_NULL for a missing value (v NULL) too. */
tl_json_type tl_json_type_of(const tl_json *v);
/* Whether v is present and of type t. */
int tl_json_is(const tl_json *v, tl_json_type t);
int tl_json_bool(const tl_json *v);
/* An integer's value; 0 for anything else. */
int64_t tl_json_int(const tl_json *v);
/* A number's value (an integer converted); 0 for anything else. */
double tl_json_double(const tl_json *v);
/* A string's bytes, NUL-terminated (a \u0000 in it ends the C string);
 * NULL for anything else. tl_json_string_len counts every byte. */
const char *tl_json_string(const tl_json *v);
size_t tl_json_string_len(const tl_json *v);
/* Elements of an array or members of an object; 0 for anything else. */
size_t tl_json_length(const tl_json *v);
/* Element i of an array (NULL past the end or for a non-array). */
const tl_json *tl_json_at(const tl_json *v, size_t i);
/* The value of key in an object, its last one when given twice; NULL
 * when absent or v is no object. */
const tl_json *tl_json_get(const tl_json *v, const char *key);
/* Member i of an object, in the order written (NULL past the end). */
const char *tl_json_key_at(const tl_json *v, size_t i);
const tl_json *tl_json_value_at(const tl_json *v, size_t i);
/* json-c's json_object_get_int64 on any value: a double saturated to
 * int64 (NaN: INT64_MIN), a string read by strtoll (0 when it is none),
 * a bool 0 or 1, anything else 0. */
int64_t tl_json_to_int64(const tl_json *v);

/* Where a value fed in pieces ends. Start with tl_json_scan_start; each
 * call takes the next piece and returns how many of its bytes belong to
 * the value (blanks before it included), all of them until its last byte
 * is seen, when *done is set. A container or string ends at its closing
 * bracket or quote, anything else at the first blank or , : ] } [ { " after
 * it. Only the end is found here: tl_json_parse judges the bytes. */
typedef struct {
    int64_t depth;           /* brackets open */
    unsigned char mode;      /* 0: blanks so far; 1 container; 2 string; 3 scalar */
    unsigned char in_string; /* inside a string of a container */
    unsigned char escape;    /* the byte after a backslash is next */
} tl_json_scan_state;

void tl_json_scan_start(tl_json_scan_state *s);
size_t tl_json_scan(tl_json_scan_state *s, const char *buf, size_t n, int *done);

#endif
