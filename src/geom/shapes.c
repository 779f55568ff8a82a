/* Exact signed distance functions of primitive shapes with analytic gradients. Exactness matters:
 * psi = f(x) - r is a penetration depth only when |f| is the true distance. */
#include <math.h>
#include <string.h>

#include "core/vec.h"
#include "geom/box_sdf.h"
#include "geom/heightfield_sdf.h"
#include "loam/geom.h"
#include "loam/sdf_grid.h"

const char* loam_shape_type_name(loam_shape_type type) {
    static const char* names[LOAM_SHAPE_TYPE_COUNT] = {"plane", "box", "sphere", "capsule",
                                                       "cylinder", "tube", "mesh",
                                                       "heightfield"};
    return (unsigned)type < LOAM_SHAPE_TYPE_COUNT ? names[type] : "unknown";
}

static float sign_of(float v) { return v < 0.0f ? -1.0f : 1.0f; }

/* Distance of a shape that is the product of two 1-D intervals in (a, b) coordinates, where da and
 * db are the signed distances along each and ea, eb the unit directions in which they grow. */
static float combine_2d(float da, float db, loam_vec3 ea, loam_vec3 eb, loam_vec3* normal) {
    if (da > 0.0f && db > 0.0f) {
        float d = sqrtf(da * da + db * db);
        if (normal) *normal = v3_scale(v3_add(v3_scale(ea, da), v3_scale(eb, db)), 1.0f / d);
        return d;
    }
    if (da >= db) {
        if (normal) *normal = ea;
        return da;
    }
    if (normal) *normal = eb;
    return db;
}

static float box_sdf(loam_vec3 p, loam_vec3 h, loam_vec3* normal) {
    float pa[3] = {p.x, p.y, p.z}, ha[3] = {h.x, h.y, h.z}, n[3];
    float d = loam_box_sdf_f(pa, ha, normal ? n : NULL);
    if (normal) *normal = v3(n[0], n[1], n[2]);
    return d;
}

static loam_vec3 radial_dir(loam_vec3 p, float* rho) {
    *rho = sqrtf(p.x * p.x + p.y * p.y);
    return *rho > 0.0f ? v3(p.x / *rho, p.y / *rho, 0.0f) : v3(1.0f, 0.0f, 0.0f);
}

float loam_shape_sdf(const loam_shape* s, loam_vec3 p, loam_vec3* normal) {
    loam_vec3 ez = v3(0.0f, 0.0f, sign_of(p.z));
    float rho;
    switch (s->type) {
    case LOAM_SHAPE_PLANE:
        if (normal) *normal = v3(0.0f, 0.0f, 1.0f);
        return p.z;
    case LOAM_SHAPE_BOX:
        return box_sdf(p, s->size, normal);
    case LOAM_SHAPE_SPHERE: {
        float d = v3_length(p);
        if (normal) *normal = d > 0.0f ? v3_scale(p, 1.0f / d) : v3(0.0f, 0.0f, 1.0f);
        return d - s->size.x;
    }
    case LOAM_SHAPE_CAPSULE: {
        float zc = fminf(fmaxf(p.z, -s->size.z), s->size.z);
        loam_vec3 d = v3(p.x, p.y, p.z - zc);
        float len = v3_length(d);
        if (normal) *normal = len > 0.0f ? v3_scale(d, 1.0f / len) : v3(1.0f, 0.0f, 0.0f);
        return len - s->size.x;
    }
    case LOAM_SHAPE_CYLINDER: {
        loam_vec3 er = radial_dir(p, &rho);
        return combine_2d(rho - s->size.x, fabsf(p.z) - s->size.z, er, ez, normal);
    }
    case LOAM_SHAPE_TUBE: {
        loam_vec3 er = radial_dir(p, &rho);
        float mid = s->size.x + 0.5f * s->size.y;
        float side = sign_of(rho - mid);
        return combine_2d(fabsf(rho - mid) - 0.5f * s->size.y, fabsf(p.z) - s->size.z,
                          v3_scale(er, side), ez, normal);
    }
    case LOAM_SHAPE_MESH: {
        if (!s->grid) break;
        loam_vec3 g;
        float f = loam_sdf_grid_query(s->grid, p, normal ? &g : NULL);
        if (normal) {
            float len = v3_length(g);
            *normal = len > 0.0f ? v3_scale(g, 1.0f / len) : v3(0.0f, 0.0f, 1.0f);
        }
        return f;
    }
    case LOAM_SHAPE_HEIGHTFIELD: {
        if (!s->heightfield) break;
        float pa[3] = {p.x, p.y, p.z}, n[3];
        float f = loam_heightfield_sdf_f(s->heightfield, pa, normal ? n : NULL);
        if (normal) *normal = v3(n[0], n[1], n[2]);
        return f;
    }
    default:
        break;
    }
    if (normal) *normal = v3(0.0f, 0.0f, 1.0f);
    return INFINITY;
}

loam_status loam_shape_validate(const loam_shape* s, loam_error* err) {
    if (!s) return loam_error_set(err, LOAM_ERR_INPUT, "shape: NULL");
    if ((unsigned)s->type >= LOAM_SHAPE_TYPE_COUNT) return loam_error_set(err, LOAM_ERR_INPUT, "shape: unknown type %d", (int)s->type);
    const char* name = loam_shape_type_name(s->type);
    loam_quat q = s->local.q;
    if (!v3_is_finite(s->local.p) || !isfinite(q.w) || !isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) ||
        !(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z > 0.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s shape: pose must be finite with a non-zero rotation", name);
    if (!v3_is_finite(s->size) || !(s->friction >= 0.0f) || !isfinite(s->friction))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s shape: size (%g, %g, %g) and friction %g must be finite, friction >= 0",
                              name, (double)s->size.x, (double)s->size.y, (double)s->size.z, (double)s->friction);
    if (s->type == LOAM_SHAPE_MESH) {
        const loam_sdf_grid* g = s->grid;
        if (!g || !g->values || g->nx < 1 || g->ny < 1 || g->nz < 1 || !(g->cell > 0.0f))
            return loam_error_set(err, LOAM_ERR_INPUT, "mesh shape: no signed distance grid");
        return LOAM_OK;
    }
    if (s->type == LOAM_SHAPE_HEIGHTFIELD) {
        if (!s->heightfield) return loam_error_set(err, LOAM_ERR_INPUT, "heightfield shape: no height field");
        return loam_heightfield_validate(s->heightfield, err);
    }
    int need_x = s->type != LOAM_SHAPE_PLANE, need_y = s->type == LOAM_SHAPE_BOX || s->type == LOAM_SHAPE_TUBE;
    int need_z = s->type != LOAM_SHAPE_PLANE && s->type != LOAM_SHAPE_SPHERE;
    if ((need_x && !(s->size.x > 0.0f)) || (need_y && !(s->size.y > 0.0f)) || (need_z && !(s->size.z > 0.0f)))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s shape: the sizes it uses must be > 0, got (%g, %g, %g)", name,
                              (double)s->size.x, (double)s->size.y, (double)s->size.z);
    return LOAM_OK;
}

void loam_shape_local_bounds(const loam_shape* s, loam_vec3* lo, loam_vec3* hi) {
    loam_vec3 h;
    switch (s->type) {
    case LOAM_SHAPE_BOX: h = s->size; break;
    case LOAM_SHAPE_SPHERE: h = v3(s->size.x, s->size.x, s->size.x); break;
    case LOAM_SHAPE_CAPSULE: h = v3(s->size.x, s->size.x, s->size.z + s->size.x); break;
    case LOAM_SHAPE_CYLINDER: h = v3(s->size.x, s->size.x, s->size.z); break;
    case LOAM_SHAPE_TUBE: {
        float r = s->size.x + s->size.y;
        h = v3(r, r, s->size.z);
        break;
    }
    case LOAM_SHAPE_MESH:
        if (!s->grid) {
            h = v3(0.0f, 0.0f, 0.0f);
            break;
        }
        *lo = s->grid->origin;
        *hi = v3_add(s->grid->origin, v3(s->grid->cell * (float)(s->grid->nx - 1), s->grid->cell * (float)(s->grid->ny - 1),
                                         s->grid->cell * (float)(s->grid->nz - 1)));
        return;
    case LOAM_SHAPE_HEIGHTFIELD: /* border heights extend sideways: unbounded but for the top */
        *lo = v3(-1e30f, -1e30f, -1e30f);
        *hi = v3(1e30f, 1e30f, s->heightfield ? s->heightfield->max_height : 0.0f);
        return;
    default: /* planes: solid below z = 0, unbounded sideways */
        *lo = v3(-1e30f, -1e30f, -1e30f);
        *hi = v3(1e30f, 1e30f, 0.0f);
        return;
    }
    *lo = v3_scale(h, -1.0f);
    *hi = h;
}

static loam_shape make_piece(loam_shape_type type, loam_vec3 center, loam_vec3 size, float friction) {
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.local = loam_pose_identity();
    s.local.p = center;
    s.size = size;
    s.friction = friction;
    return s;
}

int loam_open_box_pieces(loam_vec3 in, float wall, float friction, loam_shape out[5]) {
    /* Free space is |x| < in.x, |y| < in.y, 0 < z < 2 in.z: the frame sits on the inner floor centre.
     * Side walls reach down through the floor so the outside corners are closed. */
    float t = 0.5f * wall, hz = in.z + t;
    out[0] = make_piece(LOAM_SHAPE_BOX, v3(0, 0, -t), v3(in.x + wall, in.y + wall, t), friction);
    out[1] = make_piece(LOAM_SHAPE_BOX, v3(in.x + t, 0, in.z - t), v3(t, in.y + wall, hz), friction);
    out[2] = make_piece(LOAM_SHAPE_BOX, v3(-in.x - t, 0, in.z - t), v3(t, in.y + wall, hz), friction);
    out[3] = make_piece(LOAM_SHAPE_BOX, v3(0, in.y + t, in.z - t), v3(in.x, t, hz), friction);
    out[4] = make_piece(LOAM_SHAPE_BOX, v3(0, -in.y - t, in.z - t), v3(in.x, t, hz), friction);
    return 5;
}

int loam_tube_pieces(float inner_radius, float half_height, float wall, int with_floor, float friction,
                     loam_shape out[2]) {
    /* Frame on the axis at the inner floor: free space 0 < z < 2 half_height. */
    out[0] = make_piece(LOAM_SHAPE_TUBE, v3(0, 0, half_height), v3(inner_radius, wall, half_height),
                        friction);
    if (!with_floor) return 1;
    out[1] = make_piece(LOAM_SHAPE_CYLINDER, v3(0, 0, -0.5f * wall),
                        v3(inner_radius + wall, 0, 0.5f * wall), friction);
    return 2;
}
