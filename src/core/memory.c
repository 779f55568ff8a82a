/* One door to the heap: 64-byte aligned blocks, counted so tests can prove a steady-state step
 * allocates nothing, and sized so a world can report its memory.
 *
 * Every block belongs to a context (loam/core.h): its header records the context, the size asked
 * for and, for a host's allocator, where the host's own block starts, so loam_free and loam_realloc
 * need no context argument and hand the host back exactly the pointer and size it gave. The counts
 * live in the context, so two host threads working in two contexts never share a counter.
 *
 * Large blocks of loam's own allocator (contact and neighbour arrays) are mapped from the kernel
 * directly and unmapped on free. Through malloc, glibc raises its mmap threshold after the first
 * large free, so a world that grows its arrays a few times while settling kept the freed ones in the
 * heap: peak RSS ran 25% above the memory in use (measured on the 100k column). Mapped pages also
 * cost nothing until touched, so unused headroom does not count. Sanitizer builds keep malloc,
 * which they watch. */
#define _GNU_SOURCE /* mremap */
#include "core/context.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loam/core.h"

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

struct loam_context {
    loam_allocator allocator; /* alloc NULL: loam's own (aligned_alloc, mmap) */
    int threads;
    uint64_t alloc_count;     /* atomic: blocks may be allocated on worker threads */
    size_t bytes_in_use;      /* atomic */
    size_t refs;              /* atomic: live blocks, plus one until loam_context_destroy */
};

/* The header of one alignment unit in front of every block. */
typedef struct block_head {
    size_t bytes;        /* asked for */
    loam_context* ctx;
    size_t raw_offset;   /* host allocator: the block starts this far into the host's block */
    size_t raw_total;    /* host allocator: the size the host's block was asked for */
} block_head;
_Static_assert(sizeof(block_head) <= LOAM_ALIGN, "the block header fits one alignment unit");

static loam_context g_default = {{NULL, NULL, NULL}, 0, 0, 0, 1};
static _Thread_local loam_context* t_scope;

static block_head* head_of(const void* ptr) { return (block_head*)((unsigned char*)(uintptr_t)ptr - LOAM_ALIGN); }
static int own(const loam_context* ctx) { return ctx->allocator.alloc == NULL; }
static int mapped(const loam_context* ctx, size_t bytes) { return LOAM_MAP_LARGE && own(ctx) && bytes >= LOAM_MAP_FROM; }
/* Bytes of loam's own block that holds `bytes` and its header. */
static size_t own_total(size_t bytes) { return (bytes + LOAM_ALIGN + LOAM_ALIGN - 1) / LOAM_ALIGN * LOAM_ALIGN; }

static void count_in(loam_context* ctx, size_t bytes) {
    __atomic_add_fetch(&ctx->alloc_count, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ctx->bytes_in_use, bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ctx->refs, 1, __ATOMIC_RELAXED);
}

static void context_release(loam_context* ctx) {
    /* acq_rel: the thread that frees the context sees every other thread's last use of it. */
    if (__atomic_sub_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL) != 0 || ctx == &g_default) return;
    loam_allocator a = ctx->allocator;
    if (a.free) a.free(ctx, sizeof *ctx, a.user);
    else free(ctx);
}

loam_context* loam_ctx_resolve(loam_context* ctx) {
    if (ctx) return ctx;
    return t_scope ? t_scope : &g_default;
}

loam_context* loam_ctx_scope_enter(loam_context* ctx) {
    loam_context* previous = t_scope;
    if (ctx) t_scope = ctx;
    return previous;
}

void loam_ctx_scope_leave(loam_context* previous) { t_scope = previous; }

int loam_ctx_threads(const loam_context* ctx, int requested) {
    if (requested > 0) return requested;
    return ctx ? ctx->threads : 0;
}

void* loam_ctx_malloc(loam_context* ctx, size_t bytes) {
    ctx = loam_ctx_resolve(ctx);
    if (bytes > SIZE_MAX - 2 * LOAM_ALIGN) return NULL;
    unsigned char* block;
    size_t raw_offset = 0, raw_total = 0;
    if (!own(ctx)) {
        /* The host's allocator owes no alignment: ask for one unit more and align inside. */
        raw_total = bytes + 2 * LOAM_ALIGN - 1;
        unsigned char* raw = ctx->allocator.alloc(raw_total, ctx->allocator.user);
        if (!raw) return NULL;
        block = (unsigned char*)(((uintptr_t)raw + LOAM_ALIGN - 1) & ~(uintptr_t)(LOAM_ALIGN - 1));
        raw_offset = (size_t)(block - raw);
    } else if (mapped(ctx, bytes)) {
        block = mmap(NULL, own_total(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) return NULL;
    } else {
        block = aligned_alloc(LOAM_ALIGN, own_total(bytes));
        if (!block) return NULL;
    }
    block_head h = {bytes, ctx, raw_offset, raw_total};
    memcpy(block, &h, sizeof h);
    count_in(ctx, bytes);
    return block + LOAM_ALIGN;
}

void* loam_ctx_calloc(loam_context* ctx, size_t count, size_t bytes) {
    if (bytes && count > SIZE_MAX / bytes) return NULL;
    void* p = loam_ctx_malloc(ctx, count * bytes);
    if (p) memset(p, 0, count * bytes);
    return p;
}

void* loam_ctx_realloc(loam_context* ctx, void* ptr, size_t bytes) {
    return ptr ? loam_realloc(ptr, bytes) : loam_ctx_malloc(ctx, bytes);
}

loam_context* loam_block_context(const void* ptr) { return ptr ? head_of(ptr)->ctx : NULL; }

void* loam_malloc(size_t bytes) { return loam_ctx_malloc(NULL, bytes); }
void* loam_calloc(size_t count, size_t bytes) { return loam_ctx_calloc(NULL, count, bytes); }

void loam_free(void* ptr) {
    if (!ptr) return;
    block_head h;
    memcpy(&h, head_of(ptr), sizeof h);
    loam_context* ctx = h.ctx;
    unsigned char* block = (unsigned char*)ptr - LOAM_ALIGN;
    __atomic_sub_fetch(&ctx->bytes_in_use, h.bytes, __ATOMIC_RELAXED);
    if (!own(ctx)) ctx->allocator.free(block - h.raw_offset, h.raw_total, ctx->allocator.user);
    else if (mapped(ctx, h.bytes)) munmap(block, own_total(h.bytes));
    else free(block);
    context_release(ctx);
}

void* loam_realloc(void* ptr, size_t bytes) {
    if (!ptr) return loam_malloc(bytes);
    block_head h;
    memcpy(&h, head_of(ptr), sizeof h);
    loam_context* ctx = h.ctx;
    if (bytes > SIZE_MAX - 2 * LOAM_ALIGN) return NULL;
#ifdef MREMAP_MAYMOVE
    if (mapped(ctx, h.bytes) && mapped(ctx, bytes)) {
        unsigned char* moved = mremap((unsigned char*)ptr - LOAM_ALIGN, own_total(h.bytes), own_total(bytes), MREMAP_MAYMOVE);
        if (moved == MAP_FAILED) return NULL;
        size_t old = h.bytes;
        h.bytes = bytes;
        memcpy(moved, &h, sizeof h);
        __atomic_add_fetch(&ctx->alloc_count, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&ctx->bytes_in_use, bytes, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&ctx->bytes_in_use, old, __ATOMIC_RELAXED);
        return moved + LOAM_ALIGN;
    }
#endif
    void* fresh = loam_ctx_malloc(ctx, bytes); /* a block stays in its context */
    if (!fresh) return NULL;
    memcpy(fresh, ptr, h.bytes < bytes ? h.bytes : bytes);
    loam_free(ptr);
    return fresh;
}

void loam_release(void* ptr, size_t from, size_t to) {
    if (!ptr || from >= to) return;
    block_head h;
    memcpy(&h, head_of(ptr), sizeof h);
    if (!mapped(h.ctx, h.bytes)) return; /* only loam's own mappings: a host's block is the host's */
    if (to > h.bytes) to = h.bytes;
    static uintptr_t cached_page;
    uintptr_t page = __atomic_load_n(&cached_page, __ATOMIC_RELAXED);
    if (!page) {
        page = (uintptr_t)sysconf(_SC_PAGESIZE);
        __atomic_store_n(&cached_page, page, __ATOMIC_RELAXED);
    }
    uintptr_t lo = ((uintptr_t)ptr + from + page - 1) & ~(page - 1), hi = ((uintptr_t)ptr + to) & ~(page - 1);
    if (lo < hi) madvise((void*)lo, hi - lo, MADV_DONTNEED);
}

uint64_t loam_alloc_count(void) { return loam_context_alloc_count(NULL); }
size_t loam_bytes_in_use(void) { return loam_context_bytes_in_use(NULL); }

size_t loam_block_bytes(const void* ptr) {
    if (!ptr) return 0;
    size_t bytes;
    memcpy(&bytes, head_of(ptr), sizeof bytes);
    return bytes;
}

/* Contexts. */

loam_context_def loam_context_default_def(void) {
    loam_context_def d;
    memset(&d, 0, sizeof d);
    return d;
}

loam_context* loam_context_default(void) { return &g_default; }

loam_context* loam_context_create(const loam_context_def* def, loam_error* err) {
    loam_context_def d = def ? *def : loam_context_default_def();
    if (!d.allocator.alloc != !d.allocator.free) {
        loam_error_set(err, LOAM_ERR_INPUT, "context: allocator.alloc is %s but allocator.free is %s: give both or neither",
                       d.allocator.alloc ? "set" : "NULL", d.allocator.free ? "set" : "NULL");
        return NULL;
    }
    if (d.threads < 0 || d.threads > 4096) {
        loam_error_set(err, LOAM_ERR_INPUT, "context: threads = %d, expected 0 (the process default) to 4096", d.threads);
        return NULL;
    }
    /* The context itself comes from its own allocator, so a host that gives one sees every byte. */
    loam_context* ctx = d.allocator.alloc ? d.allocator.alloc(sizeof *ctx, d.allocator.user) : malloc(sizeof *ctx);
    if (!ctx) {
        loam_error_set(err, LOAM_ERR_NOMEM, "context: out of memory (%zu bytes)", sizeof *ctx);
        return NULL;
    }
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = d.allocator;
    ctx->threads = d.threads;
    ctx->refs = 1;
    return ctx;
}

void loam_context_destroy(loam_context* ctx) {
    if (!ctx || ctx == &g_default) return;
    context_release(ctx); /* freed now, or by the free of its last block */
}

size_t loam_context_bytes_in_use(const loam_context* ctx) {
    return __atomic_load_n(&(ctx ? ctx : &g_default)->bytes_in_use, __ATOMIC_RELAXED);
}

uint64_t loam_context_alloc_count(const loam_context* ctx) {
    return __atomic_load_n(&(ctx ? ctx : &g_default)->alloc_count, __ATOMIC_RELAXED);
}

int loam_context_threads(const loam_context* ctx) { return (ctx ? ctx : &g_default)->threads; }

loam_status loam_context_set_threads(loam_context* ctx, int threads, loam_error* err) {
    if (threads < 0 || threads > 4096)
        return loam_error_set(err, LOAM_ERR_INPUT, "context set_threads: threads = %d, expected 0 (the process default) to 4096", threads);
    if (!ctx || ctx == &g_default)
        return loam_error_set(err, LOAM_ERR_INPUT, "context set_threads: the default context's count is loam_set_threads's");
    ctx->threads = threads;
    return LOAM_OK;
}
