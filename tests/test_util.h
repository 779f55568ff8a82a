/* The whole test framework: CHECK prints the failed condition with its values and counts it. */
#ifndef LOAM_TEST_UTIL_H
#define LOAM_TEST_UTIL_H

#include <math.h>
#include <stdio.h>

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

#define TEST_MAIN_END()                                                    \
    do {                                                                   \
        if (g_test_failures) fprintf(stderr, "%d check(s) failed\n", g_test_failures); \
        else fprintf(stderr, "all checks passed\n");                       \
        return g_test_failures ? 1 : 0;                                    \
    } while (0)

#endif
