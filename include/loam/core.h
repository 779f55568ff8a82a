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
 * track usage. loam_malloc returns 64-byte aligned blocks (cache lines, SIMD). */
LOAM_API void* loam_malloc(size_t bytes);
LOAM_API void* loam_calloc(size_t count, size_t bytes);
LOAM_API void loam_free(void* ptr);
/* A block of `bytes` holding the first min(bytes, old size) bytes of ptr (which it replaces), or
 * NULL when out of memory (ptr then stays as it was). A large block grows in place of itself
 * (mremap): it is never resident twice, as a copy would be. */
LOAM_API void* loam_realloc(void* ptr, size_t bytes);
/* Give back to the system the whole pages of bytes [from, to) of a loam_malloc block, which then read
 * as zeros: memory a grown array no longer uses stops counting in the process's resident size without
 * a copy. Only large (kernel-mapped) blocks release; for others this does nothing. */
LOAM_API void loam_release(void* ptr, size_t from, size_t to);
/* Number of loam_malloc/loam_calloc calls since the process started (a test hook). */
LOAM_API uint64_t loam_alloc_count(void);
/* Bytes currently held through loam_malloc. */
LOAM_API size_t loam_bytes_in_use(void);

/* Threads. Every object that runs parallel loops has its own thread count, given at creation
 * (loam_granular_params.threads, loam_softbody_def.threads, loam_mb_options.threads,
 * loam_env_config.threads) and settable between steps; a region never reads or writes process-wide
 * OpenMP state, so host threads may step different objects at once (one object from two host
 * threads at once is not safe: serialise its calls). Results are bitwise identical for every
 * thread count.
 *
 * loam_set_threads sets only the default of objects whose count is 0 (0 = all cores); before any
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
