/* Contact detection (the first of paper 000's split loops, section II-D): find every particle pair
 * and particle-body pair within the contact margin and record it with its normal and gap, before any
 * impulse is computed. Output order depends only on particle indices, never on thread timing: each
 * particle sorts its neighbours, and blocks write into their own reserved ranges. */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/cpu.h"
#include "core/lanes.h"
#include "core/sort.h"
#include "core/vec.h"
#include "granular/reach.h"
#include "granular/world_internal.h"

enum { LOAM_MAX_NEIGHBORS = 512 };

/* The particles of the 27 cells around one cell, as arrays: particles in the same cell share them
 * (after the Z-order renumbering, consecutive particles mostly do), so the buckets are looked up
 * and gathered once per cell, and each particle's test is a branch-free pass over the arrays. */
enum { LOAM_CANDIDATES_MAX = 1024 };
typedef struct candidates {
    int32_t cell[3];
    int n;      /* -1: not gathered yet, or more than LOAM_CANDIDATES_MAX (then gather per particle) */
    float x[LOAM_CANDIDATES_MAX], y[LOAM_CANDIDATES_MAX], z[LOAM_CANDIDATES_MAX], r[LOAM_CANDIDATES_MAX];
    int32_t idx[LOAM_CANDIDATES_MAX];
} candidates;

static void gather_candidates(const loam_world* w, const int32_t cell[3], candidates* c) {
    const loam_spatial_hash* h = &w->hash;
    const float* bpos = w->neighbors.bucket_pos;
    int32_t buckets[27];
    int nb = loam_hash_cell_neighbor_buckets(h, cell, buckets), n = 0;
    memcpy(c->cell, cell, sizeof c->cell);
    for (int k = 0; k < nb; ++k) n += loam_hash_bucket_end(h, buckets[k]) - loam_hash_bucket_first(h, buckets[k]);
    c->n = -1;
    if (n > LOAM_CANDIDATES_MAX) return;
    n = 0;
    /* The run's end is read per item (the stores below may alias it): with the bound hoisted, GCC
     * vectorised this copy of one to three items a bucket, a third more instructions in list_block
     * (callgrind). */
    for (int k = 0; k < nb; ++k)
        for (int s = loam_hash_bucket_first(h, buckets[k]); s < loam_hash_bucket_end(h, buckets[k]); ++s, ++n) {
            c->x[n] = bpos[4 * s];
            c->y[n] = bpos[4 * s + 1];
            c->z[n] = bpos[4 * s + 2];
            c->r[n] = bpos[4 * s + 3];
            c->idx[n] = loam_hash_slot_item(h, s);
        }
    c->n = n;
}

/* Neighbours j > i of i within r_i + r_j + margin, sorted by index; returns their count. out holds
 * LOAM_CANDIDATES_MAX entries (the branch-free append writes before it counts); beyond
 * LOAM_MAX_NEIGHBORS are dropped and counted. */
static int find_neighbors(const loam_world* w, const float* pos, int i, float margin, candidates* c, int32_t* out,
                          int* dropped) {
    const float* pi = &pos[4 * i];
    int32_t cell[3];
    loam_hash_cell(&w->hash, pi[0], pi[1], pi[2], cell);
    if (c && (c->n < 0 || cell[0] != c->cell[0] || cell[1] != c->cell[1] || cell[2] != c->cell[2]))
        gather_candidates(w, cell, c);
    int axis = w->params.periodic_axis;
    float len = w->params.periodic_hi - w->params.periodic_lo;
    int count = 0;
    if (c && c->n >= 0 && loam_cpu_has_avx2()) {
#ifdef LOAM_HAVE_AVX2
        count = loam_reach_filter_avx2(pi, c->x, c->y, c->z, c->r, c->idx, c->n, i, margin, axis, len, out);
#endif
    } else if (c && c->n >= 0) {
        for (int s = 0; s < c->n; ++s) {
            out[count] = c->idx[s];
            count += loam_within_reach(pi, c->x[s], c->y[s], c->z[s], c->r[s], margin, axis, len) & (c->idx[s] > i);
        }
    } else {
        /* A crowded neighbourhood (a tiny hash table), or no gathering space: straight from the runs. */
        const loam_spatial_hash* h = &w->hash;
        const float* bpos = w->neighbors.bucket_pos;
        int32_t buckets[27];
        int nb = loam_hash_cell_neighbor_buckets(h, cell, buckets);
        for (int k = 0; k < nb; ++k) {
            for (int s = loam_hash_bucket_first(h, buckets[k]); s < loam_hash_bucket_end(h, buckets[k]); ++s) {
                const float* pj = &bpos[4 * s];
                int32_t j = loam_hash_slot_item(h, s);
                if (j > i && loam_within_reach(pi, pj[0], pj[1], pj[2], pj[3], margin, axis, len) && count < LOAM_CANDIDATES_MAX)
                    out[count++] = j;
            }
        }
    }
    if (count > LOAM_MAX_NEIGHBORS) {
        *dropped += count - LOAM_MAX_NEIGHBORS;
        count = LOAM_MAX_NEIGHBORS;
    }
    loam_sort_small_ints(out, count);
    return count;
}

/* Pair distance test computed as (lower index) - (higher index), bitwise the same from both ends;
 * when the pair is farther and gap is not NULL, *gap gets its gap (m). */
static inline int within(const loam_world* w, const float* pos, int i, int j, float margin, float* gap) {
    float d[3];
    loam_pair_offset(w, pos, i < j ? i : j, i < j ? j : i, d);
    float cut = pos[4 * i + 3] + pos[4 * j + 3] + margin;
    float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (d2 < cut * cut) return 1;
    if (gap) *gap = sqrtf(d2) - pos[4 * i + 3] - pos[4 * j + 3];
    return 0;
}

/* A body contact of last step stays one until its gap exceeds this many times the margin: a bed at
 * rest then keeps the same contact set from step to step (and its colouring, color.c, and its
 * rows), where contacts whose gap jitters around the margin would otherwise enter and
 * leave every few steps. A pair contact stays while the pair is in the neighbour list, that is until
 * the list is rebuilt. A speculative contact wider than the margin is harmless: it only stops the
 * pair from closing faster than its gap in one step. */
#define LOAM_CONTACT_HYSTERESIS 1.5f

/* What contacts_of needs of the world's parameters, read once per block (the scan's byte stores
 * may alias them, so the compiler would reload them for every particle). */
typedef struct scan_params {
    float base;  /* params.margin radii, m */
    float dt2;   /* 2 dt, s */
    float wake2; /* sleep speed squared, m^2/s^2 */
} scan_params;

/* Whether any of a sleeper's listed partners is awake: a branch-free pass (most sleepers have only
 * sleeping partners, in no pattern a branch predictor could learn). */
static inline int any_awake(const uint8_t* asleep, int i, const uint16_t* entries, int n) {
    int awake = 0;
    for (int k = 0; k < n;) awake |= !asleep[loam_list_next(i, entries, &k)];
    return awake;
}

/* Each pair's own margin: what it can close in a step at twice its current closing speed, at least
 * the base margin, at most this step's global margin (which sized the hash and the list). A bed
 * falling as a whole then keeps small margins and few contacts (and little memory), where one
 * global margin from the fastest particle would make every neighbour a contact. from[k] gets the slot
 * contact k held last step (-1: a new contact), for the warm start. Unless far_gap is NULL (no scan
 * will be skipped: the gaps are not worth their roots), *far_gap is lowered to the gap of every
 * listed pair found to be no contact (-inf if a pair of sleepers went untested). *fresh: whether
 * any contact is new (it needs a colour). A sleeper is scanned only when a listed partner is awake
 * (any_awake, in the caller). */
static int contacts_of(const loam_world* w, const scan_params* sp, const float* pos, int i, const uint16_t* entries,
                       int listed, float margin, int32_t* out, int32_t* from, int* same_partners, int* fresh,
                       float* far_gap) {
    const loam_contacts* c = &w->contacts; /* i's block has not replaced them yet: last step's */
    int first = loam_pairs_begin(c, i);
    const int32_t* before = &c->pair_j[first]; /* last step's partners of i, sorted */
    const float* vel = w->vel_pack; /* (vx, vy, vz, 0) packed by loam_granular_detect */
    int nb = loam_pairs_end(c, i) - first, m = 0;
    float base = sp->base, dt2 = sp->dt2, wake2 = sp->wake2;
    const uint8_t* asleep = w->asleep;
    int i_asleep = asleep[i];
    int count = 0, kept = 0, added = 0;
    /* A sleeper whose partners all sleep has no pair contact (the caller found that out). */
    for (int k = 0; k < listed;) {
        int j = loam_list_next(i, entries, &k);
        int j_asleep = asleep[j];
        if (i_asleep && j_asleep) { /* neither moves: nothing to solve */
            if (far_gap) *far_gap = -INFINITY;
            continue;
        }
        while (m < nb && before[m] < j) ++m;
        int at = m < nb && before[m] == j ? first + m : -1;
        /* A pair a renumbering handed over (reorder.c) was no contact of this owner: the margin
         * decides, as for a new pair, as it did when the pair stayed with its old owner. */
        int was = at >= 0 && c->pair_color[at] != LOAM_REOWNED;
        if (!was) { /* a contact of last step stays one; only a new pair needs its margin and test */
            float mj = base;
            if (margin > base) {
                float dv[3] = {vel[4 * i] - vel[4 * j], vel[4 * i + 1] - vel[4 * j + 1], vel[4 * i + 2] - vel[4 * j + 2]};
                float closing = dt2 * sqrtf(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
                mj = closing > base ? (closing < margin ? closing : margin) : base;
            }
            float gap;
            if (!within(w, pos, i, j, mj, far_gap ? &gap : NULL)) {
                if (far_gap && gap < *far_gap) *far_gap = gap;
                continue;
            }
        }
        kept += was;
        added |= at < 0; /* a new pair needs a colour */
        from[count] = at;
        out[count++] = j;
        if (i_asleep != j_asleep) {
            /* A sleeper in contact with a particle faster than the sleep speed wakes after this
             * step (in it, it still holds like a wall: one step's delay, as waking needs the
             * sleeper's own contacts, which detection is finding now). */
            int awake = i_asleep ? j : i;
            const float* v = &vel[4 * awake];
            if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > wake2)
                __atomic_store_n(&w->wake[i_asleep ? i : j], 1, __ATOMIC_RELAXED);
        }
    }
    /* The merge above already tells whether the partners are last step's (all kept, none new). */
    *same_partners = kept == nb && count == nb;
    *fresh = added;
    return count;
}

/* The slot of particle i's contact with shape s last step, or -1 (hysteresis for body contacts, as
 * for pairs; and the warm start). */
static int touched_before(const loam_contacts* c, int i, int s) {
    int at = -1;
    for (int k = loam_bodies_begin(c, i), k_end = loam_bodies_end(c, i); k < k_end; ++k)
        if (c->body_shape[k] == s) at = k;
    return at;
}

/* Build block b of the neighbour list: every j within r_i + r_j + margin + skin, from the hash. */
static void list_block(loam_world* w, const float* pos, int b, float reach, candidates* cand, int* need, int* dropped) {
    loam_neighbor_list* nl = &w->neighbors;
    int32_t nbr[LOAM_CANDIDATES_MAX];
    if (cand) cand->n = -1;
    int cap = nl->block_capacity, base = b * cap, used = 0;
    int end = loam_block_end(w, b);
    for (int i = b * LOAM_BLOCK; i < end; ++i) {
        int n = find_neighbors(w, pos, i, reach, cand, nbr, dropped); /* each pair once, by its owner */
        int first = used;
        for (int k = 0; k < n; ++k) {
            uint16_t e[3];
            int m = loam_list_code(i, nbr[k], e);
            for (int q = 0; q < m; ++q, ++used)
                if (used < cap) nl->j[base + used] = e[q];
        }
        nl->count[i] = (uint16_t)(used - first); /* at most 3 LOAM_MAX_NEIGHBORS */
    }
    *need = used;
}

/* Whether i's contacts, found into scratch x from pair slot (and body slot) index pair_at (body_at)
 * on, are last step's in the same slots (so last step's colouring and rows hold), given that its
 * partners are (contacts_of). */
static int unchanged(const loam_world* w, const loam_contact_scratch* x, int i, int pair_at, int body_at, int body_base) {
    const loam_contacts* c = &w->contacts;
    int nb = x->body_count[i % LOAM_BLOCK];
    if (loam_pairs_begin(c, i) != pair_at || loam_bodies_begin(c, i) != body_at || loam_bodies_count(c, i) != nb) return 0;
    for (int k = 0; k < nb; ++k)
        if (x->body_shape[body_at - body_base + k] != c->body_shape[body_at + k]) return 0;
    return 1;
}

/* The shapes the particles of one block can touch this step: those whose world box, grown by the
 * largest reach of a particle-body contact, meets the block's box (after the Z-order renumbering a
 * block is a compact lump of the bed, so most shapes drop out here instead of per particle), and
 * the moving ones among them, the only ones a sleeping particle needs (it rests on still walls
 * without a contact). Ascending, like the per-particle loop they feed. With more shapes than fit,
 * `every` is set and every shape is tested per particle. */
enum { LOAM_BLOCK_SHAPES = 256 };
typedef struct block_shape_lists {
    int every;
    int n_all, n_moving;
    int32_t all[LOAM_BLOCK_SHAPES], moving[LOAM_BLOCK_SHAPES];
} block_shape_lists;

static int shape_moves(const loam_world* w, int s) {
    const loam_body_state* bs = &w->bodies[w->shapes[s].body];
    return v3_dot(bs->twist.v, bs->twist.v) != 0.0f || v3_dot(bs->twist.w, bs->twist.w) != 0.0f;
}

/* Whether two boxes are more than cut apart along some axis (a periodic axis does not count: the
 * test stays conservative without wrapping). */
static int boxes_apart(const float alo[3], const float ahi[3], const float blo[3], const float bhi[3], float cut,
                       int periodic_axis) {
    for (int a = 0; a < 3; ++a)
        if (a != periodic_axis && (alo[a] - bhi[a] > cut || blo[a] - ahi[a] > cut)) return 1;
    return 0;
}

static void block_shapes(const loam_world* w, const loam_block_info* bi, block_shape_lists* l) {
    l->every = w->shape_count > LOAM_BLOCK_SHAPES;
    l->n_all = l->n_moving = 0;
    if (l->every) return;
    float reach = w->max_radius + w->body_margin;
    for (int s = 0; s < w->shape_count; ++s) {
        float slo[3] = {w->shape_lo[s].x, w->shape_lo[s].y, w->shape_lo[s].z};
        float shi[3] = {w->shape_hi[s].x, w->shape_hi[s].y, w->shape_hi[s].z};
        if (boxes_apart(bi->lo, bi->hi, slo, shi, reach, -1)) continue;
        l->all[l->n_all++] = s;
        if (shape_moves(w, s)) l->moving[l->n_moving++] = s;
    }
}

/* The block's shapes that particles [i, i + LOAM_SHAPE_CHUNK) (before end) can touch: those whose
 * box meets the chunk's box of centres grown by the largest reach. A chunk of the Z-ordered block
 * is a small lump, so most chunks of a bed keep no wall or floor, and their particles skip even the
 * per-particle box test (same contacts: a shape dropped here fails that test for every particle). */
enum { LOAM_SHAPE_CHUNK = 32 };

static void chunk_shapes(const loam_world* w, const float* pos, int i, int end, const block_shape_lists* block,
                         block_shape_lists* chunk) {
    int last = i + LOAM_SHAPE_CHUNK < end ? i + LOAM_SHAPE_CHUNK : end;
    /* (x, y, z, r) of a particle is one vector: its first three lanes bound the centres. */
    loam_f4 low = f4_splat(INFINITY), high = f4_splat(-INFINITY);
    for (int k = i; k < last; ++k) {
        loam_f4 c = f4_load(&pos[4 * (size_t)k]);
        low = f4_min(c, low);
        high = f4_max(c, high);
    }
    float lo[4], hi[4];
    f4_store(lo, low);
    f4_store(hi, high);
    float reach = w->max_radius + w->body_margin;
    chunk->n_all = chunk->n_moving = 0;
    for (int q = 0; q < block->n_all; ++q) {
        int s = block->all[q];
        float slo[3] = {w->shape_lo[s].x, w->shape_lo[s].y, w->shape_lo[s].z};
        float shi[3] = {w->shape_hi[s].x, w->shape_hi[s].y, w->shape_hi[s].z};
        if (boxes_apart(lo, hi, slo, shi, reach, -1)) continue;
        chunk->all[chunk->n_all++] = s;
        if (shape_moves(w, s)) chunk->moving[chunk->n_moving++] = s;
    }
}

/* Bounds of a block's particles, and of its awake ones. */
typedef struct block_bounds {
    loam_f4 lo[3], hi[3], awake_lo[3], awake_hi[3];
} block_bounds;

/* pack_block over lanes [i, i + m); returns how many of them are awake. */
LOAM_LANES_INLINE int pack_lanes(loam_world* w, float* pos, float* vel, int i, int m, block_bounds* k) {
    const float* at[3] = {w->x, w->y, w->z};
    const float* speed[3] = {w->vx, w->vy, w->vz};
    loam_f4 p[3], v[3], none = f4_splat(INFINITY), below = f4_splat(-INFINITY);
    for (int a = 0; a < 3; ++a) {
        p[a] = f4_load_upto(&at[a][i], m);
        v[a] = f4_load_upto(&speed[a][i], m);
    }
    f4_store_rows(&pos[4 * (size_t)i], m, p[0], p[1], p[2], f4_load_upto(&w->radius[i], m));
    f4_store_rows(&vel[4 * (size_t)i], m, v[0], v[1], v[2], f4_splat(0.0f));
    loam_f4 asleep = f4_int_eq_upto(&w->calm[i], m, LOAM_ASLEEP);
    int bits = f4_bits(asleep) & ((1 << m) - 1);
    for (int q = 0; q < m; ++q) w->asleep[i + q] = (uint8_t)(bits >> q & 1);
    for (int a = 0; a < 3; ++a) {
        k->lo[a] = f4_min(p[a], k->lo[a]);
        k->hi[a] = f4_max(p[a], k->hi[a]);
        k->awake_lo[a] = f4_min(f4_select(asleep, p[a], none), k->awake_lo[a]);
        k->awake_hi[a] = f4_max(f4_select(asleep, p[a], below), k->awake_hi[a]);
    }
    return m - __builtin_popcount((unsigned)bits);
}

/* Pack block b's positions and radii, and velocities (see loam_granular_detect), mark its
 * sleepers, and find its bounds and those of its awake particles; four particles at a time
 * (core/lanes.h). */
static void pack_block(loam_world* w, float* pos, float* vel, int b) {
    loam_block_info* bi = &w->block_info[b];
    int end = loam_block_end(w, b), awake = 0;
    loam_f4 none = f4_splat(INFINITY), below = f4_splat(-INFINITY);
    block_bounds k = {{none, none, none}, {below, below, below}, {none, none, none}, {below, below, below}};
    for (int i = b * LOAM_BLOCK; i < end; i += 4)
        awake += end - i >= 4 ? pack_lanes(w, pos, vel, i, 4, &k) : pack_lanes(w, pos, vel, i, end - i, &k);
    for (int a = 0; a < 3; ++a) {
        bi->lo[a] = f4_hmin(k.lo[a]);
        bi->hi[a] = f4_hmax(k.hi[a]);
        bi->awake_lo[a] = f4_hmin(k.awake_lo[a]);
        bi->awake_hi[a] = f4_hmax(k.awake_hi[a]);
    }
    bi->awake = awake;
}

/* Mark the quiet blocks (loam_block_info). A pair can be a contact up to both radii plus the
 * list's reach apart (a contact of last step stays one while in the list), and the reach of a list
 * built this step is at most the margin plus the largest skin; a sleeper needs a body contact only
 * with a moving shape, among those block_shapes keeps. Blocks are few (one per 1024 particles), so
 * all pairs of them are tested. Returns whether a block that is not quiet has a list the last
 * build skipped (then the list must be built again). */
static int classify_blocks(loam_world* w, int blocks) {
    float r = w->max_radius;
    float reach = fmaxf(w->neighbors.built_reach, w->pair_margin + LOAM_MAX_MARGIN * r); /* not a rebase's less */
    float pair_cut = 2.0f * r + reach;
    int axis = w->params.periodic_axis, quiet = 0, stale = 0;
    for (int b = 0; b < blocks; ++b) {
        loam_block_info* bi = &w->block_info[b];
        bi->quiet = bi->awake == 0 && !w->quiet_off;
        if (bi->quiet) {
            block_shape_lists shapes;
            block_shapes(w, bi, &shapes);
            bi->quiet = !shapes.every && shapes.n_moving == 0;
        }
        for (int c = 0; bi->quiet && c < blocks; ++c) {
            const loam_block_info* other = &w->block_info[c];
            if (other->awake && !boxes_apart(bi->lo, bi->hi, other->awake_lo, other->awake_hi, pair_cut, axis))
                bi->quiet = 0;
        }
        if (bi->quiet) quiet += loam_block_end(w, b) - b * LOAM_BLOCK;
        stale |= !bi->quiet && bi->list_stale;
    }
    w->stats.quiet = quiet;
    return stale;
}

/* A quiet block's detection: no contacts. They are last step's if it had none either. */
static void quiet_block(loam_world* w, int b) {
    loam_contacts* c = &w->contacts;
    int same = 1;
    int end = loam_block_end(w, b);
    for (int i = b * LOAM_BLOCK; i < end; ++i) {
        same &= c->pair_end[i] == 0 && c->body_end[i] == 0;
        c->pair_end[i] = c->body_end[i] = 0;
    }
    loam_block_info* bi = &w->block_info[b];
    bi->fresh = 0;
    bi->same = (uint8_t)same;
    bi->done = 1;
}

/* Each new contact's colour, and its impulse if warm starting, from the slot it continues. */
static void take_over(const int32_t* from, int n, const float* lambda, const uint8_t* color, float* lam_out,
                      uint8_t* col_out, int warm) {
    for (int k = 0; k < n; ++k) {
        int f = from[k];
        col_out[k] = f >= 0 && color[f] != LOAM_REOWNED ? color[f] : LOAM_UNCOLORED;
        if (!lam_out) continue;
        if (f >= 0 && warm) memcpy(&lam_out[3 * k], &lambda[3 * (size_t)f], 3 * sizeof(float));
        else lam_out[3 * k] = lam_out[3 * k + 1] = lam_out[3 * k + 2] = 0.0f;
    }
}

/* Block b's new contacts (scratch x: pairs and bodies slots) replace last step's in its region,
 * each starting from the impulse it carried last step (warm start) and keeping its colour. A pair's
 * impulse stays where it is, in last step's rows: the new slot takes the old one's ref. */
static void commit_block(loam_world* w, int b, loam_contact_scratch* x, int pairs, int bodies) {
    loam_contacts* c = &w->contacts;
    int warm = w->params.warm_start;
    take_over(x->pair_from, pairs, NULL, c->pair_color, NULL, x->pair_color, warm);
    take_over(x->body_from, bodies, c->body_lambda, c->body_color, x->body_lambda, x->body_color, warm);
    for (int k = 0; k < pairs; ++k) x->pair_ref[k] = x->pair_from[k] >= 0 && warm ? c->pair_ref[x->pair_from[k]] : LOAM_REF_NONE;
    int pair_at = c->pair_region[b], body_at = c->body_region[b];
    int32_t pair_end = 0, body_end = 0;
    memcpy(&c->pair_j[pair_at], x->pair_j, sizeof(int32_t) * (size_t)pairs);
    memcpy(&c->pair_ref[pair_at], x->pair_ref, sizeof(int32_t) * (size_t)pairs);
    memcpy(&c->pair_color[pair_at], x->pair_color, (size_t)pairs);
    memcpy(&c->body_shape[body_at], x->body_shape, sizeof(int32_t) * (size_t)bodies);
    memcpy(&c->body_lambda[3 * (size_t)body_at], x->body_lambda, 3 * sizeof(float) * (size_t)bodies);
    memcpy(&c->body_color[body_at], x->body_color, (size_t)bodies);
    int end = loam_block_end(w, b);
    for (int i = b * LOAM_BLOCK; i < end; ++i) {
        c->pair_end[i] = pair_end += x->pair_count[i % LOAM_BLOCK];
        c->body_end[i] = body_end += x->body_count[i % LOAM_BLOCK];
    }
}

/* When a particle's pairs need no scan. Pair contacts stay until the list is rebuilt, so a scan's
 * only news would be a listed pair come within its margin. When particle i's list was scanned, each
 * of its listed pairs that was no contact had at least the gap g. A pair's distance changes by at
 * most 2 M since the list's reference (neighbors.c), M the smaller of the displacements' spread and
 * the largest displacement in the pair's neighbourhood of blocks (block_moved), so by at most
 * 2 (M now + M then) since the scan. The scan stores a = g - 2 M then, rounded down to a byte
 * (slack_code; 0 when a pair went untested); while a - 2 M now exceeds this step's pair margin (no
 * pair's margin is larger), a scan would find exactly last step's pairs of i. A bed at rest then
 * skips almost every scan, the larger part of detection (each loads its partners' positions): only
 * particles with a pair just outside the margin are scanned. M comes from the positions themselves,
 * so particles moved between steps (through the views) are covered too. Sleepers make pairs come
 * and go and must be woken, so any sleeper means scans. */
typedef struct scan_rule {
    int may_skip;
    float base;   /* params.margin radii: the codes measure from it, m */
    float span;   /* reach - base, m: code c stands for base + span (c / 255)^2 */
    float needed; /* this step's pair margin and rounding, less base, m */
} scan_rule;

static scan_rule scan_rule_of(const loam_world* w, float margin) {
    scan_rule r;
    r.may_skip = w->stats.sleeping == 0;
    r.base = w->params.margin * w->max_radius;
    r.span = w->neighbors.reach - r.base;
    float rounding = 1e-5f * (2.0f * w->max_radius + margin); /* of the float distances and codes */
    r.needed = margin + rounding - r.base;
    return r;
}

/* The bound on how far block b's particles and their listed partners have moved since the list's
 * reference: the spread S, or the largest displacement among the blocks around it, if smaller (a
 * single particle creeping somewhere in the bed then costs only its neighbourhood its skips). */
static float block_moved(const loam_world* w, const loam_block_info* bi) {
    return fminf(w->neighbors.moved_spread, bi->near_moved);
}

/* The smallest code whose gap exceeds the margin plus 2 moved: one above the code of that gap
 * itself (256: none). */
static int code_needed(const scan_rule* r, float moved) {
    float need = r->needed + 2.0f * moved;
    float c = r->span > 0.0f && need >= 0.0f ? floorf(255.0f * sqrtf(need / r->span)) + 1.0f : 256.0f;
    return c < 256.0f ? (int)c : 256;
}

/* The code of a gap a (m): squares of 1/255 steps of the span, fine near the margin, where the
 * gaps that decide are, and coarse far from it; rounded down, so a code never promises more gap. */
static uint8_t slack_code(float a, const scan_rule* r) {
    float t = (a - r->base) / r->span;
    if (!(t > 0.0f) || !(r->span > 0.0f)) return 0;
    float c = floorf(255.0f * sqrtf(t));
    return c >= 255.0f ? 255 : (uint8_t)c;
}

/* Each block's near_moved: the largest displacement since the list's reference among the blocks
 * whose particles can be listed partners of its own (centres' boxes within two radii and twice the
 * build's reach: the build's reach plus at most as much relative motion since, or the list would
 * be stale). Blocks are compared pairwise, so past LOAM_NEAR_BLOCKS only the spread bounds. */
enum { LOAM_NEAR_BLOCKS = 1024 };

static void neighbourhood_moves(loam_world* w, int blocks) {
    float cut = 2.0f * w->max_radius + 2.0f * w->neighbors.built_reach;
    int axis = w->params.periodic_axis, pairwise = blocks <= LOAM_NEAR_BLOCKS;
#pragma omp parallel for schedule(static) num_threads(w->team)
    for (int b = 0; b < blocks; ++b) {
        loam_block_info* bi = &w->block_info[b];
        float most = pairwise ? 0.0f : INFINITY;
        for (int c = 0; pairwise && c < blocks; ++c) {
            const loam_block_info* o = &w->block_info[c];
            if (o->moved > most && !boxes_apart(bi->lo, bi->hi, o->lo, o->hi, cut, axis)) most = o->moved;
        }
        bi->near_moved = most;
    }
}

/* Last step's partners of i, as a scan would find them again (scan_rule), into the block's scratch
 * (as many as the room left there; the count is returned either way). */
static int previous_contacts(const loam_world* w, int i, int32_t* j_out, int32_t* from_out, int room) {
    const loam_contacts* c = &w->contacts;
    int first = loam_pairs_begin(c, i), n = loam_pairs_end(c, i) - first;
    for (int k = 0; k < n && k < room; ++k) {
        j_out[k] = c->pair_j[first + k];
        from_out[k] = first + k;
    }
    return n;
}

/* Block b's contacts of this step, found into scratch x while its region still holds last step's
 * (only this block reads them), then put in place (commit_block) if they fit; if they do not, the
 * block keeps last step's and loam_granular_detect grows its region and calls again. */
static void detect_block(loam_world* w, const float* pos, int b, float margin, const scan_rule* rule, loam_contact_scratch* x,
                         int32_t* need_pairs, int32_t* need_body, float* worst_overlap) {
    *worst_overlap = 0.0f;
    if (w->block_info[b].quiet) {
        quiet_block(w, b);
        *need_pairs = *need_body = 0;
        w->block_info[b].scanned = 0;
        return;
    }
    float worst = 0.0f;
    int all_same = 1, any_fresh = 0;
    loam_contacts* c = &w->contacts;
    int32_t nbr[LOAM_MAX_NEIGHBORS], from[LOAM_MAX_NEIGHBORS];
    int pair_base = c->pair_region[b], body_base = c->body_region[b];
    int cap = c->pair_region[b + 1] - pair_base, bcap = c->body_region[b + 1] - body_base;
    int pairs = 0, bodies = 0, scanned = 0;
    int end = loam_block_end(w, b);
    float wake2 = w->params.sleep_speed * w->params.sleep_speed;
    block_shape_lists shapes, chunk;
    block_shapes(w, &w->block_info[b], &shapes);
    float moved = block_moved(w, &w->block_info[b]);
    int needed = rule->may_skip ? code_needed(rule, moved) : 256;
    const uint16_t* entries = &w->neighbors.j[(size_t)b * (size_t)w->neighbors.block_capacity];
    scan_params sp = {w->params.margin * w->max_radius, 2.0f * (float)w->params.dt,
                      w->params.sleep_speed * w->params.sleep_speed};
    for (int i = b * LOAM_BLOCK; i < end; entries += w->neighbors.count[i++]) {
        int same_partners = 1, n, i_asleep = w->asleep[i], fresh = 0, nlisted = w->neighbors.count[i];
        if (!shapes.every && (i - b * LOAM_BLOCK) % LOAM_SHAPE_CHUNK == 0) chunk_shapes(w, pos, i, end, &shapes, &chunk);
        int partner_awake = i_asleep ? any_awake(w->asleep, i, entries, nlisted) : 1;
        if (!partner_awake && !rule->may_skip && !shapes.every && chunk.n_moving == 0 &&
            loam_pairs_count(c, i) == 0 && loam_bodies_count(c, i) == 0) {
            /* A sleeper among sleepers, with no moving shape near and no contact last step: none
             * now (the general path below finds the same, at several times the cost; half the
             * particles of a pushed bed's busy blocks are such). */
            w->neighbors.slack[i] = 0;
            scanned++;
            x->pair_count[i % LOAM_BLOCK] = x->body_count[i % LOAM_BLOCK] = 0;
            if (all_same && pairs <= cap && bodies <= bcap)
                all_same = loam_pairs_begin(c, i) == pair_base + pairs && loam_bodies_begin(c, i) == body_base + bodies;
            continue;
        }
        /* Straight into the scratch where it has room for every listed pair (there are at most as
         * many as entries), else through nbr. */
        int direct = cap - pairs >= nlisted;
        int32_t* out = direct ? &x->pair_j[pairs] : nbr;
        if (w->neighbors.slack[i] >= needed) {
            n = previous_contacts(w, i, &x->pair_j[pairs], &x->pair_from[pairs], cap - pairs);
        } else {
            float far_gap = INFINITY;
            if (partner_awake) {
                n = contacts_of(w, &sp, pos, i, entries, nlisted, margin, out, direct ? &x->pair_from[pairs] : from,
                                &same_partners, &fresh, rule->may_skip ? &far_gap : NULL);
            } else {
                n = 0;
                same_partners = loam_pairs_count(c, i) == 0;
                far_gap = -INFINITY; /* its pairs were not scanned */
            }
            w->neighbors.slack[i] = rule->may_skip ? slack_code(far_gap - 2.0f * moved, rule) : 0;
            scanned++;
            for (int k = 0; !direct && k < n && pairs + k < cap; ++k) {
                x->pair_j[pairs + k] = nbr[k];
                x->pair_from[pairs + k] = from[k];
            }
        }
        x->pair_count[i % LOAM_BLOCK] = n;
        int pair_at = pair_base + pairs, body_at = body_base + bodies;
        pairs += n;

        int nbody = 0;
        loam_vec3 p = v3(w->x[i], w->y[i], w->z[i]);
        float reach = w->radius[i] + w->body_margin;
        const int32_t* list = i_asleep ? chunk.moving : chunk.all;
        int nlist = shapes.every ? w->shape_count : (i_asleep ? chunk.n_moving : chunk.n_all);
        for (int q = 0; q < nlist; ++q) {
            int s = shapes.every ? q : list[q];
            /* Distance outside the shape's box along the worst axis; one branch, not six (most
             * particles are far from every shape, in no pattern a predictor could learn). */
            loam_vec3 lo = w->shape_lo[s], hi = w->shape_hi[s];
            float ox = lo.x - p.x > p.x - hi.x ? lo.x - p.x : p.x - hi.x;
            float oy = lo.y - p.y > p.y - hi.y ? lo.y - p.y : p.y - hi.y;
            float oz = lo.z - p.z > p.z - hi.z ? lo.z - p.z : p.z - hi.z;
            float out = ox > oy ? ox : oy;
            out = out > oz ? out : oz;
            if (out > reach) continue;
            const loam_body_state* bs = &w->bodies[w->shapes[s].body];
            if (i_asleep && !shape_moves(w, s)) continue; /* a sleeper on a still wall: nothing to do */
            loam_pose pose = w->shape_pose[s];
            const loam_shape* shape = &w->shapes[s].shape;
            loam_vec3 local = quat_rotate(quat_conj(pose.q), v3_sub(p, pose.p)), nl; /* loam_pose_apply_inverse */
            /* A grid's gradient costs as much again as its value, and most particles in a mesh's
             * box are no contact: the value decides first (it is the same with or without). */
            int late_normal = shape->type == LOAM_SHAPE_MESH;
            float f = loam_shape_sdf(shape, local, late_normal ? NULL : &nl);
            float gap = f - w->radius[i];
            int before = touched_before(c, i, s);
            if (!(gap < w->body_margin) && !(gap < LOAM_CONTACT_HYSTERESIS * w->body_margin && before >= 0)) continue;
            if (late_normal) loam_shape_sdf(shape, local, &nl);
            loam_vec3 nw = quat_rotate(pose.q, nl);
            loam_vec3 surface = v3_sub(p, v3_scale(nw, f));
            loam_vec3 vb = v3_add(bs->twist.v, v3_cross(bs->twist.w, v3_sub(surface, bs->pose.p))); /* loam_twist_point_velocity */
            if (i_asleep) {
                /* A sleeper rests on still walls without a contact; a moving surface wakes it. */
                if (v3_dot(vb, vb) > wake2) __atomic_store_n(&w->wake[i], 1, __ATOMIC_RELAXED);
                continue;
            }
            fresh |= before < 0 || c->body_color[before] == LOAM_UNCOLORED;
            int k = bodies + nbody++;
            if (k >= bcap) continue;
            x->body_shape[k] = s;
            x->body_from[k] = before;
            int slot = body_base + k;
            c->body_owner[slot] = i;
            float* nd = &c->body_n[4 * (size_t)slot];
            nd[0] = nw.x;
            nd[1] = nw.y;
            nd[2] = nw.z;
            nd[3] = f;
            worst = -gap > worst ? -gap : worst;
        }
        x->body_count[i % LOAM_BLOCK] = nbody;
        bodies += nbody;
        any_fresh |= fresh;
        if (all_same && pairs <= cap && bodies <= bcap)
            all_same = same_partners && unchanged(w, x, i, pair_at, body_at, body_base);
    }
    *need_pairs = pairs;
    w->block_info[b].scanned = scanned;
    *need_body = bodies;
    *worst_overlap = worst;
    loam_block_info* bi = &w->block_info[b];
    bi->same = (uint8_t)all_same;
    bi->fresh = (uint8_t)any_fresh;
    bi->done = pairs <= cap && bodies <= bcap;
    /* Unchanged contacts are in place already (their impulses in the slots, or in the rows). */
    if (bi->done && !(all_same && w->params.warm_start)) commit_block(w, b, x, pairs, bodies);
}

static loam_status build_neighbor_list(loam_world* w, const float* pos, float* bucket_pos, loam_error* err) {
    loam_neighbor_list* nl = &w->neighbors;
    int blocks = loam_block_count(w->count);
    /* The skin is the list's life: params.skin radii (0: the paper's per-step hash query). A skin
     * that grew with the fastest speed (one or two pair margins while material moved) made the list
     * two to three times as long at a pour's impact, the column's peak of memory (up to 38 bytes a
     * particle in the 100k cylinder), and saved no time: a falling bed moves as a whole and keeps
     * its list anyway, and the impact rebuilds either way (50k cylinder: the same settling time). */
    float skin = w->params.skin * w->max_radius;
    float reach = fminf(w->pair_margin + skin, w->reach_cap);
    loam_hash_set_cell(&w->hash, 2.0f * w->max_radius + reach, w->params.periodic_axis, w->params.periodic_lo,
                       w->params.periodic_hi);
    loam_hash_build_threads(&w->hash, w->count, w->x, w->y, w->z, w->team);
    loam_hash_compact(&w->hash, w->count);
    const loam_spatial_hash* h = &w->hash;
    nl->bucket_pos = bucket_pos;
#pragma omp parallel for schedule(static) num_threads(w->team)
    for (int s = 0; s < w->count; ++s) memcpy(&nl->bucket_pos[4 * s], &pos[4 * loam_hash_slot_item(h, s)], 4 * sizeof(float));
    /* Gathering space, 20 kB per thread (not on the thread's stack), kept between builds. */
    int threads = w->team;
    if (nl->cache_count < threads) {
        loam_free(nl->caches);
        nl->caches = loam_malloc(sizeof(candidates) * (size_t)threads);
        nl->cache_count = nl->caches ? threads : 0;
        if (!nl->caches)
            return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for the neighbour list", (long long)w->step);
    }
    for (;;) {
        int most = 0, dropped = 0;
#pragma omp parallel reduction(max : most) reduction(+ : dropped) num_threads(w->team)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num();
#else
            int t = 0;
#endif
            candidates* cand = t < nl->cache_count ? &((candidates*)nl->caches)[t] : NULL;
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) {
                int need = 0;
                w->block_info[b].list_stale = w->block_info[b].quiet;
                if (w->block_info[b].quiet) continue; /* built when it wakes (loam_granular_detect) */
                list_block(w, pos, b, reach, cand, &need, &dropped);
                if (need > most) most = need;
                /* The block's room beyond this build's need: a list that grew while material
                 * fell (wide margins and skins) gives those pages back once it rests. */
                size_t cap = (size_t)nl->block_capacity, base = (size_t)b * cap;
                if ((size_t)need < cap) loam_release(nl->j, sizeof(uint16_t) * (base + (size_t)need), sizeof(uint16_t) * (base + cap));
            }
        }
        w->stats.dropped_neighbors = dropped;
        if (most <= nl->block_capacity) break;
        if (!loam_neighbors_reserve(nl, blocks, most + most / 2 + 16))
            return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for the neighbour list", (long long)w->step);
    }
    nl->bucket_pos = NULL;
    loam_neighbors_mark_built(w, reach);
    return LOAM_OK;
}

loam_status loam_granular_detect(loam_world* w, loam_error* err) {
    int blocks = loam_block_count(w->count);
    float margin = w->pair_margin;
    /* The solver's velocity buffer is free until the solve: pack positions and radii into it (one
     * cache line per particle); the solve reads them there for its rows' normals. Velocities are
     * packed too, so a pair's closing speed is one more line, not three: in spare memory, with the
     * list build's bucket-ordered positions after them. */
    size_t per = 4 * (size_t)(w->count > 0 ? w->count : 1); /* floats of one packed array */
    size_t packs = 2 * per;                                  /* in the spare: velocities, bucket positions */
    float* pos = w->sv;
    float* spare = loam_granular_spare(w, sizeof(float) * packs + loam_hash_bytes(w->hash.table_size, w->hash.capacity));
    if (!spare) return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for detection", (long long)w->step);
    loam_hash_attach(&w->hash, w->hash.table_size, w->hash.capacity, spare + packs); /* after the packs */
    float* vel = w->vel_pack = spare;
#pragma omp parallel for schedule(static) num_threads(w->team)
    for (int b = 0; b < blocks; ++b) pack_block(w, pos, vel, b);
    if (classify_blocks(w, blocks)) w->neighbors.valid = 0; /* a block woke whose list was skipped */
    if (!w->neighbors.valid) {
        loam_status st = build_neighbor_list(w, pos, vel + per, err);
        if (st != LOAM_OK) return st;
    }
    if (!loam_contacts_scratch(w))
        return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for contacts", (long long)w->step);
    int32_t* pair_need = w->block_need;
    int32_t* body_need = w->block_need + blocks;
    for (int b = 0; b < blocks; ++b) w->block_info[b].done = 0;
    /* A block that overflows its region in one pass finds only part of its contacts, so its worst
     * overlap there is at most that of its pass that fits: the maximum over passes is the step's. */
    float worst = 0.0f;
    scan_rule rule = scan_rule_of(w, margin);
    if (rule.may_skip) neighbourhood_moves(w, blocks);
    for (;;) {
        int grow = 0;
#pragma omp parallel reduction(max : worst) reduction(|| : grow) num_threads(w->team)
        {
#ifdef _OPENMP
            loam_contact_scratch* x = &w->contacts.scratch[omp_get_thread_num()];
#else
            loam_contact_scratch* x = &w->contacts.scratch[0];
#endif
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) {
                if (w->block_info[b].done) continue;
                float wo;
                detect_block(w, pos, b, margin, &rule, x, &pair_need[b], &body_need[b], &wo);
                worst = wo > worst ? wo : worst;
                grow = grow || !w->block_info[b].done;
            }
        }
        if (!grow) break;
        /* Rare (first steps, or a sudden pile-up): the blocks that overflowed kept last step's
         * contacts. Grow their regions (every block's slots move, their refs with them) and detect
         * those blocks again. */
        /* The pass that overflowed found (and slack-coded) contacts it could not keep: scan all. */
        rule.may_skip = 0;
        if (!loam_contacts_reserve(w, pair_need, body_need))
            return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for contacts", (long long)w->step);
    }
    int pairs = 0, bodies = 0, same = 1;
    for (int b = 0; b < blocks; ++b) {
        pairs += pair_need[b];
        bodies += body_need[b];
        same = same && w->block_info[b].same;
    }
    w->stats.contacts = pairs;
    w->stats.body_contacts = bodies;
    w->stats.max_overlap = worst;
    /* A particle that fell asleep or woke changes its rows' masses even where its contacts stayed. */
    same = same && w->contacts.layout == w->layout_at_last_step && !w->sleep_changed;
    w->layout_at_last_step = w->contacts.layout;
    w->contacts_unchanged = same;
    return LOAM_OK;
}
