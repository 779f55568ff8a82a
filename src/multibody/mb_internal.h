/* Private to the multibody module: per-state work arrays and the joint kinematics shared with the
 * kinematic chain (src/multibody/chain.c), so there is one definition of what a joint does. */
#ifndef LOAM_MB_INTERNAL_H
#define LOAM_MB_INTERNAL_H

#include "core/spatial.h"
#include "loam/multibody.h"

typedef struct mb_work {
    sxform* X;     /* nbody: parent coordinates -> body coordinates */
    sv6* S;        /* 6 per body: motion subspace columns in body coordinates */
    sv6* cJ;       /* nbody: S-dot qd (floating joints only; zero otherwise) */
    sv6* v;        /* nbody: body spatial velocity in body coordinates */
    sv6* a;        /* nbody: RNEA accelerations */
    sv6* f;        /* nbody: RNEA forces */
    sinertia* I;   /* nbody: body inertia in body coordinates (from the model) */
    sinertia* Ic;  /* nbody: composite inertias (CRBA) */
    double* A;     /* nv x nv: the step's system matrix, then its Cholesky factor (free dofs packed) */
    double* A0;    /* nv x nv: the same system matrix, unfactored */
    int* group;    /* nv: subsystem (tree) of each packed free dof */
    double* W;     /* nv x nv: joint-limit Delassus block */
    double* b;     /* nv */
    double* x;     /* nv */
    double* tmp;   /* nv */
    double* bias;  /* nv */
    int* free_dof; /* nv: packed index of each dof among the free ones, -1 if prescribed */
    int* rows;     /* nv: scratch (saturated actuators) */
    double* Jpoint; /* 6 x nv: a point Jacobian */
    double* crow;   /* 3 x nv: a contact's rows */
    /* The constraint problem (solve/cp.h), grown to the largest row count seen. */
    int row_cap;
    double *J, *AJt, *e, *lambda, *diag; /* row_cap x nv, row_cap x nv, row_cap each */
    int* row_dof;      /* row_cap: the dof of a joint-limit row, -1 for contact rows */
    struct cp_block* blocks; /* row_cap */
} mb_work;

/* Rows for joint limits and contacts at the current free velocity w->x, solved by the model's
 * solver; w->x becomes the constrained velocity. w->A must hold the factor of the free-dof system. */
loam_status mb_solve_constraints(const loam_mb_model* m, loam_mb_state* s, loam_error* err);

/* The joint's own motion: the body frame in the joint frame for joint coordinates q. */
loam_posed mb_joint_motion(loam_joint_type type, loam_vec3d axis, const double* q);

/* Fill X, S, cJ, v, xpose and xvel from q and qd. */
void mb_kinematics(const loam_mb_model* m, loam_mb_state* s);
/* Recursive Newton-Euler with the current kinematics: tau = M qdd + c - g - xfrc (qdd may be NULL). */
void mb_rnea(const loam_mb_model* m, loam_mb_state* s, const double* qdd, double* tau);
/* Composite rigid bodies into s->mass_matrix, with the current kinematics. */
void mb_crba(const loam_mb_model* m, loam_mb_state* s);
/* The spatial inertia of a body definition in its body coordinates. */
sinertia mb_body_inertia(const loam_mb_body_def* b);

#endif
