/* Typed contact endpoints: what one side of a contact row is, and the three things the contact core
 * asks of it, whatever method owns it. A particle, a rigid or articulated multibody body, a soft-body
 * mass, a multibody FEM node (and to come: an MPM grid node, a learned-terrain foot) each say
 *   - the velocity of a material point of theirs (world axes, m/s),
 *   - how an impulse applied at that point changes their velocities, and
 *   - their Delassus diagonal along a direction: n^T W n, the velocity change along n per unit
 *     impulse along n (1/kg). For a particle it is its inverse mass; for a link it is the apparent
 *     inverse inertia n^T J M^-1 J^T n over its whole tree, so a light body takes most of a contact's
 *     velocity change and a heavy one little, in one solve (issue 26's coupling).
 * A solver that sweeps rows between endpoints of any kinds reads and writes them only through these
 * operations; a method's own fast kernels (granular SIMD rows, SubADMM's factored subsystems) are the
 * same operations specialised, and tests/test_endpoints.c checks every kind against the identity
 * that defines them: an impulse lambda n applied at p changes n . v(p) by lambda n^T W n.
 *
 * Precision: double at the interface (the contact problem's), whatever the owner stores. */
#ifndef LOAM_CONTACT_ENDPOINT_H
#define LOAM_CONTACT_ENDPOINT_H

#include "loam/core.h"

typedef enum loam_endpoint_kind {
    LOAM_ENDPOINT_WORLD = 0,      /* fixed: no velocity, takes any impulse, W = 0 */
    LOAM_ENDPOINT_PARTICLE,       /* a granular particle: index = its slot in the world */
    LOAM_ENDPOINT_BODY,           /* a multibody body, free or a link of a tree: index = body */
    LOAM_ENDPOINT_SOFT_MASS,      /* a soft-body mass: index = robot, sub = mass */
    LOAM_ENDPOINT_FEM_NODE,       /* a multibody FEM node: index = piece, sub = node (multibody/endpoint.c) */
    LOAM_ENDPOINT_MPM_NODE,       /* paper 003's grid node (to come) */
    LOAM_ENDPOINT_TERRAIN_FOOT,   /* paper 001's learned-terrain foot (to come) */
    LOAM_ENDPOINT_KIND_COUNT
} loam_endpoint_kind;

typedef struct loam_endpoint {
    loam_endpoint_kind kind;
    int index, sub;
} loam_endpoint;

/* One table per endpoint kind, supplied by the module that owns the kind; owner is that module's
 * object (a loam_world, a loam_softbody_pop, an mb_system). Operations assume unit n where a
 * direction is asked for. */
typedef struct loam_endpoint_ops {
    loam_endpoint_kind kind;
    void (*velocity)(const void* owner, loam_endpoint e, const double p[3], double v[3]);
    void (*apply_impulse)(void* owner, loam_endpoint e, const double p[3], const double impulse[3]);
    double (*delassus)(const void* owner, loam_endpoint e, const double p[3], const double n[3]);
} loam_endpoint_ops;

/* The world endpoint: velocity 0, impulses vanish, W = 0. */
extern const loam_endpoint_ops loam_world_endpoint_ops;

/* Row assembly, for the kinds whose owner builds the rows of a contact/cp.h problem (multibody's
 * bodies and FEM nodes; the world): the Jacobian op adds, for each of n world directions d_q, the
 * row sign d_q^T dv(p)/du over the endpoint's group of unknowns u (a tree's free dofs, an FEM
 * piece's nodal velocities) into seg[q], and the part from the unknowns its owner prescribes
 * (velocities it knows: a KINEMATIC joint's) into *offset[q], so that the row's velocity is
 * seg[q] . u + *offset[q] = sign d_q . v(p). `angular`: along the endpoint's angular velocity
 * instead (a body's; other kinds have none). A separate table from loam_endpoint_ops: only these
 * owners assemble cp.h rows (the granular rows are their own float kernels). */
typedef struct loam_endpoint_rows {
    int n;                  /* rows, 1 to 3 */
    const loam_vec3d* dir;  /* n world unit directions */
    double sign;            /* +1 for side 0, -1 for side 1: the row is side 0's velocity minus side 1's */
    int angular;
    double* seg[3];         /* row q's segment over the endpoint's group (unused where it has none) */
    double* offset[3];      /* row q's known velocity offset */
} loam_endpoint_rows;

typedef void (*loam_endpoint_jacobian_fn)(const void* owner, loam_endpoint e, const double p[3], const loam_endpoint_rows* rows);

/* The world's: no unknowns, no velocity; adds nothing. */
void loam_world_endpoint_jacobian(const void* owner, loam_endpoint e, const double p[3], const loam_endpoint_rows* rows);

#endif
