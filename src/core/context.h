/* Allocation in a context (loam/core.h's loam_context), for loam's own code.
 *
 * An object resolves its context once at creation (loam_ctx_resolve) and allocates every block it
 * owns with loam_ctx_malloc(its context, ...); loam_free and loam_realloc find the context in the
 * block's header. Shared lower layers that serve several methods and hold no object (contact's
 * solvers, collide's hash, dense scratch) allocate with plain loam_malloc, which takes the calling
 * host thread's scope: a method opens the scope of its object around the calls into them, so their
 * blocks land in the object's context too. Without a scope, loam_malloc is the default context's. */
#ifndef LOAM_CORE_CONTEXT_H
#define LOAM_CORE_CONTEXT_H

#include <stddef.h>

#include "loam/core.h"

/* ctx, or (NULL) the calling thread's scope, else the process default context. */
loam_context* loam_ctx_resolve(loam_context* ctx);
/* A 64-byte aligned block counted in ctx (NULL: as loam_ctx_resolve). */
void* loam_ctx_malloc(loam_context* ctx, size_t bytes);
void* loam_ctx_calloc(loam_context* ctx, size_t count, size_t bytes);
/* loam_realloc, except that a NULL ptr becomes a new block of ctx (a block keeps its own context). */
void* loam_ctx_realloc(loam_context* ctx, void* ptr, size_t bytes);
/* The context a block was allocated in; NULL for NULL. */
loam_context* loam_block_context(const void* ptr);

/* Make ctx the calling host thread's scope (NULL keeps the current one); returns the previous scope
 * for loam_ctx_scope_leave. Worker threads of a region do not inherit it: lower layers allocate on
 * the calling thread only. */
loam_context* loam_ctx_scope_enter(loam_context* ctx);
void loam_ctx_scope_leave(loam_context* previous);

/* An object's thread count: `requested` when positive, else the context's (0 there: the process
 * default, which loam_team resolves). */
int loam_ctx_threads(const loam_context* ctx, int requested);

/* Run `stmt` in ctx's scope: for a public entry point whose body allocates through the layers below
 * (`LOAM_IN_CONTEXT(w->ctx, st = world_step(w, steps, err));`). */
#define LOAM_IN_CONTEXT(ctx, stmt)                                                                     \
    do {                                                                                               \
        loam_context* loam_outer_scope_ = loam_ctx_scope_enter(ctx);                                   \
        stmt;                                                                                          \
        loam_ctx_scope_leave(loam_outer_scope_);                                                       \
    } while (0)

#endif
