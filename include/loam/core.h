/* loam core: status codes, error reports, vectors and poses, memory, threads.
 * Every other module speaks this vocabulary. SI units, z up, right-handed. */
#ifndef LOAM_CORE_H
#define LOAM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "loam/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of the `loam` command use the same numbers. */
typedef enum loam_status {
    LOAM_OK = 0,
    LOAM_ERR_INTERNAL = 1,  /* a bug in loam */
    LOAM_ERR_INPUT = 2,     /* bad scene, option or argument */
    LOAM_ERR_DIVERGED = 3,  /* the simulation blew up (non-finite or out of bounds) */
    LOAM_ERR_IO = 4,        /* a file could not be read or written */
    LOAM_ERR_NOMEM = 5      /* out of memory */
} loam_status;

/* An error report: a status and a human-readable message naming file, line, key and value
 * where they are known. Entry points take a nullable loam_error* and fill it on failure. */
typedef struct loam_error {
    loam_status status;
    char message[1024];
} loam_error;

LOAM_API loam_status loam_error_set(loam_error* err, loam_status status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
LOAM_API void loam_error_clear(loam_error* err);

typedef struct loam_vec3 { float x, y, z; } loam_vec3;
/* Unit quaternion, w first. */
typedef struct loam_quat { float w, x, y, z; } loam_quat;
/* A rigid transform: world point = q * local + p. */
typedef struct loam_pose { loam_vec3 p; loam_quat q; } loam_pose;
/* A rigid-body velocity: linear velocity of the body origin and angular velocity, both in world axes. */
typedef struct loam_twist { loam_vec3 v; loam_vec3 w; } loam_twist;

/* Double-precision counterparts, for the multibody module and the solvers that need them. */
typedef struct loam_vec3d { double x, y, z; } loam_vec3d;
typedef struct loam_quatd { double w, x, y, z; } loam_quatd;
typedef struct loam_posed { loam_vec3d p; loam_quatd q; } loam_posed;

/* Memory. All of loam's heap use goes through these, so tests can count allocations and hosts can
 * track usage. loam_malloc returns 64-byte aligned blocks (cache lines, SIMD).
 *
 * Every block belongs to a context (below), recorded in its header: loam_free and loam_realloc need
 * no context and give the block back to its own (a grown block stays in its context). loam_malloc
 * and loam_calloc allocate in the default context, or in the context of the object loam is working
 * for when it calls them itself. */
LOAM_API void* loam_malloc(size_t bytes);
LOAM_API void* loam_calloc(size_t count, size_t bytes);
LOAM_API void loam_free(void* ptr);
/* A block of `bytes` holding the first min(bytes, old size) bytes of ptr (which it replaces), or
 * NULL when out of memory (ptr then stays as it was). A large block of loam's own allocator grows in
 * place of itself (mremap): it is never resident twice, as a copy would be. */
LOAM_API void* loam_realloc(void* ptr, size_t bytes);
/* Give back to the system the whole pages of bytes [from, to) of a loam_malloc block, which then read
 * as zeros: memory a grown array no longer uses stops counting in the process's resident size without
 * a copy. Only large blocks of loam's own allocator (kernel-mapped) release; for others (small blocks,
 * blocks of a host's allocator) this does nothing. */
LOAM_API void loam_release(void* ptr, size_t from, size_t to);
/* The default context's counts: allocations since the process started (a test hook), and bytes
 * currently held. Objects created in another context count there, not here. */
LOAM_API uint64_t loam_alloc_count(void);
LOAM_API size_t loam_bytes_in_use(void);

/* A context: where an object's memory comes from and is counted, and its default thread count. An
 * object takes one at creation (loam_softbody_def.context, loam_mb_options.context; NULL = the
 * process default context) and every block it allocates then (creation, growth during steps,
 * copies, loads) goes through that context's allocator and counts in its counts, so two host
 * threads stepping objects of two contexts share no allocator state and each context's counts are
 * exact. Unlike a process-wide allocator hook, each context has its own.
 *
 * The allocator: alloc(size, user) returns a block of at least size bytes (no alignment needed:
 * loam asks for 127 bytes more and aligns inside, still handing out 64-byte aligned blocks) or NULL;
 * free(ptr, size, user) gets back that pointer with the size it was asked for. Both NULL: loam's own
 * (aligned_alloc; kernel mappings for blocks of 256 KiB and more). The functions are called on the
 * threads that create and step the context's objects, loam's worker threads included, possibly
 * several at once: make them thread-safe unless the context's objects run single-threaded. */
typedef struct loam_allocator {
    void* (*alloc)(size_t size, void* user);
    void (*free)(void* ptr, size_t size, void* user);
    void* user;
} loam_allocator;

typedef struct loam_context_def {
    loam_allocator allocator; /* both NULL: loam's own; default NULL */
    int threads;              /* threads of objects whose own count is 0, 0 = the process default
                                 (loam_set_threads); default 0 */
} loam_context_def;

typedef struct loam_context loam_context;

LOAM_API loam_context_def loam_context_default_def(void);
/* A context (its few bytes come from its own allocator); NULL on failure (alloc without free or
 * the reverse, threads outside 0..4096: LOAM_ERR_INPUT; out of memory: LOAM_ERR_NOMEM). */
LOAM_API loam_context* loam_context_create(const loam_context_def* def, loam_error* err);
/* Give up the host's handle. Destroy a context's objects first: a context that still holds blocks
 * is not freed at once but when its last block is freed (so a block never outlives its allocator's
 * record); it must not be given to new objects. NULL-safe; the default context is never freed. */
LOAM_API void loam_context_destroy(loam_context* ctx);
/* The process default context (what NULL means). */
LOAM_API loam_context* loam_context_default(void);
/* Bytes currently held in ctx's blocks (sizes asked for, headers and alignment not counted), and
 * blocks allocated in it since its creation (a grown block counts again). NULL: the default. */
LOAM_API size_t loam_context_bytes_in_use(const loam_context* ctx);
LOAM_API uint64_t loam_context_alloc_count(const loam_context* ctx);
/* The thread count of objects whose own count is 0 (0: the process default); settable between steps
 * of its objects (the default context's is loam_set_threads's: LOAM_ERR_INPUT). */
LOAM_API int loam_context_threads(const loam_context* ctx);
LOAM_API loam_status loam_context_set_threads(loam_context* ctx, int threads, loam_error* err);

/* Threads. Every object that runs parallel loops has its own thread count, given at creation
 * (loam_granular_params.threads, loam_softbody_def.threads, loam_mb_options.threads,
 * loam_env_config.threads) and settable between steps; a region never reads or writes process-wide
 * OpenMP state, so host threads may step different objects at once (one object from two host
 * threads at once is not safe: serialise its calls). Results are bitwise identical for every
 * thread count.
 *
 * An object whose count is 0 takes its context's (loam_context_def.threads), and where that is 0
 * too, the process default: loam_set_threads sets only that default (0 = all cores); before any
 * call the default is OpenMP's (OMP_NUM_THREADS, else every core). loam_get_threads returns it.
 * Set it once at start-up, before other host threads step. */
LOAM_API void loam_set_threads(int threads);
LOAM_API int loam_get_threads(void);
/* 1 in a child process forked after its parent ran loam's OpenMP threads. libgomp cannot start
 * threads in such a child, so loam runs every parallel loop there on the calling thread (it says so
 * once on stderr): a fork-based process pool (Python's multiprocessing, Gymnasium's async vector
 * environments) works, one thread per process. */
LOAM_API int loam_threads_forked(void);

LOAM_API const char* loam_version(void);

#ifdef __cplusplus
}
#endif
#endif
