/* Granular world state: clone, copy, save and load (docs/state-files.md, kind "GRAN").
 *
 * What a step reads from the steps before is far more than positions and velocities: the contacts'
 * warm-start impulses live in the solver's rows, in an order and with colours that the colouring
 * carries from step to step; the neighbour list, its reference positions and scan slack decide
 * when it is rebuilt; sleep counters, the renumbering (slot order, ids, the step of the last
 * renumbering), the blocks' quiet flags, the margins, the region layout... Rebuilding any of these
 * "equivalently" changes bits (a different row order is a different Gauss-Seidel sweep). So the
 * world is copied whole: every block it owns, byte for byte, and every pointer into a block moved
 * to the same offset in the copy. The enumeration of the pointers below (world_fields) is the one
 * list to keep in step with world_internal.h; tests/test_state_granular.c fails when a piece of
 * state is missed (the copy then steps to other bits).
 *
 * Per-thread scratch (detection's contact scratch and candidate caches) is left out: detection
 * sizes it for the calling thread count before each use and reads nothing from the last step. */
#include <math.h>
#include <string.h>

#include "core/block_bytes.h"
#include "core/context.h"
#include "granular/world_internal.h"
#include "granular/state_io.h"
#include "io/state_file.h"

/* A pointer field of the world: OWN, a block the world owns (copied); IN, a pointer into some owned
 * block (or stale: nothing uses it before it is set again); SCRATCH, a block the world owns whose
 * contents every use writes first (the radix sort's counts, 256 kB): the copy gets one as large,
 * zeroed, and a file holds only its size; MODEL, the model or an array of it: a copy references
 * the same model, a file holds nothing of it (a load takes the destination's). */
enum { FIELD_OWN = 1, FIELD_IN = 2, FIELD_SCRATCH = 3, FIELD_MODEL = 4, MAX_FIELDS = 96 };
typedef struct field {
    void** at;
    int kind;
} field;

#define F(p, k) (out[n].at = (void**)&(p), out[n].kind = (k), ++n)
static int world_fields(loam_world* w, field* out) {
    int n = 0;
    /* the model (shared, never copied), then the state: per-slot radii, masses and ids follow the
     * renumbering, so they are state */
    F(w->model, FIELD_MODEL), F(w->body_defs, FIELD_MODEL), F(w->shapes, FIELD_MODEL);
    F(w->radius, FIELD_OWN), F(w->inv_mass, FIELD_OWN), F(w->id, FIELD_OWN);
    F(w->x, FIELD_OWN), F(w->y, FIELD_OWN), F(w->z, FIELD_OWN), F(w->vx, FIELD_OWN), F(w->vy, FIELD_OWN), F(w->vz, FIELD_OWN);
    F(w->bodies, FIELD_OWN);
    /* the hash: its own arrays, or memory lent for a build (loam_hash_attach) */
    int hash = w->hash.owned ? FIELD_OWN : FIELD_IN;
    F(w->hash.head, hash), F(w->hash.next, hash), F(w->hash.bucket_of, hash);
    F(w->hash.bucket_start, FIELD_IN), F(w->hash.items, FIELD_IN);
    /* contacts */
    loam_contacts* c = &w->contacts;
    F(c->pair_end, FIELD_OWN), F(c->pair_j, FIELD_OWN), F(c->pair_ref, FIELD_OWN), F(c->body_end, FIELD_OWN);
    F(c->body_shape, FIELD_OWN), F(c->body_lambda, FIELD_OWN), F(c->pair_color, FIELD_OWN), F(c->body_color, FIELD_OWN);
    F(c->pair_region, FIELD_OWN), F(c->body_region, FIELD_OWN), F(c->body_owner, FIELD_OWN), F(c->body_n, FIELD_OWN);
    /* colouring and rows (the float and normal fields are one block) */
    loam_coloring* k = &w->coloring;
    F(k->mask, FIELD_OWN), F(k->rows.i, FIELD_OWN), F(k->rows.j, FIELD_OWN), F(k->rows.fields, FIELD_OWN);
    F(k->region, FIELD_OWN), F(k->marks, FIELD_OWN), F(k->listed_from, FIELD_OWN), F(k->tasks, FIELD_OWN), F(k->block_order, FIELD_OWN);
    F(k->list, FIELD_IN), F(k->rows.nx, FIELD_IN), F(k->rows.ny, FIELD_IN), F(k->rows.nz, FIELD_IN), F(k->rows.gap, FIELD_IN);
    F(k->rows.lx, FIELD_IN), F(k->rows.ly, FIELD_IN), F(k->rows.lz, FIELD_IN), F(k->rows.push, FIELD_IN);
    /* neighbour list */
    loam_neighbor_list* nl = &w->neighbors;
    F(nl->count, FIELD_OWN), F(nl->j, FIELD_OWN), F(nl->ref[0], FIELD_OWN), F(nl->ref[1], FIELD_OWN), F(nl->ref[2], FIELD_OWN);
    F(nl->slack, FIELD_OWN), F(nl->bucket_pos, FIELD_IN);
    /* solver and step scratch that lives across steps */
    F(w->sv, FIELD_OWN), F(w->sv_prev, FIELD_OWN), F(w->spare, FIELD_OWN), F(w->vel_pack, FIELD_IN);
    F(w->contact_total, FIELD_OWN), F(w->calm, FIELD_OWN), F(w->wake, FIELD_OWN), F(w->asleep, FIELD_OWN);
    F(w->radix_counts, FIELD_SCRATCH), F(w->block_scratch, FIELD_OWN), F(w->shape_pose, FIELD_OWN), F(w->shape_lo, FIELD_OWN);
    F(w->shape_hi, FIELD_OWN), F(w->block_info, FIELD_OWN), F(w->block_need, FIELD_OWN);
    return n;
}
#undef F

/* Per-thread scratch: not part of the state (see the top). */
static void drop_thread_scratch(loam_world* w) {
    w->contacts.scratch = NULL;
    w->contacts.scratch_count = w->contacts.scratch_pairs = w->contacts.scratch_bodies = 0;
    w->neighbors.caches = NULL;
    w->neighbors.cache_count = 0;
}

/* Where an interior pointer p of the source lies: the index of the owned field whose block holds
 * it (its end included: an empty field may sit there) and the offset; -1 when none does. */
static int find_block(const field* src, int n, const void* p, size_t* offset) {
    if (!p) return -1;
    for (int f = 0; f < n; ++f) {
        const unsigned char* base = *src[f].at;
        if (src[f].kind != FIELD_OWN || !base) continue;
        if ((const unsigned char*)p >= base && (const unsigned char*)p <= base + loam_block_bytes(base)) {
            *offset = (size_t)((const unsigned char*)p - base);
            return f;
        }
    }
    return -1;
}

/* The blocks of `c` (a byte copy of *src's struct) made its own, interior pointers moved. On
 * failure every block of c is freed and c's pointers are NULL. */
static int own_blocks(loam_world* c, const loam_world* src) {
    field fs[MAX_FIELDS], fc[MAX_FIELDS];
    int n = world_fields((loam_world*)src, fs);
    world_fields(c, fc);
    int ok = 1;
    for (int f = 0; f < n; ++f) {
        if (fc[f].kind == FIELD_IN || fc[f].kind == FIELD_MODEL) continue;
        const void* from = *fs[f].at;
        *fc[f].at = NULL;
        if (!from || !ok) continue;
        size_t bytes = loam_block_bytes(from);
        void* to = fc[f].kind == FIELD_OWN ? loam_malloc(bytes) : loam_calloc(1, bytes);
        if (!to) {
            ok = 0;
            continue;
        }
        if (fc[f].kind == FIELD_OWN) memcpy(to, from, bytes);
        *fc[f].at = to;
    }
    for (int f = 0; f < n; ++f) {
        if (fc[f].kind != FIELD_IN) continue;
        size_t off = 0;
        int b = find_block(fs, n, *fs[f].at, &off);
        *fc[f].at = b >= 0 && *fc[b].at ? (unsigned char*)*fc[b].at + off : NULL;
    }
    drop_thread_scratch(c);
    if (!ok) {
        for (int f = 0; f < n; ++f)
            if (fc[f].kind == FIELD_OWN || fc[f].kind == FIELD_SCRATCH) loam_free(*fc[f].at), *fc[f].at = NULL;
        if (c->hash.owned) memset(&c->hash, 0, sizeof c->hash);
    } else {
        loam_granular_model_retain(c->model); /* the copy's reference to src's model */
    }
    return ok;
}

/* The world steps `m` from now on (a world of the same particles and bodies' counts). */
static void attach_model(loam_world* w, loam_granular_model* m) {
    loam_granular_model_retain(m);
    loam_granular_model_destroy(w->model); /* NULL-safe */
    w->model = m;
    loam_world_see_model(w);
}

/* A copy of src whose blocks are allocated in the calling thread's scope (a clone: src's context;
 * a copy: dst's). */
static loam_world* clone_here(const loam_world* src, loam_error* err) {
    loam_world* c = loam_malloc(sizeof *c);
    if (!c || (memcpy(c, src, sizeof *c), !own_blocks(c, src))) {
        loam_free(c);
        loam_error_set(err, LOAM_ERR_NOMEM, "world clone: out of memory for a world of %d particles", src->count);
        return NULL;
    }
    return c;
}

loam_world* loam_world_clone(const loam_world* src, loam_error* err) {
    if (!src) {
        loam_error_set(err, LOAM_ERR_INPUT, "world clone: null world");
        return NULL;
    }
    loam_world* c;
    LOAM_IN_CONTEXT(src->params.context, c = clone_here(src, err));
    return c;
}

/* The same particles (radius by identity) and the same bodies: the model a state belongs to. */
static loam_status same_model(const loam_world* a, const loam_world* b, const char* what, loam_error* err) {
    if (a->count != b->count)
        return loam_error_set(err, LOAM_ERR_INPUT, "world %s: %d particles, the other world has %d", what, b->count, a->count);
    if (a->body_count != b->body_count || a->shape_count != b->shape_count)
        return loam_error_set(err, LOAM_ERR_INPUT, "world %s: %d bodies (%d shapes), the other world has %d (%d)", what, b->body_count,
                              b->shape_count, a->body_count, a->shape_count);
    int32_t* slot = loam_malloc(sizeof(int32_t) * (size_t)(a->count > 0 ? a->count : 1));
    if (!slot) return loam_error_set(err, LOAM_ERR_NOMEM, "world %s: out of memory", what);
    for (int i = 0; i < a->count; ++i) slot[i] = -1;
    for (int i = 0; i < a->count; ++i)
        if (a->id[i] >= 0 && a->id[i] < a->count) slot[a->id[i]] = i;
    loam_status st = LOAM_OK;
    for (int i = 0; i < b->count && st == LOAM_OK; ++i) {
        int32_t id = b->id[i];
        if (id < 0 || id >= a->count || slot[id] < 0 || a->radius[slot[id]] != b->radius[i] || a->inv_mass[slot[id]] != b->inv_mass[i])
            st = loam_error_set(err, LOAM_ERR_INPUT, "world %s: particle %d (radius %g m) is not the other world's", what, (int)id,
                                (double)b->radius[i]);
    }
    loam_free(slot);
    return st;
}

/* Put the contents of c into dst (whose old contents go with c). */
static void take(loam_world* dst, loam_world* c) {
    loam_world old;
    memcpy(&old, dst, sizeof old);
    memcpy(dst, c, sizeof *dst);
    memcpy(c, &old, sizeof *c);
    loam_world_destroy(c);
}

static loam_status copy_state(loam_world* dst, const loam_world* src, loam_error* err) {
    loam_status st = same_model(dst, src, "copy", err);
    if (st != LOAM_OK) return st;
    loam_world* c = clone_here(src, err);
    if (!c) return err ? err->status : LOAM_ERR_NOMEM;
    c->params.context = dst->params.context; /* dst's memory stays in dst's context */
    /* dst keeps its model: its body definitions and the mesh grids they point at, owned by dst's
     * host (a scene, an environment), so a copy between hosts never points into the other's. */
    attach_model(c, dst->model);
    take(dst, c);
    return LOAM_OK;
}

loam_status loam_world_copy_state(loam_world* dst, const loam_world* src, loam_error* err) {
    if (!dst || !src) return loam_error_set(err, LOAM_ERR_INPUT, "world copy: null world");
    if (dst == src) return LOAM_OK;
    loam_status st;
    LOAM_IN_CONTEXT(dst->params.context, st = copy_state(dst, src, err)); /* dst's blocks, in dst's context */
    return st;
}

/* ---- Files ---------------------------------------------------------------------------------- */

/* The payload is the world image: the struct's bytes with its pointers written as references, then
 * each owned block. It depends on the layout of the world's structures, so it carries a fingerprint
 * of them: a file is read only by a build with the same layout (docs/state-files.md). */
static uint32_t layout_fingerprint(void) {
    uint64_t parts[] = {sizeof(loam_world), sizeof(loam_contacts), sizeof(loam_coloring), sizeof(loam_neighbor_list),
                        sizeof(loam_block_info), sizeof(loam_body_def), sizeof(loam_body_state), sizeof(loam_shape_ref),
                        sizeof(loam_granular_params), sizeof(loam_spatial_hash), LOAM_BLOCK, LOAM_MAX_COLORS, MAX_FIELDS};
    return loam_crc32(parts, sizeof parts);
}

void loam_world_write_image(const loam_world* w, loam_state_writer* o) {
    field fs[MAX_FIELDS], fz[MAX_FIELDS];
    loam_world image;
    memcpy(&image, w, sizeof image);
    int n = world_fields((loam_world*)w, fs);
    world_fields(&image, fz);
    for (int f = 0; f < n; ++f) *fz[f].at = NULL; /* pointers are process addresses: written below as references */
    image.params.context = NULL;                   /* likewise; a load takes dst's */
    drop_thread_scratch(&image);
    loam_state_put_u32(o, layout_fingerprint());
    loam_state_put_u32(o, (uint32_t)w->count);
    loam_state_put_u32(o, (uint32_t)w->body_count);
    loam_state_put_u32(o, (uint32_t)n);
    loam_state_put(o, &image, sizeof image);
    for (int f = 0; f < n; ++f) {
        const void* p = *fs[f].at;
        if (fs[f].kind == FIELD_MODEL) continue; /* the model is not state: a load takes dst's */
        if (fs[f].kind == FIELD_OWN) {
            loam_state_put_array(o, p, loam_block_bytes(p), 1);
        } else if (fs[f].kind == FIELD_SCRATCH) {
            uint64_t bytes = loam_block_bytes(p);
            loam_state_put(o, &bytes, sizeof bytes);
        } else {
            size_t off = 0;
            int b = find_block(fs, n, p, &off);
            loam_state_put_u32(o, (uint32_t)b); /* -1: none */
            loam_state_put_i64(o, (int64_t)off);
        }
    }
}

loam_status loam_world_save(const loam_world* w, const char* path, loam_error* err) {
    if (!w) return loam_error_set(err, LOAM_ERR_INPUT, "world save: null world");
    loam_state_writer o = {0};
    loam_status st;
    LOAM_IN_CONTEXT(w->params.context, (loam_world_write_image(w, &o), st = loam_state_file_write(path, LOAM_STATE_GRANULAR, &o, err)));
    loam_state_writer_free(&o);
    return st;
}

/* Each per-particle array of the image holds at least count elements; positions and velocities are
 * finite. A hand-made file with a valid checksum can still describe caches that do not fit
 * together; these checks catch a file of another world or a damaged one. */
static int check_image(loam_state_reader* r, const loam_world* c) {
    if (c->count < 0 || c->capacity < c->count) return loam_state_fail(r, "field capacity = %d is below count %d", c->capacity, c->count);
    if (!loam_state_check_finite_d(r, "time", &c->time, 1)) return 0;
    if (c->step < 0) return loam_state_fail(r, "field step = %lld is negative", (long long)c->step);
    if (c->ready && (c->count > 0) && (!c->sv || !c->calm || !c->block_info))
        return loam_state_fail(r, "field ready = %d but the world's scratch is missing", c->ready);
    struct { const char* name; const void* p; size_t each; } per[] = {
        {"radius", c->radius, 4}, {"inv_mass", c->inv_mass, 4}, {"id", c->id, 4}, {"x", c->x, 4}, {"y", c->y, 4}, {"z", c->z, 4},
        {"vx", c->vx, 4}, {"vy", c->vy, 4}, {"vz", c->vz, 4}};
    for (size_t k = 0; k < sizeof per / sizeof per[0]; ++k) {
        if (c->count == 0) break;
        if (!per[k].p || loam_block_bytes(per[k].p) < per[k].each * (size_t)c->count)
            return loam_state_fail(r, "field %s holds %zu bytes, fewer than %d particles need", per[k].name, loam_block_bytes(per[k].p), c->count);
        if (k >= 3 && !loam_state_check_finite_f(r, per[k].name, per[k].p, (size_t)c->count)) return 0;
    }
    if (c->body_count < 0 || c->shape_count < 0)
        return loam_state_fail(r, "field body_count = %d or shape_count = %d out of range", c->body_count, c->shape_count);
    if (c->body_count > 0 && (!c->bodies || loam_block_bytes(c->bodies) < sizeof(loam_body_state) * (size_t)c->body_count))
        return loam_state_fail(r, "field bodies: fewer than %d bodies", c->body_count);
    return 1;
}

loam_world* loam_world_read_image(loam_state_reader* rd, const loam_world* dst) {
#define r (*rd)
    loam_world* c = loam_calloc(1, sizeof *c);
    field fc[MAX_FIELDS];
    int n = c ? world_fields(c, fc) : 0;
    int ok = c != NULL, f = 0;
    if (!ok) loam_state_fail(&r, "out of memory");
    ok = ok && loam_state_expect_u32(&r, "layout", layout_fingerprint()) && loam_state_expect_u32(&r, "particles", (uint32_t)dst->count) &&
         loam_state_expect_u32(&r, "bodies", (uint32_t)dst->body_count) && loam_state_expect_u32(&r, "fields", (uint32_t)n);
    ok = ok && loam_state_get(&r, "world", c, sizeof *c);
    if (ok) {
        c->hash.owned = c->hash.owned != 0;
        world_fields(c, fc); /* again: the hash's kind comes from the image */
        for (int k = 0; k < n; ++k) *fc[k].at = NULL; /* the image's pointer bytes mean nothing here */
        c->params.context = dst->params.context;
        drop_thread_scratch(c);
    } else if (c) {
        memset(c, 0, sizeof *c);
    }
    uint32_t in_block[MAX_FIELDS];
    int64_t in_offset[MAX_FIELDS];
    for (; ok && f < n; ++f) {
        if (fc[f].kind == FIELD_MODEL) {
            continue;
        } else if (fc[f].kind == FIELD_OWN) {
            uint64_t bytes = 0;
            ok = loam_state_get(&r, "block", &bytes, sizeof bytes);
            if (ok && bytes > (uint64_t)(r.end - r.at)) ok = loam_state_fail(&r, "field block %d: %llu bytes, more than the file holds", f, (unsigned long long)bytes);
            if (ok && bytes) {
                void* p = loam_malloc((size_t)bytes);
                if (!p) ok = loam_state_fail(&r, "out of memory for block %d (%llu bytes)", f, (unsigned long long)bytes);
                else *fc[f].at = p, ok = loam_state_get(&r, "block", p, (size_t)bytes);
            }
        } else if (fc[f].kind == FIELD_SCRATCH) {
            uint64_t bytes = 0;
            ok = loam_state_get(&r, "scratch", &bytes, sizeof bytes);
            if (ok && bytes > ((uint64_t)1 << 30)) ok = loam_state_fail(&r, "field scratch %d: %llu bytes", f, (unsigned long long)bytes);
            if (ok && bytes && !(*fc[f].at = loam_calloc(1, (size_t)bytes))) ok = loam_state_fail(&r, "out of memory for scratch %d", f);
        } else {
            ok = loam_state_get_u32(&r, "reference", &in_block[f]) && loam_state_get_i64(&r, "reference", &in_offset[f]);
        }
    }
    for (f = 0; ok && f < n; ++f) { /* references, now that every block is in place */
        if (fc[f].kind != FIELD_IN) continue;
        if (in_block[f] == UINT32_MAX) continue;
        uint32_t b = in_block[f];
        if (b >= (uint32_t)n || fc[b].kind != FIELD_OWN || !*fc[b].at || in_offset[f] < 0 ||
            (uint64_t)in_offset[f] > loam_block_bytes(*fc[b].at))
            ok = loam_state_fail(&r, "field reference %d = (%u, %lld) names no place in the blocks", f, b, (long long)in_offset[f]);
        else *fc[f].at = (unsigned char*)*fc[b].at + in_offset[f];
    }
    ok = ok && check_image(&r, c);
    loam_error why;
    if (ok && loam_granular_params_validate(&c->params, &why) != LOAM_OK) ok = loam_state_fail(&r, "field params: %s", why.message);
    if (ok && same_model(dst, c, "load", &why) != LOAM_OK) ok = loam_state_fail(&r, "%s (saved from another world)", why.message);
    if (!ok) {
        if (c) {
            for (int k = 0; k < n; ++k)
                if (fc[k].kind == FIELD_OWN || fc[k].kind == FIELD_SCRATCH) loam_free(*fc[k].at), *fc[k].at = NULL;
            loam_free(c);
        }
        return NULL;
    }
    /* The model (body definitions, the host's grids): dst's; the check above made sure the
     * particles and the bodies' counts are the same. */
    c->model = NULL;
    attach_model(c, dst->model);
    return c;
#undef r
}

static loam_status world_load(loam_world* dst, const char* path, loam_error* err) {
    loam_state_reader r;
    loam_status st = loam_state_file_open(&r, path, LOAM_STATE_GRANULAR, err);
    if (st != LOAM_OK) return st;
    loam_world* c = loam_world_read_image(&r, dst);
    if (c && !loam_state_finish(&r)) {
        loam_world_destroy(c);
        c = NULL;
    }
    loam_state_reader_close(&r);
    if (!c) return err && err->status != LOAM_OK ? err->status : LOAM_ERR_INPUT;
    take(dst, c);
    return LOAM_OK;
}

loam_status loam_world_load(loam_world* dst, const char* path, loam_error* err) {
    if (!dst) return loam_error_set(err, LOAM_ERR_INPUT, "world load: null world");
    loam_status st;
    LOAM_IN_CONTEXT(dst->params.context, st = world_load(dst, path, err)); /* the file's bytes too */
    return st;
}
