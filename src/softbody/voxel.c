/* Voxel robots (paper 002, III-A): lattice-node masses shared between voxels, the 28 pairs of every
 * unit cube as springs, each spring listed once, surface triangles on faces that border air. */
#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "core/vec.h"
#include "loam/softbody.h"

loam_softbody_voxel_def loam_softbody_voxel_default_def(void) {
    loam_softbody_voxel_def d;
    d.nx = d.ny = d.nz = 10;
    d.size = 0.01f;
    d.origin = v3(0.0f, 0.0f, 0.0f);
    d.mass = 1.0f;
    return d;
}

static loam_status check_def(const loam_softbody_voxel_def* d, loam_error* err) {
    if (!d) return loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: NULL definition");
    if (d->nx < 1 || d->ny < 1 || d->nz < 1 || d->nx > 1000 || d->ny > 1000 || d->nz > 1000)
        return loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: grid %d x %d x %d outside 1..1000 per axis", d->nx, d->ny,
                              d->nz);
    if ((int64_t)(d->nx + 1) * (d->ny + 1) * (d->nz + 1) > 64 * (int64_t)LOAM_SB_MAX_MASSES)
        return loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: grid %d x %d x %d is too large", d->nx, d->ny, d->nz);
    if (!isfinite(d->size) || !(d->size > 0.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: size = %g m must be finite and > 0", (double)d->size);
    if (!isfinite(d->mass) || !(d->mass > 0.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: mass = %g kg must be finite and > 0", (double)d->mass);
    if (!v3_is_finite(d->origin)) return loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: non-finite origin");
    return LOAM_OK;
}

/* Composite of the two most frequent materials among up to 4 voxels (ties: lower id first). */
static int spring_material(const int* mats, int n) {
    int ids[4], counts[4], distinct = 0;
    for (int i = 0; i < n; ++i) {
        int k = 0;
        while (k < distinct && ids[k] != mats[i]) ++k;
        if (k == distinct) {
            ids[distinct] = mats[i];
            counts[distinct++] = 0;
        }
        ++counts[k];
    }
    int best[2] = {-1, -1};
    for (int r = 0; r < 2; ++r)
        for (int k = 0; k < distinct; ++k) {
            if (k == best[0]) continue;
            int b = best[r];
            if (b < 0 || counts[k] > counts[b] || (counts[k] == counts[b] && ids[k] < ids[b])) best[r] = k;
        }
    if (best[1] < 0) return ids[best[0]];
    return loam_softbody_composite_id(ids[best[0]], ids[best[1]]);
}

typedef struct grid {
    int nx, ny, nz;
    const uint8_t* v;
} grid;

static int voxel_at(const grid* g, int i, int j, int k) {
    if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz) return 0;
    return g->v[i + g->nx * (j + g->ny * k)];
}

/* Materials of the solid voxels holding both lattice nodes p and p + o. */
static int shared_voxels(const grid* g, const int p[3], const int o[3], int mats[4]) {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        if (o[a] == 0) {
            lo[a] = p[a] - 1;
            hi[a] = p[a];
        } else {
            lo[a] = hi[a] = o[a] > 0 ? p[a] : p[a] - 1;
        }
    }
    int n = 0;
    for (int k = lo[2]; k <= hi[2]; ++k)
        for (int j = lo[1]; j <= hi[1]; ++j)
            for (int i = lo[0]; i <= hi[0]; ++i) {
                int m = voxel_at(g, i, j, k);
                if (m) mats[n++] = m;
            }
    return n;
}

/* The 13 neighbour offsets of one half space: with their negatives, all 26. */
static int half_offsets(int out[13][3]) {
    int n = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)))) {
                    out[n][0] = dx;
                    out[n][1] = dy;
                    out[n][2] = dz;
                    ++n;
                }
    return n;
}

loam_softbody_robot* loam_softbody_voxel_robot(const loam_softbody_voxel_def* def, const uint8_t* voxels,
                                               loam_error* err) {
    if (check_def(def, err)) return NULL;
    if (!voxels) {
        loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: NULL voxel array");
        return NULL;
    }
    grid g = {def->nx, def->ny, def->nz, voxels};
    int solid = 0;
    for (int i = 0; i < g.nx * g.ny * g.nz; ++i) {
        if (voxels[i] >= LOAM_SB_BASE_COUNT) {
            loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: voxel %d (x %d, y %d, z %d): material %d is not air (0) or a "
                           "base material (1..%d)", i, i % g.nx, (i / g.nx) % g.ny, i / (g.nx * g.ny), voxels[i],
                           LOAM_SB_BASE_COUNT - 1);
            return NULL;
        }
        solid += voxels[i] != 0;
    }
    if (!solid) {
        loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: every voxel is air");
        return NULL;
    }
    int lx = g.nx + 1, ly = g.ny + 1, lz = g.nz + 1, nodes = lx * ly * lz;
    int32_t* id = loam_malloc(sizeof(int32_t) * (size_t)nodes);
    if (!id) {
        loam_error_set(err, LOAM_ERR_NOMEM, "voxel robot: out of memory");
        return NULL;
    }
    int masses = 0, springs = 0, faces = 0, offs[13][3];
    half_offsets(offs);
    /* Pass 1 counts, pass 2 fills: the same loops, so counts and contents cannot disagree. */
    loam_softbody_robot* r = NULL;
    for (int pass = 0; pass < 2; ++pass) {
        masses = springs = faces = 0;
        for (int k = 0; k < lz; ++k)
            for (int j = 0; j < ly; ++j)
                for (int i = 0; i < lx; ++i) {
                    int used = 0;
                    for (int c = 0; c < 8 && !used; ++c) used = voxel_at(&g, i - (c & 1), j - (c >> 1 & 1), k - (c >> 2)) != 0;
                    int n = i + lx * (j + ly * k);
                    id[n] = used ? masses : -1;
                    if (!used) continue;
                    if (r) {
                        r->x[masses] = def->origin.x + def->size * (float)i;
                        r->y[masses] = def->origin.y + def->size * (float)j;
                        r->z[masses] = def->origin.z + def->size * (float)k;
                        r->inv_mass[masses] = 1.0f / def->mass;
                    }
                    ++masses;
                }
        for (int k = 0; k < lz; ++k)
            for (int j = 0; j < ly; ++j)
                for (int i = 0; i < lx; ++i)
                    for (int o = 0; o < 13; ++o) {
                        int p[3] = {i, j, k}, q[3] = {i + offs[o][0], j + offs[o][1], k + offs[o][2]};
                        if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= lx || q[1] >= ly || q[2] >= lz) continue;
                        int mats[4], n = shared_voxels(&g, p, offs[o], mats);
                        if (!n) continue;
                        if (r) {
                            r->s0[springs] = id[i + lx * (j + ly * k)];
                            r->s1[springs] = id[q[0] + lx * (q[1] + ly * q[2])];
                            float d2 = (float)(offs[o][0] * offs[o][0] + offs[o][1] * offs[o][1] + offs[o][2] * offs[o][2]);
                            r->rest[springs] = def->size * sqrtf(d2);
                            r->material[springs] = (uint8_t)spring_material(mats, n);
                        }
                        ++springs;
                    }
        for (int k = 0; k < g.nz; ++k)
            for (int j = 0; j < g.ny; ++j)
                for (int i = 0; i < g.nx; ++i) {
                    if (!voxel_at(&g, i, j, k)) continue;
                    for (int a = 0; a < 3; ++a)
                        for (int s = 0; s < 2; ++s) {
                            int c[3] = {i, j, k};
                            c[a] += s ? 1 : -1;
                            if (voxel_at(&g, c[0], c[1], c[2])) continue;
                            if (r) {
                                /* Quad corners in the tangent axes u, w (u x w = axis a), counter-
                                 * clockwise seen from outside: reversed on the negative side. */
                                int u = (a + 1) % 3, w = (a + 2) % 3, quad[4];
                                static const int cu[4] = {0, 1, 1, 0}, cw[4] = {0, 0, 1, 1};
                                for (int t = 0; t < 4; ++t) {
                                    int tt = s ? t : 3 - t, node[3] = {i, j, k};
                                    node[a] += s;
                                    node[u] += cu[tt];
                                    node[w] += cw[tt];
                                    quad[t] = id[node[0] + lx * (node[1] + ly * node[2])];
                                }
                                int32_t* f = r->face + 3 * faces;
                                f[0] = quad[0], f[1] = quad[1], f[2] = quad[2];
                                f[3] = quad[0], f[4] = quad[2], f[5] = quad[3];
                            }
                            faces += 2;
                        }
                }
        if (pass == 0) {
            if (masses > LOAM_SB_MAX_MASSES) {
                loam_error_set(err, LOAM_ERR_INPUT, "voxel robot: %d masses; at most %d", masses, LOAM_SB_MAX_MASSES);
                break;
            }
            r = loam_softbody_robot_alloc(masses, springs, faces, err);
            if (!r) break;
        }
    }
    loam_free(id);
    return r;
}

loam_status loam_softbody_random_voxels(const loam_softbody_voxel_def* def, uint64_t seed, float air_fraction,
                                        uint8_t* voxels, loam_error* err) {
    loam_status st = check_def(def, err);
    if (st) return st;
    if (!voxels) return loam_error_set(err, LOAM_ERR_INPUT, "random voxels: NULL voxel array");
    if (!(air_fraction >= 0.0f && air_fraction < 1.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "random voxels: air_fraction = %g must lie in [0, 1)",
                              (double)air_fraction);
    int nx = def->nx, ny = def->ny, nz = def->nz, n = nx * ny * nz;
    loam_rng rng = {seed};
    for (int i = 0; i < n; ++i) {
        double u = loam_rng_uniform(&rng);
        int base = 1 + (int)(loam_rng_uniform(&rng) * (LOAM_SB_BASE_COUNT - 1));
        voxels[i] = u < air_fraction ? 0 : (uint8_t)(base < LOAM_SB_BASE_COUNT ? base : LOAM_SB_BASE_COUNT - 1);
    }
    return loam_softbody_voxels_keep_largest(def, voxels, err);
}

loam_status loam_softbody_voxels_keep_largest(const loam_softbody_voxel_def* def, uint8_t* voxels, loam_error* err) {
    loam_status st = check_def(def, err);
    if (st) return st;
    if (!voxels) return loam_error_set(err, LOAM_ERR_INPUT, "voxels: NULL voxel array");
    int nx = def->nx, ny = def->ny, nz = def->nz, n = nx * ny * nz;
    /* Label face-connected parts; keep the largest (lowest label on ties), so the robot is one body. */
    int32_t* label = loam_malloc(sizeof(int32_t) * (size_t)n * 2);
    if (!label) return loam_error_set(err, LOAM_ERR_NOMEM, "voxels: out of memory");
    int32_t* stack = label + n;
    for (int i = 0; i < n; ++i) label[i] = -1;
    int best = -1, best_size = 0, parts = 0;
    for (int s = 0; s < n; ++s) {
        if (!voxels[s] || label[s] >= 0) continue;
        int top = 0, size = 0;
        stack[top++] = s;
        label[s] = parts;
        while (top) {
            int c = stack[--top], ci = c % nx, cj = (c / nx) % ny, ck = c / (nx * ny);
            ++size;
            static const int d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
            for (int e = 0; e < 6; ++e) {
                int a = ci + d[e][0], b = cj + d[e][1], cc = ck + d[e][2];
                if (a < 0 || b < 0 || cc < 0 || a >= nx || b >= ny || cc >= nz) continue;
                int q = a + nx * (b + ny * cc);
                if (voxels[q] && label[q] < 0) {
                    label[q] = parts;
                    stack[top++] = q;
                }
            }
        }
        if (size > best_size) {
            best_size = size;
            best = parts;
        }
        ++parts;
    }
    if (best < 0) voxels[0] = LOAM_SB_BONE; /* all air: one bone voxel */
    else
        for (int i = 0; i < n; ++i)
            if (label[i] != best) voxels[i] = 0;
    loam_free(label);
    return LOAM_OK;
}
