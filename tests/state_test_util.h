/* Shared checks of the state-file tests (tests/test_state_*.c): a saved file truncated at many
 * lengths, or with single bytes flipped, must load as LOAM_ERR_INPUT with the file named, never a
 * crash (run them under ASan to see that). */
#ifndef LOAM_TEST_STATE_UTIL_H
#define LOAM_TEST_STATE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/core.h"
#include "test_util.h"

typedef loam_status (*state_load_fn)(void* ctx, const char* path, loam_error* err);

static unsigned char* state_slurp(const char* path, size_t* n) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    *n = len > 0 ? (size_t)len : 0;
    unsigned char* b = malloc(*n ? *n : 1);
    if (b && fread(b, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return b;
}

static void state_spit(const char* path, const unsigned char* b, size_t n) {
    FILE* f = fopen(path, "wb");
    if (!f) return;
    if (n) fwrite(b, 1, n, f);
    fclose(f);
}

/* good: a valid saved file; bad: a scratch path. Every truncation and byte flip must fail cleanly. */
static void state_check_bad_files(const char* good, const char* bad, state_load_fn load, void* ctx) {
    loam_error err;
    size_t n = 0;
    unsigned char* b = state_slurp(good, &n);
    CHECK(b && n > 40, "%s has %zu bytes", good, n);
    if (!b || n <= 40) {
        free(b);
        return;
    }
    size_t cuts[] = {0, 7, 31, 32, 33, 40, n / 3, n / 2, n - 8, n - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; ++k) {
        state_spit(bad, b, cuts[k]);
        loam_status st = load(ctx, bad, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, bad), "truncated to %zu bytes: status %d, %s", cuts[k], (int)st, err.message);
    }
    size_t flips[] = {0, 9, 13, 17, 26, 33, 40, n / 3, n / 2, n - 1};
    for (size_t k = 0; k < sizeof flips / sizeof flips[0]; ++k) {
        b[flips[k]] ^= 0x10;
        state_spit(bad, b, n);
        b[flips[k]] ^= 0x10;
        loam_status st = load(ctx, bad, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, bad), "byte %zu flipped: status %d, %s", flips[k], (int)st, err.message);
    }
    /* One extra byte: the length in the header no longer matches. */
    unsigned char* longer = malloc(n + 1);
    if (longer) {
        memcpy(longer, b, n);
        longer[n] = 0;
        state_spit(bad, longer, n + 1);
        loam_status st = load(ctx, bad, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, bad), "a byte appended: status %d, %s", (int)st, err.message);
        free(longer);
    }
    const char* missing = "no/such/dir/state.bin";
    CHECK(load(ctx, missing, &err) != LOAM_OK && strstr(err.message, missing), "a missing file: %s", err.message);
    free(b);
    remove(bad);
}

#endif
