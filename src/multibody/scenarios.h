/* The scenes of paper 004's experiments, built from the public API, shared by the benchmark and the
 * tests (and later by `loam bench multibody`). Private. */
#ifndef LOAM_MB_SCENARIOS_H
#define LOAM_MB_SCENARIOS_H

#include "loam/multibody.h"

/* Granular stirring (paper 004, Sec. V-A): the Panda (welded at the origin, PD-controlled with
 * gravity compensation) holds a capsule stirrer pointing down into a box of spheres in front of it
 * and sweeps it by swinging joint 1. The arm's links touch the spheres only (contype/conaffinity). */
typedef struct mb_stirring {
    loam_mb_model* model;
    loam_mb_state* state;
    int nballs, first_ball;  /* the spheres are bodies first_ball .. first_ball + nballs - 1 */
    double q0[7];            /* the arm's pose: stirrer over the box centre */
    double amplitude;        /* rad, joint 1's sweep */
    double period;           /* s */
} mb_stirring;

/* opt: model options (solver, iterations, dt...); NULL for the defaults with dt = 2 ms. */
loam_status mb_stirring_create(const char* panda_urdf, int nballs, const loam_mb_options* opt, mb_stirring* out, loam_error* err);
/* The arm's targets and gravity-compensating torques for the coming step of `state` (the sweep starts
 * after `hold` seconds). */
loam_status mb_stirring_control(const mb_stirring* sc, loam_mb_state* state, double hold, loam_error* err);
void mb_stirring_destroy(mb_stirring* sc);

/* A bed of n free spheres (radius 1 cm, 2500 kg/m^3) on a lattice in a 0.2 x 0.2 m box of five
 * planes, not yet settled (settle it by stepping). */
loam_status mb_spheres_create(int n, const loam_mb_options* opt, loam_mb_model** model, loam_mb_state** state, loam_error* err);

/* A cable of n segments (2 cm each, radius 4 mm) clamped at one end 5 cm above a floor and draping
 * onto it: soft bending, hard joints and many contacts, the cable part of paper 004's scaling plot. */
loam_status mb_cable_scene_create(int n, const loam_mb_options* opt, loam_mb_model** model, loam_mb_state** state, loam_error* err);

/* FEM beam insertion (paper 004, Sec. V): the Panda (PD with gravity compensation, as in stirring)
 * holds a 2 x 2 cm FEM beam pointing down from its flange, `pieces` pieces of 5 cm (each 4 x 2 x 2
 * cells of 5 tets, E = 10 MPa) joined face to face by hard point constraints between their nodes,
 * the first piece's top face held to the flange the same way. Below the beam's tip two fixed boxes
 * leave a slot 1 mm wider than the beam; after `hold` seconds the arm lowers the flange at `speed` (resolved-rate
 * control: joint velocity targets from the flange Jacobian) and pushes the beam through the slot. */
typedef struct mb_insertion {
    loam_mb_model* model;
    loam_mb_state* state;
    int pieces, flange;
    double q0[7];
    double hold, speed;    /* s, m/s */
    double slot_top;       /* m: the slot's upper face (world z) */
    loam_posed start;      /* the flange's world pose at q0 */
} mb_insertion;

loam_status mb_insertion_create(const char* panda_urdf, int pieces, const loam_mb_options* opt, mb_insertion* out, loam_error* err);
/* The arm's targets and gravity-compensating torques for the coming step of `state`. */
loam_status mb_insertion_control(const mb_insertion* sc, loam_mb_state* state, loam_error* err);
/* The lowest beam node's height (world z, m). */
double mb_insertion_tip_z(const mb_insertion* sc, const loam_mb_state* state);
void mb_insertion_destroy(mb_insertion* sc);

#endif
