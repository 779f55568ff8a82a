/* The whole test framework: CHECK prints the failed condition with its values and counts it. */
#ifndef LOAM_TEST_UTIL_H
#define LOAM_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_test_failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            ++g_test_failures;                                             \
        }                                                                  \
    } while (0)

/* FNV-1a over bytes, for bit-for-bit comparisons of states: equal digests mean equal bytes (a
 * difference would not cancel). Start from TEST_DIGEST_SEED. */
#define TEST_DIGEST_SEED 0xcbf29ce484222325ull
static inline uint64_t test_digest(uint64_t h, const void* data, size_t bytes) {
    const unsigned char* p = (const unsigned char*)data;
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* LOAM_TEST_SHORT=1 (tests/CMakeLists.txt sets it in the sanitizer builds): the slowest tests run a
 * smaller case through the same code and skip the checks only the full size can pass. Those checks
 * run in the Release build, where it is unset; what the sanitizers look for (bad memory, undefined
 * behaviour, races) does not need the full size. */
static inline int test_short(void) {
    const char* s = getenv("LOAM_TEST_SHORT");
    return s && *s && strcmp(s, "0") != 0;
}

/* A step count: n in the full run, n / 10 in the short one. */
static inline int test_steps(int n) { return test_short() && n >= 10 ? n / 10 : n; }

/* A check that needs the full-size run (a settled state, a converged sequence): skipped in the short one. */
#define CHECK_FULL(cond, ...)                                              \
    do {                                                                   \
        if (!test_short()) CHECK(cond, __VA_ARGS__);                       \
    } while (0)

#define TEST_MAIN_END()                                                    \
    do {                                                                   \
        if (g_test_failures) fprintf(stderr, "%d check(s) failed\n", g_test_failures); \
        else fprintf(stderr, "all checks passed\n");                       \
        return g_test_failures ? 1 : 0;                                    \
    } while (0)

#endif
