/* Meshes of analytic shapes for the tests and the benchmarks: a box, an icosphere, a torus and a
 * non-convex gear (an extruded 12-tooth profile), all closed and outward. */
#ifndef LOAM_TEST_MESHES_H
#define LOAM_TEST_MESHES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_build.h"

static inline float uniform(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

static inline loam_mesh box_mesh(float hx, float hy, float hz) {
    static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    for (int v = 0; v < 8; ++v) loam_mesh_add_vertex(&b, v & 1 ? hx : -hx, v & 2 ? hy : -hy, v & 4 ? hz : -hz);
    for (int f = 0; f < 6; ++f) {
        loam_mesh_add_triangle(&b, quads[f][0], quads[f][1], quads[f][2]);
        loam_mesh_add_triangle(&b, quads[f][0], quads[f][2], quads[f][3]);
    }
    loam_mesh m;
    loam_mesh_builder_finish(&b, "box", &m, NULL);
    return m;
}

/* Icosphere: an icosahedron split `levels` times, corners pushed onto the sphere. */
static inline loam_mesh sphere_mesh(float radius, int levels) {
    const float t = 1.6180339887f;
    float v0[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                       {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    int f0[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                     {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                     {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    int nt = 20;
    float (*tri)[3][3] = malloc(sizeof *tri * 20 * (size_t)(1 << (2 * levels)));
    for (int f = 0; f < 20; ++f)
        for (int c = 0; c < 3; ++c) memcpy(tri[f][c], v0[f0[f][c]], sizeof(float) * 3);
    for (int l = 0; l < levels; ++l) {
        for (int f = nt - 1; f >= 0; --f) {
            float a[3], b[3], c[3], ab[3], bc[3], ca[3];
            memcpy(a, tri[f][0], 12);
            memcpy(b, tri[f][1], 12);
            memcpy(c, tri[f][2], 12);
            for (int k = 0; k < 3; ++k) {
                ab[k] = 0.5f * (a[k] + b[k]);
                bc[k] = 0.5f * (b[k] + c[k]);
                ca[k] = 0.5f * (c[k] + a[k]);
            }
            float* out[4][3] = {{a, ab, ca}, {ab, b, bc}, {ca, bc, c}, {ab, bc, ca}};
            for (int s = 0; s < 4; ++s)
                for (int k = 0; k < 3; ++k) memcpy(tri[4 * f + s][k], out[s][k], 12);
        }
        nt *= 4;
    }
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    for (int f = 0; f < nt; ++f) {
        int32_t v[3];
        for (int c = 0; c < 3; ++c) {
            float* p = tri[f][c];
            float s = radius / sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            v[c] = loam_mesh_weld_vertex(&b, p[0] * s, p[1] * s, p[2] * s);
        }
        loam_mesh_add_triangle(&b, v[0], v[1], v[2]);
    }
    free(tri);
    loam_mesh m;
    loam_mesh_builder_finish(&b, "sphere", &m, NULL);
    return m;
}

static inline loam_mesh torus_mesh(float big, float small, int nu, int nv) {
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            float u = 6.2831853f * i / nu, v = 6.2831853f * j / nv;
            loam_mesh_add_vertex(&b, (big + small * cosf(v)) * cosf(u), (big + small * cosf(v)) * sinf(u), small * sinf(v));
        }
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            int a = i * nv + j, c = ((i + 1) % nu) * nv + j, d = ((i + 1) % nu) * nv + (j + 1) % nv, e = i * nv + (j + 1) % nv;
            loam_mesh_add_triangle(&b, a, c, d);
            loam_mesh_add_triangle(&b, a, d, e);
        }
    loam_mesh m;
    loam_mesh_builder_finish(&b, "torus", &m, NULL);
    return m;
}

/* Gear profile radius at angle a: `teeth` trapezoid teeth between root and tip radius. */
static inline float gear_radius(float a, int teeth, float root, float tip) {
    float s = fmodf(a / 6.2831853f * teeth + 100.0f, 1.0f); /* position within one tooth period */
    if (s < 0.2f) return root + (tip - root) * s / 0.2f;
    if (s < 0.5f) return tip;
    if (s < 0.7f) return tip - (tip - root) * (s - 0.5f) / 0.2f;
    return root;
}

static inline loam_mesh gear_mesh(int teeth, float root, float tip, float half, int steps) {
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    int bottom = loam_mesh_add_vertex(&b, 0, 0, -half), top = loam_mesh_add_vertex(&b, 0, 0, half);
    for (int k = 0; k < steps; ++k) {
        float a = 6.2831853f * k / steps, r = gear_radius(a, teeth, root, tip);
        loam_mesh_add_vertex(&b, r * cosf(a), r * sinf(a), -half);
        loam_mesh_add_vertex(&b, r * cosf(a), r * sinf(a), half);
    }
    for (int k = 0; k < steps; ++k) {
        int lo0 = 2 + 2 * k, hi0 = lo0 + 1, lo1 = 2 + 2 * ((k + 1) % steps), hi1 = lo1 + 1;
        loam_mesh_add_triangle(&b, lo0, lo1, hi1); /* side wall, outward */
        loam_mesh_add_triangle(&b, lo0, hi1, hi0);
        loam_mesh_add_triangle(&b, top, hi0, hi1); /* caps: the profile is star-shaped about the axis */
        loam_mesh_add_triangle(&b, bottom, lo1, lo0);
    }
    loam_mesh m;
    loam_mesh_builder_finish(&b, "gear", &m, NULL);
    return m;
}

static inline int cmp64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

/* Every directed edge once, and its reverse once: closed and consistently oriented. */
static inline int closed_and_oriented(const loam_mesh* m) {
    size_t n = 3 * (size_t)m->triangle_count;
    uint64_t* e = malloc(sizeof *e * n);
    for (int t = 0; t < m->triangle_count; ++t)
        for (int c = 0; c < 3; ++c) {
            uint64_t a = (uint32_t)m->triangles[3 * t + c], b = (uint32_t)m->triangles[3 * t + (c + 1) % 3];
            e[3 * (size_t)t + c] = a << 32 | b;
        }
    qsort(e, n, sizeof *e, cmp64);
    int ok = 1;
    for (size_t k = 0; k < n && ok; ++k) {
        if (k + 1 < n && e[k + 1] == e[k]) ok = 0; /* an edge used twice the same way */
        uint64_t rev = (e[k] & 0xffffffffu) << 32 | e[k] >> 32;
        ok = ok && bsearch(&rev, e, n, sizeof *e, cmp64) != NULL;
    }
    free(e);
    return ok;
}

static inline double volume(const loam_mesh* m) {
    double v = 0.0;
    for (int t = 0; t < m->triangle_count; ++t) {
        const float* a = &m->vertices[3 * m->triangles[3 * t]];
        const float* b = &m->vertices[3 * m->triangles[3 * t + 1]];
        const float* c = &m->vertices[3 * m->triangles[3 * t + 2]];
        v += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
              a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6.0;
    }
    return v;
}

#endif
