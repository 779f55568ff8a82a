/* Storage for one step's contacts. Sized on the first steps, then reused: no allocation in a
 * steady-state step. */
#include <stdint.h>
#include <string.h>

#include "granular/world_internal.h"

enum { LOAM_MAX_REGIONS_ON_STACK = 256 };

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
    void* arrays[] = {c->pair_n,    c->pair_push, c->body_owner, c->body_n,      c->body_v,     c->body_push,
                      c->in_start,  c->in_count,  c->in_slot,    c->pair_region, c->body_region};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) loam_free(arrays[k]);
    memset(c, 0, sizeof *c);
}

int loam_contacts_alloc(loam_world* w, int n) {
    loam_contacts_free(w);
    size_t bytes = sizeof(int32_t) * (size_t)(n > 0 ? n : 1);
    loam_contacts* c = &w->cur;
    loam_contact_set* p = &w->prev;
    int32_t** arrays[] = {&c->pair_start, &c->pair_count, &c->body_start, &c->body_count,
                          &p->pair_start, &p->pair_count, &p->body_start, &p->body_count};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a)
        if (!(*arrays[a] = loam_calloc(1, bytes))) return 0;
    size_t regions = (size_t)loam_block_count(n) + 1;
    c->pair_region = loam_calloc(regions, sizeof(int32_t));
    c->body_region = loam_calloc(regions, sizeof(int32_t));
    return c->pair_region && c->body_region;
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

/* New regions for the given needs: a block that needs more than it has gets a quarter more than
 * it needs (a bed that keeps compacting regrows a few times, not every step); the others keep
 * theirs. Returns the new total, or -1 when nothing has to grow. */
static long long plan_regions(const int32_t* region, const int32_t* need, int blocks, int32_t* out) {
    int grow = 0;
    long long at = 0;
    for (int b = 0; b < blocks; ++b) {
        long long cap = region[b + 1] - region[b];
        if (need[b] > cap) {
            cap = need[b] + need[b] / 2 + 32; /* 1.5x: a growing pile grows its blocks a few times, not every few steps */
            grow = 1;
        }
        out[b] = (int32_t)at;
        at += cap;
    }
    out[blocks] = (int32_t)at;
    return grow ? at : -1;
}

/* One array of both sets, regrown to `slots` entries of `size` bytes. Contents need not survive
 * (detection rewrites every slot of this step's set) except the previous set's, whose entries keep
 * their indices: its particles' start indices stay valid for the warm start and the colouring. */
static int regrow_sets(void** prev_array, void** cur_array, size_t size, size_t slots, size_t old) {
    void* p = loam_malloc(size * slots + 1);
    void* q = loam_malloc(size * slots + 1);
    if (!p || !q) {
        loam_free(p);
        loam_free(q);
        return 0;
    }
    if (old) memcpy(p, *prev_array, size * old);
    loam_free(*prev_array);
    loam_free(*cur_array);
    *prev_array = p;
    *cur_array = q;
    return 1;
}

int loam_contacts_reserve(loam_world* w, const int32_t* pair_need, const int32_t* body_need) {
    loam_contacts* c = &w->cur;
    loam_contact_set* p = &w->prev;
    loam_contact_set cur = current_set(c);
    int blocks = loam_block_count(w->count);
    int32_t plan[2][LOAM_MAX_REGIONS_ON_STACK];
    int32_t* pair_plan = blocks < LOAM_MAX_REGIONS_ON_STACK ? plan[0] : loam_malloc(sizeof(int32_t) * (size_t)(blocks + 1));
    int32_t* body_plan = blocks < LOAM_MAX_REGIONS_ON_STACK ? plan[1] : loam_malloc(sizeof(int32_t) * (size_t)(blocks + 1));
    int ok = pair_plan && body_plan;
    long long pairs = ok ? plan_regions(c->pair_region, pair_need, blocks, pair_plan) : -1;
    long long bodies = ok ? plan_regions(c->body_region, body_need, blocks, body_plan) : -1;
    if (pairs > INT32_MAX || bodies > INT32_MAX) ok = 0;
    if (ok && pairs >= 0) {
        size_t slots = (size_t)pairs, old = (size_t)c->pair_region[blocks];
        ok = regrow_sets((void**)&p->pair_j, (void**)&cur.pair_j, 4, slots, old) &&
             regrow_sets((void**)&p->pair_lambda, (void**)&cur.pair_lambda, 12, slots, old) &&
             regrow_sets((void**)&p->pair_color, (void**)&cur.pair_color, 1, slots, old);
        if (ok) memcpy(c->pair_region, pair_plan, sizeof(int32_t) * (size_t)(blocks + 1));
        alias_current(c, &cur);
        if (ok && c->pair_n) ok = loam_contacts_reserve_jacobi(w, blocks);
    }
    if (ok && bodies >= 0) {
        size_t slots = (size_t)bodies, old = (size_t)c->body_region[blocks];
        ok = regrow_sets((void**)&p->body_shape, (void**)&cur.body_shape, 4, slots, old) &&
             regrow_sets((void**)&p->body_lambda, (void**)&cur.body_lambda, 12, slots, old) &&
             regrow_sets((void**)&p->body_color, (void**)&cur.body_color, 1, slots, old) &&
             regrow((void**)&c->body_owner, slots * 4) && regrow((void**)&c->body_n, slots * 16) &&
             regrow((void**)&c->body_v, slots * 16) && regrow((void**)&c->body_push, slots * 4);
        if (ok) memcpy(c->body_region, body_plan, sizeof(int32_t) * (size_t)(blocks + 1));
        alias_current(c, &cur);
    }
    if (pairs >= 0 || bodies >= 0) c->layout++;
    if (blocks >= LOAM_MAX_REGIONS_ON_STACK) {
        loam_free(pair_plan);
        loam_free(body_plan);
    }
    return ok;
}

int loam_contacts_reserve_jacobi(loam_world* w, int blocks) {
    loam_contacts* c = &w->cur;
    size_t slots = (size_t)c->pair_region[blocks], n = (size_t)(w->count > 0 ? w->count : 1);
    /* Per particle, once: the incoming lists and the contact counts of the mass splitting. */
    if (!c->in_start) c->in_start = loam_calloc(n, sizeof(int32_t));
    if (!c->in_count) c->in_count = loam_calloc(n, sizeof(int32_t));
    if (!w->contact_total) w->contact_total = loam_calloc(n, sizeof(int32_t));
    if (!c->in_start || !c->in_count || !w->contact_total) return 0;
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
