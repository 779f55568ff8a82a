/* The scenes of `loam bench multibody` (bench_multibody.h), built with the benchmark's solver
 * settings. */
#include <stdio.h>
#include <string.h>

#include "app/bench_multibody.h"

const char* const SCEN_NAMES[NSCEN] = {"spheres", "stirring", "cable", "insertion", "cable_manip"};
const loam_mb_solver SOLVERS[NSOLVER] = {LOAM_MB_SOLVER_SUBADMM, LOAM_MB_SOLVER_PGS, LOAM_MB_SOLVER_PJ,
                                         LOAM_MB_SOLVER_FADMM,   LOAM_MB_SOLVER_NNEWTON, LOAM_MB_SOLVER_PGS_CG};
const unsigned char SOLVER_COLOUR[NSOLVER][3] = {{214, 39, 40}, {31, 119, 180}, {44, 160, 44}, {148, 103, 189}, {255, 127, 14}, {23, 190, 207}};

int bench_mb_scene_make(const opts* o, int stir, int n, loam_mb_solver solver, int iterations, scene* out) {
    memset(out, 0, sizeof *out);
    out->stir = stir;
    loam_mb_options mo = loam_mb_default_options();
    mo.dt = 2e-3;
    mo.solver = solver;
    mo.iterations = iterations;
    mo.tolerance = 0.0; /* a fixed budget */
    mo.admm_beta_scale = o->beta_scale;
    mo.admm_adapt = o->adapt;
    mo.admm_relaxation = o->relaxation;
    mo.admm_relaxation_rigid = o->relaxation_rigid;
    mo.admm_penalty_rigid = o->penalty_rigid;
    mo.admm_accel = o->accel;
    loam_error err;
    loam_status st;
    if (stir == STIRRING) {
        st = mb_stirring_create(o->urdf, n, &mo, &out->sc, &err);
        out->m = out->sc.model, out->s = out->sc.state;
    } else if (stir == INSERTION) {
        st = mb_insertion_create(o->urdf, n, &mo, &out->ins, &err);
        out->m = out->ins.model, out->s = out->ins.state;
    } else if (stir == CABLE) {
        st = mb_cable_scene_create(n, &mo, &out->m, &out->s, &err);
    } else if (stir == CABLE_MANIP) {
        mb_cable_manip_def d = mb_cable_manip_default_def();
        /* segments of 2.5 cm, as the draping cable keeps its 2 cm: a longer cable, not ever lighter and
         * shorter segments (at 1.25 cm, 6 g, every solver fails the scene); n >= 60 reaches the floor */
        d.segments = n, d.cable_length = 0.025 * n;
        st = mb_cable_manip_create(o->base_urdf, o->urdf, &d, &mo, &out->cm, &err);
        out->m = out->cm.model, out->s = out->cm.state;
    } else {
        st = mb_spheres_create(n, &mo, &out->m, &out->s, &err);
    }
    if (st != LOAM_OK) fprintf(stderr, "%s: %s\n", WHO, err.message);
    return st == LOAM_OK;
}

void bench_mb_scene_free(scene* sc) {
    if (sc->stir == STIRRING) mb_stirring_destroy(&sc->sc);
    else if (sc->stir == INSERTION) mb_insertion_destroy(&sc->ins);
    else if (sc->stir == CABLE_MANIP) mb_cable_manip_destroy(&sc->cm);
    else {
        loam_mb_state_destroy(sc->s);
        loam_mb_model_destroy(sc->m);
    }
}

int bench_mb_scene_step(scene* sc, loam_error* err) {
    if (sc->stir == STIRRING && mb_stirring_control(&sc->sc, sc->s, BENCH_MB_HOLD, err) != LOAM_OK) return 0;
    if (sc->stir == INSERTION && mb_insertion_control(&sc->ins, sc->s, err) != LOAM_OK) return 0;
    if (sc->stir == CABLE_MANIP && mb_cable_manip_control(&sc->cm, sc->s, BENCH_MB_HOLD, err) != LOAM_OK) return 0;
    return loam_mb_step(sc->m, sc->s, 1, err) == LOAM_OK;
}

