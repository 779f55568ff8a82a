/* One robot's population slot: its model and state copied into one 64-byte aligned block, the
 * springs coloured (XPBD Gauss-Seidel), the force solver's per-mass tables (offset rows or a gather
 * table) and the per-surface-mass face lists built, and land's contact structures allocated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide/color.h"
#include "core/context.h"
#include "softbody/internal.h"

static size_t pad64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* Greedy colouring of the spring graph (no two springs of a colour share a mass), then springs
 * sorted by colour, stable, so the Gauss-Seidel sweeps are deterministic. Returns the colour count,
 * or -1 when more than SB_MAX_COLORS are needed. */
static int color_springs(const loam_softbody_robot* r, int32_t* order, int32_t* color_start, loam_error* err) {
    int nm = r->mass_count, ns = r->spring_count;
    enum { WORDS = SB_MAX_COLORS / 32 };
    loam_color_word* usedc = loam_calloc((size_t)nm * WORDS, sizeof(loam_color_word));
    int32_t* col = loam_malloc(sizeof(int32_t) * (size_t)(ns + 1));
    if (!usedc || !col) {
        loam_free(usedc);
        loam_free(col);
        loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory colouring springs");
        return -1;
    }
    int ncolor = 0;
    for (int s = 0; s < ns; ++s) {
        int c = loam_color_take(usedc + (size_t)r->s0[s] * WORDS, usedc + (size_t)r->s1[s] * WORDS, WORDS);
        if (c < 0) {
            loam_free(usedc);
            loam_free(col);
            loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: spring %d: the spring graph needs more than %d colours "
                           "(a mass with too many springs)", s, SB_MAX_COLORS);
            return -1;
        }
        col[s] = c;
        if (c + 1 > ncolor) ncolor = c + 1;
    }
    for (int c = 0; c <= ncolor; ++c) color_start[c] = 0;
    for (int s = 0; s < ns; ++s) ++color_start[col[s] + 1];
    for (int c = 0; c < ncolor; ++c) color_start[c + 1] += color_start[c];
    int32_t fill[SB_MAX_COLORS];
    for (int c = 0; c < ncolor; ++c) fill[c] = color_start[c];
    for (int s = 0; s < ns; ++s) order[fill[col[s]]++] = s;
    loam_free(usedc);
    loam_free(col);
    return ncolor;
}

static int cmp_i32(const void* a, const void* b) {
    int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return (x > y) - (x < y);
}

/* The distinct signed index differences b - a and a - b over all springs, sorted, into out; 0 when
 * there are more than SB_MAX_OFFSET_ROWS (or no memory: the gather table works for any robot). */
static int distinct_offsets(const loam_softbody_robot* r, int32_t out[SB_MAX_OFFSET_ROWS]) {
    int n = 0;
    for (int k = 0; k < r->spring_count; ++k) {
        int32_t d[2] = {r->s1[k] - r->s0[k], r->s0[k] - r->s1[k]};
        for (int e = 0; e < 2; ++e) {
            int seen = 0;
            for (int q = 0; q < n && !seen; ++q) seen = out[q] == d[e];
            if (seen) continue;
            if (n == SB_MAX_OFFSET_ROWS) return 0;
            out[n++] = d[e];
        }
    }
    qsort(out, (size_t)n, sizeof *out, cmp_i32);
    return n;
}

static int offset_row(const int32_t* offs, int rows, int32_t d) {
    int lo = 0, hi = rows - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (offs[mid] < d) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

loam_status sb_build_slot(const loam_softbody_pop* p, const loam_softbody_robot* r, int b, sb_slot* s,
                              loam_error* err) {
    int nm = r->mass_count, ns = r->spring_count, nf = r->face_count;
    int32_t* order = loam_ctx_malloc(p->ctx, sizeof(int32_t) * (size_t)(ns + 1));
    int32_t cstart[SB_MAX_COLORS + 1];
    if (!order) return loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory");
    int ncolor = 0;
    if (p->def.solver == LOAM_SB_XPBD_GS) {
        ncolor = color_springs(r, order, cstart, err);
        if (ncolor < 0) {
            loam_free(order);
            return err ? err->status : LOAM_ERR_INPUT;
        }
    } else {
        for (int k = 0; k < ns; ++k) order[k] = k;
        ncolor = 1;
        cstart[0] = 0;
        cstart[1] = ns;
    }
    size_t fm = pad64(sizeof(float) * (size_t)nm), fs = pad64(sizeof(float) * (size_t)ns);
    size_t us = pad64(sizeof(uint16_t) * (size_t)ns), fmat = pad64(sizeof(float) * LOAM_SB_MATERIAL_COUNT);
    /* Degrees for the per-mass tables: springs per mass (force solver only), faces per mass. */
    int32_t* degs = loam_ctx_calloc(p->ctx, (size_t)nm * 2 + 1, sizeof(int32_t));
    if (!degs) {
        loam_free(order);
        return loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory");
    }
    int32_t* fdegs = degs + nm;
    int deg = 0, fdeg = 0, nsurf = 0;
    if (p->def.solver == LOAM_SB_FORCE || p->def.solver == LOAM_SB_XPBD_JACOBI)
        for (int k = 0; k < ns; ++k) {
            int a = ++degs[r->s0[k]], c = ++degs[r->s1[k]];
            deg = a > deg ? a : deg;
            deg = c > deg ? c : deg;
        }
    /* Few distinct index differences (a lattice-numbered voxel box): offset rows, no gathers, as
     * long as they hold at most a quarter more slots than the gather table. */
    int32_t offs[SB_MAX_OFFSET_ROWS];
    int nrow = deg > 0 ? distinct_offsets(r, offs) : 0;
    int offset_rows = nrow > 0 && nrow <= deg + deg / 4 + 1 ? nrow : 0;
    if (offset_rows) deg = offset_rows;
    for (int i = 0; i < 3 * nf; ++i) ++fdegs[r->face[i]];
    for (int i = 0; i < nm; ++i) {
        nsurf += fdegs[i] > 0;
        fdeg = fdegs[i] > fdeg ? fdegs[i] : fdeg;
    }
    size_t slots = (size_t)deg * (size_t)nm, fslots = (size_t)fdeg * (size_t)nsurf;
    size_t jslots = p->def.solver == LOAM_SB_XPBD_JACOBI ? slots : 0; /* alpha~ and lambda per slot */
    size_t fg = pad64(sizeof(float) * (size_t)(nf + 1)), fsu = pad64(sizeof(float) * (size_t)nsurf);
    /* Only what the chosen solver reads: lambda per spring for XPBD, the neighbour table only
     * without offset rows. */
    size_t lam_bytes = p->def.solver == LOAM_SB_FORCE ? 0 : fs;
    size_t nbr_bytes = offset_rows ? 0 : pad64(sizeof(int32_t) * slots);
    size_t bytes = 14 * fm + 2 * us + fs + lam_bytes + pad64((size_t)ns) + 3 * pad64(sizeof(int32_t) * (size_t)nf) +
                   pad64(sizeof(int32_t) * (size_t)(ncolor + 1)) + pad64(LOAM_SB_MATERIAL_COUNT) + 3 * fmat +
                   nbr_bytes + 3 * pad64(sizeof(int32_t) * slots) + 2 * pad64(sizeof(float) * jslots) + pad64(sizeof(int32_t) * (size_t)nsurf) +
                   pad64(sizeof(int32_t) * fslots) + 3 * fg + 3 * fsu;
    char* m = loam_ctx_calloc(p->ctx, 1, bytes);
    if (!m) {
        loam_free(degs);
        loam_free(order);
        return loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory for robot %d (%zu bytes)", b, bytes);
    }
    memset(s, 0, sizeof *s);
    s->block = m;
    s->bytes = bytes;
    s->nm = nm, s->ns = ns, s->nf = nf, s->ncolor = ncolor;
    float** fa[14] = {&s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz, &s->fx, &s->fy, &s->fz, &s->px, &s->py, &s->pz, &s->w,
                      &s->cnt};
    for (int k = 0; k < 14; ++k, m += fm) *fa[k] = (float*)m;
    s->s0 = (uint16_t*)m, m += us;
    s->s1 = (uint16_t*)m, m += us;
    s->rest = (float*)m, m += fs;
    s->lambda = lam_bytes ? (float*)m : NULL, m += lam_bytes;
    s->mat = (uint8_t*)m, m += pad64((size_t)ns);
    s->fa = (int32_t*)m, m += pad64(sizeof(int32_t) * (size_t)nf);
    s->fb = (int32_t*)m, m += pad64(sizeof(int32_t) * (size_t)nf);
    s->fc = (int32_t*)m, m += pad64(sizeof(int32_t) * (size_t)nf);
    s->color_start = (int32_t*)m, m += pad64(sizeof(int32_t) * (size_t)(ncolor + 1));
    s->used = (uint8_t*)m, m += pad64(LOAM_SB_MATERIAL_COUNT);
    s->act = (float*)m, m += fmat;
    s->stiff = (float*)m, m += fmat;
    s->alpha = (float*)m, m += fmat;
    s->deg = deg, s->nsurf = nsurf, s->fdeg = fdeg;
    s->nbr = nbr_bytes ? (int32_t*)m : NULL, m += nbr_bytes;
    s->mslot = (int32_t*)m, m += pad64(sizeof(int32_t) * slots);
    s->kslot = (float*)m, m += pad64(sizeof(float) * slots);
    s->lslot = (float*)m, m += pad64(sizeof(float) * slots);
    s->aslot = (float*)m, m += pad64(sizeof(float) * jslots);
    s->lamslot = (float*)m, m += pad64(sizeof(float) * jslots);
    s->surf = (int32_t*)m, m += pad64(sizeof(int32_t) * (size_t)nsurf);
    s->fof = (int32_t*)m, m += pad64(sizeof(int32_t) * fslots);
    s->gx = (float*)m, m += fg;
    s->gy = (float*)m, m += fg;
    s->gz = (float*)m, m += fg;
    s->sx = (float*)m, m += fsu;
    s->sy = (float*)m, m += fsu;
    s->sz = (float*)m, m += fsu;

    memcpy(s->x, r->x, sizeof(float) * (size_t)nm);
    memcpy(s->y, r->y, sizeof(float) * (size_t)nm);
    memcpy(s->z, r->z, sizeof(float) * (size_t)nm);
    memcpy(s->w, r->inv_mass, sizeof(float) * (size_t)nm);
    uint8_t present[LOAM_SB_MATERIAL_COUNT] = {0};
    float shortest = INFINITY;
    for (int k = 0; k < ns; ++k) {
        int o = order[k];
        s->s0[k] = (uint16_t)r->s0[o];
        s->s1[k] = (uint16_t)r->s1[o];
        s->rest[k] = r->rest[o];
        s->mat[k] = r->material[o];
        s->cnt[r->s0[o]] += 1.0f;
        s->cnt[r->s1[o]] += 1.0f;
        present[r->material[o]] = 1;
        shortest = fminf(shortest, r->rest[o]);
    }
    for (int i = 0; i < nm; ++i) s->cnt[i] *= s->w[i]; /* split inverse mass for XPBD Jacobi */
    for (int f = 0; f < nf; ++f) s->fa[f] = r->face[3 * f], s->fb[f] = r->face[3 * f + 1], s->fc[f] = r->face[3 * f + 2];
    for (int c = 0; c <= ncolor; ++c) s->color_start[c] = cstart[c];
    for (int id = 0; id < LOAM_SB_MATERIAL_COUNT; ++id) {
        if (present[id]) s->used[s->nused++] = (uint8_t)id;
        if (present[id] && p->mats.m[id].dL0 != 0.0f) s->active = 1;
        float k = p->mats.m[id].k;
        s->stiff[id] = k;
        s->alpha[id] = k > 0.0f ? (float)(1.0 / ((double)k * p->def.dt * p->def.dt)) : 0.0f;
        s->act[id] = 1.0f;
    }
    /* Per-mass tables, filled in spring (and face) order so each mass sums in a fixed order. */
    s->offset_rows = offset_rows;
    for (int j = 0; j < offset_rows; ++j) s->off[j] = offs[j];
    if (offset_rows) {
        for (int k = 0; k < ns; ++k) {
            int a = s->s0[k], c = s->s1[k];
            size_t qa = (size_t)offset_row(offs, offset_rows, c - a) * nm + a;
            size_t qc = (size_t)offset_row(offs, offset_rows, a - c) * nm + c;
            float kk = s->stiff[s->mat[k]];
            s->mslot[qa] = s->mat[k], s->kslot[qa] = kk, s->lslot[qa] = s->rest[k];
            s->mslot[qc] = s->mat[k], s->kslot[qc] = kk, s->lslot[qc] = s->rest[k];
        }
    } else if (deg > 0) {
        for (int i = 0; i < nm; ++i) degs[i] = 0;
        for (size_t q = 0; q < slots; ++q) s->nbr[q] = (int32_t)(q % (size_t)nm); /* padding: itself, k 0 */
        for (int k = 0; k < ns; ++k) {
            int a = s->s0[k], c = s->s1[k];
            size_t qa = (size_t)degs[a]++ * nm + a, qc = (size_t)degs[c]++ * nm + c;
            float kk = s->stiff[s->mat[k]];
            s->nbr[qa] = c, s->mslot[qa] = s->mat[k], s->kslot[qa] = kk, s->lslot[qa] = s->rest[k];
            s->nbr[qc] = a, s->mslot[qc] = s->mat[k], s->kslot[qc] = kk, s->lslot[qc] = s->rest[k];
        }
    }
    for (size_t q = 0; q < jslots; ++q) s->aslot[q] = s->kslot[q] > 0.0f ? s->alpha[s->mslot[q]] : 0.0f;
    if (nsurf > 0) {
        int32_t* rank = degs; /* mass -> surface index */
        int q = 0;
        for (int i = 0; i < nm; ++i) {
            rank[i] = fdegs[i] > 0 ? q : -1;
            if (fdegs[i] > 0) s->surf[q++] = i;
            fdegs[i] = 0;
        }
        for (size_t e = 0; e < fslots; ++e) s->fof[e] = nf; /* the zero entry */
        for (int f = 0; f < nf; ++f)
            for (int c = 0; c < 3; ++c) {
                int i = r->face[3 * f + c];
                s->fof[(size_t)fdegs[i]++ * nsurf + rank[i]] = f;
            }
    }
    loam_free(degs);
    loam_free(order);
    s->contact_r = p->def.contact_radius > 0.0f ? p->def.contact_radius : (isfinite(shortest) ? 0.3f * shortest : 0.0f);
    if (p->def.env == LOAM_SB_LAND && p->def.collisions && s->contact_r > 0.0f) {
        if (!loam_hash_init(&s->hash, 2 * nm, nm)) {
            loam_hash_free(&s->hash);
            return loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory for robot %d's hash", b);
        }
        s->skin = s->contact_r;
        s->pair_cap = 8 * nm;
        s->npairs = -1;
        s->bx = loam_ctx_malloc(p->ctx, sizeof(float) * 3 * (size_t)nm);
        s->pairs = loam_ctx_malloc(p->ctx, sizeof(int32_t) * 2 * (size_t)s->pair_cap);
        s->has_hash = 1;
        if (!s->bx || !s->pairs)
            return loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory for robot %d's contacts", b);
        s->by = s->bx + nm, s->bz = s->bx + 2 * nm;
        loam_hash_set_cell(&s->hash, 2.0f * s->contact_r + s->skin, -1, 0.0f, 0.0f);
    }
    return LOAM_OK;
}

void sb_free_slot(sb_slot* s) {
    loam_free(s->block);
    if (s->has_hash) {
        loam_hash_free(&s->hash);
        loam_free(s->bx);
        loam_free(s->pairs);
    }
    memset(s, 0, sizeof *s);
}
