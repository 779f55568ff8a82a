/* A draping cable (see scenarios.h): loam_mb_cable_build's segments, a clamp at x = 0 (hard point and
 * a soft bending spring of 2 E I / l, as the cantilever test), and a floor plane. */
#include <math.h>
#include <string.h>

#include "scenarios.h"

loam_status mb_cable_scene_create(int n, const loam_mb_options* opt, loam_mb_model** model, loam_mb_state** state, loam_error* err) {
    *model = NULL;
    *state = NULL;
    if (n < 2 || n > 100000) return loam_error_set(err, LOAM_ERR_INPUT, "cable scene: %d segments, expected 2 to 100000", n);
    loam_mb_cable_def cd = loam_mb_cable_default_def();
    cd.segments = n, cd.length = 0.02 * n, cd.radius = 0.005, cd.density = 1200.0, cd.young = 1e8;
    double l = cd.length / n, EI = cd.young * M_PI * pow(cd.radius, 4) / 4.0;
    cd.damping = 0.01 * EI / l;
    cd.start.p = (loam_vec3d){0, 0, 0.05};
    loam_mb_body_def* b = loam_calloc((size_t)n, sizeof *b);
    loam_mb_geom_def* g = loam_calloc((size_t)n + 1, sizeof *g);
    loam_mb_constraint_def* c = loam_calloc(2 * (size_t)n, sizeof *c);
    loam_status st = LOAM_OK;
    if (!b || !g || !c) st = loam_error_set(err, LOAM_ERR_NOMEM, "cable scene: out of memory");
    if (st == LOAM_OK) st = loam_mb_cable_build(&cd, 0, b, g, c, err);
    if (st == LOAM_OK) {
        int k = 2 * (n - 1);
        c[k] = loam_mb_constraint_default_def();
        strcpy(c[k].name, "clamp");
        c[k].side[0] = loam_mb_side_body(0), c[k].anchor[0] = (loam_vec3d){-0.5 * l, 0, 0}, c[k].anchor[1] = cd.start.p;
        c[k + 1] = c[k];
        strcpy(c[k + 1].name, "clamp_bend");
        c[k + 1].type = LOAM_CONSTRAINT_ANGULAR, c[k + 1].stiffness = 2.0 * EI / l, c[k + 1].damping = cd.damping;
        g[n] = loam_mb_geom_default_def();
        g[n].body = -1, g[n].shape.type = LOAM_SHAPE_PLANE;
        loam_mb_options o = opt ? *opt : loam_mb_default_options();
        if (!opt) o.dt = 2e-3;
        if (o.max_contacts < 4 * n + 64) o.max_contacts = 4 * n + 64;
        if (!(*model = loam_mb_model_create(b, n, g, n + 1, &o, err))) st = err ? err->status : LOAM_ERR_INPUT;
        if (st == LOAM_OK) st = loam_mb_model_set_constraints(*model, c, 2 * n, err);
        if (st == LOAM_OK && !(*state = loam_mb_state_create(*model, err))) st = err ? err->status : LOAM_ERR_NOMEM;
    }
    loam_free(b), loam_free(g), loam_free(c);
    if (st != LOAM_OK) {
        loam_mb_model_destroy(*model);
        *model = NULL;
    }
    return st;
}
