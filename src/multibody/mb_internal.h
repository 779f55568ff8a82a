/* Private to the multibody module: per-state work arrays and the joint kinematics shared with the
 * kinematic chain (src/multibody/chain.c), so there is one definition of what a joint does. */
#ifndef LOAM_MB_INTERNAL_H
#define LOAM_MB_INTERNAL_H

#include "collide/spatial_hash.h"
#include "contact/endpoint.h"
#include "core/context.h"
#include "core/spatial.h"
#include "loam/multibody.h"

/* A model and one of its states: the owner of multibody endpoints (endpoint.c). */
typedef struct mb_system {
    const loam_mb_model* model;
    loam_mb_state* state;
} mb_system;
/* Bodies (free or links) as contact endpoints: contact/endpoint.h. */
extern const loam_endpoint_ops loam_body_endpoint_ops;
/* FEM nodes (index = piece, sub = node) as contact endpoints: endpoint.c. */
extern const loam_endpoint_ops loam_fem_node_endpoint_ops;
/* Row assembly (contact/endpoint.h's Jacobian op) per endpoint kind, owner an mb_system: a body's
 * tree columns, an FEM node's unknowns; the other kinds add nothing. A body's op reads the step's
 * rotated columns (mb_world_columns, once per step before assembly) and the step's known
 * velocities of prescribed dofs (work x). */
extern const loam_endpoint_jacobian_fn mb_endpoint_jacobian[LOAM_ENDPOINT_KIND_COUNT];
void mb_world_columns(const loam_mb_model* m, loam_mb_state* s);

/* The typed endpoint (contact/endpoint.h) of a contact's side: a body, an FEM node (index = piece,
 * sub = node) or the world. */
static inline loam_endpoint mb_side_endpoint(loam_mb_side side) {
    switch (side.kind) {
    case LOAM_MB_SIDE_BODY: return (loam_endpoint){LOAM_ENDPOINT_BODY, side.index, 0};
    case LOAM_MB_SIDE_FEM_NODE: return (loam_endpoint){LOAM_ENDPOINT_FEM_NODE, side.index, side.node};
    default: return (loam_endpoint){LOAM_ENDPOINT_WORLD, -1, 0};
    }
}
static inline loam_mb_side mb_body_side(int body) {
    return body >= 0 ? (loam_mb_side){LOAM_MB_SIDE_BODY, body, 0} : (loam_mb_side){LOAM_MB_SIDE_WORLD, -1, 0};
}
/* The typed endpoint of a model constraint's side (loam_mb_constraint_def.side, validated by
 * loam_mb_model_set_constraints). */
static inline loam_endpoint mb_constraint_endpoint(const loam_mb_constraint_def* c, int side) { return mb_side_endpoint(c->side[side]); }
/* The body of a constraint side, -1 where it is not a body (the world, an FEM node). */
static inline int mb_constraint_body(const loam_mb_constraint_def* c, int side) {
    return c->side[side].kind == LOAM_MB_SIDE_BODY ? c->side[side].index : -1;
}

/* A geom as the contact code reads it: its loam_mb_geom_def's shape (float, the precision policy of
 * docs/architecture.md) converted to double once, at model creation (model->priv, ngeom of them), so
 * no contact query converts; the quaternion is normalised in double. */
typedef struct mb_geom {
    int body;
    loam_shape_type type;
    loam_posed pose;      /* in the body frame */
    loam_vec3d size;
    double friction;
    const struct loam_sdf_grid* sdf; /* MESH: the shape's grid, or NULL */
    const float* points;  /* MESH: surface points (npoints) */
    int npoints;
    uint32_t contype, conaffinity;
} mb_geom;
static inline const mb_geom* mb_geom_at(const loam_mb_model* m, int g) { return (const mb_geom*)m->priv + g; }

/* Where a constraint row came from: a joint limit's dof (lower or upper), a model constraint's row
 * (3 ci + q), or a contact (its three rows). Warm starts read and results go back through it. */
typedef enum mb_row_kind { MB_ROW_LIMIT_LOWER, MB_ROW_LIMIT_UPPER, MB_ROW_CONSTRAINT, MB_ROW_CONTACT } mb_row_kind;
typedef struct mb_row_origin {
    mb_row_kind kind;
    int index;
} mb_row_origin;

typedef struct mb_prev {
    long long key; /* geom0 * ngeom + geom1 */
    int order;     /* index in its step, to keep the sort stable */
    loam_vec3d point, impulse;
} mb_prev;

typedef struct mb_work {
    sxform* X;     /* nbody: parent coordinates -> body coordinates */
    sv6* S;        /* 6 per body: motion subspace columns in body coordinates */
    sv6* Sw;       /* 6 per body: the same rotated to world axes, for this step's constraint rows
                      (constraints.c: a body in many contacts rotates them once, not per contact) */
    sv6* cJ;       /* nbody: S-dot qd (floating joints only; zero otherwise) */
    sv6* v;        /* nbody: body spatial velocity in body coordinates */
    sv6* a;        /* nbody: RNEA accelerations */
    sv6* f;        /* nbody: RNEA forces */
    sinertia* I;   /* nbody: body inertia in body coordinates (from the model) */
    sinertia* Ic;  /* nbody: composite inertias (CRBA) */
    double* A;     /* nM: per tree, the Cholesky factor of the step's free-dof system (at aoff[t]) */
    double* A0;    /* nM: the same systems, unfactored */
    int* aoff;     /* ntree: where tree t's free-dof block starts in A and A0 */
    int* gfree_off; /* ntree + 1: where tree t's free dofs start in the packed order */
    double* b;     /* nv */
    double* x;     /* nv */
    double* tmp;   /* nv */
    double* bias;  /* nv */
    int* free_dof; /* nv: packed index of each dof among the free ones (tree by tree), -1 if prescribed */
    int* rows;     /* nv: scratch (saturated actuators) */
    /* The constraint problem (contact/cp.h), grown to the largest size seen. */
    int row_cap, seg_cap, val_cap;
    double *e, *lambda, *diag;   /* row_cap */
    struct mb_row_origin* row_origin; /* row_cap: where each row came from (constraints.c) */
    void* pgs_scratch;           /* cp_pgs_scratch_bytes(row_cap) */
    int* row_seg;                /* row_cap + 1 */
    struct cp_block* blocks;     /* row_cap */
    struct cp_seg* segs;         /* seg_cap */
    double *J, *AJ;              /* val_cap */
    struct cp_group* groups;     /* ntree */
    int* sub_of_tree;            /* ntree: the ADMM subsystem of each tree */
    int* uf;                     /* ntree: union-find scratch */
    struct cp_admm_work* admm;   /* the ADMM solvers' scratch, kept between steps (contact/cp.h) */
    long long* joined;           /* body pairs joined by a model constraint (lo * nbody + hi), sorted:
                                    they do not collide, like a joint's two links; made on first use */
    int njoined;
    loam_posed* gpose;           /* ngeom: world poses of the geoms during a collide call */
    int* other;                  /* the geoms that are not spheres on bodies, ascending (made on first use) */
    int nother;
    /* The warm start: the last step's contacts (geom pair, point, impulse as a world vector), sorted by
     * pair and then by their order, and the last step's limit impulses. */
    int nprev;
    struct mb_prev* prev;        /* max_contacts */
    double* prev_limit;          /* nv */
    int ncon;                    /* constraints this state was made for */
    double* prev_con;            /* 3 per constraint: the last step's impulses */
    /* Broadphase for spheres on bodies (the many-body scenes): a spatial hash over their centres. */
    int nball;                   /* sphere geoms on bodies */
    int* ball_geom;              /* nball: their geom indices, ascending */
    float *bx, *by, *bz;         /* nball: centres */
    int* cand;                   /* nball: candidates of one query */
    loam_spatial_hash hash;
    /* FEM pieces (multibody/fem.h): piece f's 3n x 3n system and its Cholesky factor at fem_aoff[f]
     * in fem_A0 and fem_A, band-stored whole (core/dense.h, ld = 2 bw + 1, bw mb_fem_bandwidth);
     * its velocities (free, then constrained) in fem_vel at 3 node_adr; its elements' rotations
     * (quaternions, each step's warm start) at 4 fem_tet_adr[f]. */
    size_t* fem_aoff;
    int* fem_tet_adr;
    double *fem_A0, *fem_A, *fem_vel, *fem_rot;
} mb_work;

/* The k-th dof of body j's joint, per unit velocity: the world velocity of the material point now at
 * `point` (on j or a descendant) and the world angular velocity. One definition for every Jacobian. */
static inline void mb_dof_column(const loam_mb_state* s, int j, int k, loam_vec3d point, loam_vec3d* lin, loam_vec3d* ang) {
    const mb_work* w = s->work;
    const sv6* c = &w->S[6 * j + k];
    loam_posed P = s->xpose[j];
    *ang = qd_rotate(P.q, c->ang);
    *lin = d3_add(qd_rotate(P.q, c->lin), d3_cross(*ang, d3_sub(point, P.p)));
}

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
