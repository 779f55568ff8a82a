/* Storage for one step's contacts. Sized on the first steps, then reused: no allocation in a
 * steady-state step. */
#include <string.h>

#include "granular/world_internal.h"

void loam_contacts_free(loam_contacts* c) {
    void* arrays[] = {c->pair_start, c->pair_count, c->pair_j, c->pair_n, c->pair_lambda, c->in_start,
                      c->in_count, c->in_slot, c->body_start, c->body_count, c->body_shape, c->body_n,
                      c->body_v, c->body_lambda, c->pair_push, c->body_push, c->pair_color, c->body_color, c->pair_owner, c->body_owner};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) loam_free(arrays[k]);
    memset(c, 0, sizeof *c);
}

int loam_contacts_alloc(loam_contacts* c, int n) {
    loam_contacts_free(c);
    size_t bytes = sizeof(int32_t) * (size_t)(n > 0 ? n : 1);
    int32_t** arrays[] = {&c->pair_start, &c->pair_count, &c->in_start, &c->in_count, &c->body_start,
                          &c->body_count};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) {
        *arrays[k] = loam_calloc(1, bytes);
        if (!*arrays[k]) return 0;
    }
    return 1;
}

static int regrow(void** p, size_t bytes) {
    void* q = loam_malloc(bytes);
    if (!q) return 0;
    loam_free(*p);
    *p = q;
    return 1;
}

int loam_contacts_reserve(loam_contacts* c, int blocks, int pair_cap, int body_cap) {
    /* Contents need not survive: detection rewrites every slot after a grow. */
    if (pair_cap > c->block_capacity) {
        size_t slots = (size_t)blocks * (size_t)pair_cap;
        if (!regrow((void**)&c->pair_j, slots * 4) || !regrow((void**)&c->pair_n, slots * 16) ||
            !regrow((void**)&c->pair_lambda, slots * 12) || !regrow((void**)&c->in_slot, slots * 4) ||
            !regrow((void**)&c->pair_push, slots * 4) || !regrow((void**)&c->pair_color, slots) ||
            !regrow((void**)&c->pair_owner, slots * 4))
            return 0;
        c->block_capacity = pair_cap;
    }
    if (body_cap > c->body_block_capacity) {
        size_t slots = (size_t)blocks * (size_t)body_cap;
        if (!regrow((void**)&c->body_shape, slots * 4) || !regrow((void**)&c->body_n, slots * 16) ||
            !regrow((void**)&c->body_v, slots * 16) || !regrow((void**)&c->body_lambda, slots * 12) ||
            !regrow((void**)&c->body_push, slots * 4) || !regrow((void**)&c->body_color, slots) ||
            !regrow((void**)&c->body_owner, slots * 4))
            return 0;
        c->body_block_capacity = body_cap;
    }
    return 1;
}
