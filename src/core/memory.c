/* One door to the heap: 64-byte aligned blocks, counted so tests can prove a steady-state step
 * allocates nothing, and sized so a world can report its memory.
 *
 * Large blocks (contact and neighbour arrays) are mapped from the kernel directly and unmapped on
 * free. Through malloc, glibc raises its mmap threshold after the first large free, so a world that
 * grows its arrays a few times while settling kept the freed ones in the heap: peak RSS ran 25%
 * above the memory in use (measured on the 100k column). Mapped pages also cost nothing until
 * touched, so unused headroom does not count. Sanitizer builds keep malloc, which they watch. */
#define _GNU_SOURCE /* mremap */
#include "loam/core.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define LOAM_MAP_LARGE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOAM_MAP_LARGE 0
#endif
#endif
#ifndef LOAM_MAP_LARGE
#define LOAM_MAP_LARGE 1
#endif

enum { LOAM_ALIGN = 64 };
static const size_t LOAM_MAP_FROM = 256 * 1024; /* bytes: blocks this large are mapped */

static int mapped(size_t bytes) { return LOAM_MAP_LARGE && bytes >= LOAM_MAP_FROM; }
/* Bytes of the mapping that holds a block of `bytes` and its header. */
static size_t mapped_total(size_t bytes) { return (bytes + LOAM_ALIGN + LOAM_ALIGN - 1) / LOAM_ALIGN * LOAM_ALIGN; }

static uint64_t g_alloc_count;   /* atomically updated: allocations may happen on worker threads */
static size_t g_bytes_in_use;

void* loam_malloc(size_t bytes) {
    /* A header of one alignment unit stores the size, so loam_free can account for it. */
    if (bytes > SIZE_MAX - LOAM_ALIGN) return NULL;
    size_t total = mapped_total(bytes);
    unsigned char* block;
    if (mapped(bytes)) {
        block = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) return NULL;
    } else {
        block = aligned_alloc(LOAM_ALIGN, total);
        if (!block) return NULL;
    }
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
    if (mapped(bytes)) munmap(block, mapped_total(bytes));
    else free(block);
}

void* loam_realloc(void* ptr, size_t bytes) {
    if (!ptr) return loam_malloc(bytes);
    unsigned char* block = (unsigned char*)ptr - LOAM_ALIGN;
    size_t old;
    memcpy(&old, block, sizeof old);
    if (bytes > SIZE_MAX - LOAM_ALIGN) return NULL;
#ifdef MREMAP_MAYMOVE
    if (mapped(old) && mapped(bytes)) {
        unsigned char* moved = mremap(block, mapped_total(old), mapped_total(bytes), MREMAP_MAYMOVE);
        if (moved == MAP_FAILED) return NULL;
        memcpy(moved, &bytes, sizeof bytes);
        __atomic_add_fetch(&g_alloc_count, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&g_bytes_in_use, bytes, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&g_bytes_in_use, old, __ATOMIC_RELAXED);
        return moved + LOAM_ALIGN;
    }
#endif
    void* fresh = loam_malloc(bytes);
    if (!fresh) return NULL;
    memcpy(fresh, ptr, old < bytes ? old : bytes);
    loam_free(ptr);
    return fresh;
}

void loam_release(void* ptr, size_t from, size_t to) {
    if (!ptr || from >= to) return;
    unsigned char* block = (unsigned char*)ptr - LOAM_ALIGN;
    size_t bytes;
    memcpy(&bytes, block, sizeof bytes);
    if (!mapped(bytes)) return;
    if (to > bytes) to = bytes;
    static uintptr_t cached_page;
    uintptr_t page = __atomic_load_n(&cached_page, __ATOMIC_RELAXED);
    if (!page) {
        page = (uintptr_t)sysconf(_SC_PAGESIZE);
        __atomic_store_n(&cached_page, page, __ATOMIC_RELAXED);
    }
    uintptr_t lo = ((uintptr_t)ptr + from + page - 1) & ~(page - 1), hi = ((uintptr_t)ptr + to) & ~(page - 1);
    if (lo < hi) madvise((void*)lo, hi - lo, MADV_DONTNEED);
}

uint64_t loam_alloc_count(void) { return __atomic_load_n(&g_alloc_count, __ATOMIC_RELAXED); }
size_t loam_bytes_in_use(void) { return __atomic_load_n(&g_bytes_in_use, __ATOMIC_RELAXED); }

size_t loam_block_bytes(const void* ptr) {
    if (!ptr) return 0;
    size_t bytes;
    memcpy(&bytes, (const unsigned char*)ptr - LOAM_ALIGN, sizeof bytes);
    return bytes;
}
