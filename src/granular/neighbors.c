/* A Verlet neighbour list on top of the spatial hash (as LAMMPS and LIGGGHTS keep one): the hash
 * query runs only when the list is rebuilt, and the list holds every pair within the contact reach
 * plus a skin. It stays exact while no particle has moved more than half the skin since the build
 * (minus any growth of the speculative margin), so a bed at rest rebuilds almost never and each
 * step's detection is a scan of short, sorted lists. skin = 0 rebuilds every step: the paper's
 * per-step hash query. */
#include <math.h>
#include <string.h>

#include "core/lanes.h"
#include "granular/world_internal.h"

int loam_neighbors_alloc(loam_neighbor_list* nl, int n) {
    loam_neighbors_free(nl);
    size_t k = (size_t)(n > 0 ? n : 1);
    nl->count = loam_calloc(k, sizeof(uint16_t));
    for (int a = 0; a < 3; ++a) nl->ref[a] = loam_calloc(k, sizeof(float));
    nl->slack = loam_calloc(k, 1);
    return nl->count && nl->ref[0] && nl->ref[1] && nl->ref[2] && nl->slack;
}

void loam_neighbors_free(loam_neighbor_list* nl) {
    loam_free(nl->count);
    for (int a = 0; a < 3; ++a) loam_free(nl->ref[a]);
    loam_free(nl->slack);
    loam_free(nl->caches);
    loam_free(nl->j);
    memset(nl, 0, sizeof *nl);
}

int loam_neighbors_reserve(loam_neighbor_list* nl, int blocks, int cap) {
    if (cap <= nl->block_capacity) return 1;
    /* A build that outgrew the list lists every block again: the old entries go first, so the two
     * are never resident together (at a pour's impact, when the list is longest). */
    loam_free(nl->j);
    nl->j = loam_malloc(sizeof(uint16_t) * (size_t)blocks * (size_t)cap);
    nl->block_capacity = nl->j ? cap : 0;
    return nl->j != NULL;
}

static void set_reference(loam_world* w) {
    loam_neighbor_list* nl = &w->neighbors;
    memcpy(nl->ref[0], w->x, sizeof(float) * (size_t)w->count);
    memcpy(nl->ref[1], w->y, sizeof(float) * (size_t)w->count);
    memcpy(nl->ref[2], w->z, sizeof(float) * (size_t)w->count);
    memset(nl->slack, 0, (size_t)w->count); /* codes are relative to the reference: scan everyone */
    for (int b = 0; b < loam_block_count(w->count); ++b) w->block_info[b].moved = 0.0f;
    nl->moved_spread = 0.0f;
    nl->calm_steps = 0;
}

void loam_neighbors_mark_built(loam_world* w, float reach) {
    loam_neighbor_list* nl = &w->neighbors;
    set_reference(w);
    nl->reach = reach;
    nl->built_reach = reach;
    nl->built_life = reach - w->pair_margin;
    nl->valid = 1;
    nl->builds++;
}

/* Rebasing: the list holds every pair that was within reach of contact at the reference; with the
 * displacements' spread S since then, every pair now within reach - 2 S is in it. Taking the
 * present positions as the new reference with that smaller reach keeps the list exact and restarts
 * S at zero. Detection's skipped scans (detect.c, scan_rule) are bounded by 2 S, so a bed that
 * settles after its last build (S frozen at the settling's compaction) would scan every particle
 * forever; after one rebase at rest S is the bed's jitter, micrometres. A rebase costs one step of
 * full scans and shortens the list's life by 2 S, so it waits until the bed has stopped (S changed by
 * less than 1/64 of itself in each of the last 8 steps: a moving bed would spend the list's life on
 * rebases that help no scan) and 4 S exceeds 2% of the list's life, and it never leaves less than a
 * quarter of the life the build gave. */
enum { LOAM_REBASE_CALM_STEPS = 8 };

static int should_rebase(const loam_neighbor_list* nl, float pair_margin, float spread) {
    float life = nl->reach - pair_margin;
    return nl->calm_steps >= LOAM_REBASE_CALM_STEPS && 4.0f * spread > 0.02f * nl->built_life &&
           life - 2.0f * spread >= 0.25f * nl->built_life;
}

/* Displacements since the reference over lanes [i, i + m): their box, and the largest |d|^2. */
LOAM_LANES_INLINE void moved_lanes(const loam_world* w, int i, int m, int axis, loam_f4 period, loam_f4* most, loam_f4 lo[3],
                                   loam_f4 hi[3]) {
    const float* pos[3] = {w->x, w->y, w->z};
    loam_f4 d[3];
    for (int a = 0; a < 3; ++a) {
        d[a] = f4_sub(f4_load_upto(&pos[a][i], m), f4_load_upto(&w->neighbors.ref[a][i], m));
        if (a == axis) d[a] = f4_sub(d[a], f4_mul(period, f4_round(f4_div(d[a], period)))); /* wrapped: the short way */
        lo[a] = f4_min(d[a], lo[a]);
        hi[a] = f4_max(d[a], hi[a]);
    }
    *most = f4_max(f4_add(f4_add(f4_mul(d[0], d[0]), f4_mul(d[1], d[1])), f4_mul(d[2], d[2])), *most);
}

int loam_neighbors_valid(loam_world* w) {
    loam_neighbor_list* nl = &w->neighbors;
    if (!nl->valid) return 0;
    int axis = w->params.periodic_axis;
    float len = w->params.periodic_hi - w->params.periodic_lo;
    float moved2 = 0.0f, lo_d[3] = {INFINITY, INFINITY, INFINITY}, hi_d[3] = {-INFINITY, -INFINITY, -INFINITY};
    int blocks = loam_block_count(w->count);
#pragma omp parallel reduction(max : moved2, hi_d[:3]) reduction(min : lo_d[:3]) num_threads(w->team)
    {
        loam_f4 lo[3] = {f4_splat(INFINITY), f4_splat(INFINITY), f4_splat(INFINITY)};
        loam_f4 hi[3] = {f4_splat(-INFINITY), f4_splat(-INFINITY), f4_splat(-INFINITY)};
        loam_f4 period = f4_splat(len), most = f4_splat(0.0f);
#pragma omp for schedule(static)
        for (int b = 0; b < blocks; ++b) {
            loam_f4 block2 = f4_splat(0.0f); /* per block too: detection bounds each block's pairs by its neighbourhood's */
            int end = loam_block_end(w, b);
            for (int i = b * LOAM_BLOCK; i < end; i += 4) {
                if (end - i >= 4) moved_lanes(w, i, 4, axis, period, &block2, lo, hi);
                else moved_lanes(w, i, end - i, axis, period, &block2, lo, hi);
            }
            w->block_info[b].moved = sqrtf(f4_hmax(block2));
            most = f4_max(block2, most);
        }
        moved2 = f4_hmax(most);
        f4_box(lo, hi, lo_d, hi_d);
    }
    /* Two particles approach by at most twice the displacements' spread (loam_spread): a bed that
     * moves as a whole keeps its list. */
    float spread = loam_spread(moved2, lo_d, hi_d);
    nl->calm_steps = fabsf(spread - nl->moved_spread) <= spread / 64.0f ? nl->calm_steps + 1 : 0;
    nl->moved_spread = spread;
    if (!(w->pair_margin + 2.0f * spread <= nl->reach)) return 0;
    if (should_rebase(nl, w->pair_margin, spread)) {
        nl->reach -= 2.0f * spread;
        set_reference(w);
    }
    return 1;
}
