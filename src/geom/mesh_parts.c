/* Procedural tool meshes from closed parts (loam/mesh_gen.h): boxes, curved plates, sector plates,
 * and the bucket and bulldozer built from them. Every part is closed and outward on its own. */
#include <math.h>
#include <string.h>

#include "core/vec.h"
#include "geom/mesh_build.h"
#include "loam/mesh_gen.h"

/* A prism: a polygon of points (x, z) = (u, v), either orientation, extruded along y from y0 to y1.
 * The end caps are fans from point 0, so the polygon must be star-shaped from it. */
static loam_status prism(const float* u, const float* v, int n, float y0, float y1, const char* what, loam_mesh* out,
                         loam_error* err) {
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    int ok = 1;
    for (int k = 0; k < n && ok; ++k) ok = loam_mesh_add_vertex(&b, u[k], y0, v[k]) >= 0 && loam_mesh_add_vertex(&b, u[k], y1, v[k]) >= 0;
    double area = 0.0;
    for (int k = 0; k < n; ++k) area += (double)u[k] * v[(k + 1) % n] - (double)u[(k + 1) % n] * v[k];
    int flip = area > 0.0; /* (x, z, y) is left-handed: a counter-clockwise (x, z) outline needs the reversed winding */
    for (int k = 0; k < n && ok; ++k) {
        int a0 = 2 * k, a1 = 2 * k + 1, b0 = 2 * ((k + 1) % n), b1 = b0 + 1;
        ok = flip ? loam_mesh_add_triangle(&b, a0, b1, b0) && loam_mesh_add_triangle(&b, a0, a1, b1)
                  : loam_mesh_add_triangle(&b, a0, b0, b1) && loam_mesh_add_triangle(&b, a0, b1, a1);
    }
    for (int k = 1; k + 1 < n && ok; ++k) { /* end caps */
        ok = flip ? loam_mesh_add_triangle(&b, 0, 2 * k, 2 * (k + 1)) && loam_mesh_add_triangle(&b, 1, 2 * (k + 1) + 1, 2 * k + 1)
                  : loam_mesh_add_triangle(&b, 0, 2 * (k + 1), 2 * k) && loam_mesh_add_triangle(&b, 1, 2 * k + 1, 2 * (k + 1) + 1);
    }
    if (!ok) {
        loam_mesh_builder_free(&b);
        return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", what);
    }
    return loam_mesh_builder_finish(&b, what, out, err);
}

loam_status loam_mesh_box(loam_vec3 c, loam_vec3 h, loam_mesh* out, loam_error* err) {
    if (!(h.x > 0 && h.y > 0 && h.z > 0) || !v3_is_finite(c) || !v3_is_finite(h))
        return loam_error_set(err, LOAM_ERR_INPUT, "box mesh: half extents (%g, %g, %g) must be > 0", h.x, h.y, h.z);
    float u[4] = {c.x - h.x, c.x + h.x, c.x + h.x, c.x - h.x}, v[4] = {c.z - h.z, c.z - h.z, c.z + h.z, c.z + h.z};
    return prism(u, v, 4, c.y - h.y, c.y + h.y, "box mesh", out, err);
}

enum { MAX_SEGMENTS = 256 };

loam_status loam_mesh_curved_plate(float radius, float t, float width, float a0, float a1, int segments, loam_mesh* out,
                                   loam_error* err) {
    if (!(radius > 0 && t > 0 && t < 2 * radius && width > 0 && a1 > a0 && a1 - a0 < 6.2831853f) || segments < 1 ||
        segments > MAX_SEGMENTS)
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "curved plate: radius %g, thickness %g, width %g, angles %g..%g, %d segments: expected positive "
                              "sizes, thickness below the diameter, an increasing span under a full turn, 1 to %d segments",
                              radius, t, width, a0, a1, segments, MAX_SEGMENTS);
    float u[2 * MAX_SEGMENTS + 2], v[2 * MAX_SEGMENTS + 2];
    int n = 0;
    for (int k = 0; k <= segments; ++k) { /* outer arc forward, inner arc back */
        float a = a0 + (a1 - a0) * k / segments;
        u[n] = (radius + 0.5f * t) * cosf(a);
        v[n++] = (radius + 0.5f * t) * sinf(a);
    }
    for (int k = segments; k >= 0; --k) {
        float a = a0 + (a1 - a0) * k / segments;
        u[n] = (radius - 0.5f * t) * cosf(a);
        v[n++] = (radius - 0.5f * t) * sinf(a);
    }
    /* Not star-shaped from one point: cap it as quads between the arcs instead of a fan. */
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    int ok = 1;
    float half = 0.5f * width;
    for (int k = 0; k < n && ok; ++k) ok = loam_mesh_add_vertex(&b, u[k], -half, v[k]) >= 0 && loam_mesh_add_vertex(&b, u[k], half, v[k]) >= 0;
    for (int k = 0; k < n && ok; ++k) { /* walls; the outline runs counter-clockwise in (x, z), i.e. clockwise seen from +y */
        int p0 = 2 * k, p1 = 2 * k + 1, q0 = 2 * ((k + 1) % n), q1 = q0 + 1;
        ok = loam_mesh_add_triangle(&b, p0, p1, q1) && loam_mesh_add_triangle(&b, p0, q1, q0);
    }
    for (int k = 0; k < segments && ok; ++k) { /* caps: outer point k, inner point n-1-k */
        int o0 = k, o1 = k + 1, i0 = n - 1 - k, i1 = n - 2 - k;
        ok = loam_mesh_add_triangle(&b, 2 * o0, 2 * o1, 2 * i1) && loam_mesh_add_triangle(&b, 2 * o0, 2 * i1, 2 * i0) &&
             loam_mesh_add_triangle(&b, 2 * o0 + 1, 2 * i1 + 1, 2 * o1 + 1) && loam_mesh_add_triangle(&b, 2 * o0 + 1, 2 * i0 + 1, 2 * i1 + 1);
    }
    if (!ok) {
        loam_mesh_builder_free(&b);
        return loam_error_set(err, LOAM_ERR_NOMEM, "curved plate: out of memory");
    }
    return loam_mesh_builder_finish(&b, "curved plate", out, err);
}

loam_status loam_mesh_sector_plate(float radius, float a0, float a1, float thickness, float y_centre, int segments,
                                   loam_mesh* out, loam_error* err) {
    if (!(radius > 0 && thickness > 0 && a1 > a0 && a1 - a0 < 3.1415926f) || segments < 1 || segments > MAX_SEGMENTS ||
        !isfinite(y_centre))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "sector plate: radius %g, angles %g..%g, thickness %g, %d segments: expected positive sizes, "
                              "an increasing span under half a turn, 1 to %d segments",
                              radius, a0, a1, thickness, segments, MAX_SEGMENTS);
    float u[MAX_SEGMENTS + 2], v[MAX_SEGMENTS + 2];
    int n = 0;
    u[n] = 0.0f;
    v[n++] = 0.0f; /* the centre: the fan's apex, and the polygon is convex */
    for (int k = 0; k <= segments; ++k) {
        float a = a0 + (a1 - a0) * k / segments;
        u[n] = radius * cosf(a);
        v[n++] = radius * sinf(a);
    }
    return prism(u, v, n, y_centre - 0.5f * thickness, y_centre + 0.5f * thickness, "sector plate", out, err);
}

loam_status loam_mesh_append(loam_mesh* to, const loam_mesh* part, loam_error* err) {
    long long nv = (long long)to->vertex_count + part->vertex_count, nt = (long long)to->triangle_count + part->triangle_count;
    if (nt > LOAM_MESH_MAX_TRIANGLES || nv > 3LL * LOAM_MESH_MAX_TRIANGLES)
        return loam_error_set(err, LOAM_ERR_INPUT, "mesh: %lld triangles, more than loam reads", nt);
    float* v = loam_malloc(sizeof(float) * 3 * (size_t)nv);
    int32_t* t = loam_malloc(sizeof(int32_t) * 3 * (size_t)nt);
    if (!v || !t) {
        loam_free(v);
        loam_free(t);
        return loam_error_set(err, LOAM_ERR_NOMEM, "mesh: out of memory appending a part");
    }
    if (to->vertex_count) memcpy(v, to->vertices, sizeof(float) * 3 * (size_t)to->vertex_count);
    if (part->vertex_count) memcpy(v + 3 * (size_t)to->vertex_count, part->vertices, sizeof(float) * 3 * (size_t)part->vertex_count);
    if (to->triangle_count) memcpy(t, to->triangles, sizeof(int32_t) * 3 * (size_t)to->triangle_count);
    for (int k = 0; k < 3 * part->triangle_count; ++k) t[3 * (size_t)to->triangle_count + k] = part->triangles[k] + to->vertex_count;
    loam_free(to->vertices);
    loam_free(to->triangles);
    to->vertices = v;
    to->triangles = t;
    to->vertex_count = (int)nv;
    to->triangle_count = (int)nt;
    return LOAM_OK;
}

/* Build `out` from parts made by the caller's steps; frees everything on failure. */
static loam_status add_part(loam_mesh* out, loam_status made, loam_mesh* part, loam_error* err) {
    loam_status st = made == LOAM_OK ? loam_mesh_append(out, part, err) : made;
    loam_mesh_destroy(part);
    if (st != LOAM_OK) loam_mesh_destroy(out);
    return st;
}

loam_bucket_def loam_bucket_default_def(void) {
    loam_bucket_def d = {0.3f, 0.4f, 0.015f, 24};
    return d;
}

loam_status loam_mesh_bucket(const loam_bucket_def* d, loam_mesh* out, loam_error* err) {
    if (!d || !out) return loam_error_set(err, LOAM_ERR_INPUT, "bucket: null definition or output");
    memset(out, 0, sizeof *out);
    if (!(d->radius > 0 && d->width > 0 && d->thickness > 0 && d->thickness < 0.5f * d->radius))
        return loam_error_set(err, LOAM_ERR_INPUT, "bucket: radius %g, width %g, thickness %g: expected positive sizes and a "
                                                   "thickness under half the radius", d->radius, d->width, d->thickness);
    const float a0 = 200.0f * 3.1415926f / 180.0f, a1 = 330.0f * 3.1415926f / 180.0f;
    loam_mesh part;
    loam_status st = add_part(out, loam_mesh_curved_plate(d->radius, d->thickness, d->width + 2 * d->thickness, a0, a1,
                                                          d->segments, &part, err), &part, err);
    for (int side = -1; st == LOAM_OK && side <= 1; side += 2) /* sides reach the shell's outer face */
        st = add_part(out, loam_mesh_sector_plate(d->radius + 0.5f * d->thickness, a0, a1, d->thickness,
                                                  side * 0.5f * (d->width + d->thickness), d->segments, &part, err),
                      &part, err);
    return st;
}

loam_bulldozer_def loam_bulldozer_default_def(void) {
    loam_bulldozer_def d = {0.6f, 0.4f, 0.25f, 0.1f, 0.12f, 0.6f, 0.2f};
    return d;
}

loam_status loam_mesh_bulldozer(const loam_bulldozer_def* d, loam_mesh* out, loam_error* err) {
    if (!d || !out) return loam_error_set(err, LOAM_ERR_INPUT, "bulldozer: null definition or output");
    memset(out, 0, sizeof *out);
    if (!(d->length > 0 && d->width > 2 * d->track_width && d->height > 0 && d->track_width > 0 && d->track_height > 0 &&
          d->blade_width >= d->width && d->blade_height > 0))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "bulldozer: expected positive sizes, a body wider than its two tracks and a blade at least as "
                              "wide as the body");
    float L = d->length, W = d->width, th = d->track_height, tw = d->track_width;
    loam_mesh part;
    loam_status st = LOAM_OK;
    for (int side = -1; st == LOAM_OK && side <= 1; side += 2) /* tracks on the ground */
        st = add_part(out, loam_mesh_box(v3(0, side * (0.5f * W - 0.5f * tw), 0.5f * th), v3(0.5f * L, 0.5f * tw, 0.5f * th),
                                         &part, err), &part, err);
    if (st == LOAM_OK) /* the body above, between and over the tracks */
        st = add_part(out, loam_mesh_box(v3(0, 0, th + 0.5f * d->height - 0.02f), v3(0.5f * L, 0.5f * W, 0.5f * d->height),
                                         &part, err), &part, err);
    /* The blade: a plate curved about a horizontal axis in front, its lower edge on the ground; the
     * curved plate is made about y, which is the blade's horizontal axis already. */
    float R = d->blade_height / 0.8f, gap = 0.12f * L, bx = 0.5f * L + gap + 0.5f * R; /* the arc below spans 0.8 R */
    if (st == LOAM_OK) {
        const float blade_thickness = 0.02f;
        st = loam_mesh_curved_plate(R, blade_thickness, d->blade_width, 3.1415926f + 0.2f, 3.1415926f + 1.6f, 16, &part, err);
        if (st == LOAM_OK) /* move it so its cutting edge (the arc's lower end) sits on the ground ahead of the tracks */
            for (int k = 0; k < part.vertex_count; ++k) {
                part.vertices[3 * k] += bx;
                part.vertices[3 * k + 2] += (R + 0.5f * blade_thickness) * sinf(1.6f);
            }
        st = add_part(out, st, &part, err);
    }
    for (int side = -1; st == LOAM_OK && side <= 1; side += 2) /* push arms from the tracks to the blade */
        st = add_part(out, loam_mesh_box(v3(0.5f * L + 0.5f * gap, side * (0.5f * W - 0.5f * tw), 0.5f * th),
                                         v3(0.5f * gap + 0.02f, 0.02f, 0.02f), &part, err), &part, err);
    return st;
}
