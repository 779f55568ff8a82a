/* loam_release gives whole pages of a large block back to the system: they leave the resident set
 * (what peak-RSS figures count) and read as zeros, while every byte outside the range keeps its
 * value. Sanitizer builds allocate through malloc, where the call must change nothing at all.
 * loam_realloc keeps a block's bytes, its alignment and the byte count, and grows a large block
 * without it being resident twice (the peak rises by far less than the old block). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loam/core.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define MAPPED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAPPED 0
#endif
#endif
#ifndef MAPPED
#define MAPPED 1
#endif

/* Peak resident set in kB (VmHWM), after /proc/self/clear_refs "5" reset it when reset is set;
 * -1 where the kernel cannot say. */
static long peak_kb(int reset) {
    if (reset) {
        FILE* c = fopen("/proc/self/clear_refs", "w");
        if (!c) return -1;
        fputs("5", c);
        fclose(c);
    }
    FILE* f = fopen("/proc/self/status", "r");
    long kb = -1;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb;
}

static void check_realloc(void) {
    enum { OLD = 8 << 20, NEW = 24 << 20 };
    size_t in_use = loam_bytes_in_use();
    unsigned char* p = loam_realloc(NULL, OLD); /* NULL: a new block */
    CHECK(p != NULL && (uintptr_t)p % 64 == 0, "loam_realloc(NULL) gave %p", (void*)p);
    if (!p) return;
    for (size_t k = 0; k < OLD; ++k) p[k] = (unsigned char)(k * 7 + 3);
    long before = peak_kb(1);
    unsigned char* q = loam_realloc(p, NEW);
    long after = peak_kb(0);
    CHECK(q != NULL && (uintptr_t)q % 64 == 0, "growing to %d bytes gave %p", NEW, (void*)q);
    if (!q) return;
    int kept = 1;
    for (size_t k = 0; k < OLD; ++k) kept &= q[k] == (unsigned char)(k * 7 + 3);
    CHECK(kept, "a grown block lost its bytes");
    CHECK(loam_bytes_in_use() == in_use + NEW, "bytes in use %zu, expected %zu", loam_bytes_in_use(), in_use + NEW);
    if (MAPPED) CHECK(before > 0 && after > 0, "no peak resident set to read (VmHWM, clear_refs): %ld, %ld kB", before, after);
    if (MAPPED && before > 0 && after > 0)
        CHECK(after - before < (OLD >> 10) / 2, "the peak rose by %ld kB growing an %d kB block: resident twice", after - before,
              OLD >> 10);
    q[NEW - 1] = 1; /* the new bytes are there to write */
    unsigned char* small = loam_realloc(q, 100); /* shrinking to a heap block keeps the first bytes */
    CHECK(small != NULL, "shrinking failed");
    if (!small) return;
    kept = 1;
    for (size_t k = 0; k < 100; ++k) kept &= small[k] == (unsigned char)(k * 7 + 3);
    CHECK(kept, "a shrunk block lost its bytes");
    loam_free(small);
    CHECK(loam_bytes_in_use() == in_use, "bytes in use %zu after freeing, expected %zu", loam_bytes_in_use(), in_use);
}

/* Resident pages of this process (/proc/self/statm, second field). */
static long resident_pages(void) {
    long size = 0, resident = -1;
    FILE* f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
        fclose(f);
    }
    return resident;
}

int main(void) {
    enum { BYTES = 4 << 20, FROM = 100001, TO = 3900003 };
    long page = sysconf(_SC_PAGESIZE);
    unsigned char* p = loam_malloc(BYTES);
    CHECK(p != NULL, "allocation of %d bytes", BYTES);
    if (!p) TEST_MAIN_END();
    memset(p, 0xab, BYTES);
    long before = resident_pages();
    loam_release(p, FROM, TO);
    long after = resident_pages();
    size_t lo = ((size_t)((uintptr_t)p + FROM) + (size_t)page - 1) / (size_t)page * (size_t)page - (uintptr_t)p;
    size_t hi = (size_t)((uintptr_t)p + TO) / (size_t)page * (size_t)page - (uintptr_t)p;
    int outside_kept = 1, inside_zero = 1, inside_kept = 1;
    for (size_t k = 0; k < BYTES; ++k) {
        int inside = k >= lo && k < hi;
        if (!inside) outside_kept &= p[k] == 0xab;
        else {
            inside_zero &= p[k] == 0;
            inside_kept &= p[k] == 0xab;
        }
    }
    CHECK(outside_kept, "bytes outside the whole pages of [%d, %d) changed", FROM, TO);
    if (MAPPED) {
        CHECK(inside_zero, "released pages do not read as zeros");
        long released = (long)((hi - lo) / (size_t)page);
        /* Most of them (the kernel may keep a few, around huge-page boundaries). */
        CHECK(before > 0 && after >= 0 && before - after >= released * 9 / 10,
              "resident pages %ld -> %ld, expected about %ld fewer", before, after, released);
    } else {
        CHECK(inside_kept, "a malloc block (sanitizer build) must not change");
    }
    /* Ranges that hold no whole page, or are empty, change nothing. */
    memset(p, 0xcd, 64);
    loam_release(p, 1, 64);
    loam_release(p, 64, 64);
    int small_kept = 1;
    for (int k = 0; k < 64; ++k) small_kept &= p[k] == 0xcd;
    CHECK(small_kept, "a range inside one page changed");
    loam_free(p);
    check_realloc();
    TEST_MAIN_END();
}
