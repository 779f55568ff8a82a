/* Storage for the contacts. Sized on the first steps, then reused: no allocation in a steady-state
 * step. */
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "granular/world_internal.h"

enum { LOAM_MAX_REGIONS_ON_STACK = 256 };

static void scratch_free(loam_contacts* c) {
    for (int t = 0; t < c->scratch_count; ++t) loam_free(c->scratch[t].pair_j); /* owns the arrays */
    loam_free(c->scratch);
    c->scratch = NULL;
    c->scratch_count = c->scratch_pairs = c->scratch_bodies = 0;
}

void loam_contacts_free(loam_world* w) {
    loam_contacts* c = &w->contacts;
    scratch_free(c);
    void* arrays[] = {c->pair_end,   c->pair_j,     c->pair_ref, c->body_end, c->body_shape,
                      c->body_lambda, c->pair_color, c->body_color, c->body_owner, c->body_n,
                      c->pair_region, c->body_region};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) loam_free(arrays[k]);
    memset(c, 0, sizeof *c);
}

int loam_contacts_alloc(loam_world* w, int n) {
    loam_contacts_free(w);
    size_t bytes = sizeof(int32_t) * (size_t)(n > 0 ? n : 1);
    loam_contacts* c = &w->contacts;
    int32_t** arrays[] = {&c->pair_end, &c->body_end};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a)
        if (!(*arrays[a] = loam_calloc(1, bytes))) return 0;
    size_t regions = (size_t)loam_block_count(n) + 1;
    c->pair_region = loam_calloc(regions, sizeof(int32_t));
    c->body_region = loam_calloc(regions, sizeof(int32_t));
    return c->pair_region && c->body_region;
}

static int largest_region(const int32_t* region, int blocks) {
    int most = 0;
    for (int b = 0; b < blocks; ++b) most = region[b + 1] - region[b] > most ? region[b + 1] - region[b] : most;
    return most;
}

int loam_contacts_scratch(loam_world* w) {
    loam_contacts* c = &w->contacts;
    int blocks = loam_block_count(w->count);
    int threads = w->team; /* one scratch per thread of the step's team */
    int pairs = largest_region(c->pair_region, blocks), bodies = largest_region(c->body_region, blocks);
    if (threads <= c->scratch_count && pairs <= c->scratch_pairs && bodies <= c->scratch_bodies) return 1;
    threads = threads > c->scratch_count ? threads : c->scratch_count;
    scratch_free(c);
    c->scratch = loam_calloc((size_t)threads, sizeof(loam_contact_scratch));
    if (!c->scratch) return 0;
    for (int t = 0; t < threads; ++t) {
        size_t p = (size_t)pairs, b = (size_t)bodies;
        loam_contact_scratch* s = &c->scratch[t];
        s->pair_j = loam_malloc(p * (4 + 4 + 4 + 1) + b * (4 + 4 + 12 + 1) + 1); /* owns the rest */
        if (!s->pair_j) return 0;
        c->scratch_count = t + 1;
        s->pair_from = s->pair_j + p;
        s->pair_ref = s->pair_from + p;
        s->body_shape = s->pair_ref + p;
        s->body_from = s->body_shape + b;
        s->body_lambda = (float*)(s->body_from + b);
        s->pair_color = (uint8_t*)(s->body_lambda + 3 * b);
        s->body_color = s->pair_color + p;
    }
    c->scratch_pairs = pairs;
    c->scratch_bodies = bodies;
    return 1;
}

/* New regions for the given needs: a block that needs more than it has gets half more than it
 * needs (a bed that keeps compacting regrows a few times, not every step); the others keep
 * theirs. Returns the new total, or -1 when nothing has to grow. */
static long long plan_regions(const int32_t* region, const int32_t* need, int blocks, int32_t* out) {
    int grow = 0;
    long long at = 0;
    for (int b = 0; b < blocks; ++b) {
        long long cap = region[b + 1] - region[b];
        if (need[b] > cap) {
            cap = need[b] + need[b] / 2 + 32;
            grow = 1;
        }
        out[b] = (int32_t)at;
        at += cap;
    }
    out[blocks] = (int32_t)at;
    return grow ? at : -1;
}

/* Per-slot arrays (size bytes a slot) moved to new regions together. Each array first grows in
 * place of itself (loam_realloc: a large one is never resident twice, where a copy beside it was
 * the cylinder column's peak of memory, 41 bytes a particle for a step); out of memory there leaves
 * every array's contents where they were, which the old regions still describe. Then each block's
 * slots in use (its particles' contacts lie packed from the region's start) move to the block's new
 * place, the last block first: regions only grow, so a block's new place lies at or after its old
 * one and after every earlier block's old slots. */
typedef struct slot_array {
    void** array;
    size_t size;
} slot_array;

static int move_arrays(loam_world* w, const slot_array* a, int n, const int32_t* from, const int32_t* to,
                       const int32_t* end) {
    int blocks = loam_block_count(w->count);
    for (int k = 0; k < n; ++k) {
        void* grown = loam_realloc(*a[k].array, a[k].size * (size_t)to[blocks] + a[k].size);
        if (!grown) return 0;
        *a[k].array = grown;
    }
    for (int k = 0; k < n; ++k) {
        char* base = *a[k].array;
        for (int b = blocks - 1; b >= 0; --b) {
            size_t used = (size_t)end[loam_block_end(w, b) - 1];
            if (to[b] != from[b] && used > 0)
                memmove(base + a[k].size * (size_t)to[b], base + a[k].size * (size_t)from[b], a[k].size * used);
        }
    }
    return 1;
}

int loam_contacts_reserve(loam_world* w, const int32_t* pair_need, const int32_t* body_need) {
    loam_contacts* c = &w->contacts;
    int blocks = loam_block_count(w->count);
    int32_t plan[2][LOAM_MAX_REGIONS_ON_STACK];
    int32_t* pair_plan = blocks < LOAM_MAX_REGIONS_ON_STACK ? plan[0] : loam_malloc(sizeof(int32_t) * (size_t)(blocks + 1));
    int32_t* body_plan = blocks < LOAM_MAX_REGIONS_ON_STACK ? plan[1] : loam_malloc(sizeof(int32_t) * (size_t)(blocks + 1));
    int ok = pair_plan && body_plan;
    long long pairs = ok ? plan_regions(c->pair_region, pair_need, blocks, pair_plan) : -1;
    long long bodies = ok ? plan_regions(c->body_region, body_need, blocks, body_plan) : -1;
    if (pairs > INT32_MAX || bodies > INT32_MAX) ok = 0;
    if (ok && pairs >= 0) {
        const int32_t *from = c->pair_region, *to = pair_plan;
        /* The blocks whose contacts this step are in place, and those still holding last step's
         * (detection reads them again), keep them: every array that holds a contact's data moves. */
        slot_array arrays[] = {{(void**)&c->pair_j, 4}, {(void**)&c->pair_ref, 4}, {(void**)&c->pair_color, 1}};
        ok = move_arrays(w, arrays, sizeof arrays / sizeof arrays[0], from, to, c->pair_end);
        if (ok) memcpy(c->pair_region, pair_plan, sizeof(int32_t) * (size_t)(blocks + 1));
    }
    if (ok && bodies >= 0) {
        const int32_t *from = c->body_region, *to = body_plan;
        slot_array arrays[] = {{(void**)&c->body_shape, 4}, {(void**)&c->body_lambda, 12},
                               {(void**)&c->body_color, 1}, {(void**)&c->body_owner, 4}, {(void**)&c->body_n, 16}};
        ok = move_arrays(w, arrays, sizeof arrays / sizeof arrays[0], from, to, c->body_end);
        if (ok) memcpy(c->body_region, body_plan, sizeof(int32_t) * (size_t)(blocks + 1));
    }
    if (pairs >= 0 || bodies >= 0) c->layout++;
    if (blocks >= LOAM_MAX_REGIONS_ON_STACK) {
        loam_free(pair_plan);
        loam_free(body_plan);
    }
    return ok && loam_contacts_scratch(w);
}

int loam_contacts_count(loam_world* w) {
    const loam_contacts* c = &w->contacts;
    int n = w->count;
    if (!w->contact_total) w->contact_total = loam_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!w->contact_total) return 0;
    int32_t* total = w->contact_total;
    /* between steps: w->team belongs to the steps */
#pragma omp parallel num_threads(loam_team(w->params.threads))
    {
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) total[i] = loam_pairs_count(c, i) + loam_bodies_count(c, i);
        /* Integer sums: the order the threads add in cannot change them. */
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i)
            for (int s = loam_pairs_begin(c, i), s_end = loam_pairs_end(c, i); s < s_end; ++s)
                __atomic_add_fetch(&total[c->pair_j[s]], 1, __ATOMIC_RELAXED);
    }
    return 1;
}
