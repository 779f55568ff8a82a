/* A counting host allocator for the context tests (test_context.c, test_context_granular.c). */
#ifndef LOAM_TEST_COUNTING_CONTEXT_H
#define LOAM_TEST_COUNTING_CONTEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/core.h"
#include "test_util.h"

/* A host allocator that counts, checks that free gets back the size alloc was asked for, and
 * hands out blocks 8 bytes off any alignment (loam must align inside). fail_after >= 0: calls past
 * that many return NULL. Thread-safe (two host threads and OpenMP workers may call it). */
typedef struct counter {
    long calls, live, bytes, fail_after, bad_sizes;
} counter;

static inline void* count_alloc(size_t size, void* user) {
    counter* c = user;
    long n = __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
    if (c->fail_after >= 0 && n > c->fail_after) return NULL;
    /* malloc's blocks are 16-byte aligned: 24 bytes in is 8 off every 16, never 64-aligned. */
    unsigned char* raw = malloc(size + 24);
    if (!raw) return NULL;
    memcpy(raw, &size, sizeof size);
    __atomic_add_fetch(&c->live, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->bytes, (long)size, __ATOMIC_RELAXED);
    return raw + 24;
}

static inline void count_free(void* ptr, size_t size, void* user) {
    counter* c = user;
    unsigned char* raw = (unsigned char*)ptr - 24;
    size_t stored;
    memcpy(&stored, raw, sizeof stored);
    if (stored != size) __atomic_add_fetch(&c->bad_sizes, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&c->live, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&c->bytes, (long)size, __ATOMIC_RELAXED);
    free(raw);
}

static inline loam_context* counted_context(counter* c, int threads) {
    memset(c, 0, sizeof *c);
    c->fail_after = -1;
    loam_context_def d = loam_context_default_def();
    d.allocator.alloc = count_alloc;
    d.allocator.free = count_free;
    d.allocator.user = c;
    d.threads = threads;
    loam_error err;
    loam_context* ctx = loam_context_create(&d, &err);
    if (!ctx) fprintf(stderr, "context: %s\n", err.message);
    return ctx;
}

/* Run life(ctx, which) in a fresh counting context whose thread count is `threads`. While it runs,
 * the process default context's counts do not move; after it, the context holds no byte, its count
 * of blocks equals the allocator's calls, and after the context's destroy the allocator holds
 * nothing and was always given back the sizes it handed out. */
static inline void check_counted_life(void (*life)(loam_context* ctx, int which), int which, int threads) {
    counter c;
    loam_context* ctx = counted_context(&c, threads);
    CHECK(ctx != NULL, "a counting context");
    if (!ctx) return;
    long own = c.bytes; /* the context's own record */
    uint64_t count0 = loam_alloc_count();
    size_t bytes0 = loam_bytes_in_use();
    life(ctx, which);
    CHECK(loam_alloc_count() == count0, "case %d: the default context allocated %llu blocks", which,
          (unsigned long long)(loam_alloc_count() - count0));
    CHECK(loam_bytes_in_use() == bytes0, "case %d: the default context's bytes moved by %lld", which,
          (long long)loam_bytes_in_use() - (long long)bytes0);
    CHECK(loam_context_alloc_count(ctx) > 10, "case %d: %llu blocks in the context", which, (unsigned long long)loam_context_alloc_count(ctx));
    CHECK(loam_context_bytes_in_use(ctx) == 0, "case %d: %zu bytes left in the context", which, loam_context_bytes_in_use(ctx));
    CHECK(c.live == 1 && c.bytes == own, "case %d: the allocator holds %ld blocks, %ld bytes after the objects (its own: 1, %ld)", which,
          c.live, c.bytes, own);
    CHECK((long)loam_context_alloc_count(ctx) == c.calls - 1, "case %d: the context counted %llu blocks, the allocator %ld", which,
          (unsigned long long)loam_context_alloc_count(ctx), c.calls - 1);
    loam_context_destroy(ctx);
    CHECK(c.live == 0 && c.bytes == 0 && c.bad_sizes == 0, "case %d: after destroy %ld blocks, %ld bytes, %ld wrong sizes", which, c.live,
          c.bytes, c.bad_sizes);
}

#endif
