/* The granular stirring scene of paper 004 (see scenarios.h). Sizes: spheres of 1 cm radius in a
 * 0.24 x 0.24 m box centred 0.58 m in front of the arm, where the Panda's flange points straight down
 * at q0; the stirrer is a 1.5 cm capsule with a 0.22 m axis below the flange, its tip about 1.6 cm
 * above the floor, so it ploughs through the bottom layers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loam/urdf.h"
#include "scenarios.h"

static const double BALL_R = 0.01, BALL_RHO = 2500.0, BOX_X = 0.58, BOX_HALF = 0.12, WALL = 0.01, WALL_H = 0.15;
static const double STIR_R = 0.015, STIR_HALF = 0.11;
enum { ARM = 2, BALL = 1 }; /* collision classes: the arm meets balls only */

loam_status mb_stirring_create(const char* panda_urdf, int nballs, const loam_mb_options* opt, mb_stirring* sc, loam_error* err) {
    memset(sc, 0, sizeof *sc);
    if (nballs < 0 || nballs > 100000) return loam_error_set(err, LOAM_ERR_INPUT, "stirring: %d spheres, expected 0 to 100000", nballs);
    loam_error local;
    if (!err) err = &local; /* the status of a failed load is in err */
    loam_mb_model* arm = loam_urdf_load(panda_urdf, NULL, err);
    if (!arm) return err->status;
    int nb = arm->nbody + nballs, ng = arm->ngeom + 1 + nballs + 5;
    loam_mb_body_def* b = loam_calloc((size_t)nb, sizeof *b);
    loam_mb_geom_def* g = loam_calloc((size_t)ng, sizeof *g);
    if (!b || !g) {
        loam_free(b), loam_free(g), loam_mb_model_destroy(arm);
        return loam_error_set(err, LOAM_ERR_NOMEM, "stirring: out of memory");
    }
    memcpy(b, arm->body, sizeof *b * (size_t)arm->nbody);
    memcpy(g, arm->geom, sizeof *g * (size_t)arm->ngeom);
    int k = arm->ngeom;
    for (int i = 0; i < k; ++i) g[i].contype = ARM, g[i].conaffinity = 0;
    for (int i = 1; i <= 7; ++i) {
        b[i].control = LOAM_CONTROL_POSITION;
        b[i].kp = i <= 4 ? 600.0 : 150.0;
        b[i].kd = i <= 4 ? 40.0 : 10.0;
    }
    int flange = loam_mb_body_index(arm, "panda_link8");
    g[k] = loam_mb_geom_default_def();
    g[k].body = flange, g[k].shape.type = LOAM_SHAPE_CAPSULE, g[k].shape.size = (loam_vec3){STIR_R, 0, STIR_HALF};
    g[k].shape.local.p = (loam_vec3){0, 0, STIR_HALF}, g[k].contype = ARM, g[k].conaffinity = 0;
    ++k;
    double mass = 4.0 / 3.0 * M_PI * BALL_R * BALL_R * BALL_R * BALL_RHO;
    sc->first_ball = arm->nbody;
    for (int i = 0; i < nballs; ++i) {
        loam_mb_body_def* d = &b[arm->nbody + i];
        *d = loam_mb_body_default_def();
        snprintf(d->name, sizeof d->name, "ball%d", i);
        d->joint = LOAM_JOINT_FLOATING;
        d->mass = mass;
        d->inertia[0] = d->inertia[1] = d->inertia[2] = 0.4 * mass * BALL_R * BALL_R;
        g[k] = loam_mb_geom_default_def();
        g[k].body = arm->nbody + i, g[k].shape.size.x = BALL_R, g[k].contype = BALL, g[k].conaffinity = BALL | ARM;
        ++k;
    }
    g[k] = loam_mb_geom_default_def(); /* the floor */
    g[k].body = -1, g[k].shape.type = LOAM_SHAPE_PLANE, g[k].contype = BALL, g[k].conaffinity = BALL;
    ++k;
    for (int w = 0; w < 4; ++w, ++k) { /* walls: static boxes, so they cannot reach the arm */
        g[k] = loam_mb_geom_default_def();
        g[k].body = -1, g[k].shape.type = LOAM_SHAPE_BOX, g[k].contype = BALL, g[k].conaffinity = BALL;
        double off = BOX_HALF + WALL;
        g[k].shape.local.p = w < 2 ? (loam_vec3){BOX_X + (w ? off : -off), 0, WALL_H} : (loam_vec3){BOX_X, w == 3 ? off : -off, WALL_H};
        g[k].shape.size = w < 2 ? (loam_vec3){WALL, BOX_HALF + 2 * WALL, WALL_H} : (loam_vec3){BOX_HALF + 2 * WALL, WALL, WALL_H};
    }
    loam_mb_options o = opt ? *opt : loam_mb_default_options();
    if (!opt) o.dt = 2e-3;
    if (o.max_contacts < 16 * nballs + 256) o.max_contacts = 16 * nballs + 256;
    sc->model = loam_mb_model_create(b, nb, g, k, &o, err);
    loam_status st = sc->model ? LOAM_OK : err->status;
    loam_free(b), loam_free(g), loam_mb_model_destroy(arm);
    if (st == LOAM_OK && !(sc->state = loam_mb_state_create(sc->model, err))) st = err->status;
    if (st != LOAM_OK) {
        mb_stirring_destroy(sc);
        return st;
    }
    static const double q0[7] = {0, 0.35, 0, -2.1, 0, 2.45, 0.785};
    memcpy(sc->q0, q0, sizeof q0);
    sc->nballs = nballs;
    sc->amplitude = 0.15;
    sc->period = 1.0;
    loam_mb_state* s = sc->state;
    memcpy(s->q, q0, sizeof q0);
    memcpy(s->q_ref, q0, sizeof q0);
    /* Spheres on a lattice, layer by layer, leaving room around the stirrer (it sits over the box
     * centre); a little jitter so the bed is not a crystal. */
    int per_row = (int)floor((2 * BOX_HALF - 2 * BALL_R) / (2.2 * BALL_R)), placed = 0;
    unsigned seed = 7;
    for (int site = 0; placed < nballs; ++site) {
        int layer = site / (per_row * per_row), cell = site % (per_row * per_row);
        double x = BOX_X - BOX_HALF + 2 * BALL_R + 2.2 * BALL_R * (cell % per_row), y = -BOX_HALF + 2 * BALL_R + 2.2 * BALL_R * (cell / per_row);
        if (hypot(x - BOX_X, y) < STIR_R + 2 * BALL_R) continue;
        seed = seed * 1664525u + 1013904223u;
        double jitter = 0.05 * BALL_R * ((double)(seed >> 8) / 16777216.0 - 0.5);
        double* q = s->q + sc->model->q_adr[sc->first_ball + placed];
        q[0] = x + jitter, q[1] = y - jitter, q[2] = BALL_R + 0.0005 + 2.2 * BALL_R * layer;
        ++placed;
    }
    return loam_mb_kinematics(sc->model, s, err);
}

loam_status mb_stirring_control(const mb_stirring* sc, loam_mb_state* s, double hold, loam_error* err) {
    const loam_mb_model* m = sc->model;
    double t = s->time + m->opt.dt, phase = t > hold ? 2.0 * M_PI * (t - hold) / sc->period : 0.0; /* the target at the step's end */
    memcpy(s->q_ref, sc->q0, sizeof sc->q0);
    memset(s->qd_ref, 0, sizeof(double) * 7);
    s->q_ref[0] = sc->q0[0] + sc->amplitude * sin(phase);
    if (t > hold) s->qd_ref[0] = sc->amplitude * 2.0 * M_PI / sc->period * cos(phase); /* feed-forward: no lag */
    /* Gravity compensation: the arm's bias at zero velocity (the spheres' dofs keep tau = 0). */
    double saved[7];
    memcpy(saved, s->qd, sizeof saved);
    memset(s->qd, 0, sizeof saved);
    loam_status st = loam_mb_inverse_dynamics(m, s, NULL, s->tau, err);
    memcpy(s->qd, saved, sizeof saved);
    for (int d = 7; d < m->nv; ++d) s->tau[d] = 0.0;
    return st;
}

void mb_stirring_destroy(mb_stirring* sc) {
    loam_mb_state_destroy(sc->state);
    loam_mb_model_destroy(sc->model);
    memset(sc, 0, sizeof *sc);
}
