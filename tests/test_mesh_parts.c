/* Procedural tool meshes (loam/mesh_gen.h): boxes, curved and sector plates are closed and outward
 * with the volumes of their polygons; the bucket and the bulldozer, unions of such parts, put their
 * walls inside and their cavity and surroundings outside through a signed distance grid. */
#include <math.h>
#include <string.h>

#include "loam/mesh_gen.h"
#include "loam/sdf_grid.h"
#include "test_meshes.h"
#include "test_util.h"

/* The signed distances at n points, from one grid of the mesh (its build is most of the test's time);
 * NAN where the grid cannot be built. */
static void sdf_at(const loam_mesh* m, float cell, int n, const loam_vec3* p, float* out) {
    loam_sdf_grid g;
    loam_error err;
    int ok = loam_sdf_grid_build(m, cell, 2 * cell, &g, &err) == LOAM_OK;
    for (int k = 0; k < n; ++k) out[k] = ok ? loam_sdf_grid_query(&g, p[k], NULL) : NAN;
    if (ok) loam_sdf_grid_destroy(&g);
}

int main(void) {
    const int short_run = test_short(); /* LOAM_TEST_SHORT (the sanitizer builds): cells twice as large */
    loam_error err;
    loam_mesh m;
    CHECK(loam_mesh_box((loam_vec3){1, 2, 3}, (loam_vec3){0.1f, 0.2f, 0.3f}, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(closed_and_oriented(&m) && fabs(volume(&m) - 8 * 0.1 * 0.2 * 0.3) < 1e-6, "box: volume %g", volume(&m));
    loam_mesh_destroy(&m);

    const float R = 0.2f, t = 0.02f, w = 0.3f, a0 = 0.3f, a1 = 2.5f;
    const int n = 20;
    CHECK(loam_mesh_curved_plate(R, t, w, a0, a1, n, &m, &err) == LOAM_OK, "%s", err.message);
    double ro = R + t / 2, ri = R - t / 2, want = w * 0.5 * (ro * ro - ri * ri) * n * sin((a1 - a0) / n);
    CHECK(closed_and_oriented(&m) && fabs(volume(&m) - want) < 1e-3 * want, "curved plate: volume %g, want %g", volume(&m), want);
    loam_mesh_destroy(&m);
    CHECK(loam_mesh_sector_plate(R, a0, a0 + 1.0f, t, 0.1f, n, &m, &err) == LOAM_OK, "%s", err.message);
    want = t * 0.5 * R * R * n * sin(1.0 / n);
    CHECK(closed_and_oriented(&m) && fabs(volume(&m) - want) < 1e-3 * want, "sector plate: volume %g, want %g", volume(&m), want);
    loam_mesh_destroy(&m);

    loam_bucket_def bd = loam_bucket_default_def();
    CHECK(loam_mesh_bucket(&bd, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(closed_and_oriented(&m), "bucket: not closed and oriented");
    float deg = 3.1415926f / 180.0f, a = 265.0f * deg;
    loam_vec3 wall = {bd.radius * cosf(a), 0, bd.radius * sinf(a)}, cavity = {0.5f * bd.radius * cosf(a), 0, 0.5f * bd.radius * sinf(a)};
    loam_vec3 side = {0.6f * bd.radius * cosf(a), 0.5f * (bd.width + bd.thickness), 0.6f * bd.radius * sinf(a)};
    float d[3];
    sdf_at(&m, short_run ? 0.008f : 0.004f, 3, (loam_vec3[3]){wall, cavity, side}, d);
    CHECK(d[0] < 0 && d[1] > 0.05f && d[2] < 0, "bucket: wall %g, cavity %g, side plate %g", d[0], d[1], d[2]);
    loam_mesh_destroy(&m);

    loam_bulldozer_def dd = loam_bulldozer_default_def();
    CHECK(loam_mesh_bulldozer(&dd, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(closed_and_oriented(&m), "bulldozer: not closed and oriented");
    loam_vec3 lo, hi;
    loam_mesh_bounds(&m, &lo, &hi);
    CHECK(fabsf(lo.z) < 1e-3f && lo.x <= -0.5f * dd.length + 1e-6f && hi.x > 0.5f * dd.length && fabsf(hi.y - 0.5f * dd.blade_width) < 1e-6f,
          "bulldozer bounds (%g %g %g)-(%g %g %g)", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
    sdf_at(&m, short_run ? 0.02f : 0.01f, 2, (loam_vec3[2]){{0, 0, dd.track_height + 0.1f}, {0, 0, dd.track_height + dd.height + 0.1f}}, d);
    CHECK(d[0] < 0 && d[1] > 0, "bulldozer: inside the body %g, above it %g", d[0], d[1]);
    loam_mesh_destroy(&m);

    CHECK(loam_mesh_curved_plate(R, 3 * R, w, a0, a1, n, &m, &err) == LOAM_ERR_INPUT, "thick plate accepted");
    CHECK(loam_mesh_box((loam_vec3){0, 0, 0}, (loam_vec3){0, 1, 1}, &m, &err) == LOAM_ERR_INPUT, "flat box accepted");
    bd.thickness = 1.0f;
    CHECK(loam_mesh_bucket(&bd, &m, &err) == LOAM_ERR_INPUT, "thick bucket accepted");
    TEST_MAIN_END();
}
