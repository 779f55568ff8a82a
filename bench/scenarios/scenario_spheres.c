/* A bed of free spheres in a box of planes (see scenarios.h): the many-subsystem, contact-only case
 * of paper 004's scaling plot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenarios.h"

static const double R = 0.01, RHO = 2500.0, HALF = 0.1;

loam_status mb_spheres_create(int n, const loam_mb_options* opt, loam_mb_model** model, loam_mb_state** state, loam_error* err) {
    *model = NULL;
    *state = NULL;
    if (n < 1 || n > 100000) return loam_error_set(err, LOAM_ERR_INPUT, "spheres: %d spheres, expected 1 to 100000", n);
    loam_mb_body_def* b = loam_calloc((size_t)n, sizeof *b);
    loam_mb_geom_def* g = loam_calloc((size_t)n + 5, sizeof *g);
    if (!b || !g) {
        loam_free(b), loam_free(g);
        return loam_error_set(err, LOAM_ERR_NOMEM, "spheres: out of memory");
    }
    double mass = 4.0 / 3.0 * M_PI * R * R * R * RHO, I = 0.4 * mass * R * R;
    for (int i = 0; i < n; ++i) {
        b[i] = loam_mb_body_default_def();
        snprintf(b[i].name, sizeof b[i].name, "ball%d", i);
        b[i].joint = LOAM_JOINT_FLOATING;
        b[i].mass = mass;
        b[i].inertia[0] = b[i].inertia[1] = b[i].inertia[2] = I;
        g[i] = loam_mb_geom_default_def();
        g[i].body = i;
        g[i].shape.size.x = (float)R;
    }
    /* floor and walls: planes whose local z is the inward normal */
    const double s = sqrt(0.5);
    const loam_quatd rot[5] = {{1, 0, 0, 0}, {s, 0, s, 0}, {s, 0, -s, 0}, {s, -s, 0, 0}, {s, s, 0, 0}};
    const loam_vec3d at[5] = {{0, 0, 0}, {-HALF, 0, 0}, {HALF, 0, 0}, {0, -HALF, 0}, {0, HALF, 0}};
    for (int k = 0; k < 5; ++k) {
        g[n + k] = loam_mb_geom_default_def();
        g[n + k].body = -1;
        g[n + k].shape.type = LOAM_SHAPE_PLANE;
        g[n + k].shape.local = loam_pose_from_posed((loam_posed){at[k], rot[k]});
    }
    loam_mb_options o = opt ? *opt : loam_mb_default_options();
    if (!opt) o.dt = 2e-3;
    if (o.max_contacts < 16 * n + 64) o.max_contacts = 16 * n + 64;
    *model = loam_mb_model_create(b, n, g, n + 5, &o, err);
    loam_status st = *model ? LOAM_OK : err ? err->status : LOAM_ERR_INPUT;
    loam_free(b), loam_free(g);
    if (st == LOAM_OK && !(*state = loam_mb_state_create(*model, err))) st = err ? err->status : LOAM_ERR_NOMEM;
    if (st != LOAM_OK) {
        loam_mb_model_destroy(*model);
        *model = NULL;
        return st;
    }
    /* a lattice with a little jitter, layer by layer */
    int per_row = (int)floor((2 * HALF - 2 * R) / (2.2 * R));
    unsigned seed = 1;
    for (int i = 0; i < n; ++i) {
        int layer = i / (per_row * per_row), k = i % (per_row * per_row);
        seed = seed * 1664525u + 1013904223u;
        double jitter = 0.05 * R * ((double)(seed >> 8) / 16777216.0 - 0.5);
        double* q = (*state)->q + 7 * i;
        q[0] = -HALF + 2 * R + 2.2 * R * (k % per_row) + jitter;
        q[1] = -HALF + 2 * R + 2.2 * R * (k / per_row) - jitter;
        q[2] = R + 0.001 + 2.2 * R * layer;
    }
    return loam_mb_kinematics(*model, *state, err);
}
