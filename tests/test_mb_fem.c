/* Co-rotational linear FEM pieces (loam_mb_model_add_fem):
 * - a cantilever box beam (L / h = 10) clamped at one end sags under its own weight by Euler-Bernoulli's
 *   w L^4 / (8 E I) within 5% (linear tets are stiff in bending: the sag converges from below as the
 *   mesh is refined; the test prints the sequence); static equilibrium by implicit steps of 0.05 s with
 *   mass damping until the tip stops;
 * - the same beam in two pieces joined by hard point constraints between their interface nodes sags
 *   as the single piece;
 * - a free, spinning block conserves linear momentum (to round-off) and angular momentum;
 * - a block resting on a plane stays put: no drift, shallow contacts, normal impulses carry its weight;
 * - malformed definitions are rejected with messages that name the piece, the element and the field.
 * The short run (LOAM_TEST_SHORT, the sanitizer builds) steps the free and resting blocks a tenth as
 * long, the ball 0.1 s (on the block, not yet settled) and the insertion half as far (its beam
 * touches the slot): the checks of a settled ball and a full insertion are left to the Release build. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vecd.h"
#include "loam/multibody.h"
#include "scenarios.h"
#include "test_util.h"

static loam_mb_model* ground_model(loam_mb_options* o, int plane) {
    loam_mb_body_def b = loam_mb_body_default_def(); /* a model needs a body: a massless welded one */
    strcpy(b.name, "ground");
    loam_mb_geom_def g = loam_mb_geom_default_def();
    g.body = -1, g.shape.type = LOAM_SHAPE_PLANE;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, &g, plane ? 1 : 0, o, &err)) != NULL, "%s", err.message);
    return m;
}

typedef struct mesh {
    int nnode, ntet;
    double* node;
    int* tet;
} mesh;

static mesh beam_mesh(const loam_mb_fem_beam_def* bd) {
    mesh s;
    loam_error err;
    loam_mb_fem_beam_counts(bd, &s.nnode, &s.ntet);
    s.node = malloc(sizeof(double) * 3 * (size_t)s.nnode);
    s.tet = malloc(sizeof(int) * 4 * (size_t)s.ntet);
    CHECK(loam_mb_fem_beam_build(bd, s.node, s.tet, &err) == LOAM_OK, "%s", err.message);
    return s;
}

/* The nodes of a beam at x = 0 (i = 0), as a list. */
static int end_nodes(const loam_mb_fem_beam_def* bd, int i, int* out) {
    int n = 0;
    for (int j = 0; j <= bd->ny; ++j)
        for (int k = 0; k <= bd->nz; ++k) out[n++] = (i * (bd->ny + 1) + j) * (bd->nz + 1) + k;
    return n;
}

static const double L = 1.0, H = 0.1, RHO = 1000.0;
static double NU = 0.3;

/* The static sag of the beam's tip (mean z of the tip face) in `pieces` pieces, over the analytic one. */
static double cantilever(int nx, int ny, int nz, int tets, int pieces, loam_mb_solver solver) {
    double I = H * H * H * H / 12.0, w = RHO * H * H * 9.81, E = w * pow(L, 4) / (8.0 * I * 1e-3); /* a 1 mm sag */
    loam_mb_options o = loam_mb_default_options();
    o.dt = 0.05, o.solver = solver, o.iterations = 200, o.tolerance = 1e-14;
    loam_mb_model* m = ground_model(&o, 0);
    int per = nx / pieces, clamp[64], ncl = 0;
    loam_mb_constraint_def con[3 * 64];
    int ncon = 0;
    loam_error err;
    for (int pc = 0; pc < pieces; ++pc) {
        loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
        bd.nx = per, bd.ny = ny, bd.nz = nz, bd.tets_per_cell = tets, bd.size = (loam_vec3d){L / pieces, H, H};
        bd.pose.p = (loam_vec3d){pc * L / pieces, 0, 1};
        mesh s = beam_mesh(&bd);
        loam_mb_fem_def fd = loam_mb_fem_default_def();
        snprintf(fd.name, sizeof fd.name, "beam%d", pc);
        fd.nnode = s.nnode, fd.ntet = s.ntet, fd.node = s.node, fd.tet = s.tet;
        fd.young = E, fd.poisson = NU, fd.density = RHO, fd.mass_damping = 20.0;
        if (pc == 0) ncl = end_nodes(&bd, 0, clamp), fd.nfixed = ncl, fd.fixed = clamp;
        CHECK(loam_mb_model_add_fem(m, &fd, &err) == LOAM_OK, "%s", err.message);
        if (pc > 0) { /* glue: the previous piece's end face onto this piece's start face, node by node */
            int a[64], b[64], n = end_nodes(&bd, per, a);
            end_nodes(&bd, 0, b);
            for (int k = 0; k < n; ++k) {
                con[ncon] = loam_mb_constraint_default_def();
                con[ncon].side[0] = loam_mb_side_fem_node(pc - 1, a[k]);
                con[ncon].side[1] = loam_mb_side_fem_node(pc, b[k]);
                ++ncon;
            }
        }
        free(s.node), free(s.tet);
    }
    CHECK(loam_mb_model_set_constraints(m, con, ncon, &err) == LOAM_OK, "%s", err.message);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    const loam_mb_fem* last = &m->fem[m->nfem - 1];
    int tip[64], ntip = 0;
    {
        loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
        bd.nx = per, bd.ny = ny, bd.nz = nz;
        ntip = end_nodes(&bd, per, tip);
    }
    double sag = 0.0, speed = 1.0;
    int step = 0;
    for (; step < 2000 && speed > 1e-10; ++step) {
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "%s", err.message);
            break;
        }
        sag = 0.0, speed = 0.0;
        for (int k = 0; k < ntip; ++k) {
            size_t o3 = 3 * ((size_t)last->node_adr + (size_t)tip[k]);
            sag += (1.0 - s->fem_x[o3 + 2]) / ntip;
            speed = fmax(speed, fabs(s->fem_v[o3 + 2]));
        }
    }
    double expect = 1e-3;
    printf("cantilever %2d x %d x %d cells, %d tets/cell, %d piece(s), %s: tip sag %.5e m, Euler-Bernoulli %.5e m, ratio %.4f (%d steps, "
           "tip speed %.1e m/s)\n", nx, ny, nz, tets, pieces, loam_mb_solver_name(solver), sag, expect, sag / expect, step, speed);
    CHECK(speed <= 1e-10, "the beam did not come to rest: tip speed %g m/s after %d steps", speed, step);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return sag / expect;
}

/* A piece from a beam definition into model m; returns its index. */
static int add_block(loam_mb_model* m, const loam_mb_fem_beam_def* bd, double young, double damping, int lumped) {
    mesh s = beam_mesh(bd);
    loam_mb_fem_def fd = loam_mb_fem_default_def();
    strcpy(fd.name, "block");
    fd.nnode = s.nnode, fd.ntet = s.ntet, fd.node = s.node, fd.tet = s.tet;
    fd.young = young, fd.poisson = 0.3, fd.density = RHO, fd.stiffness_damping = damping, fd.lumped = lumped;
    loam_error err;
    CHECK(loam_mb_model_add_fem(m, &fd, &err) == LOAM_OK, "%s", err.message);
    free(s.node), free(s.tet);
    return m->nfem - 1;
}

static void momentum(const loam_mb_model* m, const loam_mb_state* s, int f, loam_vec3d* p, loam_vec3d* l) {
    const loam_mb_fem* pc = &m->fem[f];
    *p = (loam_vec3d){0, 0, 0}, *l = (loam_vec3d){0, 0, 0};
    for (int i = 0; i < pc->def.nnode; ++i) {
        const double *x = s->fem_x + 3 * (pc->node_adr + i), *v = s->fem_v + 3 * (pc->node_adr + i);
        double mi = pc->mass[i];
        p->x += mi * v[0], p->y += mi * v[1], p->z += mi * v[2];
        l->x += mi * (x[1] * v[2] - x[2] * v[1]), l->y += mi * (x[2] * v[0] - x[0] * v[2]), l->z += mi * (x[0] * v[1] - x[1] * v[0]);
    }
}

/* A free block, no gravity, thrown spinning about a tilted axis: it deforms as it spins. */
static void free_block(int lumped) {
    loam_mb_options o = loam_mb_default_options();
    o.gravity = (loam_vec3d){0, 0, 0};
    loam_mb_model* m = ground_model(&o, 0);
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.nx = 4, bd.ny = 2, bd.nz = 2, bd.size = (loam_vec3d){0.2, 0.1, 0.1}, bd.tets_per_cell = 5;
    add_block(m, &bd, 1e5, 0.0, lumped);
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    const double w[3] = {1.0, 4.0, 2.0}, v0[3] = {0.3, -0.2, 0.1}; /* rad/s, m/s */
    for (int i = 0; i < s->nfem_node; ++i) {
        double* x = s->fem_x + 3 * i;
        s->fem_v[3 * i] = v0[0] + w[1] * (x[2]) - w[2] * (x[1]);
        s->fem_v[3 * i + 1] = v0[1] + w[2] * (x[0] - 0.1) - w[0] * x[2];
        s->fem_v[3 * i + 2] = v0[2] + w[0] * x[1] - w[1] * (x[0] - 0.1);
    }
    loam_vec3d p0, l0, p1, l1;
    momentum(m, s, 0, &p0, &l0);
    for (int k = 0; k < test_steps(2000); ++k)
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "%s", err.message);
            break;
        }
    momentum(m, s, 0, &p1, &l1);
    double dp = sqrt(pow(p1.x - p0.x, 2) + pow(p1.y - p0.y, 2) + pow(p1.z - p0.z, 2)) / sqrt(p0.x * p0.x + p0.y * p0.y + p0.z * p0.z);
    double dl = sqrt(pow(l1.x - l0.x, 2) + pow(l1.y - l0.y, 2) + pow(l1.z - l0.z, 2)) / sqrt(l0.x * l0.x + l0.y * l0.y + l0.z * l0.z);
    /* with the consistent mass the angular momentum is sum x_a x (M v)_a, not the lumped sum: only
     * the linear momentum (the same either way: the mass rows sum to the lumped masses) is checked */
    printf("free spinning block (%s mass), 2 s: linear momentum drift %.2e, lumped angular momentum drift %.2e (relative)\n",
           lumped ? "lumped" : "consistent", dp, dl);
    CHECK(dp < 1e-10, "linear momentum changed by %g (relative)", dp);
    if (lumped) CHECK(dl < 1e-4, "angular momentum changed by %g (relative)", dl);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

/* A soft block resting on the floor: 2 s with the given solver. */
static void resting_block(loam_mb_solver solver) {
    loam_mb_options o = loam_mb_default_options();
    o.solver = solver, o.iterations = 100;
    loam_mb_model* m = ground_model(&o, 1);
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.nx = 4, bd.ny = 4, bd.nz = 2, bd.size = (loam_vec3d){0.2, 0.2, 0.1}, bd.tets_per_cell = 5;
    bd.pose.p = (loam_vec3d){-0.1, 0, 0.05};
    add_block(m, &bd, 1e6, 1e-3, 1);
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    const loam_mb_fem* f = &m->fem[0];
    double mass = 0.0;
    for (int i = 0; i < f->def.nnode; ++i) mass += f->mass[i];
    double drift = 0.0, depth = 0.0, support = 0.0;
    int steps = test_steps(2000);
    for (int k = 0; k < steps; ++k) {
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "%s", err.message);
            break;
        }
        for (int c = 0; c < s->ncontact; ++c) depth = fmax(depth, s->contact[c].depth);
        if (k == steps - 1)
            for (int c = 0; c < s->ncontact; ++c) support += s->contact_impulse[3 * c];
    }
    for (int i = 0; i < f->def.nnode; ++i)
        drift = fmax(drift, hypot(s->fem_x[3 * i] - f->def.node[3 * i], s->fem_x[3 * i + 1] - f->def.node[3 * i + 1]));
    double zmin = INFINITY;
    for (int i = 0; i < f->def.nnode; ++i) zmin = fmin(zmin, s->fem_x[3 * i + 2]);
    double ratio = support / (mass * 9.81 * o.dt);
    printf("block on the floor, %s, 2 s: sideways drift %.2e m, deepest contact %.2e m, lowest node z %.2e m, support / (m g dt) %.4f, %d contacts\n",
           loam_mb_solver_name(solver), drift, depth, zmin, ratio, s->ncontact);
    CHECK(drift < 1e-4, "the block slid by %g m", drift);
    CHECK(depth < 1e-3, "a contact %g m deep", depth);
    CHECK(fabs(ratio - 1.0) < 1e-3, "the floor carries %g of the weight", ratio);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

/* A rigid ball (a floating body) dropped onto a soft block on the floor comes to rest on the block's
 * top nodes: contact rows with one segment on the ball's tree and one on the block's nodes. */
static void ball_on_block(loam_mb_solver solver) {
    loam_mb_options o = loam_mb_default_options();
    o.solver = solver, o.iterations = 100;
    loam_mb_body_def b[2] = {loam_mb_body_default_def(), loam_mb_body_default_def()};
    strcpy(b[0].name, "ground"), strcpy(b[1].name, "ball");
    const double r = 0.05, mass = 1.0;
    b[1].joint = LOAM_JOINT_FLOATING, b[1].mass = mass;
    b[1].inertia[0] = b[1].inertia[1] = b[1].inertia[2] = 0.4 * mass * r * r;
    loam_mb_geom_def g[2] = {loam_mb_geom_default_def(), loam_mb_geom_default_def()};
    g[0].body = -1, g[0].shape.type = LOAM_SHAPE_PLANE;
    g[1].body = 1, g[1].shape.size.x = r;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, 2, g, 2, &o, &err)) != NULL, "%s", err.message);
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.nx = 6, bd.ny = 6, bd.nz = 2, bd.size = (loam_vec3d){0.2, 0.2, 0.05}, bd.tets_per_cell = 5;
    bd.pose.p = (loam_vec3d){-0.1, 0, 0.025};
    add_block(m, &bd, 1e6, 1e-3, 1);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    double top = 0.05, z0 = top + r + 0.002;
    s->q[2] = z0;
    double support = 0.0, zmin = INFINITY;
    int steps = test_short() ? 100 : 400, mixed = 0;
    for (int k = 0; k < steps; ++k) {
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "%s", err.message);
            break;
        }
        zmin = fmin(zmin, s->q[2]);
        if (k == steps - 1)
            for (int c = 0; c < s->ncontact; ++c)
                if (s->contact[c].body[1] == 1) support += s->contact_impulse[3 * c], ++mixed;
    }
    double ratio = support / (mass * 9.81 * o.dt), sink = top + r - s->q[2];
    printf("ball on a soft block, %s, 0.4 s: ball sinks %.3e m below the block's rest top (lowest %.3e m), %d node contacts carry %.4f of its weight, "
           "ball speed %.1e m/s\n", loam_mb_solver_name(solver), sink, top + r - zmin, mixed, ratio, fabs(s->qd[2]));
    CHECK(mixed > 0, "the ball does not touch the block's nodes");
    CHECK_FULL(fabs(ratio - 1.0) < 0.02, "the block's nodes carry %g of the ball's weight (%d contacts)", ratio, mixed);
    CHECK(sink > 0.0 && sink < 2e-3, "the ball rests %g m below the block's top", sink);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

/* Malformed pieces and FEM constraints: the message names the piece, the element and the field. */
static void errors(void) {
    loam_mb_options o = loam_mb_default_options();
    loam_mb_model* m = ground_model(&o, 0);
    double node[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int tet[4] = {0, 1, 2, 4}, flat[4] = {0, 1, 2, 3};
    double flat_node[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    loam_mb_fem_def fd = loam_mb_fem_default_def();
    strcpy(fd.name, "bad");
    fd.nnode = 4, fd.ntet = 1, fd.node = node, fd.tet = tet;
    loam_error err;
    CHECK(loam_mb_model_add_fem(m, &fd, &err) != LOAM_OK && strstr(err.message, "'bad': tet 0: node 3 = 4"), "%s", err.message);
    fd.tet = flat, fd.node = flat_node;
    CHECK(loam_mb_model_add_fem(m, &fd, &err) != LOAM_OK && strstr(err.message, "tet 0 is degenerate"), "%s", err.message);
    fd.node = node, fd.poisson = 0.5;
    CHECK(loam_mb_model_add_fem(m, &fd, &err) != LOAM_OK && strstr(err.message, "poisson = 0.5"), "%s", err.message);
    fd.poisson = 0.3, fd.young = -1;
    CHECK(loam_mb_model_add_fem(m, &fd, &err) != LOAM_OK && strstr(err.message, "young = -1 Pa"), "%s", err.message);
    fd.young = 1e6;
    int fixed = 7;
    fd.nfixed = 1, fd.fixed = &fixed;
    CHECK(loam_mb_model_add_fem(m, &fd, &err) != LOAM_OK && strstr(err.message, "fixed[0] = 7"), "%s", err.message);
    fd.nfixed = 0;
    loam_mb_state* early = NULL;
    CHECK((early = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    CHECK(loam_mb_model_add_fem(m, &fd, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_mb_step(m, early, 1, &err) != LOAM_OK && strstr(err.message, "the state has 0 FEM nodes, the model 4"), "%s", err.message);
    loam_mb_state_destroy(early);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    s->fem_v[5] = NAN;
    CHECK(loam_mb_step(m, s, 1, &err) != LOAM_OK && strstr(err.message, "'bad': node 1: fem_v[2] is not finite"), "%s", err.message);
    loam_mb_state_destroy(s);
    loam_mb_constraint_def c = loam_mb_constraint_default_def();
    c.side[0] = loam_mb_side_fem_node(0, 9);
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) != LOAM_OK && strstr(err.message, "side[0]: FEM piece 0 node 9 out of range"), "%s", err.message);
    c.side[0].node = 1, c.side[1] = loam_mb_side_fem_node(3, 0);
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) != LOAM_OK && strstr(err.message, "side[1]: FEM piece 3 out of range"), "%s", err.message);
    c.side[1] = loam_mb_side_fem_node(0, 1);
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) != LOAM_OK && strstr(err.message, "both FEM piece 0 node 1"), "%s", err.message);
    c.side[1] = loam_mb_side_world(), c.type = LOAM_CONSTRAINT_ANGULAR;
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) != LOAM_OK && strstr(err.message, "POINT or DISTANCE"), "%s", err.message);
    c.type = LOAM_CONSTRAINT_POINT;
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_OK, "%s", err.message);
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.tets_per_cell = 4;
    double xs[3];
    int ts[4];
    CHECK(loam_mb_fem_beam_build(&bd, xs, ts, &err) != LOAM_OK && strstr(err.message, "tets_per_cell 4"), "%s", err.message);
    loam_mb_model_destroy(m);
}

/* The insertion scene (paper 004): the arm pushes the beam 3 cm into the slot in 0.6 s; the glue holds
 * (node gaps), contacts stay shallow, nothing diverges: with PGS at 50 iterations and with SubADMM at
 * the paper's 30 (which diverged when an FEM piece's penalty came from tr(A), stiffness included).
 * With SubADMM a copy of the final state steps to the same bytes as the state itself: the adapted
 * penalty travels with loam_mb_state_copy. */
static void insertion(loam_mb_solver solver, int iterations) {
    mb_insertion sc;
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 2e-3, o.iterations = iterations, o.solver = solver;
    if (mb_insertion_create(LOAM_SOURCE_DIR "/urdf/panda.urdf", 4, &o, &sc, &err) != LOAM_OK) {
        CHECK(0, "%s", err.message);
        return;
    }
    double depth = 0.0, gap = 0.0;
    int steps = test_short() ? 150 : 300, contacts = 0; /* the short run: the beam reaches the slot */
    for (int i = 0; i < steps; ++i) {
        if (mb_insertion_control(&sc, sc.state, &err) != LOAM_OK || loam_mb_step(sc.model, sc.state, 1, &err) != LOAM_OK) {
            CHECK(0, "step %d: %s", i, err.message);
            break;
        }
        for (int c = 0; c < sc.state->ncontact; ++c) depth = fmax(depth, sc.state->contact[c].depth);
        contacts += sc.state->ncontact;
    }
    for (int c = 0; c < sc.model->nconstraint; ++c) { /* glue: node to node, or node to the flange's anchor */
        const loam_mb_constraint_def* cd = &sc.model->constraint[c];
        CHECK(cd->side[0].kind == LOAM_MB_SIDE_FEM_NODE && cd->side[1].kind != LOAM_MB_SIDE_WORLD, "glue %d is not node to node or body", c);
        const loam_mb_fem* f = &sc.model->fem[cd->side[0].index];
        const double* a = sc.state->fem_x + 3 * (f->node_adr + cd->side[0].node);
        loam_vec3d b;
        if (cd->side[1].kind == LOAM_MB_SIDE_BODY) {
            b = pd_apply(sc.state->xpose[cd->side[1].index], cd->anchor[1]);
        } else {
            const loam_mb_fem* g = &sc.model->fem[cd->side[1].index];
            const double* x = sc.state->fem_x + 3 * (g->node_adr + cd->side[1].node);
            b = (loam_vec3d){x[0], x[1], x[2]};
        }
        gap = fmax(gap, sqrt(pow(a[0] - b.x, 2) + pow(a[1] - b.y, 2) + pow(a[2] - b.z, 2)));
    }
    double tip = mb_insertion_tip_z(&sc, sc.state);
    printf("insertion, %s %d its, %d steps: tip %.4f m (slot top %.4f m), deepest contact %.2e m, %.1f contacts per step, widest glue gap %.2e m\n",
           solver == LOAM_MB_SOLVER_PGS ? "pgs" : "subadmm", iterations, steps, tip, sc.slot_top, depth, (double)contacts / steps, gap);
    CHECK_FULL(tip < sc.slot_top - 0.02, "the beam's tip is at %g m, the slot's top at %g m", tip, sc.slot_top);
    CHECK(depth < 1e-3, "a contact %g m deep", depth);
    CHECK(contacts > 0, "the beam never came near the slot's walls");
    CHECK(gap < 1e-4, "a glued node pair is %g m apart", gap);
    if (solver == LOAM_MB_SOLVER_SUBADMM) {
        loam_mb_state* d = NULL;
        err.message[0] = 0;
        int same = (d = loam_mb_state_create(sc.model, &err)) != NULL && loam_mb_state_copy(sc.model, d, sc.state, &err) == LOAM_OK;
        for (int k = 0; k < 3 && same; ++k) {
            same = mb_insertion_control(&sc, sc.state, &err) == LOAM_OK && loam_mb_step(sc.model, sc.state, 1, &err) == LOAM_OK &&
                   mb_insertion_control(&sc, d, &err) == LOAM_OK && loam_mb_step(sc.model, d, 1, &err) == LOAM_OK;
            same = same && !memcmp(d->q, sc.state->q, sizeof(double) * (size_t)sc.model->nq) &&
                   !memcmp(d->fem_x, sc.state->fem_x, sizeof(double) * 3 * (size_t)sc.model->nfem_node);
        }
        CHECK(same, "a copied state does not step like its source (%s)", err.message);
        /* the default acceleration (-1, automatic) is Anderson's on a scene with FEM pieces: a step
         * with it gives the bytes of a step with 2, and not those of a step with none */
        for (int accel = 2; accel >= 0 && same; accel -= 2) {
            int want = accel == 2;
            sc.model->opt.admm_accel = accel;
            same = mb_insertion_control(&sc, d, &err) == LOAM_OK && loam_mb_step(sc.model, d, 1, &err) == LOAM_OK;
            sc.model->opt.admm_accel = -1;
            same = same && mb_insertion_control(&sc, sc.state, &err) == LOAM_OK && loam_mb_step(sc.model, sc.state, 1, &err) == LOAM_OK;
            int equal = same && !memcmp(d->fem_x, sc.state->fem_x, sizeof(double) * 3 * (size_t)sc.model->nfem_node);
            CHECK(same && equal == want, "automatic acceleration %s acceleration %d (%s)", equal ? "matches" : "differs from", accel, err.message);
            if (same) same = loam_mb_state_copy(sc.model, d, sc.state, &err) == LOAM_OK;
        }
        loam_mb_state_destroy(d);
    }
    mb_insertion_destroy(&sc);
}

int main(int argc, char** argv) {
    if (argc == 3) { /* test_mb_fem SOLVER ITERATIONS: the insertion scene alone (its checks apply) */
        insertion((loam_mb_solver)atoi(argv[1]), atoi(argv[2]));
        TEST_MAIN_END();
    }
    if (argc == 7) { /* mesh experiments: test_mb_fem nx ny nz tets_per_cell pieces poisson (no checks) */
        NU = atof(argv[6]);
        cantilever(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), LOAM_MB_SOLVER_NNEWTON);
        cantilever(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), LOAM_MB_SOLVER_SUBADMM);
        cantilever(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), LOAM_MB_SOLVER_PGS);
        return 0;
    }
    /* Euler-Bernoulli has no Poisson coupling; with poisson > 0 the clamped face cannot contract and
     * the 3D beam is stiffer than the line model (60 x 1 x 6 cells: 0.923 at 0.3), so the check uses 0 */
    NU = 0.0;
    double coarse = cantilever(40, 1, 4, 5, 1, LOAM_MB_SOLVER_PGS), mid = cantilever(60, 1, 6, 5, 1, LOAM_MB_SOLVER_PGS);
    /* 80 x 1 x 8 cells: 1,458 nodes in one piece, 0.1 s with band-stored matrices (1.4 s and 309 MB
     * when they were dense) */
    double fine = cantilever(80, 1, 8, 5, 1, LOAM_MB_SOLVER_PGS);
    CHECK(fabs(mid - 1.0) < 0.05, "the tip sag is %.4f of Euler-Bernoulli's (60 cells)", mid);
    CHECK(fabs(fine - 1.0) < 0.02, "the tip sag is %.4f of Euler-Bernoulli's (80 cells)", fine);
    CHECK(coarse < mid && mid < fine && 1.0 - mid < 0.5 * (1.0 - coarse), "no convergence from below: %.4f, %.4f, %.4f", coarse, mid, fine);
    double six = cantilever(40, 1, 4, 6, 1, LOAM_MB_SOLVER_PGS); /* Kuhn's 6-tet cells lock more */
    CHECK(six < coarse, "6-tet cells %.4f, 5-tet cells %.4f", six, coarse);
    double two = cantilever(60, 1, 6, 5, 2, LOAM_MB_SOLVER_NNEWTON); /* two pieces, hard point constraints */
    CHECK(fabs(two - mid) < 1e-3 * mid, "two glued pieces sag %.5f, one piece %.5f", two, mid);
    free_block(1);
    free_block(0);
    resting_block(LOAM_MB_SOLVER_PGS);
    resting_block(LOAM_MB_SOLVER_SUBADMM);
    ball_on_block(LOAM_MB_SOLVER_PGS);
    ball_on_block(LOAM_MB_SOLVER_NNEWTON);
    errors();
    insertion(LOAM_MB_SOLVER_PGS, 50);
    insertion(LOAM_MB_SOLVER_SUBADMM, 30);
    TEST_MAIN_END();
}
