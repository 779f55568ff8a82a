/* The `bodies:` section: kinematic tools, each a list of shapes and a prescribed motion. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "scene/scene_internal.h"

#define TRY(expr)                            \
    do {                                     \
        loam_status try_status_ = (expr);    \
        if (try_status_) return try_status_; \
    } while (0)

static const double BIG = 1e7;

loam_status scene_read_pose(const snode* m, loam_pose* pose, loam_error* err) {
    loam_vec3 rpy = v3(0, 0, 0);
    TRY(opt_vec3(m, "position", -BIG, BIG, &pose->p, err));
    snode n;
    if (snode_get(m, "rpy_deg", &n)) {
        TRY(snode_vec3(&n, -1e5, 1e5, &rpy, err));
        pose->q = loam_quat_from_euler_deg(rpy);
    }
    return LOAM_OK;
}

static loam_status need(const snode* m, const char* key, double lo, double hi, float* out, loam_error* err) {
    snode n;
    if (!snode_get(m, key, &n)) return snode_error(m, err, "this shape needs '%s'", key);
    double v;
    TRY(snode_double(&n, lo, hi, &v, err));
    *out = (float)v;
    return LOAM_OK;
}

/* Reads one shape entry; containers append several pieces. */
static loam_status read_shape(const snode* m, float friction, loam_scene* scene, loam_body_def* b, loam_error* err) {
    static const char* const types[] = {"plane", "box", "sphere", "capsule", "cylinder", "tube", "open_box", "mesh", "heightfield", NULL};
    static const char* const keys[] = {"type",   "position",   "rpy_deg", "friction", "half_extents", "radius",
                                       "half_length", "half_height", "inner_radius", "wall", "floor", "inner_half",
                                       "file",   "cell",       "margin",  "scale",    "heights", "dx", "dy",
                                       "height_scale", "height_offset", NULL};
    TRY(snode_check_map(m, keys, err));
    snode n;
    if (!snode_get(m, "type", &n)) return snode_error(m, err, "a shape needs 'type' (one of plane, box, sphere, capsule, cylinder, tube, open_box, mesh, heightfield)");
    int type;
    TRY(snode_enum(&n, types, &type, err));
    /* Size keys belong to their types: a radius on a box is a mistake, not something to ignore. */
    static const char* const size_keys[] = {"half_extents", "radius", "half_length", "half_height", "inner_radius", "wall",
                                            "floor",        "inner_half", "file",     "cell",        "margin",       "scale",
                                            "heights",      "dx",         "dy",       "height_scale", "height_offset", NULL};
    static const char* const own[] = {"",
                                      "half_extents",
                                      "radius",
                                      "radius half_length",
                                      "radius half_height",
                                      "inner_radius half_height wall floor",
                                      "inner_half wall",
                                      "file cell margin scale",
                                      "heights file dx dy height_scale height_offset"};
    for (int k = 0; size_keys[k]; ++k) {
        snode extra;
        if (!snode_get(m, size_keys[k], &extra)) continue;
        const char* list = own[type];
        size_t len = strlen(size_keys[k]);
        int ok = 0;
        for (const char* at = strstr(list, size_keys[k]); at && !ok; at = strstr(at + 1, size_keys[k]))
            ok = (at == list || at[-1] == ' ') && (at[len] == '\0' || at[len] == ' ');
        if (!ok)
            return snode_error(&extra, err, "a %s has no '%s' (its sizes: %s)", types[type], size_keys[k],
                               *list ? list : "none");
    }
    loam_pose local = loam_pose_identity();
    TRY(scene_read_pose(m, &local, err));
    TRY(opt_float(m, "friction", 0.0, 100.0, &friction, err));
    loam_shape pieces[5];
    memset(pieces, 0, sizeof pieces);
    int count = 1;
    loam_shape* s = &pieces[0];
    s->local = loam_pose_identity();
    s->friction = friction;
    switch (type) {
    case 0: s->type = LOAM_SHAPE_PLANE; break;
    case 1:
        s->type = LOAM_SHAPE_BOX;
        if (!snode_get(m, "half_extents", &n)) return snode_error(m, err, "a box needs 'half_extents' [hx, hy, hz] (m)");
        TRY(snode_vec3(&n, 1e-9, BIG, &s->size, err));
        break;
    case 2: s->type = LOAM_SHAPE_SPHERE; TRY(need(m, "radius", 1e-9, BIG, &s->size.x, err)); break;
    case 3:
        s->type = LOAM_SHAPE_CAPSULE;
        TRY(need(m, "radius", 1e-9, BIG, &s->size.x, err));
        TRY(need(m, "half_length", 1e-9, BIG, &s->size.z, err));
        break;
    case 4:
        s->type = LOAM_SHAPE_CYLINDER;
        TRY(need(m, "radius", 1e-9, BIG, &s->size.x, err));
        TRY(need(m, "half_height", 1e-9, BIG, &s->size.z, err));
        break;
    case 5: {
        float r = 0, h = 0, wall = 0;
        int floor = 1;
        TRY(need(m, "inner_radius", 1e-9, BIG, &r, err));
        TRY(need(m, "half_height", 1e-9, BIG, &h, err));
        TRY(need(m, "wall", 1e-9, BIG, &wall, err));
        TRY(opt_bool(m, "floor", &floor, err));
        count = loam_tube_pieces(r, h, wall, floor, friction, pieces);
        break;
    }
    case 7:
        s->type = LOAM_SHAPE_MESH;
        TRY(scene_read_mesh(m, scene, &s->grid, err));
        break;
    case 8:
        s->type = LOAM_SHAPE_HEIGHTFIELD;
        TRY(scene_read_heightfield(m, scene, &s->heightfield, err));
        break;
    default: {
        loam_vec3 half;
        float wall = 0;
        if (!snode_get(m, "inner_half", &n)) return snode_error(m, err, "an open_box needs 'inner_half' [hx, hy, hz] (m)");
        TRY(snode_vec3(&n, 1e-9, BIG, &half, err));
        TRY(need(m, "wall", 1e-9, BIG, &wall, err));
        count = loam_open_box_pieces(half, wall, friction, pieces);
        break;
    }
    }
    if (b->shape_count + count > LOAM_BODY_MAX_SHAPES)
        return snode_error(m, err, "a body holds at most %d shape pieces (an open_box is 5, a tube 2)", LOAM_BODY_MAX_SHAPES);
    for (int k = 0; k < count; ++k) {
        pieces[k].local = loam_pose_mul(local, pieces[k].local);
        b->shapes[b->shape_count++] = pieces[k];
    }
    return LOAM_OK;
}

static loam_status read_motion(const snode* m, loam_body_def* b, loam_error* err) {
    static const char* const types[] = {"fixed", "twist", "path", "commanded", NULL};
    static const char* const keys[] = {"type", "linear", "angular", "waypoints", NULL};
    static const char* const wkeys[] = {"t", "position", "rpy_deg", NULL};
    const char* s = snode_scalar(m);
    int type = 0;
    if (s) { /* `motion: fixed` */
        TRY(snode_enum(m, types, &type, err));
        if (type == 1 || type == 2) return snode_error(m, err, "'%s' motion needs a mapping with its parameters", s);
        b->motion = (loam_motion_type)type;
        return LOAM_OK;
    }
    TRY(snode_check_map(m, keys, err));
    snode n;
    if (!snode_get(m, "type", &n)) return snode_error(m, err, "motion needs 'type' (fixed, twist, path, commanded)");
    TRY(snode_enum(&n, types, &type, err));
    b->motion = (loam_motion_type)type;
    TRY(opt_vec3(m, "linear", -1e4, 1e4, &b->twist.v, err));
    TRY(opt_vec3(m, "angular", -1e5, 1e5, &b->twist.w, err));
    if (type != 2) {
        if (snode_get(m, "waypoints", &n)) return snode_error(&n, err, "waypoints belong to 'path' motion only");
        return LOAM_OK;
    }
    if (!snode_get(m, "waypoints", &n) || !snode_is_seq(&n) || snode_seq_length(&n) < 1)
        return snode_error(m, err, "path motion needs 'waypoints': a list of {t, position, rpy_deg}");
    int count = snode_seq_length(&n);
    if (count > LOAM_BODY_MAX_WAYPOINTS) return snode_error(&n, err, "at most %d waypoints", LOAM_BODY_MAX_WAYPOINTS);
    for (int k = 0; k < count; ++k) {
        snode w = snode_seq_item(&n, k), t;
        TRY(snode_check_map(&w, wkeys, err));
        if (!snode_get(&w, "t", &t)) return snode_error(&w, err, "a waypoint needs 't' (s)");
        loam_waypoint* wp = &b->waypoints[k];
        TRY(snode_double(&t, -1e6, 1e6, &wp->t, err));
        if (k > 0 && !(wp->t > b->waypoints[k - 1].t)) return snode_error(&t, err, "waypoint times must increase");
        wp->pose = k > 0 ? b->waypoints[k - 1].pose : b->pose;
        TRY(scene_read_pose(&w, &wp->pose, err));
    }
    b->waypoint_count = count;
    return LOAM_OK;
}

static loam_status read_body(const snode* m, loam_scene* s, int index, loam_body_def* b, loam_error* err) {
    static const char* const keys[] = {"name", "position", "rpy_deg", "motion", "friction", "shapes", NULL};
    TRY(snode_check_map(m, keys, err));
    *b = loam_body_default_def();
    snode n;
    if (snode_get(m, "name", &n)) {
        const char* v = snode_scalar(&n);
        if (!v || !*v || strlen(v) >= LOAM_NAME_MAX) return snode_error(&n, err, "expected a name of 1 to %d characters", LOAM_NAME_MAX - 1);
        snprintf(b->name, sizeof b->name, "%s", v);
    } else {
        snprintf(b->name, sizeof b->name, "body%d", index);
    }
    for (int k = 0; k < index; ++k)
        if (strcmp(s->bodies[k].name, b->name) == 0) return snode_error(m, err, "two bodies are named '%s'", b->name);
    TRY(scene_read_pose(m, &b->pose, err));
    float friction = s->params.friction;
    TRY(opt_float(m, "friction", 0.0, 100.0, &friction, err));
    if (!snode_get(m, "shapes", &n) || !snode_is_seq(&n) || snode_seq_length(&n) < 1)
        return snode_error(m, err, "a body needs 'shapes': a list of at least one shape");
    for (int k = 0; k < snode_seq_length(&n); ++k) {
        snode item = snode_seq_item(&n, k);
        TRY(read_shape(&item, friction, s, b, err));
    }
    if (snode_get(m, "motion", &n)) TRY(read_motion(&n, b, err));
    if (loam_body_def_validate(b, err) != LOAM_OK) return snode_error(m, err, "%s", err->message);
    return LOAM_OK;
}

loam_status scene_read_bodies(const snode* root, loam_scene* s, loam_error* err) {
    snode list;
    if (!snode_get(root, "bodies", &list)) return LOAM_OK;
    if (!snode_is_seq(&list)) return snode_error(&list, err, "expected a list of bodies (- name: ...)");
    int count = snode_seq_length(&list);
    if (count > 1024) return snode_error(&list, err, "at most 1024 bodies");
    s->bodies = calloc((size_t)(count ? count : 1), sizeof *s->bodies);
    if (!s->bodies) return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for %d bodies", count);
    for (int k = 0; k < count; ++k) {
        snode item = snode_seq_item(&list, k);
        TRY(read_body(&item, s, k, &s->bodies[k], err));
        s->body_count = k + 1;
    }
    return LOAM_OK;
}
