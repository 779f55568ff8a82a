/* Soft-body population state: copy, save and load (docs/state-files.md, kind "SOFT"). A robot's
 * state is its masses' positions and velocities and, on land with collisions, its Verlet pair list
 * (the pairs and the positions at its build): the list is rebuilt when a mass has moved half the
 * skin since the build, so carrying it keeps every later rebuild on the step it would have had.
 * Everything else in a slot is model (springs, masses, faces) or scratch overwritten every step
 * (forces, start positions, XPBD multipliers, actuation), and time is the step count. */
#include <math.h>
#include <string.h>

#include "io/state_file.h"
#include "core/context.h"
#include "softbody/internal.h"

/* A fingerprint of robot s's model (sizes, inverse masses, rest lengths, materials): FNV-1a. */
static uint64_t fnv(uint64_t h, const void* data, size_t n) {
    const unsigned char* p = data;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t model_hash(const loam_softbody_pop* p) {
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, &p->count, sizeof p->count);
    for (int b = 0; b < p->count; ++b) {
        const sb_slot* s = &p->slots[b];
        int sizes[] = {s->nm, s->ns, s->nf, s->has_hash, s->pair_cap};
        h = fnv(h, sizes, sizeof sizes);
        h = fnv(h, s->w, sizeof(float) * (size_t)s->nm);
        if (s->ns) h = fnv(h, s->rest, sizeof(float) * (size_t)s->ns);
        if (s->ns) h = fnv(h, s->mat, (size_t)s->ns);
    }
    return h;
}

static loam_status same_model(const loam_softbody_pop* a, const loam_softbody_pop* b, loam_error* err) {
    if (a->count != b->count)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody state copy: %d robots into a population of %d", b->count, a->count);
    for (int k = 0; k < a->count; ++k) {
        const sb_slot *s = &a->slots[k], *t = &b->slots[k];
        if (s->nm != t->nm || s->ns != t->ns || s->has_hash != t->has_hash || s->pair_cap != t->pair_cap)
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody state copy: robot %d has %d masses and %d springs, the source's %d and %d", k,
                                  s->nm, s->ns, t->nm, t->ns);
    }
    if (model_hash(a) != model_hash(b))
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody state copy: the populations' robots differ (masses, rest lengths or materials)");
    return LOAM_OK;
}

loam_status loam_softbody_pop_copy_state(loam_softbody_pop* dst, const loam_softbody_pop* src, loam_error* err) {
    if (!dst || !src) return loam_error_set(err, LOAM_ERR_INPUT, "softbody state copy: NULL population");
    if (dst == src) return LOAM_OK;
    loam_status st = same_model(dst, src, err);
    if (st != LOAM_OK) return st;
    for (int b = 0; b < src->count; ++b) {
        sb_slot *d = &dst->slots[b];
        const sb_slot* s = &src->slots[b];
        size_t n = sizeof(float) * (size_t)s->nm;
        float* to[] = {d->x, d->y, d->z, d->vx, d->vy, d->vz};
        const float* from[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
        for (int k = 0; k < 6; ++k) memcpy(to[k], from[k], n);
        if (s->has_hash) {
            d->npairs = s->npairs;
            memcpy(d->bx, s->bx, 3 * n);
            if (s->npairs > 0) memcpy(d->pairs, s->pairs, sizeof(int32_t) * 2 * (size_t)s->npairs);
        }
    }
    dst->time = src->time;
    dst->steps_done = src->steps_done;
    return LOAM_OK;
}

static loam_status pop_save(const loam_softbody_pop* p, const char* path, loam_error* err) {
    if (!p) return loam_error_set(err, LOAM_ERR_INPUT, "softbody state save: NULL population");
    loam_state_writer o = {0};
    loam_state_put_u32(&o, (uint32_t)p->count);
    uint64_t h = model_hash(p);
    loam_state_put(&o, &h, sizeof h);
    loam_state_put_i64(&o, p->steps_done);
    for (int b = 0; b < p->count; ++b) {
        const sb_slot* s = &p->slots[b];
        loam_state_put_u32(&o, (uint32_t)s->nm);
        const float* a[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
        for (int k = 0; k < 6; ++k) loam_state_put_array(&o, a[k], (size_t)s->nm, sizeof(float));
        loam_state_put_u32(&o, (uint32_t)s->has_hash);
        if (s->has_hash) {
            loam_state_put_u32(&o, (uint32_t)s->npairs); /* -1: rebuild at the next step */
            loam_state_put_array(&o, s->bx, 3 * (size_t)s->nm, sizeof(float));
            loam_state_put_array(&o, s->pairs, 2 * (size_t)(s->npairs > 0 ? s->npairs : 0), sizeof(int32_t));
        }
    }
    loam_status st = loam_state_file_write(path, LOAM_STATE_SOFTBODY, &o, err);
    loam_state_writer_free(&o);
    return st;
}

/* The payload against p's model: into p when commit, else into scratch (a dry run that finds every
 * error before p changes). */
static int read_pop(loam_state_reader* r, loam_softbody_pop* p, int commit, float* scratch, int32_t* pair_scratch) {
    int64_t steps = 0;
    uint64_t h = 0;
    int ok = loam_state_expect_u32(r, "robots", (uint32_t)p->count) && loam_state_get(r, "model_hash", &h, sizeof h);
    if (ok && h != model_hash(p))
        return loam_state_fail(r, "field model_hash = %016llx, this population's is %016llx (saved from other robots)", (unsigned long long)h,
                               (unsigned long long)model_hash(p));
    ok = ok && loam_state_get_i64(r, "steps", &steps);
    if (ok && steps < 0) return loam_state_fail(r, "field steps = %lld is negative", (long long)steps);
    static const char* names[] = {"x", "y", "z", "vx", "vy", "vz"};
    for (int b = 0; ok && b < p->count; ++b) {
        sb_slot* s = &p->slots[b];
        size_t nm = (size_t)s->nm;
        ok = loam_state_expect_u32(r, "masses", (uint32_t)s->nm);
        float* to[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
        for (int k = 0; ok && k < 6; ++k) {
            float* out = commit ? to[k] : scratch;
            ok = loam_state_get_array(r, names[k], out, nm, sizeof(float)) && loam_state_check_finite_f(r, names[k], out, nm);
        }
        uint32_t npairs = 0;
        ok = ok && loam_state_expect_u32(r, "has_pair_list", (uint32_t)s->has_hash);
        if (!ok || !s->has_hash) continue;
        ok = loam_state_get_u32(r, "npairs", &npairs);
        int32_t np = (int32_t)npairs;
        if (ok && (np < -1 || np > s->pair_cap)) return loam_state_fail(r, "field npairs = %d outside -1..%d (robot %d)", np, s->pair_cap, b);
        float* bx = commit ? s->bx : scratch;
        ok = ok && loam_state_get_array(r, "pair_list_x", bx, 3 * nm, sizeof(float)) && loam_state_check_finite_f(r, "pair_list_x", bx, 3 * nm);
        int32_t* pairs = commit ? s->pairs : pair_scratch;
        ok = ok && loam_state_get_array(r, "pairs", pairs, 2 * (size_t)(np > 0 ? np : 0), sizeof(int32_t));
        for (int32_t q = 0; ok && q < np; ++q)
            if (!(pairs[2 * q] >= 0 && pairs[2 * q] < pairs[2 * q + 1] && pairs[2 * q + 1] < s->nm))
                ok = loam_state_fail(r, "field pairs[%d] = (%d, %d) is not a pair i < j of masses 0..%d (robot %d)", q, pairs[2 * q],
                                     pairs[2 * q + 1], s->nm - 1, b);
        if (ok && commit) s->npairs = np;
    }
    ok = ok && loam_state_finish(r);
    if (ok && commit) {
        p->steps_done = steps;
        p->time = (double)steps * p->def.dt; /* as loam_softbody_pop_step sets it */
    }
    return ok;
}

static loam_status pop_load(loam_softbody_pop* p, const char* path, loam_error* err) {
    if (!p) return loam_error_set(err, LOAM_ERR_INPUT, "softbody state load: NULL population");
    loam_state_reader r;
    loam_status st = loam_state_file_open(&r, path, LOAM_STATE_SOFTBODY, err);
    if (st != LOAM_OK) return st;
    size_t most = 1, most_pairs = 1;
    for (int b = 0; b < p->count; ++b) {
        most = 3 * (size_t)p->slots[b].nm > most ? 3 * (size_t)p->slots[b].nm : most;
        most_pairs = 2 * (size_t)p->slots[b].pair_cap > most_pairs ? 2 * (size_t)p->slots[b].pair_cap : most_pairs;
    }
    float* scratch = loam_ctx_malloc(p->ctx, sizeof(float) * most);
    int32_t* pair_scratch = loam_ctx_malloc(p->ctx, sizeof(int32_t) * most_pairs);
    const unsigned char* start = r.at;
    if (!scratch || !pair_scratch) st = loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", path);
    else if (!read_pop(&r, p, 0, scratch, pair_scratch)) st = err ? err->status : LOAM_ERR_INPUT;
    if (st == LOAM_OK) { /* every field checked: now the same reads into the population */
        r.at = start;
        read_pop(&r, p, 1, scratch, pair_scratch);
    }
    loam_free(scratch);
    loam_free(pair_scratch);
    loam_state_reader_close(&r);
    return st;
}

/* The file buffers of the layer below (io/state_file) go to the population's context. */
loam_status loam_softbody_pop_save(const loam_softbody_pop* p, const char* path, loam_error* err) {
    loam_status st;
    LOAM_IN_CONTEXT(p ? p->ctx : NULL, st = pop_save(p, path, err));
    return st;
}

loam_status loam_softbody_pop_load(loam_softbody_pop* p, const char* path, loam_error* err) {
    loam_status st;
    LOAM_IN_CONTEXT(p ? p->ctx : NULL, st = pop_load(p, path, err));
    return st;
}
