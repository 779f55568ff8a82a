/* Triangle surfaces of body shapes, for ParaView output and the live viewer: the solver sees shapes
 * only as signed distance functions, but a file reader or a GPU needs triangles. Primitives are
 * tessellated from their parameters; mesh shapes from their distance grids (grid_surface.c). */
#include <math.h>
#include <string.h>

#include "core/vec.h"
#include "io/surface_internal.h"
#include "loam/output.h"
#include "loam/sdf_grid.h"

enum { ROUND_SEGMENTS = 32, ARC_SEGMENTS = 8 };

static int add_quad(loam_mesh_builder* b, int a, int c, int d, int e) {
    return loam_mesh_add_triangle(b, a, c, d) && loam_mesh_add_triangle(b, a, d, e);
}

static int add_box(loam_mesh_builder* b, loam_vec3 h) {
    int base = b->mesh.vertex_count;
    for (int i = 0; i < 8; ++i)
        if (loam_mesh_add_vertex(b, i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z) < 0) return 0;
    /* Corner i has +x when bit 0 is set, +y for bit 1, +z for bit 2; each face counter-clockwise from outside. */
    static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (int f = 0; f < 6; ++f)
        if (!add_quad(b, base + faces[f][0], base + faces[f][1], base + faces[f][2], base + faces[f][3])) return 0;
    return 1;
}

/* A surface of revolution about local z from a profile of (r, z) points, walked so that the solid is
 * on the left in the (r, z) half-plane (counter-clockwise), which makes every triangle face outwards.
 * A point with r = 0 is a pole: one vertex, not a ring. closed: the last point joins the first. */
static int revolve(loam_mesh_builder* b, const float* r, const float* z, int n, int closed) {
    int ring[64];
    for (int i = 0; i < n; ++i) {
        ring[i] = b->mesh.vertex_count;
        int count = r[i] > 0.0f ? ROUND_SEGMENTS : 1;
        for (int j = 0; j < count; ++j) {
            double a = 2.0 * M_PI * j / ROUND_SEGMENTS;
            if (loam_mesh_add_vertex(b, (float)(r[i] * cos(a)), (float)(r[i] * sin(a)), z[i]) < 0) return 0;
        }
    }
    for (int i = 0; i < (closed ? n : n - 1); ++i) {
        int k = (i + 1) % n;
        for (int j = 0; j < ROUND_SEGMENTS; ++j) {
            int j1 = (j + 1) % ROUND_SEGMENTS;
            int a = ring[i] + (r[i] > 0.0f ? j : 0), c = ring[i] + (r[i] > 0.0f ? j1 : 0);
            int d = ring[k] + (r[k] > 0.0f ? j1 : 0), e = ring[k] + (r[k] > 0.0f ? j : 0);
            if (a != c && !loam_mesh_add_triangle(b, a, c, d)) return 0;
            if (d != e && !loam_mesh_add_triangle(b, a, d, e)) return 0;
        }
    }
    return 1;
}

/* Two quarter circles of radius rad about (0, -h) and (0, +h), pole to pole: a sphere when h = 0. */
static int add_capsule(loam_mesh_builder* b, float rad, float h) {
    float r[2 * ARC_SEGMENTS + 2], z[2 * ARC_SEGMENTS + 2];
    int n = 0;
    for (int half = 0; half < 2; ++half)
        for (int i = 0; i <= ARC_SEGMENTS; ++i) {
            double a = M_PI / 2.0 * ((double)(half ? i : i - ARC_SEGMENTS) / ARC_SEGMENTS);
            if (half && i == 0 && h == 0.0f) continue; /* the sphere's equator once */
            r[n] = (float)(rad * cos(a)), z[n] = (float)(rad * sin(a) + (half ? h : -h));
            if (i == (half ? ARC_SEGMENTS : 0)) r[n] = 0.0f; /* exact poles */
            ++n;
        }
    return revolve(b, r, z, n, 0);
}

static int add_plane(loam_mesh_builder* b, loam_vec3 centre, float half) {
    int base = b->mesh.vertex_count;
    for (int i = 0; i < 4; ++i)
        if (loam_mesh_add_vertex(b, centre.x + ((i == 1 || i == 2) ? half : -half), centre.y + (i >= 2 ? half : -half),
                                 0.0f) < 0)
            return 0;
    return add_quad(b, base, base + 1, base + 2, base + 3); /* counter-clockwise seen from +z, the open side */
}

/* The shape's triangles appended to b in its local frame; 0 when out of memory. */
static int shape_triangles(loam_mesh_builder* b, const loam_shape* s, loam_vec3 plane_centre, float plane_half) {
    float hz = s->size.z;
    switch (s->type) {
    case LOAM_SHAPE_PLANE:
        return add_plane(b, plane_centre, plane_half);
    case LOAM_SHAPE_BOX:
        return add_box(b, s->size);
    case LOAM_SHAPE_SPHERE:
        return add_capsule(b, s->size.x, 0.0f);
    case LOAM_SHAPE_CAPSULE:
        return add_capsule(b, s->size.x, hz);
    case LOAM_SHAPE_CYLINDER: {
        float r[4] = {0.0f, s->size.x, s->size.x, 0.0f}, z[4] = {-hz, -hz, hz, hz};
        return revolve(b, r, z, 4, 0);
    }
    case LOAM_SHAPE_TUBE: {
        float ri = s->size.x, ro = s->size.x + s->size.y;
        float r[4] = {ri, ro, ro, ri}, z[4] = {-hz, -hz, hz, hz};
        return revolve(b, r, z, 4, 1);
    }
    default:
        return loam_grid_surface(b, s->grid);
    }
}

static loam_status check_shape(const loam_shape* s, int index, loam_error* err) {
    if ((unsigned)s->type >= LOAM_SHAPE_TYPE_COUNT)
        return loam_error_set(err, LOAM_ERR_INPUT, "surface: shape %d: type %d is not a shape type", index, (int)s->type);
    if (s->type == LOAM_SHAPE_MESH && (!s->grid || !s->grid->values || s->grid->nx < 2 || s->grid->ny < 2 || s->grid->nz < 2))
        return loam_error_set(err, LOAM_ERR_INPUT, "surface: shape %d: a mesh shape without a usable grid", index);
    if (!v3_is_finite(s->size) || s->size.x < 0.0f || s->size.y < 0.0f || s->size.z < 0.0f)
        return loam_error_set(err, LOAM_ERR_INPUT, "surface: shape %d (%s): size (%g, %g, %g) must be finite and >= 0",
                              index, loam_shape_type_name(s->type), (double)s->size.x, (double)s->size.y, (double)s->size.z);
    return LOAM_OK;
}

loam_status loam_shapes_surface(const loam_shape* shapes, int count, loam_vec3 plane_centre, float plane_half,
                                loam_mesh* mesh, loam_error* err) {
    if (!mesh) return loam_error_set(err, LOAM_ERR_INPUT, "surface: mesh is NULL");
    memset(mesh, 0, sizeof *mesh);
    if (count < 0 || (count > 0 && !shapes))
        return loam_error_set(err, LOAM_ERR_INPUT, "surface: %d shapes at %p", count, (const void*)shapes);
    if (!v3_is_finite(plane_centre) || !(plane_half > 0.0f) || !isfinite(plane_half))
        return loam_error_set(err, LOAM_ERR_INPUT, "surface: plane_half %g must be finite and > 0 (and the centre finite)",
                              (double)plane_half);
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    for (int k = 0; k < count; ++k) {
        loam_status st = check_shape(&shapes[k], k, err);
        if (st != LOAM_OK) {
            loam_mesh_builder_free(&b);
            return st;
        }
        int first = b.mesh.vertex_count;
        /* A plane's square is centred below plane_centre, given in the body frame. */
        loam_vec3 centre = loam_pose_apply_inverse(shapes[k].local, plane_centre);
        if (!shape_triangles(&b, &shapes[k], centre, plane_half)) {
            loam_mesh_builder_free(&b);
            return loam_error_set(err, LOAM_ERR_NOMEM, "surface: out of memory at shape %d", k);
        }
        for (int v = first; v < b.mesh.vertex_count; ++v) {
            float* p = &b.mesh.vertices[3 * (size_t)v];
            loam_vec3 w = loam_pose_apply(shapes[k].local, v3(p[0], p[1], p[2]));
            p[0] = w.x, p[1] = w.y, p[2] = w.z;
        }
    }
    if (b.mesh.triangle_count == 0) { /* no shapes: an empty surface is valid output */
        loam_mesh_builder_free(&b);
        return LOAM_OK;
    }
    return loam_mesh_builder_finish(&b, "surface", mesh, err);
}
