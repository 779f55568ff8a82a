/* loam multibody: rigid bodies and articulated trees in generalized coordinates, in double precision.
 *
 * A model (loam_mb_model) is what does not change while stepping: the tree of bodies, their joints,
 * inertias, limits, damping, actuators and collision geometry. A state (loam_mb_state) is what does:
 * joint positions q, velocities qd, applied torques and control targets, time, and the quantities
 * derived from them (body poses and twists, mass matrix). One model, many states.
 *
 * Every body hangs from its parent (or the world) by one joint. A free rigid body is a body with a
 * FLOATING joint to the world; a welded one has a FIXED joint. Bodies are numbered parents first.
 *
 * Conventions (docs/multibody.md has every parameter with its unit and default):
 * - revolute and prismatic joints: one coordinate, about/along `axis` in the joint frame (rad, m);
 * - floating joints: q = (x, y, z, qw, qx, qy, qz), the body's pose in its joint frame (for a root
 *   body: the world); qd = (vx, vy, vz, wx, wy, wz), the velocity of the body origin and the angular
 *   velocity, both in the joint frame's axes (like loam_twist);
 * - the body frame is the joint frame moved by q; com and inertia are given in the body frame. */
#ifndef LOAM_MULTIBODY_H
#define LOAM_MULTIBODY_H

#include "loam/body.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum loam_joint_type {
    LOAM_JOINT_FIXED = 0,
    LOAM_JOINT_REVOLUTE,  /* about the axis (default: the joint frame's z), rad */
    LOAM_JOINT_PRISMATIC, /* along the axis (default: the joint frame's z), m */
    LOAM_JOINT_FLOATING   /* six degrees of freedom (multibody only; chains reject it) */
} loam_joint_type;

/* Position coordinates and velocity coordinates of one joint of a type. */
LOAM_API int loam_joint_nq(loam_joint_type type);
LOAM_API int loam_joint_nv(loam_joint_type type);
LOAM_API const char* loam_joint_type_name(loam_joint_type type);

/* Who moves a body's joint. */
typedef enum loam_mb_motion {
    LOAM_MB_DYNAMIC = 0, /* by the dynamics */
    LOAM_MB_KINEMATIC,   /* by the host: the step keeps the joint velocity the host wrote into qd */
    LOAM_MB_FIXED        /* held where it is (qd = 0), whatever the joint type */
} loam_mb_motion;

/* How a joint's actuator makes its force (applied torques in state->tau are always added). */
typedef enum loam_mb_control {
    LOAM_CONTROL_TORQUE = 0, /* only state->tau (zero: a passive joint) */
    LOAM_CONTROL_POSITION,   /* kp (q_ref - q) + kd (qd_ref - qd), implicit in the step */
    LOAM_CONTROL_VELOCITY    /* kd (qd_ref - qd), implicit in the step */
} loam_mb_control;

typedef struct loam_mb_body_def {
    char name[LOAM_NAME_MAX];
    char joint_name[LOAM_NAME_MAX]; /* optional; errors and URDF round trips use it */
    int parent;                     /* an earlier body, or -1 for the world */
    loam_joint_type joint;
    loam_posed placement;           /* joint frame in the parent's body frame (world for roots) */
    loam_vec3d axis;                /* joint axis in the joint frame, normalized on create; (0, 0, 1) */
    loam_mb_motion motion;
    double mass;                    /* kg, >= 0 */
    loam_vec3d com;                 /* centre of mass in the body frame, m */
    double inertia[6];              /* about the com, body axes: ixx, iyy, izz, ixy, ixz, iyz, kg m^2 */
    int limited;                    /* 1: lower <= q <= upper is enforced (1-dof joints) */
    double lower, upper;            /* rad or m */
    double max_velocity;            /* rad/s or m/s, 0 = none (reported, used by chains) */
    double max_effort;              /* N m or N: clamp on the actuator force, 0 = none */
    double damping;                 /* N m s/rad or N s/m, >= 0, implicit */
    loam_mb_control control;
    double kp;                      /* N m/rad or N/m, >= 0 (POSITION) */
    double kd;                      /* N m s/rad or N s/m, >= 0 (POSITION, VELOCITY) */
} loam_mb_body_def;

/* Collision geometry attached to a body, or to the world (body -1): a loam_shape (loam/geom.h, in
 * float: docs/architecture.md's precision policy) plus what only multibody has. The model keeps a
 * double-precision copy of the shape for its contact code, converted once at creation. */
typedef struct loam_mb_geom_def {
    int body;               /* a body, or -1 for static world geometry */
    loam_shape shape;       /* type: PLANE (world only), BOX, SPHERE, CAPSULE, CYLINDER or MESH (not TUBE
                               or HEIGHTFIELD: rejected at model creation); local: the pose in the body
                               frame, identity; size: as loam_shape, each >= 0, 0; friction: Coulomb
                               coefficient >= 0, 0.5 (a pair uses sqrt(mu_a mu_b)); grid: MESH's signed
                               distance grid (loam/sdf_grid.h) in the geom's frame, built from the scaled
                               mesh, not owned, it must outlive the model; spheres, capsules and other
                               meshes' points collide with it, and with neither grid nor points the mesh
                               collides with nothing; NULL */
    char mesh[256];         /* MESH: the file as written in the source (URDF filename) */
    loam_vec3d mesh_scale;  /* MESH: (1, 1, 1), the source's scale (the grid and points are scaled) */
    const float* points;    /* MESH: surface points in the geom frame (3 floats each; the scaled mesh's
                               vertices, thinned), tested against planes, boxes and other meshes'
                               grids; not owned, like the grid. NULL */
    int npoints;            /* MESH: 0 to 1024, 0 */
    uint32_t contype, conaffinity; /* two geoms collide if (contype_a & conaffinity_b) or
                                      (contype_b & conaffinity_a) is nonzero (as MuJoCo); 1, 1 */
} loam_mb_geom_def;

/* What one side of a contact or a model constraint is: a body (a free body or a link of a tree), a
 * node of an FEM piece, or the world. */
typedef enum loam_mb_side_kind { LOAM_MB_SIDE_WORLD = 0, LOAM_MB_SIDE_BODY = 1, LOAM_MB_SIDE_FEM_NODE = 2 } loam_mb_side_kind;
typedef struct loam_mb_side {
    int kind;             /* loam_mb_side_kind */
    int index;            /* BODY: the body; FEM_NODE: the piece (loam_mb_model_add_fem's order); WORLD: -1 */
    int node;             /* FEM_NODE: the piece's node; 0 otherwise */
} loam_mb_side;

/* Sides spelled out: a body, the world (index -1), node `node` of FEM piece `piece`. */
LOAM_API loam_mb_side loam_mb_side_body(int body);
LOAM_API loam_mb_side loam_mb_side_world(void);
LOAM_API loam_mb_side loam_mb_side_fem_node(int piece, int node);

/* A contact between two geoms, or an FEM node and a geom: a point, a frame and a depth; its three
 * Jacobian rows (normal, two tangents) come from loam_mb_contact_jacobian and act on both sides. */
typedef struct loam_mb_contact {
    loam_mb_side side[2]; /* side[0] a body or an FEM node, side[1] a body or the world */
    int body[2];          /* each side's body, -1 where the side is not a body (an FEM node, the world) */
    int geom[2];          /* geom[0] = -1 for an FEM node */
    loam_vec3d point;     /* world, m: midway between the two surfaces */
    loam_vec3d frame[3];  /* world: the normal, pointing from body[1] towards body[0], then two tangents */
    double depth;         /* m: > 0 overlapping, <= 0 a gap within the contact margin */
    double friction;
} loam_mb_contact;

/* Constraints between two bodies (or a body and the world) besides the joints of the tree: loop
 * closures, FEM pieces glued together, cable segments. Hard (stiffness 0): an equality held by the
 * solver, with opt.constraint_erp of the drift removed per step. Soft (stiffness > 0): a spring and
 * damper on the same error, implicit in the step (paper 004 eq. 3: lambda = -kappa (J v + e^),
 * kappa = h (h k + d), e^ = k phi / (h k + d)). */
typedef enum loam_mb_constraint_type {
    LOAM_CONSTRAINT_POINT = 0, /* anchor 0 on body 0 and anchor 1 on body 1 coincide (3 rows, world axes) */
    LOAM_CONSTRAINT_DISTANCE,  /* the anchors stay `length` apart (1 row) */
    LOAM_CONSTRAINT_ANGULAR,   /* the anchor frames keep the same orientation (3 rows, world axes; with
                                  POINT: a weld); stiffness in N m/rad, damping in N m s/rad */
    LOAM_CONSTRAINT_NO_SLIP    /* non-holonomic: anchor 0 moves like body 1's point there (the world:
                                  not at all) along frame[0]'s y axis, the wheel's sideways direction
                                  (1 row, hard only: a velocity constraint has no position error) */
} loam_mb_constraint_type;

typedef struct loam_mb_constraint_def {
    char name[LOAM_NAME_MAX];
    loam_mb_constraint_type type;
    loam_mb_side side[2]; /* each endpoint, typed as contacts' are: side[0] a body or an FEM node,
                             side[1] a body, an FEM node or the world; an FEM node (POINT and DISTANCE
                             only) has no anchor. loam_mb_side_body / _fem_node / _world build them */
    loam_vec3d anchor[2]; /* m, in each body's frame (world coordinates for the world) */
    loam_quatd frame[2];  /* ANGULAR: the anchor frames' orientations in each body's frame; identity */
    double length;        /* DISTANCE: m, >= 0 (0 is not allowed: the direction would be undefined) */
    double stiffness;     /* N/m, >= 0; 0 = hard */
    double damping;       /* N s/m, >= 0 (soft constraints) */
    /* POINT, ANGULAR: per-axis stiffness and damping along the axes of anchor frame 0 (frame[0] on
     * body 0) instead of `stiffness` and `damping` (which must then be 0); an axis with stiffness 0 is
     * hard. A rod: stretch along the segment, shear across it; twist about it, bending across it.
     * (0, 0, 0) = not used. */
    loam_vec3d axis_stiffness;
    loam_vec3d axis_damping;
} loam_mb_constraint_def;

LOAM_API loam_mb_constraint_def loam_mb_constraint_default_def(void);

/* A cable (paper 004's cable subsystem) as rigid segments: `segments` capsules laid along the x axis
 * of `start`, joined end to end by a POINT constraint and a soft ANGULAR constraint each (l the
 * segment length, I = pi r^4 / 4). By default stretch and shear are rigid (a hard point) and bending
 * is isotropic, E I / l about every axis; with `cosserat` the joint has the Cosserat rod's four
 * stiffnesses per axis (stretch E A / l, shear G A / l, bending E I / l, twist G J / l). The builder
 * fills caller arrays: `segments` bodies and geoms, 2 (segments - 1) constraints; bodies get names
 * "<name>_<i>". */
typedef struct loam_mb_cable_def {
    char name[LOAM_NAME_MAX - 16]; /* room for the suffixes of the parts it makes */
    int segments;        /* >= 1, 10 */
    double length;       /* m, > 0, 1 */
    double radius;       /* m, > 0, 0.01 */
    double density;      /* kg/m^3, > 0, 1000 */
    double young;        /* Pa, > 0, 1e7 */
    double poisson;      /* in (-1, 0.5]: with cosserat, the shear modulus E / (2 (1 + nu)); 0.5 */
    int cosserat;        /* 0: rigid stretch and shear, isotropic bending E I / l (twist as stiff as
                            bending); 1: the Cosserat rod's four stiffnesses, per axis: stretch E A / l,
                            shear G A / l, bending E I / l, twist G J / l (J = 2 I). 0 */
    double damping;      /* N m s/rad at each joint between segments, >= 0, 0 */
    double friction;     /* of the capsules, >= 0, 0.5 */
    loam_posed start;    /* the first segment's start; the cable runs along this frame's x; identity */
} loam_mb_cable_def;

LOAM_API loam_mb_cable_def loam_mb_cable_default_def(void);
/* first_body: the index the first segment will have in the model (constraints refer to it). */
LOAM_API loam_status loam_mb_cable_build(const loam_mb_cable_def* def, int first_body, loam_mb_body_def* bodies, loam_mb_geom_def* geoms,
                                loam_mb_constraint_def* constraints, loam_error* err);

/* A deformable piece: co-rotational linear FEM on 4-node tetrahedra (docs/multibody.md, "FEM"). Its
 * unknowns are its nodal velocities (3 per node, world axes), one subsystem of the step:
 * (M (1 + h alpha) + (h^2 + h beta) K(R)) v+ = M v + h (f_elastic(x) + M g + f_ext), x+ = x + h v+,
 * with K(R) the element stiffnesses rotated by each element's rotation R (the rotation factor of its
 * deformation gradient), re-assembled every step. */
typedef struct loam_mb_fem_def {
    char name[LOAM_NAME_MAX];
    int nnode, ntet;
    const double* node;   /* 3 per node: rest positions in world coordinates, m; states start there */
    const int* tet;       /* 4 per tet: node indices, either orientation, non-degenerate */
    int nfixed;
    const int* fixed;     /* nfixed nodes held at their rest positions (a clamp); may be NULL if 0 */
    double young;         /* Pa, > 0, 1e6 */
    double poisson;       /* in [0, 0.5), 0.3 */
    double density;       /* kg/m^3, > 0, 1000 */
    double mass_damping;  /* Rayleigh alpha, 1/s, >= 0, 0: damping force -alpha M v */
    double stiffness_damping; /* Rayleigh beta, s, >= 0, 0: damping force -beta K(R) v */
    int lumped;           /* 1: lumped (diagonal) mass, 0: consistent mass; 1 */
    double friction;      /* Coulomb coefficient of its nodes against geoms, >= 0, 0.5 */
    uint32_t contype, conaffinity; /* against geoms' bits, as loam_mb_geom_def; 1, 1 */
} loam_mb_fem_def;

/* A piece as the model keeps it (read only). */
typedef struct loam_mb_fem {
    loam_mb_fem_def def;  /* node, tet and fixed point at the model's copies */
    int node_adr;         /* its first node in state->fem_x, fem_v, fem_f */
    double* mass;         /* nnode: nodal masses, kg (the lumped mass; the consistent mass's row sums) */
    void* priv;           /* private: element data */
} loam_mb_fem;

LOAM_API loam_mb_fem_def loam_mb_fem_default_def(void);

/* A box beam meshed into nx x ny x nz hexahedral cells of 5 or 6 tets each (6: every cell cut along
 * the same diagonal; 5: alternating cells mirrored so faces match). The beam spans [0, size.x] x
 * [-size.y/2, size.y/2] x [-size.z/2, size.z/2] in the frame `pose`. Node (i, j, k) is
 * (i (ny + 1) + j) (nz + 1) + k, i along x (so the stiffness matrix is banded). */
typedef struct loam_mb_fem_beam_def {
    int nx, ny, nz;       /* cells, >= 1; 10, 2, 2 */
    loam_vec3d size;      /* m, > 0; (1, 0.1, 0.1) */
    int tets_per_cell;    /* 5 or 6; 6 */
    loam_posed pose;      /* identity */
} loam_mb_fem_beam_def;

LOAM_API loam_mb_fem_beam_def loam_mb_fem_beam_default_def(void);
/* Node and tet counts of a beam (0, 0 for an invalid definition). */
LOAM_API void loam_mb_fem_beam_counts(const loam_mb_fem_beam_def* def, int* nnode, int* ntet);
/* Fill caller arrays: 3 per node, 4 per tet (sizes from loam_mb_fem_beam_counts). */
LOAM_API loam_status loam_mb_fem_beam_build(const loam_mb_fem_beam_def* def, double* node, int* tet, loam_error* err);

/* The half bandwidth, in unknowns, that a tet mesh's node numbering gives its piece's system:
 * 3 s + 2 with s the largest difference of two node numbers in one tet (at most 3 nnode - 1); -1
 * for an invalid mesh. A piece keeps 2 (3 nnode)(2 bw + 1) doubles and factorizes in O(nnode bw^2)
 * each step (docs/multibody.md, "FEM pieces"). */
LOAM_API int loam_mb_fem_bandwidth(int nnode, int ntet, const int* tet);
/* Renumber a tet mesh's nodes by reverse Cuthill-McKee to narrow that band, before
 * loam_mb_model_add_fem: node (3 per node), tet (4 per tet) and fixed (nfixed node numbers; may be
 * NULL if 0) are rewritten in place, the tets keeping their order and corner order; new_of_old
 * (nnode ints, may be NULL) receives each old node's new number, for the caller's own references
 * (constraints and contacts on nodes). Deterministic. Errors name the tet or fixed entry that is
 * out of range. */
LOAM_API loam_status loam_mb_fem_reorder(int nnode, int ntet, double* node, int* tet, int nfixed, int* fixed, int* new_of_old, loam_error* err);

/* Which solver resolves the step's constraints (joint limits, contacts). The paper's SubADMM and its
 * other baselines join this list. */
typedef enum loam_mb_solver {
    LOAM_MB_SOLVER_PGS = 0, /* projected Gauss-Seidel, block per contact, exact Coulomb disk */
    LOAM_MB_SOLVER_PJ,      /* projected Jacobi, relaxed by opt.jacobi_relaxation */
    LOAM_MB_SOLVER_SUBADMM, /* the paper's subsystem-based ADMM: one subsystem per tree of bodies */
    LOAM_MB_SOLVER_FADMM,   /* the same ADMM with the whole system as one subsystem (a baseline) */
    LOAM_MB_SOLVER_NNEWTON, /* nonsmooth Newton on the impulses (Alart-Curnier, dense; a baseline) */
    LOAM_MB_SOLVER_PGS_CG   /* PGS accelerated by nonsmooth nonlinear conjugate gradients (Silcowitz et
                            al. 2010): the paper's "PGS with conjugate gradient-based acceleration" */
} loam_mb_solver;
LOAM_API const char* loam_mb_solver_name(loam_mb_solver solver);

/* What the last step's constraint solve did. */
typedef struct loam_mb_solver_stats {
    int rows;        /* constraint rows */
    int iterations;  /* sweeps taken */
    double time_s;   /* wall time of the solve, s */
    double error;    /* the paper's error: Fischer-Burmeister for contacts and limits, in m/s */
} loam_mb_solver_stats;

typedef struct loam_mb_options {
    loam_vec3d gravity; /* m/s^2, (0, 0, -9.81) */
    double dt;          /* s, 1e-3 */
    double limit_erp;   /* fraction of a joint-limit violation removed per step, 0.2 */
    loam_mb_solver solver;  /* PGS */
    double jacobi_relaxation; /* PJ: fraction of each sweep's update applied, (0, 1], 0.5 */
    double admm_beta_scale;   /* SUBADMM, FADMM: multiplies the paper's beta_s = tr(A_s)/|J_s|^2 (a
                                 subsystem with an FEM piece: rank / tr(J_s A_s^-1 J_s^T), see
                                 docs/multibody.md), > 0, 10 */
    int admm_group_soft;      /* SUBADMM: 1 = trees joined by soft constraints (a cable's segments)
                                 form one subsystem, and soft constraints inside a subsystem are
                                 folded into it (paper 004 Remark 1; FADMM folds them too); 0 = one
                                 subsystem per tree, every constraint in the iteration. 1 */
    int admm_adapt;           /* SUBADMM, FADMM: 1 = residual balancing adapts each subsystem's penalty
                                 (by 2x steps every 5 iterations, in a solve's first 200 iterations;
                                 the factors carry over to the
                                 next step and travel with loam_mb_state_copy); 0 = the balanced penalty as is. 1 */
    double admm_relaxation;   /* SUBADMM, FADMM: over-relaxation alpha in (0, 2) (Boyd et al. 3.4.3) of
                                 contact and limit rows: their projection sees alpha x + (1 - alpha) z
                                 (equalities keep alpha = 1); 1 = the paper's plain iteration. 1 (1.5 needs
                                 about 25% fewer iterations on the sphere bed, stirring and cable
                                 scenes but diverges on cable_manip's grips) */
    double admm_relaxation_rigid; /* SUBADMM, FADMM: the same alpha, in (0, 2), for contact and limit
                                 rows whose subsystems all have at most 12 unknowns (free rigid bodies,
                                 short arms: no cable, FEM piece or mobile manipulator);
                                 admm_relaxation applies to the other contact and limit rows. 1.5 */
    double admm_penalty_rigid; /* SUBADMM, FADMM: > 0: a subsystem of at most 12 unknowns weighs each of
                                 its contact and limit rows with its own penalty admm_penalty_rigid / d,
                                 d = J A_s^-1 J^T the row's compliance in the subsystem (a contact's
                                 tangent pair: their mean; its normal: twice its own); 0: every row with
                                 the subsystem's beta_s (the paper's rule, which larger subsystems and
                                 equalities keep). 5 */
    int admm_accel;           /* SUBADMM, FADMM: acceleration of the iteration (docs/multibody.md): 0 none,
                                 1 Nesterov with restart (Goldstein et al. 2014), 2 Anderson with a
                                 safeguard (Zhang et al. 2019), -1 automatic: Anderson when the step has
                                 an FEM piece, none otherwise. -1 */
    double constraint_erp;    /* fraction of a hard constraint's drift removed per step, 0.2 */
    int warm_start;           /* 1: start each solve from the last step's impulses (contacts matched by
                                 geom pair and nearest point, limits by dof); 0: from zero. 1 */
    int iterations;         /* most solver iterations per step, 100 */
    double tolerance;       /* stop when no impulse changes the velocity by more than this, m/s, 1e-10 */
    double contact_erp;     /* fraction of a penetration removed per step, 0.2 */
    double contact_margin;  /* m: gaps below this become (speculative) contacts, 1e-3 */
    int max_contacts;       /* per state, 4096 */
    int threads;            /* OpenMP threads of a step's solve (SUBADMM, FADMM), 0 = the context's
                               count, and where that is 0, the default (loam_set_threads; all
                               cores); each state starts with this count
                               (loam_mb_state.threads); the bits never depend on it. 0 */
    loam_context* context;  /* where the model's and its states' memory comes from and is counted
                               (creation, growth during steps, copies, loads), and the thread count
                               of states whose count is 0 (loam/core.h); NULL = the process default
                               context. The model stores the context it resolved. NULL */
} loam_mb_options;

/* Which pairs of one robot's (one tree's) own bodies collide. A joint's parent and child never do
 * (they overlap by design at the joint). */
typedef enum loam_mb_self_collision {
    LOAM_SELF_COLLISION_ALL = 0,      /* every other pair (what a model built by hand gets) */
    LOAM_SELF_COLLISION_ADJACENT = 1, /* adjacent links excluded: bodies welded together by fixed joints
                                         count as one link, and two links joined by one moving joint do
                                         not collide (what MoveIt's setup assistant calls "adjacent";
                                         the URDF loader's default) */
    LOAM_SELF_COLLISION_OFF = 2       /* none: the tree's bodies only meet other trees and the world */
} loam_mb_self_collision;
LOAM_API const char* loam_mb_self_collision_name(loam_mb_self_collision mode);

typedef struct loam_mb_model {
    char name[LOAM_NAME_MAX];
    int nbody, nq, nv, ngeom;
    loam_mb_body_def* body; /* nbody, parents first */
    int* q_adr;             /* nbody: first position coordinate of each body's joint */
    int* v_adr;             /* nbody: first velocity coordinate */
    int* dof_body;          /* nv: the body whose joint owns each velocity coordinate */
    int ntree;              /* trees of bodies (the subsystems of the ADMM solvers) */
    int* body_tree;         /* nbody: the tree of each body, numbered by their roots' order */
    /* The mass matrix is block diagonal, one block per tree (dofs of different trees never couple). */
    int* tree_nv;           /* ntree: velocity coordinates of each tree */
    int* tree_dof_adr;      /* ntree: where each tree's dofs start in tree_dofs */
    int* tree_dofs;         /* nv: the dofs grouped by tree, ascending within a tree */
    int* dof_local;         /* nv: a dof's index within its tree */
    int* tree_madr;         /* ntree: where each tree's block starts in state->mass_matrix */
    int nM;                 /* sum of tree_nv^2: the size of state->mass_matrix */
    loam_mb_geom_def* geom; /* ngeom: as given, each shape's local quaternion normalised */
    int nconstraint;
    loam_mb_constraint_def* constraint; /* nconstraint (loam_mb_model_set_constraints) */
    int nfem, nfem_node;    /* FEM pieces (loam_mb_model_add_fem) and their nodes in all */
    loam_mb_fem* fem;       /* nfem */
    loam_mb_options opt;
    loam_mb_self_collision* tree_self; /* ntree: each tree's self-collision, ALL
                                          (loam_mb_model_set_self_collision) */
    int nexclude;           /* body pairs that never collide (an SRDF's <disable_collisions>) */
    long long* exclude;     /* nexclude keys lo * nbody + hi (lo < hi), ascending
                               (loam_mb_model_exclude_pairs) */
    int nowned_sdf;         /* grids the model owns (the URDF loader's mesh grids), freed with it */
    struct loam_sdf_grid** owned_sdf;
    void* priv;             /* private: the geoms' shapes in double for the contact code */
} loam_mb_model;

typedef struct loam_mb_state {
    int nq, nv, nbody;
    double time;     /* s */
    int64_t step;    /* steps taken */
    /* Inputs (the host writes these). */
    double* q;       /* nq */
    double* qd;      /* nv; KINEMATIC joints keep what the host writes here */
    double* tau;     /* nv: applied joint forces, N m or N */
    double* q_ref;   /* nv: position targets (1-dof joints) */
    double* qd_ref;  /* nv: velocity targets */
    double* xfrc;    /* 6 per body: world force (N) and torque (N m) at the centre of mass */
    /* Derived by loam_mb_kinematics (and by every step, at its end). */
    loam_posed* xpose; /* nbody: world pose of each body frame */
    double* xvel;      /* 6 per body: world velocity of the body origin, world angular velocity */
    /* Derived by loam_mb_step / loam_mb_mass_matrix. */
    double* mass_matrix; /* the blocks of M per tree: tree t's tree_nv[t]^2 entries at tree_madr[t],
                            row-major over the tree's dofs (see loam_mb_mass_matrix_dense) */
    double* act_force;   /* nv: actuator force of the last step (tau plus control, after clamping) */
    double* limit_impulse; /* nv: joint-limit impulse of the last step, N m s or N s */
    loam_mb_contact* contact; /* the last step's contacts (max_contacts) */
    int ncontact;
    double* contact_impulse; /* 3 per contact: normal and tangential impulses, N s */
    double* constraint_impulse; /* 3 per constraint: POINT world x, y, z (N s); ANGULAR world axes
                                   (N m s); DISTANCE and NO_SLIP the first */
    /* FEM pieces: 3 per node (model->nfem_node), piece f's nodes from model->fem[f].node_adr. */
    int nfem_node;
    double* fem_x;       /* world positions, m (inputs and outputs) */
    double* fem_v;       /* world velocities, m/s (inputs and outputs) */
    double* fem_f;       /* applied world forces, N (inputs) */
    loam_mb_solver_stats solver;
    int threads;         /* threads of this state's steps, 0 = the model's context's (then the
                            default); model->opt.threads at
                            creation, and the host may change it between steps */
    void* work;          /* private */
} loam_mb_state;

LOAM_API loam_mb_options loam_mb_default_options(void);
LOAM_API loam_mb_body_def loam_mb_body_default_def(void);
LOAM_API loam_mb_geom_def loam_mb_geom_default_def(void);

/* Check one body definition as body number `index` of a model (parent, joint, inertia, limits,
 * gains); the message names the body and the field. */
LOAM_API loam_status loam_mb_body_def_validate(const loam_mb_body_def* def, int index, loam_error* err);
/* Check and copy the definitions; NULL on failure, with the reason in err naming the body (or geom)
 * and the field. */
LOAM_API loam_mb_model* loam_mb_model_create(const loam_mb_body_def* bodies, int nbody, const loam_mb_geom_def* geoms, int ngeom,
                                             const loam_mb_options* opt, loam_error* err);
LOAM_API void loam_mb_model_destroy(loam_mb_model* model);
/* Replace the model's constraints (checked; errors name the constraint and the field). Call before
 * creating states: states made earlier do not see a changed count. */
LOAM_API loam_status loam_mb_model_set_constraints(loam_mb_model* model, const loam_mb_constraint_def* defs, int count, loam_error* err);
/* Add a deformable FEM piece (checked and copied; errors name the piece, the field and the element or
 * node). Call before creating states. The piece is model->fem[model->nfem - 1]. */
LOAM_API loam_status loam_mb_model_add_fem(loam_mb_model* model, const loam_mb_fem_def* def, loam_error* err);
/* Set the self-collision of the tree that holds `body` (any of its bodies). Errors name the body
 * and the value. */
LOAM_API loam_status loam_mb_model_set_self_collision(loam_mb_model* model, int body, loam_mb_self_collision mode, loam_error* err);
/* Add `count` body pairs (2 ints each: two distinct bodies) that never collide, whatever the trees
 * and masks (an SRDF's <disable_collisions>); repeated pairs are kept once. Call before creating
 * states. */
LOAM_API loam_status loam_mb_model_exclude_pairs(loam_mb_model* model, const int* pairs, int count, loam_error* err);
/* Whether contacts between bodies a and b (-1: the world) are skipped by the body rules: the same
 * body, a joint's parent and child, the trees' self-collision, excluded pairs. (Masks and model
 * constraints are checked by loam_mb_collide on top of this.) */
LOAM_API int loam_mb_bodies_skip(const loam_mb_model* model, int a, int b);
/* Index of the body with this name, -1 if none. */
LOAM_API int loam_mb_body_index(const loam_mb_model* model, const char* name);

/* A state at q = 0 (identity orientations, positions clamped into limits), at rest, with poses; NULL
 * on failure, with the reason in err. */
LOAM_API loam_mb_state* loam_mb_state_create(const loam_mb_model* model, loam_error* err);
LOAM_API void loam_mb_state_destroy(loam_mb_state* state);
/* Copy everything a step reads (q, qd, tau, targets, applied wrenches, time, step count) from src
 * into dst, two states of the same model, and recompute dst's poses. */
LOAM_API loam_status loam_mb_state_copy(const loam_mb_model* model, loam_mb_state* dst, const loam_mb_state* src, loam_error* err);
/* Save a state to a file (docs/state-files.md: versioned, checksummed, written to a temporary name
 * and renamed into place), and load one into a state of the same model: everything
 * loam_mb_state_copy copies, so stepping on from the loaded state gives the bits stepping on from the
 * saved one gives. Loading checks magic, version, checksum, the model's sizes and that values are
 * finite; on any error (LOAM_ERR_INPUT naming the file and field, LOAM_ERR_IO) the state is untouched. */
LOAM_API loam_status loam_mb_state_save(const loam_mb_model* model, const loam_mb_state* state, const char* path, loam_error* err);
LOAM_API loam_status loam_mb_state_load(const loam_mb_model* model, loam_mb_state* state, const char* path, loam_error* err);
LOAM_API loam_status loam_mb_state_reset(const loam_mb_model* model, loam_mb_state* state, loam_error* err);

/* Body poses and twists from q and qd (normalizes floating quaternions in q). */
LOAM_API loam_status loam_mb_kinematics(const loam_mb_model* model, loam_mb_state* state, loam_error* err);
/* The joint-space mass matrix M(q) (composite rigid bodies) into state->mass_matrix. */
LOAM_API loam_status loam_mb_mass_matrix(const loam_mb_model* model, loam_mb_state* state, loam_error* err);
/* state->mass_matrix spread into a full nv x nv row-major matrix (zeros between trees). */
LOAM_API void loam_mb_mass_matrix_dense(const loam_mb_model* model, const loam_mb_state* state, double* out);
/* tau = M(q) qdd + c(q, qd) - (gravity and state->xfrc) (recursive Newton-Euler); qdd may be NULL
 * for zero, which gives the bias forces. Control, damping and limits are not included. */
LOAM_API loam_status loam_mb_inverse_dynamics(const loam_mb_model* model, loam_mb_state* state, const double* qdd, double* tau,
                                     loam_error* err);
/* qdd = M^-1 (state->tau - bias): the continuous dynamics without control, damping or limits. */
LOAM_API loam_status loam_mb_forward_dynamics(const loam_mb_model* model, loam_mb_state* state, double* qdd, loam_error* err);
/* `steps` steps of opt.dt (0 does nothing; negative is LOAM_ERR_INPUT), the same bits as that many
 * calls of one step. Each: semi-implicit Euler with implicit damping and PD control, actuator effort
 * limits; contacts (loam_mb_collide) and joint limits as velocity-level constraints resolved by
 * opt.solver; then the poses at the new q. A non-finite result is LOAM_ERR_DIVERGED naming the step
 * and the body; the run stops at the failing step, after the steps before it. */
LOAM_API loam_status loam_mb_step(const loam_mb_model* model, loam_mb_state* state, int steps, loam_error* err);

/* The 6 x nv world Jacobian of the material point of `body` now at world position `point`: rows 0-2
 * its velocity, rows 3-5 the body's angular velocity (row-major, nv columns). */
LOAM_API loam_status loam_mb_jacobian(const loam_mb_model* model, const loam_mb_state* state, int body, loam_vec3d point, double* jac,
                             loam_error* err);

/* Contacts between the geoms at the current poses (state->contact, state->ncontact), the pairs of
 * docs/multibody.md's table (primitives, and meshes through their grids and surface points), less
 * the pairs loam_mb_bodies_skip, masks and model constraints leave out. More than max_contacts is
 * an error naming the count. */
LOAM_API loam_status loam_mb_collide(const loam_mb_model* model, loam_mb_state* state, loam_error* err);
/* The contact's 3 x nv Jacobian (rows: normal, tangent 1, tangent 2): the relative velocity of body 0's
 * material point over body 1's at the contact point, in the contact frame. An FEM node side adds
 * nothing: its velocity is the node's, not a joint dof's. */
LOAM_API loam_status loam_mb_contact_jacobian(const loam_mb_model* model, const loam_mb_state* state, const loam_mb_contact* contact,
                                     double* rows, loam_error* err);

/* Kinetic and gravitational potential energy (J), world linear momentum (kg m/s) and angular
 * momentum about the world origin (kg m^2/s), from the bodies' twists (needs loam_mb_kinematics);
 * zeros for a null or mismatched model/state. */
LOAM_API void loam_mb_energy(const loam_mb_model* model, const loam_mb_state* state, double* kinetic, double* potential);
LOAM_API void loam_mb_momentum(const loam_mb_model* model, const loam_mb_state* state, loam_vec3d* linear, loam_vec3d* angular);

#ifdef __cplusplus
}
#endif
#endif
