/* trilap's JSON reader (analysis/json.h), which reads PyTorch profiler
 * (Kineto) traces without json-c: every type, escapes and surrogates, the
 * int64 edges and exponents as json-c reads them, duplicate keys, the
 * nesting limit, malformed text refused at its byte with a reason, and a
 * value fed in two pieces split at every byte read as the whole. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/json.h"
#include "tl_test.h"

/* The tree as canonical text, to compare two trees. */
static void dump(const tl_json *v, char *out, size_t n)
{
    size_t len = strlen(out);
    char *o = out + len;
    size_t room = n - len;
    switch (tl_json_type_of(v)) {
    case TL_JSON_NULL: snprintf(o, room, "null"); break;
    case TL_JSON_BOOL: snprintf(o, room, "%s", tl_json_bool(v) ? "true" : "false"); break;
    case TL_JSON_INT: snprintf(o, room, "i%" PRId64, tl_json_int(v)); break;
    case TL_JSON_DOUBLE: snprintf(o, room, "d%.17g", tl_json_double(v)); break;
    case TL_JSON_STRING: snprintf(o, room, "s%zu'%s'", tl_json_string_len(v), tl_json_string(v)); break;
    case TL_JSON_ARRAY:
        snprintf(o, room, "[");
        for (size_t i = 0; i < tl_json_length(v); i++) dump(tl_json_at(v, i), out, n);
        snprintf(out + strlen(out), n - strlen(out), "]");
        break;
    case TL_JSON_OBJECT:
        snprintf(o, room, "{");
        for (size_t i = 0; i < tl_json_length(v); i++) {
            snprintf(out + strlen(out), n - strlen(out), "%s:", tl_json_key_at(v, i));
            dump(tl_json_value_at(v, i), out, n);
        }
        snprintf(out + strlen(out), n - strlen(out), "}");
        break;
    }
}

static const tl_json *parse_ok(tl_json_parser *p, const char *text)
{
    const tl_json *v = NULL;
    tl_json_error err = {0};
    tl_json_result r = tl_json_parse(p, text, strlen(text), &v, &err);
    TL_ASSERT_MSG(r == TL_JSON_OK && v, "'%s': %s at %zu", text, err.reason ? err.reason : "?", err.pos);
    return v;
}

/* text refused at byte pos, the reason holding why */
static void refused(tl_json_parser *p, const char *text, size_t len, size_t pos, const char *why)
{
    const tl_json *v = NULL;
    tl_json_error err = {0};
    tl_json_result r = tl_json_parse(p, text, len, &v, &err);
    TL_ASSERT_MSG(r == TL_JSON_INVALID && !v, "'%s' was read", text);
    TL_ASSERT_MSG(err.pos == pos && err.reason && strstr(err.reason, why), "'%s': '%s' at %zu (expected '%s' at %zu)",
                  text, err.reason, err.pos, why, pos);
}

TL_TEST(every_type)
{
    tl_json_parser *p = tl_json_parser_create(32);
    TL_ASSERT(p);
    const tl_json *v = parse_ok(p, " {\"n\": null, \"t\": true, \"f\": false, \"i\": -42, \"d\": 2.5, "
                                   "\"s\": \"x y\", \"a\": [1, \"two\", [], {}], \"o\": {\"k\": 1}}\n");
    TL_ASSERT(tl_json_is(v, TL_JSON_OBJECT));
    TL_ASSERT_EQ(tl_json_length(v), 8);
    TL_ASSERT(tl_json_is(tl_json_get(v, "n"), TL_JSON_NULL));
    TL_ASSERT(tl_json_bool(tl_json_get(v, "t")) && !tl_json_bool(tl_json_get(v, "f")));
    TL_ASSERT(tl_json_is(tl_json_get(v, "i"), TL_JSON_INT) && tl_json_int(tl_json_get(v, "i")) == -42);
    TL_ASSERT(tl_json_double(tl_json_get(v, "i")) == -42.0);
    TL_ASSERT(tl_json_is(tl_json_get(v, "d"), TL_JSON_DOUBLE) && tl_json_double(tl_json_get(v, "d")) == 2.5);
    TL_ASSERT_STREQ(tl_json_string(tl_json_get(v, "s")), "x y");
    const tl_json *a = tl_json_get(v, "a");
    TL_ASSERT(tl_json_is(a, TL_JSON_ARRAY) && tl_json_length(a) == 4);
    TL_ASSERT_STREQ(tl_json_string(tl_json_at(a, 1)), "two");
    TL_ASSERT(tl_json_is(tl_json_at(a, 2), TL_JSON_ARRAY) && tl_json_length(tl_json_at(a, 2)) == 0);
    TL_ASSERT(tl_json_is(tl_json_at(a, 3), TL_JSON_OBJECT) && tl_json_length(tl_json_at(a, 3)) == 0);
    TL_ASSERT(!tl_json_at(a, 4) && !tl_json_get(a, "x") && !tl_json_get(v, "missing"));
    TL_ASSERT_EQ(tl_json_int(tl_json_get(tl_json_get(v, "o"), "k")), 1);
    TL_ASSERT_STREQ(tl_json_key_at(v, 7), "o");
    /* what a missing value reads as */
    TL_ASSERT(tl_json_type_of(NULL) == TL_JSON_NULL && !tl_json_is(NULL, TL_JSON_NULL));
    TL_ASSERT(!tl_json_string(NULL) && tl_json_length(NULL) == 0 && !tl_json_get(NULL, "k"));
    /* a scalar alone is a value too */
    TL_ASSERT_EQ(tl_json_int(parse_ok(p, "7")), 7);
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"k\"")), "k");
    tl_json_parser_destroy(&p);
    TL_ASSERT(!p);
}

TL_TEST(escapes_and_surrogates)
{
    tl_json_parser *p = tl_json_parser_create(32);
    const tl_json *v = parse_ok(p, "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"");
    TL_ASSERT_STREQ(tl_json_string(v), "\"\\/\b\f\n\r\t");
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"\\u0041\\u00e9\\u20AC\"")), "A\xc3\xa9\xe2\x82\xac");
    /* a pair: one code point of four bytes */
    v = parse_ok(p, "\"\\ud83d\\ude00\"");
    TL_ASSERT_STREQ(tl_json_string(v), "\xf0\x9f\x98\x80");
    TL_ASSERT_EQ(tl_json_string_len(v), 4);
    /* a surrogate without its pair: U+FFFD, as json-c reads it */
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"\\ud83d\"")), "\xef\xbf\xbd");
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"\\ud83dx\"")), "\xef\xbf\xbdx");
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"\\ude00\"")), "\xef\xbf\xbd");
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"\\ud83d\\u0041\"")), "\xef\xbf\xbd" "A");
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"\\ud800\\ud800\"")), "\xef\xbf\xbd\xef\xbf\xbd");
    /* \u0000 ends the C string; the length counts every byte */
    v = parse_ok(p, "\"a\\u0000b\"");
    TL_ASSERT_STREQ(tl_json_string(v), "a");
    TL_ASSERT_EQ(tl_json_string_len(v), 3);
    /* bytes pass through unchecked, raw control characters too (Kineto
     * writes names unescaped) */
    TL_ASSERT_STREQ(tl_json_string(parse_ok(p, "\"g\xff\tx\"")), "g\xff\tx");
    /* a key is decoded as a string is */
    TL_ASSERT_EQ(tl_json_int(tl_json_get(parse_ok(p, "{\"\\u0041b\": 3}"), "Ab")), 3);
    tl_json_parser_destroy(&p);
}

TL_TEST(numbers_as_json_c_reads_them)
{
    tl_json_parser *p = tl_json_parser_create(32);
    static const struct {
        const char *text;
        int64_t v;
    } ints[] = {{"0", 0},
                {"-0", 0},
                {"9223372036854775807", INT64_MAX},
                {"-9223372036854775808", INT64_MIN},
                /* beyond int64: saturated, as json-c's json_object_get_int64 */
                {"9223372036854775808", INT64_MAX},
                {"-9223372036854775809", INT64_MIN},
                {"18446744073709551616", INT64_MAX},
                {"99999999999999999999999", INT64_MAX},
                {"-99999999999999999999999", INT64_MIN},
                {"1682725898236567", 1682725898236567}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        const tl_json *v = parse_ok(p, ints[i].text);
        TL_ASSERT_MSG(tl_json_is(v, TL_JSON_INT) && tl_json_int(v) == ints[i].v, "%s: %" PRId64, ints[i].text,
                      tl_json_int(v));
    }
    /* a fraction or an exponent makes a double, whatever its value */
    static const char *const dbl[] = {"1.0",  "1e2",  "1E+2", "1e-7", "-1.5e+3", "0.1", "1682725898236.567",
                                      "123456789012345678901234567890.5", "0.000123", "2.2250738585072014e-308",
                                      "4.9e-324", "1.7976931348623157e308", "9007199254740993.0", "1e22", "1e23",
                                      "0.30000000000000004", "1e400", "-1e400", "1e-400", "12345678901234567890e-5"};
    for (size_t i = 0; i < sizeof dbl / sizeof dbl[0]; i++) {
        const tl_json *v = parse_ok(p, dbl[i]);
        double want = strtod(dbl[i], NULL);
        TL_ASSERT_MSG(tl_json_is(v, TL_JSON_DOUBLE) && tl_json_double(v) == want, "%s: %.17g, strtod %.17g", dbl[i],
                      tl_json_double(v), want);
    }
    /* -0.0 keeps its sign; -0 is the integer 0 */
    TL_ASSERT(signbit(tl_json_double(parse_ok(p, "-0.0"))));
    TL_ASSERT(tl_json_is(parse_ok(p, "-0"), TL_JSON_INT));
    /* every double read as strtod reads it (the exact fast path and the rest) */
    srand(7);
    for (int k = 0; k < 20000; k++) {
        char b[64];
        int len = snprintf(b, sizeof b, "%s%d.%0*de%d", rand() % 2 ? "-" : "", rand() % 100000, 1 + rand() % 12,
                           rand() % 1000000, rand() % 50 - 25);
        TL_ASSERT(len > 0);
        double got = tl_json_double(parse_ok(p, b)), want = strtod(b, NULL);
        TL_ASSERT_MSG(got == want, "%s: %.17g, strtod %.17g", b, got, want);
    }
    /* NaN and Infinity in any case (Python's json.dump, fmt's nan) */
    TL_ASSERT(isnan(tl_json_double(parse_ok(p, "NaN"))) && isnan(tl_json_double(parse_ok(p, "nan"))));
    TL_ASSERT(tl_json_double(parse_ok(p, "Infinity")) == HUGE_VAL);
    TL_ASSERT(tl_json_double(parse_ok(p, "-infinity")) == -HUGE_VAL);
    TL_ASSERT(tl_json_is(parse_ok(p, "[NaN]"), TL_JSON_ARRAY));
    /* json-c's json_object_get_int64 on other types */
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "2.9")), 2);
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "1e300")), INT64_MAX);
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "NaN")), INT64_MIN);
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "\"12x\"")), 12);
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "\"x\"")), 0);
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "true")), 1);
    TL_ASSERT_EQ(tl_json_to_int64(parse_ok(p, "[5]")), 0);
    tl_json_parser_destroy(&p);
}

TL_TEST(duplicate_keys_the_last_wins)
{
    tl_json_parser *p = tl_json_parser_create(32);
    const tl_json *v = parse_ok(p, "{\"a\": 1, \"b\": 2, \"a\": 3}");
    TL_ASSERT_EQ(tl_json_int(tl_json_get(v, "a")), 3);
    TL_ASSERT_EQ(tl_json_int(tl_json_get(v, "b")), 2);
    TL_ASSERT_EQ(tl_json_length(v), 3); /* every member, in the order written */
    TL_ASSERT_EQ(tl_json_int(tl_json_value_at(v, 0)), 1);
    tl_json_parser_destroy(&p);
}

TL_TEST(nesting_limit)
{
    tl_json_parser *p = tl_json_parser_create(32);
    char b[200] = "";
    for (int d = 32; d <= 33; d++) {
        memset(b, '[', (size_t)d);
        memset(b + d, ']', (size_t)d);
        b[2 * d] = '\0';
        if (d == 32) {
            const tl_json *v = parse_ok(p, b);
            for (int k = 1; k < 32; k++) v = tl_json_at(v, 0);
            TL_ASSERT(tl_json_is(v, TL_JSON_ARRAY) && tl_json_length(v) == 0);
        } else {
            refused(p, b, strlen(b), 32, "nested too deep"); /* json-c: at 32 too */
        }
    }
    /* objects count as arrays do */
    char o[400] = "";
    for (int k = 0; k < 33; k++) strcat(o, "{\"k\":");
    strcat(o, "1");
    for (int k = 0; k < 33; k++) strcat(o, "}");
    refused(p, o, strlen(o), 32 * 5, "nested too deep");
    tl_json_parser_destroy(&p);
}

TL_TEST(malformed_refused_at_its_byte)
{
    tl_json_parser *p = tl_json_parser_create(32);
    static const struct {
        const char *text;
        size_t pos;
        const char *why;
    } bad[] = {
        {"", 0, "ends inside"},
        {"   ", 3, "ends inside"},
        {"[1, 2", 5, "ends inside"},
        {"{\"a\"", 4, "ends inside"},
        {"{\"a\":", 5, "ends inside"},
        {"\"abc", 4, "ends inside"},
        {"\"ab\\", 4, "ends inside"},
        {"tru", 3, "ends inside"},
        {"-", 1, "ends inside"},
        {"1.", 2, "ends inside"},
        {"1e", 2, "ends inside"},
        {"[1 2]", 3, "',' or ']' expected"},
        {"{\"a\" 1}", 5, "':' expected"},
        {"{\"a\":1 \"b\":2}", 7, "',' or '}' expected"},
        {"{1: 2}", 1, "a quoted key expected"},
        {"{'a': 1}", 1, "a quoted key expected"},
        {"[1,]", 3, "unexpected character"},
        {"{\"a\":1,}", 7, "a quoted key expected"},
        {"[,1]", 1, "unexpected character"},
        {"'a'", 0, "unexpected character"},
        {"/*c*/1", 0, "unexpected character"},
        {"+1", 0, "unexpected character"},
        {".5", 0, "unexpected character"},
        {"01", 1, "leading zero"},
        {"-01", 2, "leading zero"},
        {"1.e3", 2, "a digit expected after the decimal point"},
        {"1.5e+", 5, "ends inside"},
        {"1.5ex", 4, "a digit expected in the exponent"},
        {"--1", 1, "a digit expected"},
        {"-nan", 1, "a digit expected"},
        {"inf", 3, "ends inside"},
        {"[inf]", 4, "invalid literal"},
        {"True", 0, "unexpected character"},
        {"nul", 3, "ends inside"},
        {"nulx", 3, "invalid literal"},
        {"truex", 4, "text after the value"},
        {"[1]x", 3, "text after the value"},
        {"1 2", 2, "text after the value"},
        {"\"\\x\"", 2, "unknown escape"},
        {"\"\\u12G4\"", 5, "bad \\u escape"},
        {"\"\\u0041\\u00\"", 11, "bad \\u escape"},
        {"[}", 1, "unexpected character"},
        {"{]", 1, "a quoted key expected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) refused(p, bad[i].text, strlen(bad[i].text), bad[i].pos,
                                                                       bad[i].why);
    /* a raw NUL byte in a string (json-c: the end of the data) */
    refused(p, "\"a\0b\"", 5, 2, "NUL");
    /* the parser reads on after a refusal */
    TL_ASSERT_EQ(tl_json_int(parse_ok(p, "5")), 5);
    tl_json_parser_destroy(&p);
}

/* Feeds text in two pieces cut at `cut`; the bytes the scanner took. */
static size_t scan_two(const char *text, size_t len, size_t cut, int *done)
{
    tl_json_scan_state s;
    tl_json_scan_start(&s);
    size_t n = tl_json_scan(&s, text, cut, done);
    if (*done) return n;
    TL_ASSERT_EQ(n, cut); /* not done: every byte so far is the value's */
    return cut + tl_json_scan(&s, text + cut, len - cut, done);
}

TL_TEST(split_at_every_byte)
{
    static const char *const values[] = {
        (" {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a \\\"q\\\" \\\\ \\ud83d\\ude00 [x] {y}\", \"ts\": 1030.5, "
         "\"dur\": 40, \"args\": {\"stream\": 7, \"dims\": [[1, 2], [], [-3e2]], \"x\": null, \"t\": true}}"),
        "\"a \\\" ] } , string\"",
        "-12.5e+3",
        "true",
    };
    static const char *const after[] = {", ", "]", ",", "}"};
    tl_json_parser *p = tl_json_parser_create(32);
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        char text[600], whole[2000] = "", piece[2000] = "";
        size_t vlen = strlen(values[k]);
        snprintf(text, sizeof text, "%s%s", values[k], after[k]);
        dump(parse_ok(p, values[k]), whole, sizeof whole);
        size_t len = strlen(text);
        for (size_t cut = 0; cut <= len; cut++) {
            int done = 0;
            size_t n = scan_two(text, len, cut, &done);
            /* the value's end found wherever the cut, and nothing after it */
            TL_ASSERT_MSG(done && n == vlen, "value %zu cut at %zu: done %d after %zu bytes (%zu expected)", k, cut,
                          done, n, vlen);
            piece[0] = '\0';
            const tl_json *v = NULL;
            tl_json_error err;
            TL_ASSERT_EQ(tl_json_parse(p, text, n, &v, &err), TL_JSON_OK);
            dump(v, piece, sizeof piece);
            TL_ASSERT_STREQ(piece, whole);
        }
    }
    /* a bare scalar at the end of the input is not known to be whole */
    tl_json_scan_state s;
    int done = 1;
    tl_json_scan_start(&s);
    TL_ASSERT_EQ(tl_json_scan(&s, "  123", 5, &done), 5);
    TL_ASSERT(!done);
    TL_ASSERT_EQ(tl_json_scan(&s, "4,", 2, &done), 1);
    TL_ASSERT(done);
    tl_json_parser_destroy(&p);
}

/* One parser for value after value, a big one among small ones: each tree
 * whole until the next parse. */
TL_TEST(parser_reused)
{
    tl_json_parser *p = tl_json_parser_create(32);
    size_t n = 200000;
    char *big = malloc(12 * n + 16);
    TL_ASSERT(big);
    size_t len = 0;
    big[len++] = '[';
    for (size_t i = 0; i < n; i++) len += (size_t)sprintf(big + len, "%s\"%zu\"", i ? "," : "", i);
    big[len++] = ']';
    for (int round = 0; round < 3; round++) {
        const tl_json *v = parse_ok(p, "{\"a\": [1, 2, 3], \"b\": \"x\"}");
        TL_ASSERT_EQ(tl_json_int(tl_json_at(tl_json_get(v, "a"), 2)), 3);
        const tl_json *b = NULL;
        tl_json_error err;
        TL_ASSERT_EQ(tl_json_parse(p, big, len, &b, &err), TL_JSON_OK);
        TL_ASSERT_EQ(tl_json_length(b), n);
        TL_ASSERT_STREQ(tl_json_string(tl_json_at(b, n - 1)), "199999");
    }
    free(big);
    tl_json_parser_destroy(&p);
    tl_json_parser_destroy(&p); /* NULL: nothing */
}

TL_TEST_MAIN(every_type, escapes_and_surrogates, numbers_as_json_c_reads_them, duplicate_keys_the_last_wins,
             nesting_limit, malformed_refused_at_its_byte, split_at_every_byte, parser_reused)
