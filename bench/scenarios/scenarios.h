/* The scenes of paper 004's experiments, built from the public API, shared by `loam bench multibody`
 * and the tests. Not part of libloam: CMake compiles them into the loam_scenarios library that the
 * `loam` command and the tests link (they become scene files once scenes describe multibody worlds). */
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

/* Collaborative cable manipulation (paper 004, Sec. IV-A2): two mobile manipulators (urdf/mobile_base.urdf
 * on a floating base, a NO_SLIP row at its wheel axle, velocity-controlled wheels whose rims roll on
 * the floor, a frictionless caster; the Panda welded on its arm mount, PD-controlled with gravity
 * compensation) hold the ends of a Cosserat cable (loam_mb_cable_build) by hard constraints at their
 * grippers and drive round each other, dragging the cable's middle along the floor and winding it.
 * Robot 0 starts at (0, -orbit_radius) heading +x, robot 1 opposite; their arms (joint 1 at +pi/2)
 * reach towards the centre; the cable starts hanging straight down from each gripper, lying on the
 * floor in between with a sideways bulge that takes up its slack. See docs/multibody.md. */
typedef struct mb_cable_manip_def {
    int segments;         /* cable segments, 2 to 100000; 40 */
    double cable_length;  /* m, 2 */
    double cable_radius;  /* m, (0, 0.1); 0.01 */
    double cable_density; /* kg/m^3, 1500 */
    double cable_young;   /* Pa, 1e7 (Cosserat, Poisson 0.5; bending damping 2% of E I / l per second) */
    double orbit_radius;  /* m: each base's axle-frame origin from the centre, 0.6 to 10; 0.9 */
    double orbit_rate;    /* rad/s: the bases' common angular speed about the centre (and yaw rate), |.| <= 5; 0.5 */
    double ramp;          /* s: the rate rises smoothly from 0 over this time after the hold, 0 to 100; 0.5 */
    double wheel_kd;      /* N m s/rad: wheel velocity gain (torque capped by the URDF's 20 N m), > 0; 10 */
    int grip_weld;        /* 1: each cable end is welded to its gripper (POINT + hard ANGULAR); 0: pinned (POINT, free to swivel); 0 */
} mb_cable_manip_def;

typedef struct mb_cable_manip {
    loam_mb_model* model;
    loam_mb_state* state;
    mb_cable_manip_def def;
    int segments, first_segment; /* the cable is bodies first_segment .. first_segment + segments - 1 */
    int base[2], flange[2], arm_body[2], arm_dof[2], wheel[2][2]; /* per robot: body indices, the arm's first dof */
    double q0[7];                /* the arms' pose (rad): gripper over the centre side, pointing down */
} mb_cable_manip;

mb_cable_manip_def mb_cable_manip_default_def(void);
/* opt: model options; NULL for the defaults with dt = 2 ms. Errors name the field and value. */
loam_status mb_cable_manip_create(const char* base_urdf, const char* panda_urdf, const mb_cable_manip_def* def, const loam_mb_options* opt,
                                  mb_cable_manip* out, loam_error* err);
/* The controller for the coming step of `state`: arm targets q0 with gravity compensation (tau on the
 * arm dofs only), wheel rate targets of the differential drive for the orbit, which starts after
 * `hold` seconds and ramps up over def.ramp. */
loam_status mb_cable_manip_control(const mb_cable_manip* sc, loam_mb_state* state, double hold, loam_error* err);
/* The orbit's yaw rate (rad/s) and the bases' forward speed (m/s) at time t. */
void mb_cable_manip_drive(const mb_cable_manip* sc, double t, double hold, double* rate, double* speed);
/* Base `robot`'s sideways speed at its axle middle (m/s; the no-slip row holds it at 0 at the heading
 * each step starts from) and the distance between a cable end and its grip point (m). */
double mb_cable_manip_lateral_speed(const mb_cable_manip* sc, const loam_mb_state* state, int robot);
double mb_cable_manip_grip_gap(const mb_cable_manip* sc, const loam_mb_state* state, int robot);
void mb_cable_manip_destroy(mb_cable_manip* sc);

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
