/* Multibody model: defaults, validation, the coordinate layout. See loam/multibody.h. */
#include <math.h>
#include <string.h>

#include "core/vecd.h"
#include "loam/sdf_grid.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"

int loam_joint_nq(loam_joint_type t) { return t == LOAM_JOINT_FLOATING ? 7 : t == LOAM_JOINT_FIXED ? 0 : 1; }
int loam_joint_nv(loam_joint_type t) { return t == LOAM_JOINT_FLOATING ? 6 : t == LOAM_JOINT_FIXED ? 0 : 1; }
const char* loam_joint_type_name(loam_joint_type t) {
    switch (t) {
    case LOAM_JOINT_FIXED: return "fixed";
    case LOAM_JOINT_REVOLUTE: return "revolute";
    case LOAM_JOINT_PRISMATIC: return "prismatic";
    case LOAM_JOINT_FLOATING: return "floating";
    }
    return "unknown";
}

const char* loam_mb_solver_name(loam_mb_solver s) {
    switch (s) {
    case LOAM_MB_SOLVER_PGS: return "pgs";
    case LOAM_MB_SOLVER_PJ: return "pj";
    case LOAM_MB_SOLVER_SUBADMM: return "subadmm";
    case LOAM_MB_SOLVER_FADMM: return "fadmm";
    case LOAM_MB_SOLVER_NNEWTON: return "nnewton";
    case LOAM_MB_SOLVER_PGS_CG: return "pgs_cg";
    }
    return "unknown";
}

loam_mb_options loam_mb_default_options(void) {
    loam_mb_options o;
    memset(&o, 0, sizeof o); /* fields added later (context) start at NULL/0 */
    o.gravity = d3(0.0, 0.0, -9.81);
    o.dt = 1e-3;
    o.limit_erp = 0.2;
    o.solver = LOAM_MB_SOLVER_PGS;
    o.jacobi_relaxation = 0.5;
    o.admm_beta_scale = 10.0;
    o.warm_start = 1;
    o.admm_group_soft = 1;
    o.admm_adapt = 1;
    o.admm_relaxation = 1.0; /* 1.5 is 25% faster on spheres and cables but diverges on cable_manip */
    o.admm_relaxation_rigid = 1.5; /* contacts among rigid bodies and short arms (docs/multibody.md) */
    o.admm_penalty_rigid = 5.0;
    o.admm_accel = -1;
    o.constraint_erp = 0.2;
    o.iterations = 100;
    o.tolerance = 1e-10;
    o.contact_erp = 0.2;
    o.contact_margin = 1e-3;
    o.max_contacts = 4096;
    o.threads = 0;
    return o;
}

loam_mb_body_def loam_mb_body_default_def(void) {
    loam_mb_body_def b;
    memset(&b, 0, sizeof b);
    b.parent = -1;
    b.joint = LOAM_JOINT_FIXED;
    b.placement = pd_identity();
    b.axis = d3(0, 0, 1);
    b.motion = LOAM_MB_DYNAMIC;
    b.control = LOAM_CONTROL_TORQUE;
    return b;
}

loam_mb_geom_def loam_mb_geom_default_def(void) {
    loam_mb_geom_def g;
    memset(&g, 0, sizeof g);
    g.shape.type = LOAM_SHAPE_SPHERE;
    g.shape.local = loam_pose_identity();
    g.shape.friction = 0.5f;
    g.mesh_scale = d3(1, 1, 1);
    g.contype = 1;
    g.conaffinity = 1;
    return g;
}

static int finite_pose(loam_posed p) { return d3_is_finite(p.p) && qd_is_finite(p.q) && qd_norm(p.q) > 1e-9; }

loam_status loam_mb_body_def_validate(const loam_mb_body_def* b, int i, loam_error* err) {
    if (!b) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body %d: null definition", i);
    const char* n = b->name[0] ? b->name : "(unnamed)";
#define BAD(...) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
    if (memchr(b->name, 0, sizeof b->name) == NULL || memchr(b->joint_name, 0, sizeof b->joint_name) == NULL)
        BAD("multibody: body %d: name is not NUL-terminated", i);
    if (b->parent < -1 || b->parent >= i) BAD("multibody: body %d '%s': parent %d must be -1 or an earlier body", i, n, b->parent);
    if ((unsigned)b->joint > (unsigned)LOAM_JOINT_FLOATING) BAD("multibody: body '%s': joint: unknown type %d", n, (int)b->joint);
    if ((unsigned)b->motion > (unsigned)LOAM_MB_FIXED) BAD("multibody: body '%s': motion: unknown value %d", n, (int)b->motion);
    if ((unsigned)b->control > (unsigned)LOAM_CONTROL_VELOCITY) BAD("multibody: body '%s': control: unknown value %d", n, (int)b->control);
    if (!finite_pose(b->placement)) BAD("multibody: body '%s': placement is not a finite pose with a nonzero quaternion", n);
    if (!d3_is_finite(b->axis) || (loam_joint_nv(b->joint) == 1 && !(d3_norm(b->axis) > 1e-9)))
        BAD("multibody: body '%s': axis (%g, %g, %g) is not a nonzero vector", n, b->axis.x, b->axis.y, b->axis.z);
    if (!(b->mass >= 0.0 && isfinite(b->mass))) BAD("multibody: body '%s': mass = %g kg, expected >= 0", n, b->mass);
    if (!d3_is_finite(b->com)) BAD("multibody: body '%s': com is not finite", n);
    const double* I = b->inertia;
    for (int k = 0; k < 6; ++k)
        if (!isfinite(I[k])) BAD("multibody: body '%s': inertia[%d] = %g is not finite", n, k, I[k]);
    /* Physically possible: positive semidefinite, and principal moments obey the triangle
     * inequality (checked on the diagonal, which holds for any axes). */
    double tol = 1e-12 * (fabs(I[0]) + fabs(I[1]) + fabs(I[2]));
    double m2 = I[0] * I[1] - I[3] * I[3];
    double det = I[0] * (I[1] * I[2] - I[5] * I[5]) - I[3] * (I[3] * I[2] - I[5] * I[4]) + I[4] * (I[3] * I[5] - I[1] * I[4]);
    if (I[0] < -tol || I[1] < -tol || I[2] < -tol || m2 < -tol * tol || det < -tol * tol * tol)
        BAD("multibody: body '%s': inertia (ixx %g, iyy %g, izz %g, ixy %g, ixz %g, iyz %g) is not positive semidefinite", n,
            I[0], I[1], I[2], I[3], I[4], I[5]);
    if (I[0] + I[1] < I[2] - tol || I[1] + I[2] < I[0] - tol || I[0] + I[2] < I[1] - tol)
        BAD("multibody: body '%s': inertia (ixx %g, iyy %g, izz %g) breaks the triangle inequality", n, I[0], I[1], I[2]);
    if (b->limited && loam_joint_nv(b->joint) == 1 && !(isfinite(b->lower) && isfinite(b->upper) && b->lower <= b->upper))
        BAD("multibody: body '%s': limits [%g, %g] are not an interval", n, b->lower, b->upper);
    if (b->limited && loam_joint_nv(b->joint) != 1) BAD("multibody: body '%s': limits on a %s joint", n, loam_joint_type_name(b->joint));
    if (!(b->max_velocity >= 0.0 && isfinite(b->max_velocity))) BAD("multibody: body '%s': max_velocity = %g, expected >= 0", n, b->max_velocity);
    if (!(b->max_effort >= 0.0 && isfinite(b->max_effort))) BAD("multibody: body '%s': max_effort = %g, expected >= 0", n, b->max_effort);
    if (!(b->damping >= 0.0 && isfinite(b->damping))) BAD("multibody: body '%s': damping = %g, expected >= 0", n, b->damping);
    if (!(b->kp >= 0.0 && isfinite(b->kp))) BAD("multibody: body '%s': kp = %g, expected >= 0", n, b->kp);
    if (!(b->kd >= 0.0 && isfinite(b->kd))) BAD("multibody: body '%s': kd = %g, expected >= 0", n, b->kd);
    if (b->control != LOAM_CONTROL_TORQUE && loam_joint_nv(b->joint) != 1)
        BAD("multibody: body '%s': %s control on a %s joint (only revolute and prismatic joints have actuators)", n,
            b->control == LOAM_CONTROL_POSITION ? "position" : "velocity", loam_joint_type_name(b->joint));
#undef BAD
    return LOAM_OK;
}

static loam_status check_geom(const loam_mb_geom_def* g, int i, int nbody, loam_error* err) {
    const loam_shape* sh = &g->shape;
    if (g->body < -1 || g->body >= nbody)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: body %d, expected -1 (world) to %d", i, g->body, nbody - 1);
    if (sh->type == LOAM_SHAPE_TUBE || sh->type == LOAM_SHAPE_HEIGHTFIELD)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: shape type %s is not supported by multibody collision "
                              "(plane, box, sphere, capsule, cylinder or mesh)", i, loam_shape_type_name(sh->type));
    if (sh->type != LOAM_SHAPE_PLANE && sh->type != LOAM_SHAPE_BOX && sh->type != LOAM_SHAPE_SPHERE && sh->type != LOAM_SHAPE_CAPSULE &&
        sh->type != LOAM_SHAPE_CYLINDER && sh->type != LOAM_SHAPE_MESH)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: shape type %d is not plane, box, sphere, capsule, cylinder or mesh",
                              i, (int)sh->type);
    if (sh->type == LOAM_SHAPE_PLANE && g->body != -1)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: a plane must belong to the world (body -1), not body %d", i, g->body);
    if (!(sh->friction >= 0.0f && isfinite(sh->friction)))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: friction = %g, expected >= 0", i, (double)sh->friction);
    if (!finite_pose(loam_posed_from_pose(sh->local)))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: shape pose is not finite", i);
    loam_vec3d size = d3(sh->size.x, sh->size.y, sh->size.z);
    if (!d3_is_finite(size) || size.x < 0 || size.y < 0 || size.z < 0)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: size (%g, %g, %g) must be finite and >= 0", i, size.x, size.y,
                              size.z);
    if (memchr(g->mesh, 0, sizeof g->mesh) == NULL)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: mesh name is not NUL-terminated", i);
    if (g->npoints < 0 || g->npoints > 1024 || (g->npoints > 0 && (!g->points || sh->type != LOAM_SHAPE_MESH)))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: %d surface points, expected 0 to 1024 points given for a mesh geom", i,
                              g->npoints);
    const loam_sdf_grid* grid = sh->grid;
    if (grid && sh->type != LOAM_SHAPE_MESH)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: an sdf grid is only for mesh geoms (type %s)", i,
                              loam_shape_type_name(sh->type));
    if (grid && (grid->nx < 2 || grid->ny < 2 || grid->nz < 2 || !(grid->cell > 0.0f) || !grid->values))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: geom %d: sdf grid %d x %d x %d, cell %g: expected at least 2 samples per "
                              "axis, a positive cell and values (loam_sdf_grid_build)", i, grid->nx, grid->ny, grid->nz, (double)grid->cell);
    return LOAM_OK;
}

/* The contact code's double copy of a geom (mb_internal.h), from the model's own float shape: the one
 * conversion, so every query reads the same numbers the model shows. */
static mb_geom geom_double(const loam_mb_geom_def* g) {
    const loam_shape* sh = &g->shape;
    mb_geom d;
    d.body = g->body;
    d.type = sh->type;
    d.pose = loam_posed_from_pose(sh->local);
    d.pose.q = qd_normalize(d.pose.q);
    d.size = d3(sh->size.x, sh->size.y, sh->size.z);
    d.friction = sh->friction;
    d.sdf = sh->type == LOAM_SHAPE_MESH ? sh->grid : NULL;
    d.points = g->points;
    d.npoints = g->npoints;
    d.contype = g->contype, d.conaffinity = g->conaffinity;
    return d;
}

/* The checks and the build, with a status to return early on; loam_mb_model_create hands out the model. */
static loam_status model_create(const loam_mb_body_def* bodies, int nbody, const loam_mb_geom_def* geoms, int ngeom,
                                const loam_mb_options* opt, loam_mb_model** out, loam_error* err) {
    *out = NULL;
    if (nbody < 1 || nbody > 100000 || !bodies)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: %d bodies, expected 1 to 100000", nbody);
    if (ngeom < 0 || ngeom > 1000000 || (ngeom > 0 && !geoms))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: %d geoms, expected 0 to 1000000", ngeom);
    loam_mb_options o = opt ? *opt : loam_mb_default_options();
    if (!d3_is_finite(o.gravity)) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: gravity is not finite");
    if (!(o.dt > 0.0 && o.dt <= 1.0)) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: dt = %g s, expected in (0, 1]", o.dt);
    if (!(o.limit_erp >= 0.0 && o.limit_erp <= 1.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: limit_erp = %g, expected in [0, 1]", o.limit_erp);
    if (!(o.jacobi_relaxation > 0.0 && o.jacobi_relaxation <= 1.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: jacobi_relaxation = %g, expected in (0, 1]", o.jacobi_relaxation);
    if (!(o.constraint_erp >= 0.0 && o.constraint_erp <= 1.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: constraint_erp = %g, expected in [0, 1]", o.constraint_erp);
    if (o.admm_accel < -1 || o.admm_accel > 2)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_accel = %d, expected -1, 0, 1 or 2", o.admm_accel);
    if (!(o.admm_relaxation > 0.0 && o.admm_relaxation < 2.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_relaxation = %g, expected in (0, 2)", o.admm_relaxation);
    if (!(o.admm_relaxation_rigid > 0.0 && o.admm_relaxation_rigid < 2.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_relaxation_rigid = %g, expected in (0, 2)",
                              o.admm_relaxation_rigid);
    if (!(o.admm_penalty_rigid >= 0.0 && o.admm_penalty_rigid <= 1e6))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_penalty_rigid = %g, expected in [0, 1e6]",
                              o.admm_penalty_rigid);
    if (o.admm_adapt != 0 && o.admm_adapt != 1)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_adapt = %d, expected 0 or 1", o.admm_adapt);
    if (o.admm_group_soft != 0 && o.admm_group_soft != 1)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_group_soft = %d, expected 0 or 1", o.admm_group_soft);
    if (o.warm_start != 0 && o.warm_start != 1)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: warm_start = %d, expected 0 or 1", o.warm_start);
    if (!(o.admm_beta_scale > 0.0 && o.admm_beta_scale < 1e12))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: admm_beta_scale = %g, expected in (0, 1e12)", o.admm_beta_scale);
    if ((unsigned)o.solver > (unsigned)LOAM_MB_SOLVER_PGS_CG)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: solver = %d is not a known solver", (int)o.solver);
    if (o.iterations < 1 || o.iterations > 1000000)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: iterations = %d, expected 1 to 1000000", o.iterations);
    if (!(o.tolerance >= 0.0 && isfinite(o.tolerance)))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: tolerance = %g m/s, expected >= 0", o.tolerance);
    if (!(o.contact_erp >= 0.0 && o.contact_erp <= 1.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: contact_erp = %g, expected in [0, 1]", o.contact_erp);
    if (!(o.contact_margin >= 0.0 && o.contact_margin < 1e3))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: contact_margin = %g m, expected in [0, 1000)", o.contact_margin);
    if (o.max_contacts < 0 || o.max_contacts > 10000000)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: max_contacts = %d, expected 0 to 10000000", o.max_contacts);
    if (o.threads < 0 || o.threads > 4096)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: options: threads = %d, expected 0 (the default) to 4096", o.threads);
    for (int i = 0; i < nbody; ++i) {
        loam_status st = loam_mb_body_def_validate(&bodies[i], i, err);
        if (st != LOAM_OK) return st;
        for (int j = 0; j < i; ++j)
            if (bodies[i].name[0] && strcmp(bodies[i].name, bodies[j].name) == 0)
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body %d: name '%s' is also body %d's", i, bodies[i].name, j);
    }
    for (int i = 0; i < ngeom; ++i) {
        loam_status st = check_geom(&geoms[i], i, nbody, err);
        if (st != LOAM_OK) return st;
    }
    o.context = loam_ctx_resolve(o.context); /* every block of the model and its states is in it */
    loam_mb_model* m = loam_ctx_calloc(o.context, 1, sizeof *m);
    if (!m) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory");
    m->nbody = nbody;
    m->ngeom = ngeom;
    m->opt = o;
    m->body = loam_ctx_malloc(m->opt.context, sizeof *m->body * (size_t)nbody);
    m->q_adr = loam_ctx_malloc(m->opt.context, sizeof *m->q_adr * (size_t)nbody);
    m->v_adr = loam_ctx_malloc(m->opt.context, sizeof *m->v_adr * (size_t)nbody);
    m->geom = loam_ctx_malloc(m->opt.context, sizeof *m->geom * (size_t)(ngeom > 0 ? ngeom : 1));
    m->priv = loam_ctx_malloc(m->opt.context, sizeof(mb_geom) * (size_t)(ngeom > 0 ? ngeom : 1));
    int nv = 0;
    for (int i = 0; i < nbody; ++i) nv += loam_joint_nv(bodies[i].joint);
    m->dof_body = loam_ctx_malloc(m->opt.context, sizeof *m->dof_body * (size_t)(nv > 0 ? nv : 1));
    m->body_tree = loam_ctx_malloc(m->opt.context, sizeof *m->body_tree * (size_t)nbody);
    m->tree_dofs = loam_ctx_malloc(m->opt.context, sizeof(int) * (size_t)(nv > 0 ? nv : 1));
    m->dof_local = loam_ctx_malloc(m->opt.context, sizeof(int) * (size_t)(nv > 0 ? nv : 1));
    if (!m->body_tree || !m->tree_dofs || !m->dof_local || !m->q_adr || !m->v_adr || !m->geom || !m->priv || !m->dof_body) {
        loam_mb_model_destroy(m);
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory");
    }
    memcpy(m->body, bodies, sizeof *bodies * (size_t)nbody);
    if (ngeom > 0) memcpy(m->geom, geoms, sizeof *geoms * (size_t)ngeom);
    for (int i = 0; i < nbody; ++i) {
        loam_mb_body_def* b = &m->body[i];
        b->placement.q = qd_normalize(b->placement.q);
        if (loam_joint_nv(b->joint) == 1) b->axis = d3_scale(b->axis, 1.0 / d3_norm(b->axis));
        m->body_tree[i] = b->parent < 0 ? m->ntree++ : m->body_tree[b->parent];
        m->q_adr[i] = m->nq;
        m->v_adr[i] = m->nv;
        for (int k = 0; k < loam_joint_nv(b->joint); ++k) m->dof_body[m->nv + k] = i;
        m->nq += loam_joint_nq(b->joint);
        m->nv += loam_joint_nv(b->joint);
    }
    for (int i = 0; i < ngeom; ++i) {
        loam_quat* q = &m->geom[i].shape.local.q;
        loam_quatd n = qd_normalize(qd_make(q->w, q->x, q->y, q->z));
        *q = (loam_quat){(float)n.w, (float)n.x, (float)n.y, (float)n.z};
        ((mb_geom*)m->priv)[i] = geom_double(&m->geom[i]);
    }
    /* Per-tree dof layout: the mass matrix's blocks. */
    m->tree_nv = loam_ctx_calloc(m->opt.context, (size_t)m->ntree, sizeof(int));
    m->tree_dof_adr = loam_ctx_calloc(m->opt.context, (size_t)m->ntree, sizeof(int));
    m->tree_madr = loam_ctx_calloc(m->opt.context, (size_t)m->ntree, sizeof(int));
    m->tree_self = loam_ctx_calloc(m->opt.context, (size_t)m->ntree, sizeof *m->tree_self); /* zero: LOAM_SELF_COLLISION_ALL */
    if (!m->tree_nv || !m->tree_dof_adr || !m->tree_madr || !m->tree_self) {
        loam_mb_model_destroy(m);
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory");
    }
    for (int d = 0; d < m->nv; ++d) m->tree_nv[m->body_tree[m->dof_body[d]]]++;
    for (int t = 0; t < m->ntree; ++t) {
        if ((double)m->nM + (double)m->tree_nv[t] * m->tree_nv[t] > 2e9) {
            loam_mb_model_destroy(m);
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: tree %d has %d dofs: its mass matrix block is too large", t, m->tree_nv[t]);
        }
        m->tree_madr[t] = m->nM;
        m->nM += m->tree_nv[t] * m->tree_nv[t];
        m->tree_dof_adr[t] = t > 0 ? m->tree_dof_adr[t - 1] + m->tree_nv[t - 1] : 0;
    }
    {
        int* fill = m->tree_nv; /* count again while placing */
        for (int t = 0; t < m->ntree; ++t) fill[t] = 0;
        for (int d = 0; d < m->nv; ++d) {
            int t = m->body_tree[m->dof_body[d]];
            m->dof_local[d] = fill[t];
            m->tree_dofs[m->tree_dof_adr[t] + fill[t]++] = d;
        }
    }
    *out = m;
    return LOAM_OK;
}

loam_mb_model* loam_mb_model_create(const loam_mb_body_def* bodies, int nbody, const loam_mb_geom_def* geoms, int ngeom,
                                    const loam_mb_options* opt, loam_error* err) {
    loam_mb_model* m = NULL;
    return model_create(bodies, nbody, geoms, ngeom, opt, &m, err) == LOAM_OK ? m : NULL;
}

void loam_mb_model_destroy(loam_mb_model* m) {
    if (!m) return;
    loam_free(m->body);
    loam_free(m->q_adr);
    loam_free(m->v_adr);
    loam_free(m->dof_body);
    loam_free(m->body_tree);
    loam_free(m->tree_nv);
    loam_free(m->tree_dof_adr);
    loam_free(m->tree_dofs);
    loam_free(m->dof_local);
    loam_free(m->tree_madr);
    loam_free(m->geom);
    loam_free(m->priv);
    loam_free(m->constraint);
    loam_free(m->tree_self);
    loam_free(m->exclude);
    for (int g = 0; g < m->nowned_sdf; ++g) {
        loam_sdf_grid_destroy(m->owned_sdf[g]);
        loam_free(m->owned_sdf[g]);
    }
    loam_free(m->owned_sdf);
    for (int f = 0; f < m->nfem; ++f) mb_fem_free(&m->fem[f]);
    loam_free(m->fem);
    loam_free(m);
}

loam_mb_side loam_mb_side_body(int body) { return (loam_mb_side){LOAM_MB_SIDE_BODY, body, 0}; }
loam_mb_side loam_mb_side_world(void) { return (loam_mb_side){LOAM_MB_SIDE_WORLD, -1, 0}; }
loam_mb_side loam_mb_side_fem_node(int piece, int node) { return (loam_mb_side){LOAM_MB_SIDE_FEM_NODE, piece, node}; }

loam_mb_constraint_def loam_mb_constraint_default_def(void) {
    loam_mb_constraint_def c;
    memset(&c, 0, sizeof c);
    c.type = LOAM_CONSTRAINT_POINT;
    c.side[0] = loam_mb_side_body(0), c.side[1] = loam_mb_side_world(); /* body 0 to the world, as before sides were typed */
    c.frame[0] = c.frame[1] = qd_identity();
    return c;
}

static int anisotropic_def(const loam_mb_constraint_def* c) {
    return c->axis_stiffness.x > 0 || c->axis_stiffness.y > 0 || c->axis_stiffness.z > 0 || c->axis_damping.x > 0 || c->axis_damping.y > 0 ||
           c->axis_damping.z > 0;
}

/* A constraint's two sides: each a known kind naming something the model has, side[0] not the world,
 * not one body or one FEM node twice; an FEM node takes POINT and DISTANCE, without axis stiffness.
 * The messages name the constraint, the side, its kind and the offending value. */
static loam_status side_error(const loam_mb_model* m, const loam_mb_constraint_def* c, int i, const char* n, loam_error* err) {
#define BAD(...) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
    for (int k = 0; k < 2; ++k) {
        loam_mb_side e = c->side[k];
        switch (e.kind) {
        case LOAM_MB_SIDE_WORLD:
            if (k == 0) BAD("multibody: constraint %d '%s': side[0] is the world, expected a body or an FEM node (the world goes in side[1])", i, n);
            if (e.index != -1 || e.node != 0) /* most likely a body or a node whose kind was left 0 */
                BAD("multibody: constraint %d '%s': side[1] is the world with index %d, node %d; expected -1, 0 (a body or an FEM node needs its kind)",
                    i, n, e.index, e.node);
            break;
        case LOAM_MB_SIDE_BODY:
            if (e.index < 0 || e.index >= m->nbody)
                BAD("multibody: constraint %d '%s': side[%d]: body %d out of range, the model has %d bodies", i, n, k, e.index, m->nbody);
            break;
        case LOAM_MB_SIDE_FEM_NODE:
            if (e.index < 0 || e.index >= m->nfem)
                BAD("multibody: constraint %d '%s': side[%d]: FEM piece %d out of range, the model has %d pieces", i, n, k, e.index, m->nfem);
            if (e.node < 0 || e.node >= m->fem[e.index].def.nnode)
                BAD("multibody: constraint %d '%s': side[%d]: FEM piece %d node %d out of range, the piece has %d nodes", i, n, k, e.index, e.node,
                    m->fem[e.index].def.nnode);
            if (c->type != LOAM_CONSTRAINT_POINT && c->type != LOAM_CONSTRAINT_DISTANCE)
                BAD("multibody: constraint %d '%s': side[%d] is an FEM node: it takes POINT or DISTANCE constraints only", i, n, k);
            if (anisotropic_def(c)) BAD("multibody: constraint %d '%s': side[%d] is an FEM node: axis_stiffness needs body frames", i, n, k);
            break;
        default:
            BAD("multibody: constraint %d '%s': side[%d]: unknown kind %d, expected %d (world), %d (body) or %d (FEM node)", i, n, k, e.kind,
                LOAM_MB_SIDE_WORLD, LOAM_MB_SIDE_BODY, LOAM_MB_SIDE_FEM_NODE);
        }
    }
    const loam_mb_side *a = &c->side[0], *b = &c->side[1];
    if (a->kind == LOAM_MB_SIDE_BODY && b->kind == LOAM_MB_SIDE_BODY && a->index == b->index)
        BAD("multibody: constraint %d '%s': side[0] and side[1] are both body %d", i, n, a->index);
    if (a->kind == LOAM_MB_SIDE_FEM_NODE && b->kind == LOAM_MB_SIDE_FEM_NODE && a->index == b->index && a->node == b->node)
        BAD("multibody: constraint %d '%s': side[0] and side[1] are both FEM piece %d node %d", i, n, a->index, a->node);
#undef BAD
    return LOAM_OK;
}

loam_status loam_mb_model_set_constraints(loam_mb_model* m, const loam_mb_constraint_def* defs, int count, loam_error* err) {
    if (!m || (count > 0 && !defs)) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: set constraints: null model or definitions");
    if (count < 0 || count > 1000000) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: %d constraints, expected 0 to 1000000", count);
    for (int i = 0; i < count; ++i) {
        const loam_mb_constraint_def* c = &defs[i];
        const char* n = memchr(c->name, 0, sizeof c->name) && c->name[0] ? c->name : "(unnamed)";
#define BAD(...) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
        if (c->type == LOAM_CONSTRAINT_ANGULAR && (!qd_is_finite(c->frame[0]) || !qd_is_finite(c->frame[1]) || !(qd_norm(c->frame[0]) > 1e-9) ||
                                                   !(qd_norm(c->frame[1]) > 1e-9)))
            BAD("multibody: constraint %d '%s': frame is not a finite nonzero quaternion", i, n);
        if (c->type == LOAM_CONSTRAINT_NO_SLIP && (c->stiffness != 0.0 || !qd_is_finite(c->frame[0]) || !(qd_norm(c->frame[0]) > 1e-9)))
            BAD("multibody: constraint %d '%s': a no-slip constraint is hard (stiffness 0) with a finite frame[0]", i, n);
        if ((unsigned)c->type > (unsigned)LOAM_CONSTRAINT_NO_SLIP) BAD("multibody: constraint %d '%s': type %d is unknown", i, n, (int)c->type);
        loam_status st = side_error(m, c, i, n, err);
        if (st != LOAM_OK) return st;
        if (!d3_is_finite(c->anchor[0]) || !d3_is_finite(c->anchor[1])) BAD("multibody: constraint %d '%s': an anchor is not finite", i, n);
        if (c->type == LOAM_CONSTRAINT_DISTANCE && !(c->length > 0.0 && isfinite(c->length)))
            BAD("multibody: constraint %d '%s': length = %g m, expected > 0", i, n, c->length);
        if (!(c->stiffness >= 0.0 && isfinite(c->stiffness))) BAD("multibody: constraint %d '%s': stiffness = %g N/m, expected >= 0", i, n, c->stiffness);
        if (!(c->damping >= 0.0 && isfinite(c->damping))) BAD("multibody: constraint %d '%s': damping = %g N s/m, expected >= 0", i, n, c->damping);
        if (!d3_is_finite(c->axis_stiffness) || !d3_is_finite(c->axis_damping) || c->axis_stiffness.x < 0 || c->axis_stiffness.y < 0 ||
            c->axis_stiffness.z < 0 || c->axis_damping.x < 0 || c->axis_damping.y < 0 || c->axis_damping.z < 0)
            BAD("multibody: constraint %d '%s': axis_stiffness and axis_damping must be finite and >= 0", i, n);
        int aniso = c->axis_stiffness.x > 0 || c->axis_stiffness.y > 0 || c->axis_stiffness.z > 0 || c->axis_damping.x > 0 ||
                    c->axis_damping.y > 0 || c->axis_damping.z > 0;
        if (aniso && (c->type == LOAM_CONSTRAINT_DISTANCE || c->type == LOAM_CONSTRAINT_NO_SLIP || c->stiffness != 0.0 || c->damping != 0.0))
            BAD("multibody: constraint %d '%s': axis_stiffness is for point and angular constraints, with stiffness and damping 0", i, n);
        if (aniso && ((c->axis_stiffness.x == 0 && c->axis_damping.x > 0) || (c->axis_stiffness.y == 0 && c->axis_damping.y > 0) ||
                      (c->axis_stiffness.z == 0 && c->axis_damping.z > 0)))
            BAD("multibody: constraint %d '%s': axis_damping on an axis without stiffness (a hard axis has no damper)", i, n);
        if (aniso && (!qd_is_finite(c->frame[0]) || !(qd_norm(c->frame[0]) > 1e-9)))
            BAD("multibody: constraint %d '%s': frame[0] is not a finite nonzero quaternion", i, n);
        if (c->stiffness == 0.0 && c->damping > 0.0)
            BAD("multibody: constraint %d '%s': damping %g without stiffness (a hard constraint has no damper)", i, n, c->damping);
#undef BAD
    }
    loam_mb_constraint_def* copy = NULL;
    if (count > 0) {
        copy = loam_ctx_malloc(m->opt.context, sizeof *copy * (size_t)count);
        if (!copy) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory for %d constraints", count);
        memcpy(copy, defs, sizeof *copy * (size_t)count);
    }
    loam_free(m->constraint);
    m->constraint = copy;
    m->nconstraint = count;
    return LOAM_OK;
}

int loam_mb_body_index(const loam_mb_model* m, const char* name) {
    if (!m || !name) return -1;
    for (int i = 0; i < m->nbody; ++i)
        if (strcmp(m->body[i].name, name) == 0) return i;
    return -1;
}

sinertia mb_body_inertia(const loam_mb_body_def* b) {
    const double* I = b->inertia;
    mat3d Ic = {{{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}}};
    return si_from_com(b->mass, b->com, &Ic);
}
