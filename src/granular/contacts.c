/* Storage for one step's contacts. Sized on the first steps, then reused: no allocation in a
 * steady-state step. */
#include <string.h>

#include "granular/world_internal.h"

static void set_free(loam_contact_set* s) {
    void* arrays[] = {s->pair_start, s->pair_count, s->pair_j,     s->pair_lambda, s->body_start,
                      s->body_count, s->body_shape, s->body_lambda, s->pair_color,  s->body_color};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) loam_free(arrays[k]);
    memset(s, 0, sizeof *s);
}

static void alias_current(loam_contacts* c, const loam_contact_set* s) {
    c->pair_start = s->pair_start;
    c->pair_count = s->pair_count;
    c->pair_j = s->pair_j;
    c->pair_lambda = s->pair_lambda;
    c->body_start = s->body_start;
    c->body_count = s->body_count;
    c->body_shape = s->body_shape;
    c->body_lambda = s->body_lambda;
    c->pair_color = s->pair_color;
    c->body_color = s->body_color;
}

static loam_contact_set current_set(const loam_contacts* c) {
    loam_contact_set s = {c->pair_start, c->pair_count, c->pair_j,     c->pair_lambda, c->body_start,
                          c->body_count, c->body_shape, c->body_lambda, c->pair_color,  c->body_color};
    return s;
}

void loam_contacts_free(loam_world* w) {
    loam_contacts* c = &w->cur;
    loam_contact_set mine = current_set(c);
    set_free(&mine);
    set_free(&w->prev);
    void* arrays[] = {c->pair_n, c->pair_push, c->body_owner, c->body_n,   c->body_v,
                      c->body_push, c->in_start, c->in_count,   c->in_slot};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) loam_free(arrays[k]);
    memset(c, 0, sizeof *c);
}

int loam_contacts_alloc(loam_world* w, int n) {
    loam_contacts_free(w);
    size_t bytes = sizeof(int32_t) * (size_t)(n > 0 ? n : 1);
    loam_contacts* c = &w->cur;
    loam_contact_set* p = &w->prev;
    int32_t** arrays[] = {&c->pair_start, &c->pair_count, &c->body_start, &c->body_count, &p->pair_start,
                          &p->pair_count, &p->body_start, &p->body_count, &c->in_start, &c->in_count};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a)
        if (!(*arrays[a] = loam_calloc(1, bytes))) return 0;
    return 1;
}

void loam_contacts_swap(loam_world* w) {
    loam_contact_set now = w->prev; /* last step's storage is rewritten this step */
    w->prev = current_set(&w->cur);
    alias_current(&w->cur, &now);
}

static int regrow(void** p, size_t bytes) {
    void* q = loam_malloc(bytes ? bytes : 1);
    if (!q) return 0;
    loam_free(*p);
    *p = q;
    return 1;
}

int loam_contacts_reserve(loam_world* w, int blocks, int pair_cap, int body_cap) {
    loam_contacts* c = &w->cur;
    /* Both sets are regrown: which one is current changes every step. Contents need not survive
     * (detection rewrites every slot, and a lost warm start costs only convergence) except the
     * previous set's, which is copied when it grows. */
    loam_contact_set* sets[2] = {&w->prev, NULL};
    loam_contact_set cur_set = current_set(c);
    sets[1] = &cur_set;
    if (pair_cap > c->block_capacity) {
        size_t slots = (size_t)blocks * (size_t)pair_cap, old = (size_t)blocks * (size_t)c->block_capacity;
        for (int k = 0; k < 2; ++k) {
            int32_t* j = loam_malloc(slots * 4);
            float* lam = loam_malloc(slots * 12);
            uint8_t* color = loam_malloc(slots);
            if (!j || !lam || !color) {
                loam_free(j);
                loam_free(lam);
                loam_free(color);
                return 0;
            }
            if (k == 0 && old) { /* keep last step's impulses for the warm start, slot for slot */
                memcpy(j, sets[k]->pair_j, old * 4);
                memcpy(lam, sets[k]->pair_lambda, old * 12);
                memcpy(color, sets[k]->pair_color, old);
            }
            loam_free(sets[k]->pair_j);
            loam_free(sets[k]->pair_lambda);
            loam_free(sets[k]->pair_color);
            sets[k]->pair_j = j;
            sets[k]->pair_lambda = lam;
            sets[k]->pair_color = color;
        }
        c->block_capacity = pair_cap;
        if (c->pair_n && !loam_contacts_reserve_jacobi(w, blocks)) return 0;
    }
    if (body_cap > c->body_block_capacity) {
        size_t slots = (size_t)blocks * (size_t)body_cap, old = (size_t)blocks * (size_t)c->body_block_capacity;
        for (int k = 0; k < 2; ++k) {
            int32_t* shape = loam_malloc(slots * 4);
            float* lam = loam_malloc(slots * 12);
            uint8_t* color = loam_malloc(slots);
            if (!shape || !lam || !color) {
                loam_free(shape);
                loam_free(lam);
                loam_free(color);
                return 0;
            }
            if (k == 0 && old) {
                memcpy(shape, sets[k]->body_shape, old * 4);
                memcpy(lam, sets[k]->body_lambda, old * 12);
                memcpy(color, sets[k]->body_color, old);
            }
            loam_free(sets[k]->body_shape);
            loam_free(sets[k]->body_lambda);
            loam_free(sets[k]->body_color);
            sets[k]->body_shape = shape;
            sets[k]->body_lambda = lam;
            sets[k]->body_color = color;
        }
        if (!regrow((void**)&c->body_owner, slots * 4) || !regrow((void**)&c->body_n, slots * 16) ||
            !regrow((void**)&c->body_v, slots * 16) || !regrow((void**)&c->body_push, slots * 4))
            return 0;
        c->body_block_capacity = body_cap;
    }
    alias_current(c, &cur_set);
    return 1;
}

int loam_contacts_reserve_jacobi(loam_world* w, int blocks) {
    loam_contacts* c = &w->cur;
    size_t slots = (size_t)blocks * (size_t)c->block_capacity;
    loam_free(c->pair_n);
    loam_free(c->pair_push);
    loam_free(c->in_slot);
    c->pair_n = loam_malloc(slots * 16 + 16);
    c->pair_push = loam_malloc(slots * 4 + 4);
    c->in_slot = loam_malloc(slots * 4 + 4);
    if (c->pair_n && c->pair_push && c->in_slot) return 1;
    loam_free(c->pair_n);
    loam_free(c->pair_push);
    loam_free(c->in_slot);
    c->pair_n = c->pair_push = NULL;
    c->in_slot = NULL;
    return 0;
}
