/* Minimal test harness. A test file defines static void functions with
 * TL_TEST(name) and lists them once with TL_TEST_MAIN(name, ...). The
 * binary runs one test per process:
 *   test_x --list     names, one a line
 *   test_x NAME       runs NAME; exit 0 pass, 1 fail, 77 skip
 * tests/run.sh runs every test of every binary under a timeout and prints
 * "ok N - binary:name" lines and "N passed, N failed, N skipped". */
#ifndef TL_TEST_H
#define TL_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define TL_TEST(name) static void name(void)

#define TL_TEST_FAIL_(...)                                                  \
    do {                                                                    \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                     \
        fprintf(stderr, __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                \
        exit(1);                                                            \
    } while (0)

#define TL_ASSERT(cond)                                                     \
    do {                                                                    \
        if (!(cond)) TL_TEST_FAIL_("assertion failed: %s", #cond);          \
    } while (0)
#define TL_ASSERT_MSG(cond, ...)                                            \
    do {                                                                    \
        if (!(cond)) TL_TEST_FAIL_(__VA_ARGS__);                            \
    } while (0)
#define TL_ASSERT_EQ(a, b)                                                  \
    do {                                                                    \
        long long tl_a_ = (long long)(a), tl_b_ = (long long)(b);           \
        if (tl_a_ != tl_b_)                                                 \
            TL_TEST_FAIL_("%s == %s: %lld != %lld", #a, #b, tl_a_, tl_b_);  \
    } while (0)
#define TL_ASSERT_NEAR(a, b, tol)                                           \
    do {                                                                    \
        double tl_a_ = (double)(a), tl_b_ = (double)(b);                    \
        if (!(fabs(tl_a_ - tl_b_) <= (tol)))                                \
            TL_TEST_FAIL_("%s ~= %s: %.17g vs %.17g (tol %g)", #a, #b, tl_a_, tl_b_, (double)(tol)); \
    } while (0)
#define TL_ASSERT_STREQ(a, b)                                               \
    do {                                                                    \
        const char *tl_a_ = (a), *tl_b_ = (b);                              \
        if (!tl_a_ || !tl_b_ || strcmp(tl_a_, tl_b_) != 0)                  \
            TL_TEST_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b, tl_a_ ? tl_a_ : "(null)", \
                          tl_b_ ? tl_b_ : "(null)");                        \
    } while (0)
#define TL_ASSERT_OK(expr)                                                  \
    do {                                                                    \
        int tl_s_ = (expr);                                                 \
        if (tl_s_ != 0) TL_TEST_FAIL_("%s returned status %d", #expr, tl_s_); \
    } while (0)
#define TL_SKIP(...)                                                        \
    do {                                                                    \
        printf("SKIP: ");                                                   \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        fflush(stdout);                                                     \
        exit(77);                                                           \
    } while (0)

/* Caps the process's address space `above` bytes over what it maps now,
 * so that an allocation past that fails as out of memory; a fixed cap
 * would be below what ASan maps before main (its shadow: terabytes), and
 * the sanitizer itself would die. Skips where a lower limit is set. */
#define TL_TEST_CAP_ADDRESS_SPACE(above)                                    \
    do {                                                                    \
        long tl_pages_ = 0;                                                 \
        FILE *tl_f_ = fopen("/proc/self/statm", "r");                       \
        TL_ASSERT(tl_f_ && fscanf(tl_f_, "%ld", &tl_pages_) == 1);          \
        fclose(tl_f_);                                                      \
        struct rlimit tl_rl_;                                               \
        TL_ASSERT_EQ(getrlimit(RLIMIT_AS, &tl_rl_), 0);                     \
        rlim_t tl_lim_ = (rlim_t)tl_pages_ * (rlim_t)sysconf(_SC_PAGESIZE) + (rlim_t)(above); \
        if (tl_rl_.rlim_cur != RLIM_INFINITY && tl_rl_.rlim_cur < tl_lim_)  \
            TL_SKIP("an address-space limit below %zu bytes more", (size_t)(above)); \
        tl_rl_.rlim_cur = tl_lim_;                                          \
        TL_ASSERT_EQ(setrlimit(RLIMIT_AS, &tl_rl_), 0);                     \
    } while (0)

typedef struct tl_test_entry {
    const char *name;
    void (*fn)(void);
} tl_test_entry;

#define TL_TEST_ENTRY_(f) {#f, f},
#define TL_TEST_EXPAND_(...) __VA_ARGS__
/* Up to 128 tests per file. */
#define TL_TEST_MAIN(...)                                                   \
    static const tl_test_entry tl_tests_[] = {TL_TEST_FOREACH_(TL_TEST_ENTRY_, __VA_ARGS__)}; \
    int main(int argc, char **argv)                                         \
    {                                                                       \
        size_t n = sizeof tl_tests_ / sizeof tl_tests_[0];                  \
        if (argc == 2 && strcmp(argv[1], "--list") == 0) {                  \
            for (size_t i = 0; i < n; i++) puts(tl_tests_[i].name);         \
            return 0;                                                       \
        }                                                                   \
        if (argc != 2) {                                                    \
            fprintf(stderr, "usage: %s --list | TEST\n", argv[0]);          \
            return 2;                                                       \
        }                                                                   \
        for (size_t i = 0; i < n; i++)                                      \
            if (strcmp(argv[1], tl_tests_[i].name) == 0) {                  \
                tl_tests_[i].fn();                                          \
                return 0;                                                   \
            }                                                               \
        fprintf(stderr, "no test named %s\n", argv[1]);                     \
        return 2;                                                           \
    }

/* Where tests find things: TL_DATA (../shared/data), TL_BUILD, TL_BIN. */
static inline const char *tl_test_env(const char *key, const char *fallback)
{
    const char *v = getenv(key);
    return v && *v ? v : fallback;
}
/* A fresh temporary directory for this test (mkdtemp under TMPDIR). The
 * last 16 stay valid: with one buffer, `dir = tl_test_tmpdir()` kept by a
 * test was rewritten to the next directory by any later call (its own, or
 * tl_test_path's first), so two folders a test took for two were one. */
static inline const char *tl_test_tmpdir(void)
{
    static char buf[16][256];
    static int k;
    k = (k + 1) % 16;
    snprintf(buf[k], sizeof buf[k], "%s/trilap-test-XXXXXX", tl_test_env("TMPDIR", "/tmp"));
    if (!mkdtemp(buf[k])) TL_TEST_FAIL_("mkdtemp failed");
    return buf[k];
}
/* NAME in a temporary directory made for this process on first use; the
 * last four paths stay valid. */
static inline const char *tl_test_path(const char *name)
{
    static char dir[256], path[4][512];
    static int k;
    if (!dir[0]) snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}
/* TL_DATA/matrices, the shared test matrices' folder. Where it is not
 * there at all (a clone with no ../shared beside it, README.md) the test
 * skips, as the shared Kineto traces' do: it failed, 47 tests of a first
 * `make check`. A file missing from a folder that is there still fails. */
static inline const char *tl_test_matrices(void)
{
    static char dir[512];
    struct stat sb;
    snprintf(dir, sizeof dir, "%s/matrices", tl_test_env("TL_DATA", "../shared/data"));
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        TL_SKIP("no shared matrices at %s (set TL_DATA to the shared data folder: README.md)", dir);
    return dir;
}
/* TL_DATA/matrices/NAME, a shared test matrix; the last four paths stay
 * valid. */
static inline const char *tl_test_matrix(const char *name)
{
    static char path[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tl_test_matrices(), name);
    return path[k];
}

/* FOREACH over up to 128 arguments (a list longer than that fails to compile). */
#define TL_TEST_NARG_(...) TL_TEST_NARG_I_(__VA_ARGS__, TL_TEST_RSEQ_())
#define TL_TEST_NARG_I_(...) TL_TEST_ARG_N_(__VA_ARGS__)
#define TL_TEST_ARG_N_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
    _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, \
    _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, \
    _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, _65, _66, _67, _68, _69, _70, \
    _71, _72, _73, _74, _75, _76, _77, _78, _79, _80, _81, _82, _83, _84, _85, _86, _87, _88, \
    _89, _90, _91, _92, _93, _94, _95, _96, _97, _98, _99, _100, _101, _102, _103, _104, _105, \
    _106, _107, _108, _109, _110, _111, _112, _113, _114, _115, _116, _117, _118, _119, _120, \
    _121, _122, _123, _124, _125, _126, _127, _128, N, ...) N
#define TL_TEST_RSEQ_() 128, 127, 126, 125, 124, 123, 122, 121, 120, 119, 118, 117, 116, 115, \
    114, 113, 112, 111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101, 100, 99, 98, 97, 96, \
    95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, \
    72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, \
    49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, \
    26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, \
    1, 0
#define TL_TEST_CAT_(a, b) TL_TEST_CAT_I_(a, b)
#define TL_TEST_CAT_I_(a, b) a##b
#define TL_TEST_FOREACH_(m, ...) TL_TEST_CAT_(TL_TEST_FE_, TL_TEST_NARG_(__VA_ARGS__))(m, __VA_ARGS__)
#define TL_TEST_FE_1(m, x) m(x)
#define TL_TEST_FE_2(m, x, ...) m(x) TL_TEST_FE_1(m, __VA_ARGS__)
#define TL_TEST_FE_3(m, x, ...) m(x) TL_TEST_FE_2(m, __VA_ARGS__)
#define TL_TEST_FE_4(m, x, ...) m(x) TL_TEST_FE_3(m, __VA_ARGS__)
#define TL_TEST_FE_5(m, x, ...) m(x) TL_TEST_FE_4(m, __VA_ARGS__)
#define TL_TEST_FE_6(m, x, ...) m(x) TL_TEST_FE_5(m, __VA_ARGS__)
#define TL_TEST_FE_7(m, x, ...) m(x) TL_TEST_FE_6(m, __VA_ARGS__)
#define TL_TEST_FE_8(m, x, ...) m(x) TL_TEST_FE_7(m, __VA_ARGS__)
#define TL_TEST_FE_9(m, x, ...) m(x) TL_TEST_FE_8(m, __VA_ARGS__)
#define TL_TEST_FE_10(m, x, ...) m(x) TL_TEST_FE_9(m, __VA_ARGS__)
#define TL_TEST_FE_11(m, x, ...) m(x) TL_TEST_FE_10(m, __VA_ARGS__)
#define TL_TEST_FE_12(m, x, ...) m(x) TL_TEST_FE_11(m, __VA_ARGS__)
#define TL_TEST_FE_13(m, x, ...) m(x) TL_TEST_FE_12(m, __VA_ARGS__)
#define TL_TEST_FE_14(m, x, ...) m(x) TL_TEST_FE_13(m, __VA_ARGS__)
#define TL_TEST_FE_15(m, x, ...) m(x) TL_TEST_FE_14(m, __VA_ARGS__)
#define TL_TEST_FE_16(m, x, ...) m(x) TL_TEST_FE_15(m, __VA_ARGS__)
#define TL_TEST_FE_17(m, x, ...) m(x) TL_TEST_FE_16(m, __VA_ARGS__)
#define TL_TEST_FE_18(m, x, ...) m(x) TL_TEST_FE_17(m, __VA_ARGS__)
#define TL_TEST_FE_19(m, x, ...) m(x) TL_TEST_FE_18(m, __VA_ARGS__)
#define TL_TEST_FE_20(m, x, ...) m(x) TL_TEST_FE_19(m, __VA_ARGS__)
#define TL_TEST_FE_21(m, x, ...) m(x) TL_TEST_FE_20(m, __VA_ARGS__)
#define TL_TEST_FE_22(m, x, ...) m(x) TL_TEST_FE_21(m, __VA_ARGS__)
#define TL_TEST_FE_23(m, x, ...) m(x) TL_TEST_FE_22(m, __VA_ARGS__)
#define TL_TEST_FE_24(m, x, ...) m(x) TL_TEST_FE_23(m, __VA_ARGS__)
#define TL_TEST_FE_25(m, x, ...) m(x) TL_TEST_FE_24(m, __VA_ARGS__)
#define TL_TEST_FE_26(m, x, ...) m(x) TL_TEST_FE_25(m, __VA_ARGS__)
#define TL_TEST_FE_27(m, x, ...) m(x) TL_TEST_FE_26(m, __VA_ARGS__)
#define TL_TEST_FE_28(m, x, ...) m(x) TL_TEST_FE_27(m, __VA_ARGS__)
#define TL_TEST_FE_29(m, x, ...) m(x) TL_TEST_FE_28(m, __VA_ARGS__)
#define TL_TEST_FE_30(m, x, ...) m(x) TL_TEST_FE_29(m, __VA_ARGS__)
#define TL_TEST_FE_31(m, x, ...) m(x) TL_TEST_FE_30(m, __VA_ARGS__)
#define TL_TEST_FE_32(m, x, ...) m(x) TL_TEST_FE_31(m, __VA_ARGS__)
#define TL_TEST_FE_33(m, x, ...) m(x) TL_TEST_FE_32(m, __VA_ARGS__)
#define TL_TEST_FE_34(m, x, ...) m(x) TL_TEST_FE_33(m, __VA_ARGS__)
#define TL_TEST_FE_35(m, x, ...) m(x) TL_TEST_FE_34(m, __VA_ARGS__)
#define TL_TEST_FE_36(m, x, ...) m(x) TL_TEST_FE_35(m, __VA_ARGS__)
#define TL_TEST_FE_37(m, x, ...) m(x) TL_TEST_FE_36(m, __VA_ARGS__)
#define TL_TEST_FE_38(m, x, ...) m(x) TL_TEST_FE_37(m, __VA_ARGS__)
#define TL_TEST_FE_39(m, x, ...) m(x) TL_TEST_FE_38(m, __VA_ARGS__)
#define TL_TEST_FE_40(m, x, ...) m(x) TL_TEST_FE_39(m, __VA_ARGS__)
#define TL_TEST_FE_41(m, x, ...) m(x) TL_TEST_FE_40(m, __VA_ARGS__)
#define TL_TEST_FE_42(m, x, ...) m(x) TL_TEST_FE_41(m, __VA_ARGS__)
#define TL_TEST_FE_43(m, x, ...) m(x) TL_TEST_FE_42(m, __VA_ARGS__)
#define TL_TEST_FE_44(m, x, ...) m(x) TL_TEST_FE_43(m, __VA_ARGS__)
#define TL_TEST_FE_45(m, x, ...) m(x) TL_TEST_FE_44(m, __VA_ARGS__)
#define TL_TEST_FE_46(m, x, ...) m(x) TL_TEST_FE_45(m, __VA_ARGS__)
#define TL_TEST_FE_47(m, x, ...) m(x) TL_TEST_FE_46(m, __VA_ARGS__)
#define TL_TEST_FE_48(m, x, ...) m(x) TL_TEST_FE_47(m, __VA_ARGS__)
#define TL_TEST_FE_49(m, x, ...) m(x) TL_TEST_FE_48(m, __VA_ARGS__)
#define TL_TEST_FE_50(m, x, ...) m(x) TL_TEST_FE_49(m, __VA_ARGS__)
#define TL_TEST_FE_51(m, x, ...) m(x) TL_TEST_FE_50(m, __VA_ARGS__)
#define TL_TEST_FE_52(m, x, ...) m(x) TL_TEST_FE_51(m, __VA_ARGS__)
#define TL_TEST_FE_53(m, x, ...) m(x) TL_TEST_FE_52(m, __VA_ARGS__)
#define TL_TEST_FE_54(m, x, ...) m(x) TL_TEST_FE_53(m, __VA_ARGS__)
#define TL_TEST_FE_55(m, x, ...) m(x) TL_TEST_FE_54(m, __VA_ARGS__)
#define TL_TEST_FE_56(m, x, ...) m(x) TL_TEST_FE_55(m, __VA_ARGS__)
#define TL_TEST_FE_57(m, x, ...) m(x) TL_TEST_FE_56(m, __VA_ARGS__)
#define TL_TEST_FE_58(m, x, ...) m(x) TL_TEST_FE_57(m, __VA_ARGS__)
#define TL_TEST_FE_59(m, x, ...) m(x) TL_TEST_FE_58(m, __VA_ARGS__)
#define TL_TEST_FE_60(m, x, ...) m(x) TL_TEST_FE_59(m, __VA_ARGS__)
#define TL_TEST_FE_61(m, x, ...) m(x) TL_TEST_FE_60(m, __VA_ARGS__)
#define TL_TEST_FE_62(m, x, ...) m(x) TL_TEST_FE_61(m, __VA_ARGS__)
#define TL_TEST_FE_63(m, x, ...) m(x) TL_TEST_FE_62(m, __VA_ARGS__)
#define TL_TEST_FE_64(m, x, ...) m(x) TL_TEST_FE_63(m, __VA_ARGS__)
#define TL_TEST_FE_65(m, x, ...) m(x) TL_TEST_FE_64(m, __VA_ARGS__)
#define TL_TEST_FE_66(m, x, ...) m(x) TL_TEST_FE_65(m, __VA_ARGS__)
#define TL_TEST_FE_67(m, x, ...) m(x) TL_TEST_FE_66(m, __VA_ARGS__)
#define TL_TEST_FE_68(m, x, ...) m(x) TL_TEST_FE_67(m, __VA_ARGS__)
#define TL_TEST_FE_69(m, x, ...) m(x) TL_TEST_FE_68(m, __VA_ARGS__)
#define TL_TEST_FE_70(m, x, ...) m(x) TL_TEST_FE_69(m, __VA_ARGS__)
#define TL_TEST_FE_71(m, x, ...) m(x) TL_TEST_FE_70(m, __VA_ARGS__)
#define TL_TEST_FE_72(m, x, ...) m(x) TL_TEST_FE_71(m, __VA_ARGS__)
#define TL_TEST_FE_73(m, x, ...) m(x) TL_TEST_FE_72(m, __VA_ARGS__)
#define TL_TEST_FE_74(m, x, ...) m(x) TL_TEST_FE_73(m, __VA_ARGS__)
#define TL_TEST_FE_75(m, x, ...) m(x) TL_TEST_FE_74(m, __VA_ARGS__)
#define TL_TEST_FE_76(m, x, ...) m(x) TL_TEST_FE_75(m, __VA_ARGS__)
#define TL_TEST_FE_77(m, x, ...) m(x) TL_TEST_FE_76(m, __VA_ARGS__)
#define TL_TEST_FE_78(m, x, ...) m(x) TL_TEST_FE_77(m, __VA_ARGS__)
#define TL_TEST_FE_79(m, x, ...) m(x) TL_TEST_FE_78(m, __VA_ARGS__)
#define TL_TEST_FE_80(m, x, ...) m(x) TL_TEST_FE_79(m, __VA_ARGS__)
#define TL_TEST_FE_81(m, x, ...) m(x) TL_TEST_FE_80(m, __VA_ARGS__)
#define TL_TEST_FE_82(m, x, ...) m(x) TL_TEST_FE_81(m, __VA_ARGS__)
#define TL_TEST_FE_83(m, x, ...) m(x) TL_TEST_FE_82(m, __VA_ARGS__)
#define TL_TEST_FE_84(m, x, ...) m(x) TL_TEST_FE_83(m, __VA_ARGS__)
#define TL_TEST_FE_85(m, x, ...) m(x) TL_TEST_FE_84(m, __VA_ARGS__)
#define TL_TEST_FE_86(m, x, ...) m(x) TL_TEST_FE_85(m, __VA_ARGS__)
#define TL_TEST_FE_87(m, x, ...) m(x) TL_TEST_FE_86(m, __VA_ARGS__)
#define TL_TEST_FE_88(m, x, ...) m(x) TL_TEST_FE_87(m, __VA_ARGS__)
#define TL_TEST_FE_89(m, x, ...) m(x) TL_TEST_FE_88(m, __VA_ARGS__)
#define TL_TEST_FE_90(m, x, ...) m(x) TL_TEST_FE_89(m, __VA_ARGS__)
#define TL_TEST_FE_91(m, x, ...) m(x) TL_TEST_FE_90(m, __VA_ARGS__)
#define TL_TEST_FE_92(m, x, ...) m(x) TL_TEST_FE_91(m, __VA_ARGS__)
#define TL_TEST_FE_93(m, x, ...) m(x) TL_TEST_FE_92(m, __VA_ARGS__)
#define TL_TEST_FE_94(m, x, ...) m(x) TL_TEST_FE_93(m, __VA_ARGS__)
#define TL_TEST_FE_95(m, x, ...) m(x) TL_TEST_FE_94(m, __VA_ARGS__)
#define TL_TEST_FE_96(m, x, ...) m(x) TL_TEST_FE_95(m, __VA_ARGS__)
#define TL_TEST_FE_97(m, x, ...) m(x) TL_TEST_FE_96(m, __VA_ARGS__)
#define TL_TEST_FE_98(m, x, ...) m(x) TL_TEST_FE_97(m, __VA_ARGS__)
#define TL_TEST_FE_99(m, x, ...) m(x) TL_TEST_FE_98(m, __VA_ARGS__)
#define TL_TEST_FE_100(m, x, ...) m(x) TL_TEST_FE_99(m, __VA_ARGS__)
#define TL_TEST_FE_101(m, x, ...) m(x) TL_TEST_FE_100(m, __VA_ARGS__)
#define TL_TEST_FE_102(m, x, ...) m(x) TL_TEST_FE_101(m, __VA_ARGS__)
#define TL_TEST_FE_103(m, x, ...) m(x) TL_TEST_FE_102(m, __VA_ARGS__)
#define TL_TEST_FE_104(m, x, ...) m(x) TL_TEST_FE_103(m, __VA_ARGS__)
#define TL_TEST_FE_105(m, x, ...) m(x) TL_TEST_FE_104(m, __VA_ARGS__)
#define TL_TEST_FE_106(m, x, ...) m(x) TL_TEST_FE_105(m, __VA_ARGS__)
#define TL_TEST_FE_107(m, x, ...) m(x) TL_TEST_FE_106(m, __VA_ARGS__)
#define TL_TEST_FE_108(m, x, ...) m(x) TL_TEST_FE_107(m, __VA_ARGS__)
#define TL_TEST_FE_109(m, x, ...) m(x) TL_TEST_FE_108(m, __VA_ARGS__)
#define TL_TEST_FE_110(m, x, ...) m(x) TL_TEST_FE_109(m, __VA_ARGS__)
#define TL_TEST_FE_111(m, x, ...) m(x) TL_TEST_FE_110(m, __VA_ARGS__)
#define TL_TEST_FE_112(m, x, ...) m(x) TL_TEST_FE_111(m, __VA_ARGS__)
#define TL_TEST_FE_113(m, x, ...) m(x) TL_TEST_FE_112(m, __VA_ARGS__)
#define TL_TEST_FE_114(m, x, ...) m(x) TL_TEST_FE_113(m, __VA_ARGS__)
#define TL_TEST_FE_115(m, x, ...) m(x) TL_TEST_FE_114(m, __VA_ARGS__)
#define TL_TEST_FE_116(m, x, ...) m(x) TL_TEST_FE_115(m, __VA_ARGS__)
#define TL_TEST_FE_117(m, x, ...) m(x) TL_TEST_FE_116(m, __VA_ARGS__)
#define TL_TEST_FE_118(m, x, ...) m(x) TL_TEST_FE_117(m, __VA_ARGS__)
#define TL_TEST_FE_119(m, x, ...) m(x) TL_TEST_FE_118(m, __VA_ARGS__)
#define TL_TEST_FE_120(m, x, ...) m(x) TL_TEST_FE_119(m, __VA_ARGS__)
#define TL_TEST_FE_121(m, x, ...) m(x) TL_TEST_FE_120(m, __VA_ARGS__)
#define TL_TEST_FE_122(m, x, ...) m(x) TL_TEST_FE_121(m, __VA_ARGS__)
#define TL_TEST_FE_123(m, x, ...) m(x) TL_TEST_FE_122(m, __VA_ARGS__)
#define TL_TEST_FE_124(m, x, ...) m(x) TL_TEST_FE_123(m, __VA_ARGS__)
#define TL_TEST_FE_125(m, x, ...) m(x) TL_TEST_FE_124(m, __VA_ARGS__)
#define TL_TEST_FE_126(m, x, ...) m(x) TL_TEST_FE_125(m, __VA_ARGS__)
#define TL_TEST_FE_127(m, x, ...) m(x) TL_TEST_FE_126(m, __VA_ARGS__)
#define TL_TEST_FE_128(m, x, ...) m(x) TL_TEST_FE_127(m, __VA_ARGS__)

#endif
