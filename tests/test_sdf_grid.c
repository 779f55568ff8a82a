/* Signed distance grids from meshes (loam/sdf_grid.h) against analytic shapes:
 *  - a box and an icosphere: |grid - exact| within one cell everywhere in the grid (trilinear
 *    interpolation of exact samples; the sphere's faceting adds under 1 mm), gradient pointing out;
 *  - a torus and a non-convex gear: the sign right at every sample and every random point farther
 *    than a cell from the surface; the sphere with one triangle removed keeps its inside;
 *  - the disk cache returns the same grid, and a damaged cache file is rebuilt;
 *  - bad arguments are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "geom/mesh_bvh.h"
#include "geom/mesh_build.h"
#include "loam/sdf_grid.h"
#include "test_meshes.h"
#include "test_util.h"

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
    loam_sdf_grid_destroy(&g);
    loam_mesh_destroy(&box);

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
    /* Outside the grid: a lower bound (distance to the grid's box plus its margin), pointing away. */
    loam_vec3 fg;
    float far = loam_sdf_grid_query(&g, (loam_vec3){0.5f, 0, 0}, &fg);
    CHECK(far <= 0.45f + 1e-5f && far > 0.44f && fg.x > 0.99f, "far query %g m (exact 0.45 m), gradient x %g", far, fg.x);
    for (int k = 0; k < 1000; ++k) { /* never above the truth, anywhere outside */
        loam_vec3 p = {uniform(&s, -0.3f, 0.3f), uniform(&s, -0.3f, 0.3f), uniform(&s, -0.3f, 0.3f)};
        float v = loam_sdf_grid_query(&g, p, NULL), exact = sphere_exact(p);
        if (fabsf(p.x) > 0.075f || fabsf(p.y) > 0.075f || fabsf(p.z) > 0.075f)
            CHECK(v <= exact + 1e-4f, "outside the grid at (%g, %g, %g): %g m above the exact %g m", p.x, p.y, p.z, v, exact);
    }
    loam_sdf_grid_destroy(&g);

    /* A hole: one triangle removed. The winding number still says inside away from the hole. */
    sphere.triangle_count -= 1;
    CHECK(loam_sdf_grid_build(&sphere, cell, 0.02f, &g, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_sdf_grid_query(&g, (loam_vec3){0, 0, 0}, NULL) < -0.04f, "holed sphere: centre %g m",
          loam_sdf_grid_query(&g, (loam_vec3){0, 0, 0}, NULL));
    e = worst_error(&g, sphere_exact, 20000);
    CHECK(e <= cell + 0.001f + 0.012f, "holed sphere: error %g m (the hole is about 1 cm across)", e);
    loam_sdf_grid_destroy(&g);
    loam_mesh_destroy(&sphere);

    loam_mesh torus = torus_mesh(0.04f, 0.015f, 64, 32);
    CHECK(loam_sdf_grid_build(&torus, cell, 0.02f, &g, &err) == LOAM_OK, "%s", err.message);
    int checked, wrong = wrong_signs(&torus, &g, torus_inside, &checked);
    fprintf(stderr, "torus: %d of %d signs wrong\n", wrong, checked);
    CHECK(wrong == 0 && checked > 10000, "torus: %d of %d signs wrong", wrong, checked);
    loam_sdf_grid_destroy(&g);
    loam_mesh_destroy(&torus);

    loam_mesh gear = gear_mesh(12, 0.03f, 0.04f, 0.01f, 480);
    CHECK(loam_sdf_grid_build(&gear, 0.002f, 0.01f, &g, &err) == LOAM_OK, "%s", err.message);
    wrong = wrong_signs(&gear, &g, gear_inside, &checked);
    fprintf(stderr, "gear: %d of %d signs wrong\n", wrong, checked);
    CHECK(wrong == 0 && checked > 10000, "gear: %d of %d signs wrong", wrong, checked);
    loam_sdf_grid_destroy(&g);

    /* The cache: built and written, then read back bit for bit; a truncated file is rebuilt. */
    char dir[] = "/tmp/loam_sdf_XXXXXX", cache[300];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    loam_sdf_grid built, cached;
    int hit = -1;
    CHECK(loam_sdf_grid_build_cached(&gear, 0.004f, 0.01f, cache, &built, &hit, &err) == LOAM_OK && hit == 0, "%s",
          err.message);
    CHECK(loam_sdf_grid_build_cached(&gear, 0.004f, 0.01f, cache, &cached, &hit, &err) == LOAM_OK && hit == 1,
          "second build did not come from the cache (%d)", hit);
    size_t total = (size_t)built.nx * built.ny * built.nz;
    CHECK(cached.nx == built.nx && cached.ny == built.ny && cached.nz == built.nz && cached.cell == built.cell &&
              memcmp(cached.values, built.values, sizeof(float) * total) == 0,
          "cached grid differs");
    loam_sdf_grid_destroy(&cached);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "for f in %s/*.sdf; do truncate -s 100 \"$f\"; done", cache);
    CHECK(system(cmd) == 0, "truncate");
    CHECK(loam_sdf_grid_build_cached(&gear, 0.004f, 0.01f, cache, &cached, &hit, &err) == LOAM_OK && hit == 0,
          "a damaged cache file was used (%d)", hit);
    CHECK(memcmp(cached.values, built.values, sizeof(float) * total) == 0, "rebuilt grid differs");
    loam_sdf_grid_destroy(&cached);
    CHECK(loam_sdf_grid_build_cached(&gear, 0.005f, 0.01f, cache, &cached, &hit, &err) == LOAM_OK && hit == 0,
          "another cell size came from the cache");
    loam_sdf_grid_destroy(&cached);
    loam_sdf_grid_destroy(&built);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "cleanup");

    CHECK(loam_sdf_grid_build(&gear, 0.0f, 0.01f, &g, &err) == LOAM_ERR_INPUT && strstr(err.message, "cell"), "cell 0");
    CHECK(loam_sdf_grid_build(&gear, 0.01f, 0.001f, &g, &err) == LOAM_ERR_INPUT && strstr(err.message, "margin"),
          "small margin");
    CHECK(loam_sdf_grid_build(&gear, 1e-6f, 1e-6f, &g, &err) == LOAM_ERR_INPUT && strstr(err.message, "2^28"),
          "huge grid: %s", err.message);
    loam_mesh_destroy(&gear);
    TEST_MAIN_END();
}
