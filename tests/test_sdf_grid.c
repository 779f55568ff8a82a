/* Signed distance grids from meshes (loam/sdf_grid.h) against analytic shapes:
 *  - a box and an icosphere: |grid - exact| within one cell everywhere in the grid (trilinear
 *    interpolation of exact samples; the sphere's faceting adds under 1 mm), gradient pointing out;
 *  - a torus and a non-convex gear: the sign right at every sample and every random point farther
 *    than a cell from the surface; the sphere with one triangle removed keeps its inside;
 *  - bad arguments are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_bvh.h"
#include "geom/mesh_build.h"
#include "loam/sdf_grid.h"
#include "test_util.h"

static float uniform(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

static loam_mesh box_mesh(float hx, float hy, float hz) {
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
static loam_mesh sphere_mesh(float radius, int levels) {
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

static loam_mesh torus_mesh(float big, float small, int nu, int nv) {
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
static float gear_radius(float a, int teeth, float root, float tip) {
    float s = fmodf(a / 6.2831853f * teeth + 100.0f, 1.0f); /* position within one tooth period */
    if (s < 0.2f) return root + (tip - root) * s / 0.2f;
    if (s < 0.5f) return tip;
    if (s < 0.7f) return tip - (tip - root) * (s - 0.5f) / 0.2f;
    return root;
}

static loam_mesh gear_mesh(int teeth, float root, float tip, float half, int steps) {
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

static float box_sdf(loam_vec3 p, float hx, float hy, float hz) {
    float qx = fabsf(p.x) - hx, qy = fabsf(p.y) - hy, qz = fabsf(p.z) - hz;
    float ox = fmaxf(qx, 0), oy = fmaxf(qy, 0), oz = fmaxf(qz, 0);
    return sqrtf(ox * ox + oy * oy + oz * oz) + fminf(fmaxf(qx, fmaxf(qy, qz)), 0.0f);
}

static loam_vec3 random_in(const loam_sdf_grid* g, unsigned* s) {
    return (loam_vec3){uniform(s, g->origin.x, g->origin.x + g->cell * (g->nx - 1)),
                       uniform(s, g->origin.y, g->origin.y + g->cell * (g->ny - 1)),
                       uniform(s, g->origin.z, g->origin.z + g->cell * (g->nz - 1))};
}

/* Distance accuracy against an analytic SDF over random points; returns the largest error. */
static float worst_error(const loam_sdf_grid* g, float (*exact)(loam_vec3), int points) {
    unsigned s = 12345;
    float worst = 0.0f;
    for (int k = 0; k < points; ++k) {
        loam_vec3 p = random_in(g, &s);
        worst = fmaxf(worst, fabsf(loam_sdf_grid_query(g, p, NULL) - exact(p)));
    }
    return worst;
}

static float box_exact(loam_vec3 p) { return box_sdf(p, 0.1f, 0.05f, 0.025f); }
static float sphere_exact(loam_vec3 p) { return sqrtf(p.x * p.x + p.y * p.y + p.z * p.z) - 0.05f; }
static int torus_inside(loam_vec3 p) {
    float q = sqrtf(p.x * p.x + p.y * p.y) - 0.04f;
    return q * q + p.z * p.z < 0.015f * 0.015f;
}
static int gear_inside(loam_vec3 p) {
    float r = sqrtf(p.x * p.x + p.y * p.y), a = atan2f(p.y, p.x);
    if (a < 0) a += 6.2831853f;
    return fabsf(p.z) < 0.01f && r < gear_radius(a, 12, 0.03f, 0.04f);
}

/* Sign check: at every sample and at random points, wherever the surface is farther than one cell
 * (exact distance from the hierarchy). Returns the number of wrong signs. */
static int wrong_signs(const loam_mesh* m, const loam_sdf_grid* g, int (*inside)(loam_vec3), int* checked) {
    loam_bvh bvh;
    loam_bvh_build(m, &bvh, NULL);
    int wrong = 0;
    *checked = 0;
    unsigned s = 777;
    for (int k = 0; k < g->nx * g->ny * g->nz + 4000; ++k) {
        loam_vec3 p;
        if (k < g->nx * g->ny * g->nz) {
            int i = k % g->nx, j = (k / g->nx) % g->ny, l = k / (g->nx * g->ny);
            p = (loam_vec3){g->origin.x + i * g->cell, g->origin.y + j * g->cell, g->origin.z + l * g->cell};
        } else {
            p = random_in(g, &s);
        }
        double q[3] = {p.x, p.y, p.z};
        if (loam_bvh_distance(&bvh, q) < g->cell) continue;
        ++*checked;
        if ((loam_sdf_grid_query(g, p, NULL) < 0.0f) != inside(p)) ++wrong;
    }
    loam_bvh_free(&bvh);
    return wrong;
}

int main(void) {
    loam_error err;
    loam_sdf_grid g;
    const float cell = 0.005f;

    loam_mesh box = box_mesh(0.1f, 0.05f, 0.025f);
    CHECK(loam_sdf_grid_build(&box, cell, 0.02f, &g, &err) == LOAM_OK, "%s", err.message);
    float e = worst_error(&g, box_exact, 20000);
    fprintf(stderr, "box: %d x %d x %d samples (%zu bytes), worst error %.2f mm (cell %.1f mm)\n", g.nx, g.ny, g.nz,
            loam_sdf_grid_memory(&g), 1e3 * e, 1e3 * cell);
    CHECK(e <= cell, "box: error %g m above the cell %g m", e, cell);
    CHECK(loam_sdf_grid_memory(&g) >= sizeof(float) * (size_t)g.nx * g.ny * g.nz, "memory report");
    loam_sdf_grid_free(&g);
    loam_mesh_free(&box);

    loam_mesh sphere = sphere_mesh(0.05f, 3);
    CHECK(loam_sdf_grid_build(&sphere, cell, 0.02f, &g, &err) == LOAM_OK, "%s", err.message);
    e = worst_error(&g, sphere_exact, 20000);
    fprintf(stderr, "sphere (%d triangles): worst error %.2f mm\n", sphere.triangle_count, 1e3 * e);
    CHECK(e <= cell + 0.001f, "sphere: error %g m above the cell %g m plus 1 mm of faceting", e, cell);
    unsigned s = 99;
    int bad_gradient = 0;
    for (int k = 0; k < 2000; ++k) {
        loam_vec3 p = random_in(&g, &s), grad;
        float r = sqrtf(p.x * p.x + p.y * p.y + p.z * p.z);
        if (fabsf(r - 0.05f) < 2 * cell || r < 0.01f) continue;
        loam_sdf_grid_query(&g, p, &grad);
        float gl = sqrtf(grad.x * grad.x + grad.y * grad.y + grad.z * grad.z);
        if ((grad.x * p.x + grad.y * p.y + grad.z * p.z) / (gl * r) < 0.95f) ++bad_gradient;
    }
    CHECK(bad_gradient == 0, "sphere: %d gradients not radial", bad_gradient);
    /* Outside the grid: an upper bound, still growing with distance. */
    float far = loam_sdf_grid_query(&g, (loam_vec3){0.5f, 0, 0}, NULL);
    CHECK(far >= 0.45f - 1e-4f && far < 0.46f, "far query %g m, exact 0.45 m", far);
    loam_sdf_grid_free(&g);

    /* A hole: one triangle removed. The winding number still says inside away from the hole. */
    sphere.triangle_count -= 1;
    CHECK(loam_sdf_grid_build(&sphere, cell, 0.02f, &g, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_sdf_grid_query(&g, (loam_vec3){0, 0, 0}, NULL) < -0.04f, "holed sphere: centre %g m",
          loam_sdf_grid_query(&g, (loam_vec3){0, 0, 0}, NULL));
    e = worst_error(&g, sphere_exact, 20000);
    CHECK(e <= cell + 0.001f + 0.012f, "holed sphere: error %g m (the hole is about 1 cm across)", e);
    loam_sdf_grid_free(&g);
    loam_mesh_free(&sphere);

    loam_mesh torus = torus_mesh(0.04f, 0.015f, 64, 32);
    CHECK(loam_sdf_grid_build(&torus, cell, 0.02f, &g, &err) == LOAM_OK, "%s", err.message);
    int checked, wrong = wrong_signs(&torus, &g, torus_inside, &checked);
    fprintf(stderr, "torus: %d of %d signs wrong\n", wrong, checked);
    CHECK(wrong == 0 && checked > 10000, "torus: %d of %d signs wrong", wrong, checked);
    loam_sdf_grid_free(&g);
    loam_mesh_free(&torus);

    loam_mesh gear = gear_mesh(12, 0.03f, 0.04f, 0.01f, 480);
    CHECK(loam_sdf_grid_build(&gear, 0.002f, 0.01f, &g, &err) == LOAM_OK, "%s", err.message);
    wrong = wrong_signs(&gear, &g, gear_inside, &checked);
    fprintf(stderr, "gear: %d of %d signs wrong\n", wrong, checked);
    CHECK(wrong == 0 && checked > 10000, "gear: %d of %d signs wrong", wrong, checked);
    loam_sdf_grid_free(&g);

    CHECK(loam_sdf_grid_build(&gear, 0.0f, 0.01f, &g, &err) == LOAM_ERR_INPUT && strstr(err.message, "cell"), "cell 0");
    CHECK(loam_sdf_grid_build(&gear, 0.01f, 0.001f, &g, &err) == LOAM_ERR_INPUT && strstr(err.message, "margin"),
          "small margin");
    CHECK(loam_sdf_grid_build(&gear, 1e-6f, 1e-6f, &g, &err) == LOAM_ERR_INPUT && strstr(err.message, "2^28"),
          "huge grid: %s", err.message);
    loam_mesh_free(&gear);
    TEST_MAIN_END();
}
