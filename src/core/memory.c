/* One door to the heap: 64-byte aligned blocks, counted so tests can prove a steady-state step
 * allocates nothing, and sized so a world can report its memory. */
#include "loam/core.h"

#include <stdlib.h>
#include <string.h>

enum { LOAM_ALIGN = 64 };

static uint64_t g_alloc_count;   /* atomically updated: allocations may happen on worker threads */
static size_t g_bytes_in_use;

void* loam_malloc(size_t bytes) {
    /* A header of one alignment unit stores the size, so loam_free can account for it. */
    if (bytes > SIZE_MAX - LOAM_ALIGN) return NULL;
    size_t total = (bytes + LOAM_ALIGN + LOAM_ALIGN - 1) / LOAM_ALIGN * LOAM_ALIGN;
    unsigned char* block = aligned_alloc(LOAM_ALIGN, total);
    if (!block) return NULL;
    memcpy(block, &bytes, sizeof bytes);
    __atomic_add_fetch(&g_alloc_count, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_bytes_in_use, bytes, __ATOMIC_RELAXED);
    return block + LOAM_ALIGN;
}

void* loam_calloc(size_t count, size_t bytes) {
    if (bytes && count > SIZE_MAX / bytes) return NULL;
    void* p = loam_malloc(count * bytes);
    if (p) memset(p, 0, count * bytes);
    return p;
}

void loam_free(void* ptr) {
    if (!ptr) return;
    unsigned char* block = (unsigned char*)ptr - LOAM_ALIGN;
    size_t bytes;
    memcpy(&bytes, block, sizeof bytes);
    __atomic_sub_fetch(&g_bytes_in_use, bytes, __ATOMIC_RELAXED);
    free(block);
}

uint64_t loam_alloc_count(void) { return __atomic_load_n(&g_alloc_count, __ATOMIC_RELAXED); }
size_t loam_bytes_in_use(void) { return __atomic_load_n(&g_bytes_in_use, __ATOMIC_RELAXED); }
