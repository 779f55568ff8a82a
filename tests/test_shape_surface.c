/* Body surfaces for output and the viewer (loam_shapes_surface): every shape kind gives a closed,
 * consistently outward surface whose corners lie on the shape (checked against the library's exact
 * signed distance functions) and whose volume is the solid's: exact for a box, an inscribed
 * polyhedron's (a little less) for round shapes, within the grid's resolution for a mesh shape.
 * Bad input to the surface and the file writers is refused and leaves no file. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loam/mesh_gen.h"
#include "loam/output.h"
#include "loam/sdf_grid.h"
#include "test_meshes.h" /* volume */
#include "test_util.h"

/* Each directed edge once, and its reverse once: closed, manifold and consistently oriented. With
 * manifold = 0, only as often as its reverse: closed and oriented (so the divergence theorem gives the
 * volume), with edges where several sheets meet allowed, as surface nets make at ambiguous cells. */
static int closed_surface(const loam_mesh* m, int manifold) {
    int n = 3 * m->triangle_count, ok = 1;
    int64_t* edges = malloc((size_t)n * sizeof *edges);
    for (int t = 0; t < m->triangle_count; ++t)
        for (int c = 0; c < 3; ++c)
            edges[3 * t + c] = (int64_t)m->triangles[3 * t + c] * m->vertex_count + m->triangles[3 * t + (c + 1) % 3];
    for (int e = 0; e < n && ok; ++e) {
        int64_t a = edges[e] / m->vertex_count, b = edges[e] % m->vertex_count, reverse = b * m->vertex_count + a;
        int same = 0, back = 0;
        for (int f = 0; f < n; ++f) same += edges[f] == edges[e], back += edges[f] == reverse;
        ok = manifold ? same == 1 && back == 1 : same == back;
    }
    free(edges);
    return ok;
}

/* Largest |sdf| of the corners, each taken back into the shape's frame. */
static float max_distance(const loam_shape* s, const loam_mesh* m) {
    float worst = 0.0f;
    for (int v = 0; v < m->vertex_count; ++v) {
        const float* p = &m->vertices[3 * v];
        loam_vec3 local = loam_pose_apply_inverse(s->local, (loam_vec3){p[0], p[1], p[2]});
        worst = fmaxf(worst, fabsf(loam_shape_sdf(s, local, NULL)));
    }
    return worst;
}

static void check_solid(const char* what, loam_shape s, double exact, double rel_below) {
    s.local.p = (loam_vec3){0.3f, -0.2f, 0.1f}; /* off the origin and turned, so `local` is applied */
    s.local.q = loam_quat_from_euler_deg((loam_vec3){20.0f, -35.0f, 50.0f});
    loam_mesh m;
    loam_error err;
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_OK, "%s: %s", what, err.message);
    CHECK(m.triangle_count > 0, "%s: no triangles", what);
    CHECK(closed_surface(&m, 1), "%s: not closed and consistently oriented", what);
    double v = volume(&m);
    CHECK(v <= exact * (1.0 + 1e-5) && v >= exact * (1.0 - rel_below), "%s: volume %.9g, solid %.9g", what, v, exact);
    float d = max_distance(&s, &m);
    CHECK(d < 2e-6f, "%s: a corner is %g m off the surface", what, (double)d);
    loam_mesh_destroy(&m);
}

static void test_primitives(void) {
    const double pi = 3.14159265358979;
    /* 32 segments round: an inscribed polygon has (32 / 2 pi) sin(2 pi / 32) = 0.9936 of the circle's
     * area; the 8-segment quarter arcs of spheres lose a little more. */
    check_solid("box", (loam_shape){.type = LOAM_SHAPE_BOX, .size = {0.1f, 0.2f, 0.3f}}, 8.0 * 0.1 * 0.2 * 0.3, 1e-5);
    check_solid("sphere", (loam_shape){.type = LOAM_SHAPE_SPHERE, .size = {0.2f, 0, 0}}, 4.0 / 3.0 * pi * 0.008, 0.03);
    check_solid("capsule", (loam_shape){.type = LOAM_SHAPE_CAPSULE, .size = {0.1f, 0, 0.25f}},
                pi * 0.01 * 0.5 + 4.0 / 3.0 * pi * 0.001, 0.03);
    check_solid("cylinder", (loam_shape){.type = LOAM_SHAPE_CYLINDER, .size = {0.15f, 0, 0.05f}}, pi * 0.0225 * 0.1, 0.01);
    check_solid("tube", (loam_shape){.type = LOAM_SHAPE_TUBE, .size = {0.1f, 0.02f, 0.2f}},
                pi * (0.12 * 0.12 - 0.1 * 0.1) * 0.4, 0.01);
}

static void test_plane_and_bodies(void) {
    loam_shape pieces[5];
    int n = loam_open_box_pieces((loam_vec3){0.5f, 0.25f, 0.2f}, 0.02f, 0.5f, pieces);
    loam_mesh m;
    loam_error err;
    CHECK(loam_shapes_surface(pieces, n, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(m.triangle_count == 12 * n, "open box: %d triangles from %d boxes", m.triangle_count, n);
    loam_mesh_destroy(&m);
    /* A floor is a square of half side plane_half centred below plane_centre, facing its open side (+z). */
    loam_shape floor = {.type = LOAM_SHAPE_PLANE, .local = loam_pose_identity()};
    floor.local.p.z = -0.1f;
    CHECK(loam_shapes_surface(&floor, 1, (loam_vec3){2.0f, 3.0f, 5.0f}, 0.5f, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(m.triangle_count == 2 && m.vertex_count == 4, "plane: %d triangles", m.triangle_count);
    for (int v = 0; v < m.vertex_count; ++v) {
        const float* p = &m.vertices[3 * v];
        CHECK(fabsf(fabsf(p[0] - 2.0f) - 0.5f) < 1e-6f && fabsf(fabsf(p[1] - 3.0f) - 0.5f) < 1e-6f && p[2] == -0.1f,
              "plane corner (%g, %g, %g)", (double)p[0], (double)p[1], (double)p[2]);
    }
    for (int t = 0; t < m.triangle_count; ++t) {
        const float *a = &m.vertices[3 * m.triangles[3 * t]], *b = &m.vertices[3 * m.triangles[3 * t + 1]],
                    *c = &m.vertices[3 * m.triangles[3 * t + 2]];
        float nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        CHECK(nz > 0.0f, "plane triangle %d faces down", t);
    }
    loam_mesh_destroy(&m);
    CHECK(loam_shapes_surface(NULL, 0, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_OK && m.triangle_count == 0,
          "no shapes should give an empty surface");
}

static void test_mesh_shape(void) {
    loam_mesh box;
    loam_sdf_grid grid;
    loam_error err;
    const float cell = 0.01f;
    CHECK(loam_mesh_box((loam_vec3){0, 0, 0}, (loam_vec3){0.1f, 0.06f, 0.04f}, &box, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_sdf_grid_build(&box, cell, 2 * cell, &grid, &err) == LOAM_OK, "%s", err.message);
    loam_shape s = {.type = LOAM_SHAPE_MESH, .local = loam_pose_identity(), .grid = &grid};
    loam_mesh m;
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(closed_surface(&m, 0), "mesh shape: surface nets should give a closed outward surface");
    /* Within the grid's resolution: corners within a cell of the box, volume within the shell a cell
     * thick around it (surface nets round the edges and corners off). */
    loam_shape exact = {.type = LOAM_SHAPE_BOX, .local = loam_pose_identity(), .size = {0.1f, 0.06f, 0.04f}};
    float d = max_distance(&exact, &m);
    CHECK(d < cell, "mesh shape: a corner is %g m from the box (cell %g)", (double)d, (double)cell);
    double v = volume(&m), exact_v = 8.0 * 0.1 * 0.06 * 0.04, area = 8.0 * (0.1 * 0.06 + 0.1 * 0.04 + 0.06 * 0.04);
    CHECK(fabs(v - exact_v) < 0.5 * area * cell, "mesh shape: volume %g, box %g", v, exact_v);
    loam_mesh_destroy(&m);
    s.grid = NULL;
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "grid"),
          "a mesh shape without a grid should be refused: %s", err.message);
    loam_sdf_grid_destroy(&grid);
    loam_mesh_destroy(&box);
}

static void test_bad_input(void) {
    loam_mesh m;
    loam_error err;
    loam_shape s = {.type = LOAM_SHAPE_TYPE_COUNT, .local = loam_pose_identity()};
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "shape 0"),
          "bad type: %s", err.message);
    s.type = LOAM_SHAPE_SPHERE;
    s.size.x = -1.0f;
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 1.0f, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "size"),
          "negative size: %s", err.message);
    s.size.x = 0.1f;
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 0.0f, &m, &err) == LOAM_ERR_INPUT, "plane_half 0 accepted");
    CHECK(loam_shapes_surface(&s, 1, (loam_vec3){0, 0, 0}, 1.0f, NULL, &err) == LOAM_ERR_INPUT, "NULL mesh accepted");

    /* Writers: refused input leaves no file. */
    char dir[] = "/tmp/loam_surface_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    float xyz[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    int32_t tri[3] = {0, 1, 3};
    loam_mesh bad = {3, 1, xyz, tri};
    snprintf(path, sizeof path, "%s/bad.vtp", dir);
    CHECK(loam_vtp_write_surface(path, &bad, loam_pose_identity(), 0.0, &err) == LOAM_ERR_INPUT &&
              strstr(err.message, "triangle 0"), "vertex 3 of 3 accepted: %s", err.message);
    CHECK(access(path, F_OK) != 0, "a refused surface left %s", path);
    tri[2] = 2;
    loam_pose pose = loam_pose_identity();
    pose.p.x = NAN;
    CHECK(loam_vtp_write_surface(path, &bad, pose, 0.0, &err) == LOAM_ERR_INPUT, "a NaN pose accepted");
    CHECK(loam_vtp_write_surface(path, &bad, loam_pose_identity(), 0.5, &err) == LOAM_OK, "%s", err.message);
    CHECK(access(path, F_OK) == 0, "no %s", path);
    remove(path);
    loam_vtm_block blocks[2] = {{"particles", "p.vtp"}, {"", "b.vtp"}};
    snprintf(path, sizeof path, "%s/bad.vtm", dir);
    CHECK(loam_vtm_write(path, blocks, 2, &err) == LOAM_ERR_INPUT && strstr(err.message, "block 1"), "empty name accepted");
    CHECK(access(path, F_OK) != 0, "a refused multiblock left %s", path);
    rmdir(dir);
}

int main(void) {
    test_primitives();
    test_plane_and_bodies();
    test_mesh_shape();
    test_bad_input();
    TEST_MAIN_END();
}
