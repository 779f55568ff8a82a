/* Multibody contacts, pair by pair against analytic configurations (touching, penetrating, separated,
 * edges and corners): capsule-capsule, capsule-box, box-box, cylinder-plane and cylinder-sphere,
 * spheres and capsules against a mesh's signed distance grid; the contact Jacobian acts on both
 * bodies; and resting tests: a capsule on a box, a box on a box and a sphere on a mesh floor stay put
 * for a second (a capsule also across the box with both ends overhanging); and random clouds of
 * spheres, whose ball-ball contacts must be exactly brute force's. Every check prints what it
 * measured. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loam/multibody.h"
#include "loam/sdf_grid.h"
#include "test_util.h"

enum { MAXG = 4 };

typedef struct setup {
    loam_mb_model* m;
    loam_mb_state* s;
} setup;

/* Each geom on its own floating body (or the world with body = -1 in its def), placed by `pose`. */
static setup make(const loam_mb_geom_def* geoms, int ng, const loam_posed* pose, double dt) {
    loam_mb_body_def b[MAXG];
    loam_mb_geom_def g[MAXG];
    int nb = 0;
    for (int i = 0; i < ng; ++i) {
        g[i] = geoms[i];
        if (g[i].body < 0) {
            g[i].shape.local = loam_pose_from_posed(pose[i]);
            continue;
        }
        b[nb] = loam_mb_body_default_def();
        snprintf(b[nb].name, sizeof b[nb].name, "body%d", nb);
        b[nb].joint = LOAM_JOINT_FLOATING;
        b[nb].mass = 1.0;
        b[nb].inertia[0] = b[nb].inertia[1] = b[nb].inertia[2] = 0.01;
        g[i].body = nb++;
    }
    loam_mb_options o = loam_mb_default_options();
    o.dt = dt;
    setup st = {NULL, NULL};
    loam_error err;
    CHECK((st.m = loam_mb_model_create(b, nb, g, ng, &o, &err)) != NULL, "%s", err.message);
    if (!st.m) return st;
    CHECK((st.s = loam_mb_state_create(st.m, &err)) != NULL, "%s", err.message);
    for (int i = 0; i < ng; ++i) {
        if (g[i].body < 0) continue;
        double* q = st.s->q + st.m->q_adr[g[i].body];
        q[0] = pose[i].p.x, q[1] = pose[i].p.y, q[2] = pose[i].p.z;
        q[3] = pose[i].q.w, q[4] = pose[i].q.x, q[5] = pose[i].q.y, q[6] = pose[i].q.z;
    }
    CHECK(loam_mb_kinematics(st.m, st.s, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_mb_collide(st.m, st.s, &err) == LOAM_OK, "%s", err.message);
    return st;
}

static void release(setup* st) {
    loam_mb_state_destroy(st->s);
    loam_mb_model_destroy(st->m);
}

/* A size as a shape holds it (float, the precision policy of docs/architecture.md): the cases below
 * place their bodies from these, so the analytic depths and points hold to 1e-9 whatever the rounding. */
static double F(double x) { return (double)(float)x; }

static loam_mb_geom_def geom(int body, loam_shape_type type, double x, double y, double z) {
    loam_mb_geom_def g = loam_mb_geom_default_def();
    g.body = body, g.shape.type = type, g.shape.size = (loam_vec3){(float)x, (float)y, (float)z};
    return g;
}

static loam_posed at(double x, double y, double z) {
    loam_posed p = {{x, y, z}, {1, 0, 0, 0}};
    return p;
}

static loam_posed rotated(double x, double y, double z, double ax, double ay, double az, double angle) {
    double n = sqrt(ax * ax + ay * ay + az * az), s = sin(0.5 * angle) / n;
    loam_posed p = {{x, y, z}, {cos(0.5 * angle), ax * s, ay * s, az * s}};
    return p;
}

/* The normal as seen from geom `g` (pointing into it from the other geom). */
static loam_vec3d normal_into(const loam_mb_contact* c, int g) {
    loam_vec3d n = c->frame[0];
    if (c->geom[0] != g) n = (loam_vec3d){-n.x, -n.y, -n.z};
    return n;
}

static double dist3(loam_vec3d a, loam_vec3d b) { return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)); }

/* Expect `count` contacts, each with this depth and this normal into geom g. */
static void expect(const char* what, setup* st, int count, double depth, int g, loam_vec3d n, double tol) {
    fprintf(stderr, "%-44s %d contact(s)", what, st->s->ncontact);
    for (int i = 0; i < st->s->ncontact; ++i) {
        const loam_mb_contact* c = &st->s->contact[i];
        loam_vec3d ng = normal_into(c, g);
        fprintf(stderr, " | depth %.6f n (%.3f %.3f %.3f) at (%.4f %.4f %.4f)", c->depth, ng.x, ng.y, ng.z, c->point.x, c->point.y, c->point.z);
        CHECK(fabs(c->depth - depth) < tol, "%s: contact %d depth %.9f, expected %.9f", what, i, c->depth, depth);
        CHECK(dist3(ng, n) < 1e-6 + tol, "%s: contact %d normal (%g %g %g), expected (%g %g %g)", what, i, ng.x, ng.y, ng.z, n.x, n.y, n.z);
    }
    fputc('\n', stderr);
    CHECK(st->s->ncontact == count, "%s: %d contacts, expected %d", what, st->s->ncontact, count);
}

static int has_point(const setup* st, loam_vec3d p, double tol) {
    for (int i = 0; i < st->s->ncontact; ++i)
        if (dist3(st->s->contact[i].point, p) < tol) return 1;
    return 0;
}

static void capsule_capsule(void) {
    const double r = F(0.05), h = F(0.2);
    loam_mb_geom_def g[2] = {geom(0, LOAM_SHAPE_CAPSULE, r, 0, h), geom(0, LOAM_SHAPE_CAPSULE, r, 0, h)};
    loam_vec3d up = {0, 0, 1}, minus_x = {-1, 0, 0};
    /* crossed (a along x, b along y above it): one contact, depth 2 r - d */
    double d[3] = {2 * r - 0.02, 2 * r, 0.2}, want[3] = {0.02, 0.0, 0.0};
    int count[3] = {1, 1, 0};
    for (int k = 0; k < 3; ++k) {
        loam_posed p[2] = {rotated(0, 0, 0, 0, 1, 0, M_PI / 2), rotated(0, 0, d[k], 1, 0, 0, M_PI / 2)};
        setup st = make(g, 2, p, 1e-3);
        char what[64];
        snprintf(what, sizeof what, "capsule-capsule crossed, centres %.2f apart", d[k]);
        expect(what, &st, count[k], want[k], 1, up, 1e-9);
        if (st.s->ncontact == 1) CHECK(dist3(st.s->contact[0].point, (loam_vec3d){0, 0, 0.5 * d[k]}) < 1e-9, "point");
        release(&st);
    }
    /* parallel, b offset along x and lowered into a: both ends of the overlap [-0.1, 0.2] */
    loam_posed p[2] = {rotated(0, 0, 0, 0, 1, 0, M_PI / 2), rotated(0.1, 0, 2 * r - 0.01, 0, 1, 0, M_PI / 2)};
    setup st = make(g, 2, p, 1e-3);
    expect("capsule-capsule parallel, overlapping", &st, 2, 0.01, 1, up, 1e-9);
    CHECK(has_point(&st, (loam_vec3d){0.1 - h, 0, r - 0.005}, 1e-9) && has_point(&st, (loam_vec3d){h, 0, r - 0.005}, 1e-9),
          "parallel: ends of the overlap");
    /* the Jacobian's normal row moves the two bodies in opposite directions */
    double J[3 * 12];
    loam_error err;
    CHECK(loam_mb_contact_jacobian(st.m, st.s, &st.s->contact[0], J, &err) == LOAM_OK, "%s", err.message);
    int b0 = st.s->contact[0].body[0], b1 = st.s->contact[0].body[1];
    loam_vec3d n = st.s->contact[0].frame[0];
    double lin0 = J[st.m->v_adr[b0] + 0] * n.x + J[st.m->v_adr[b0] + 1] * n.y + J[st.m->v_adr[b0] + 2] * n.z;
    double lin1 = J[st.m->v_adr[b1] + 0] * n.x + J[st.m->v_adr[b1] + 1] * n.y + J[st.m->v_adr[b1] + 2] * n.z;
    fprintf(stderr, "capsule-capsule Jacobian normal row: body %d n.J = %.6f, body %d n.J = %.6f\n", b0, lin0, b1, lin1);
    CHECK(fabs(lin0 - 1.0) < 1e-12 && fabs(lin1 + 1.0) < 1e-12, "Jacobian rows of both sides: %g %g", lin0, lin1);
    release(&st);
    /* end to end along x: the closest ends, 0.05 apart (depth 0.05), normal along the axis */
    loam_posed q[2] = {rotated(0, 0, 0, 0, 1, 0, M_PI / 2), rotated(2 * (r + h) - 0.05, 0, 0, 0, 1, 0, M_PI / 2)};
    st = make(g, 2, q, 1e-3);
    expect("capsule-capsule end to end", &st, 1, 0.05, 0, minus_x, 1e-9);
    release(&st);
    /* skewed by 45 degrees in a horizontal plane, b above a: still one point, at the crossing */
    loam_posed w[2] = {rotated(0, 0, 0, 0, 1, 0, M_PI / 2), {{0, 0, 2 * r - 0.005}, {0, 0, 0, 0}}};
    loam_posed tilt = rotated(0, 0, 0, 0, 0, 1, M_PI / 4), lay = rotated(0, 0, 0, 0, 1, 0, M_PI / 2);
    /* compose: lay along x, then turn 45 degrees about z */
    w[1].q = (loam_quatd){tilt.q.w * lay.q.w - tilt.q.z * lay.q.z, tilt.q.w * lay.q.x - tilt.q.z * lay.q.y,
                          tilt.q.w * lay.q.y + tilt.q.z * lay.q.x, tilt.q.w * lay.q.z + tilt.q.z * lay.q.w};
    st = make(g, 2, w, 1e-3);
    expect("capsule-capsule skewed 45 degrees", &st, 1, 0.005, 1, up, 1e-9);
    release(&st);
}

static void capsule_box(void) {
    const double r = F(0.05), h = F(0.2), top = F(0.1);
    loam_mb_geom_def g[2] = {geom(-1, LOAM_SHAPE_BOX, 0.5, 0.5, 0.1), geom(0, LOAM_SHAPE_CAPSULE, r, 0, h)};
    loam_vec3d up = {0, 0, 1};
    double z[3] = {top + r - 0.01, top + r, 0.3}, want[3] = {0.01, 0.0, 0.0};
    int count[3] = {2, 2, 0};
    for (int k = 0; k < 3; ++k) { /* lying on the top face along x: its two ends */
        loam_posed p[2] = {at(0, 0, 0), rotated(0, 0, z[k], 0, 1, 0, M_PI / 2)};
        setup st = make(g, 2, p, 1e-3);
        char what[64];
        snprintf(what, sizeof what, "capsule-box lying, axis at z = %.2f", z[k]);
        expect(what, &st, count[k], want[k], 1, up, 1e-9);
        release(&st);
    }
    /* across the top edge x = 0.5, z = 0.1, sloping down at 45 degrees, the axis 0.04 from the edge:
     * one contact at the edge (neither end touches), normal along (1, 0, 1) / sqrt 2 */
    double off = 0.04, c = 0.5 + off / sqrt(2.0), zc = 0.1 + off / sqrt(2.0);
    loam_posed p[2] = {at(0, 0, 0), rotated(c, 0, zc, 0, 1, 0, -M_PI / 4)};
    setup st = make(g, 2, p, 1e-3);
    loam_vec3d diag = {sqrt(0.5), 0, sqrt(0.5)};
    expect("capsule-box across an edge", &st, 1, r - off, 1, diag, 1e-7);
    release(&st);
    /* lying across the top face along y, longer than the box is wide: both ends overhang, so the two
     * contacts are where the axis leaves the face, y = +-0.5 */
    loam_mb_geom_def lg[2] = {geom(-1, LOAM_SHAPE_BOX, 0.5, 0.5, 0.1), geom(0, LOAM_SHAPE_CAPSULE, r, 0, 0.8)};
    loam_posed lp[2] = {at(0, 0, 0), rotated(0.1, 0, 0.146, 1, 0, 0, M_PI / 2)};
    st = make(lg, 2, lp, 1e-3);
    expect("capsule-box across the face, ends overhanging", &st, 2, 0.004, 1, up, 1e-6);
    CHECK(has_point(&st, (loam_vec3d){0.1, 0.5, 0.098}, 1e-5) && has_point(&st, (loam_vec3d){0.1, -0.5, 0.098}, 1e-5),
          "overhanging capsule: contacts at the face's edges");
    release(&st);
    /* standing on its end at a corner region: one end sphere over the face */
    loam_posed s[2] = {at(0, 0, 0), at(0.45, 0.45, top + h + r - 0.003)};
    st = make(g, 2, s, 1e-3);
    expect("capsule-box standing near a corner", &st, 1, 0.003, 1, up, 1e-9);
    release(&st);
}

static void box_box(void) {
    const double t = F(0.1); /* the floor box's half height, the cube's half side */
    loam_mb_geom_def g[2] = {geom(-1, LOAM_SHAPE_BOX, 0.5, 0.5, 0.1), geom(0, LOAM_SHAPE_BOX, 0.1, 0.1, 0.1)};
    loam_vec3d up = {0, 0, 1};
    /* resting face on face: four corners */
    loam_posed p[2] = {at(0, 0, 0), at(0, 0, 2 * t - 0.01)};
    setup st = make(g, 2, p, 1e-3);
    expect("box-box face on face", &st, 4, 0.01, 1, up, 1e-9);
    CHECK(has_point(&st, (loam_vec3d){t, t, t - 0.005}, 1e-9) && has_point(&st, (loam_vec3d){-t, -t, t - 0.005}, 1e-9), "face corners");
    release(&st);
    /* turned 30 degrees about z: still the four corners */
    loam_posed q[2] = {at(0, 0, 0), rotated(0.1, 0, 2 * t, 0, 0, 1, M_PI / 6)};
    st = make(g, 2, q, 1e-3);
    expect("box-box face on face, turned 30 degrees", &st, 4, 0.0, 1, up, 1e-9);
    release(&st);
    /* overhanging the edge x = 0.5 by half: the clipped patch, x in [0.4, 0.5] */
    loam_posed o[2] = {at(0, 0, 0), at(0.5, 0, 2 * t - 0.005)};
    st = make(g, 2, o, 1e-3);
    expect("box-box overhanging an edge", &st, 4, 0.005, 1, up, 1e-9);
    CHECK(has_point(&st, (loam_vec3d){0.5, t, t - 0.0025}, 1e-9) && has_point(&st, (loam_vec3d){0.5 - t, -t, t - 0.0025}, 1e-9),
          "clipped patch");
    release(&st);
    /* on an edge (turned 45 degrees about y): the two ends of the lowest edge */
    double e = t * sqrt(2.0);
    loam_posed w[2] = {at(0, 0, 0), rotated(0, 0, t + e - 0.004, 0, 1, 0, M_PI / 4)};
    st = make(g, 2, w, 1e-3);
    expect("box-box standing on an edge", &st, 2, 0.004, 1, up, 1e-9);
    release(&st);
    /* separated */
    loam_posed sep[2] = {at(0, 0, 0), at(0, 0, 0.25)};
    st = make(g, 2, sep, 1e-3);
    expect("box-box separated by 0.05", &st, 0, 0.0, 1, up, 1e-9);
    release(&st);
    /* edge across edge: cube a turned 45 degrees about x (its top edge along x), cube b turned 45
     * degrees about y (its bottom edge along y) above it: one point, depth 2 sqrt(2) 0.1 - gap */
    loam_mb_geom_def c[2] = {geom(0, LOAM_SHAPE_BOX, 0.1, 0.1, 0.1), geom(0, LOAM_SHAPE_BOX, 0.1, 0.1, 0.1)};
    loam_posed x[2] = {rotated(0, 0, 0, 1, 0, 0, M_PI / 4), rotated(0, 0, 2 * e - 0.006, 0, 1, 0, M_PI / 4)};
    st = make(c, 2, x, 1e-3);
    expect("box-box edge across edge", &st, 1, 0.006, 1, up, 1e-9);
    if (st.s->ncontact == 1) CHECK(dist3(st.s->contact[0].point, (loam_vec3d){0, 0, e - 0.003}) < 1e-9, "edge-edge point");
    release(&st);
}

static void cylinder(void) {
    const double r = F(0.05), h = F(0.1), rs = F(0.02);
    loam_mb_geom_def g[2] = {geom(-1, LOAM_SHAPE_PLANE, 0, 0, 0), geom(0, LOAM_SHAPE_CYLINDER, r, 0, h)};
    loam_vec3d up = {0, 0, 1};
    loam_posed p[2] = {at(0, 0, 0), at(0, 0, h - 0.002)};
    setup st = make(g, 2, p, 1e-3);
    expect("cylinder standing on a plane", &st, 4, 0.002, 1, up, 1e-9);
    release(&st);
    loam_posed q[2] = {at(0, 0, 0), rotated(0, 0, r - 0.003, 1, 0, 0, M_PI / 2)};
    st = make(g, 2, q, 1e-3);
    expect("cylinder lying on a plane", &st, 2, 0.003, 1, up, 1e-9);
    release(&st);
    /* a sphere on the cap, and against the side */
    loam_mb_geom_def s[2] = {geom(0, LOAM_SHAPE_CYLINDER, r, 0, h), geom(0, LOAM_SHAPE_SPHERE, 0.02, 0, 0)};
    loam_posed a[2] = {at(0, 0, 0), at(0.01, 0.01, h + rs - 0.005)};
    st = make(s, 2, a, 1e-3);
    expect("sphere on a cylinder's cap", &st, 1, 0.005, 1, up, 1e-9);
    release(&st);
    loam_posed b[2] = {at(0, 0, 0), at(0, r + rs - 0.001, 0.03)};
    st = make(s, 2, b, 1e-3);
    expect("sphere against a cylinder's side", &st, 1, 0.001, 1, (loam_vec3d){0, 1, 0}, 1e-9);
    release(&st);
}

/* A box as a closed triangle mesh (counter-clockwise seen from outside), half extents hx, hy, hz. */
static void box_mesh(double hx, double hy, double hz, loam_mesh* mesh, float* v, int32_t* t) {
    for (int i = 0; i < 8; ++i) v[3 * i] = (float)(i & 1 ? hx : -hx), v[3 * i + 1] = (float)(i & 2 ? hy : -hy), v[3 * i + 2] = (float)(i & 4 ? hz : -hz);
    static const int32_t tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    memcpy(t, tri, sizeof tri);
    mesh->vertex_count = 8, mesh->triangle_count = 12, mesh->vertices = v, mesh->triangles = t;
}

static void sdf(void) {
    loam_mesh mesh;
    float v[24];
    int32_t t[36];
    box_mesh(0.5, 0.5, 0.05, &mesh, v, t);
    loam_sdf_grid grid;
    loam_error err;
    CHECK(loam_sdf_grid_build(&mesh, 0.02f, 0.1f, &grid, &err) == LOAM_OK, "%s", err.message);
    loam_mb_geom_def g[2] = {geom(-1, LOAM_SHAPE_MESH, 0, 0, 0), geom(0, LOAM_SHAPE_SPHERE, 0.05, 0, 0)};
    g[0].shape.grid = &grid;
    loam_vec3d up = {0, 0, 1};
    double z[3] = {0.09, 0.1, 0.3}, want[3] = {0.01, 0.0, 0.0};
    int count[3] = {1, 1, 0};
    for (int k = 0; k < 3; ++k) {
        loam_posed p[2] = {at(0, 0, 0), at(0.013, -0.027, z[k])};
        setup st = make(g, 2, p, 1e-3);
        char what[64];
        snprintf(what, sizeof what, "sphere-mesh SDF floor, centre at z = %.2f", z[k]);
        expect(what, &st, count[k], want[k], 1, up, 1e-5); /* float grid */
        release(&st);
    }
    /* the floor turned and moved: the grid follows the geom's frame */
    loam_posed tp[2] = {rotated(1, 2, 0, 1, 0, 0, -M_PI / 2), at(1, 2.09, 0.0)};
    setup st = make(g, 2, tp, 1e-3);
    expect("sphere-mesh SDF, floor turned to face +y", &st, 1, 0.01, 1, (loam_vec3d){0, 1, 0}, 1e-5);
    release(&st);
    /* a capsule lying on it: its two ends; across its edge at 45 degrees: the sample nearest the edge */
    loam_mb_geom_def c[2] = {geom(-1, LOAM_SHAPE_MESH, 0, 0, 0), geom(0, LOAM_SHAPE_CAPSULE, 0.03, 0, 0.2)};
    c[0].shape.grid = &grid;
    loam_posed cp[2] = {at(0, 0, 0), rotated(0, 0, 0.078, 0, 1, 0, M_PI / 2)};
    st = make(c, 2, cp, 1e-3);
    expect("capsule lying on a mesh SDF floor", &st, 2, 0.002, 1, up, 1e-5);
    release(&st);
    double off = 0.02, cx = 0.5 + off / sqrt(2.0), cz = 0.05 + off / sqrt(2.0);
    loam_posed ce[2] = {at(0, 0, 0), rotated(cx, 0, cz, 0, 1, 0, -M_PI / 4)};
    st = make(c, 2, ce, 1e-3);
    /* the grid rounds the edge within about a cell: the depth is checked loosely, the count exactly */
    fprintf(stderr, "capsule across a mesh SDF edge: %d contact(s)", st.s->ncontact);
    for (int i = 0; i < st.s->ncontact; ++i) fprintf(stderr, " | depth %.5f", st.s->contact[i].depth);
    fputc('\n', stderr);
    CHECK(st.s->ncontact == 1, "capsule across an SDF edge: %d contacts, expected 1", st.s->ncontact);
    if (st.s->ncontact == 1) CHECK(fabs(st.s->contact[0].depth - 0.01) < 0.01, "edge depth %g, expected about 0.01", st.s->contact[0].depth);
    release(&st);
    /* input checks: a grid on a non-mesh geom, and an empty grid */
    loam_mb_body_def body = loam_mb_body_default_def();
    body.joint = LOAM_JOINT_FLOATING, body.mass = 1, body.inertia[0] = body.inertia[1] = body.inertia[2] = 0.01;
    loam_mb_geom_def bad = geom(0, LOAM_SHAPE_SPHERE, 0.05, 0, 0);
    bad.shape.grid = &grid;
    loam_mb_model* m = loam_mb_model_create(&body, 1, &bad, 1, NULL, &err);
    fprintf(stderr, "sdf on a sphere geom: %s\n", m ? "accepted" : err.message);
    CHECK(!m && err.status == LOAM_ERR_INPUT && strstr(err.message, "geom 0"), "an sdf on a sphere geom was accepted");
    loam_mb_model_destroy(m);
    loam_sdf_grid empty;
    memset(&empty, 0, sizeof empty);
    bad = geom(-1, LOAM_SHAPE_MESH, 0, 0, 0);
    bad.shape.grid = &empty;
    m = loam_mb_model_create(&body, 1, &bad, 1, NULL, &err);
    fprintf(stderr, "empty sdf grid: %s\n", m ? "accepted" : err.message);
    CHECK(!m && err.status == LOAM_ERR_INPUT && strstr(err.message, "sdf grid"), "an empty sdf grid was accepted");
    loam_mb_model_destroy(m);
    loam_sdf_grid_destroy(&grid);
}

/* The shape vocabulary's types multibody does not collide with are refused when the model is made
 * (not skipped silently at every step), by name; the defaults fill the embedded shape; the model
 * normalises a geom's quaternion. */
static void shape_types(void) {
    loam_mb_geom_def d = loam_mb_geom_default_def();
    CHECK(d.shape.type == LOAM_SHAPE_SPHERE && d.shape.friction == 0.5f && d.shape.local.q.w == 1.0f && d.shape.local.q.x == 0.0f &&
              d.shape.local.p.z == 0.0f && d.shape.grid == NULL && d.mesh_scale.x == 1.0 && d.contype == 1 && d.conaffinity == 1,
          "geom defaults");
    loam_mb_body_def body = loam_mb_body_default_def();
    body.joint = LOAM_JOINT_FLOATING, body.mass = 1, body.inertia[0] = body.inertia[1] = body.inertia[2] = 0.01;
    const loam_shape_type refused[2] = {LOAM_SHAPE_HEIGHTFIELD, LOAM_SHAPE_TUBE};
    for (int k = 0; k < 2; ++k) {
        loam_mb_geom_def g = geom(k == 0 ? -1 : 0, refused[k], 0.05, 0.01, 0.1);
        loam_error err;
        loam_mb_model* m = loam_mb_model_create(&body, 1, &g, 1, NULL, &err);
        fprintf(stderr, "%s geom: %s\n", loam_shape_type_name(refused[k]), m ? "accepted" : err.message);
        CHECK(!m && err.status == LOAM_ERR_INPUT && strstr(err.message, "geom 0") && strstr(err.message, loam_shape_type_name(refused[k])),
              "a %s geom was not refused by name", loam_shape_type_name(refused[k]));
        loam_mb_model_destroy(m);
    }
    loam_mb_geom_def g = geom(0, LOAM_SHAPE_SPHERE, 0.05, 0, 0);
    g.shape.local.q = (loam_quat){2.0f, 0.0f, 0.0f, 2.0f};
    loam_error err;
    loam_mb_model* m = loam_mb_model_create(&body, 1, &g, 1, NULL, &err);
    CHECK(m != NULL, "%s", err.message);
    if (m) {
        loam_quat q = m->geom[0].shape.local.q;
        CHECK(fabs(q.w - sqrt(0.5)) < 1e-7 && fabs(q.z - sqrt(0.5)) < 1e-7 && q.x == 0.0f && q.y == 0.0f, "quaternion (%g %g %g %g) not normalised",
              q.w, q.x, q.y, q.z);
    }
    loam_mb_model_destroy(m);
}

/* Drop body 0 from 2 mm above its resting pose and step 1 s: it must land and stay (no drift,
 * rocking or spin, which a single contact point would allow), within max_move of its resting pose. */
static void rest(const char* what, loam_mb_geom_def* g, int ng, loam_posed* p, loam_mb_solver solver, double max_move) {
    p[0].p.z += 0.002;
    setup st = make(g, ng, p, 1e-3);
    p[0].p.z -= 0.002;
    if (!st.m) return;
    st.m->opt.solver = solver;
    loam_error err;
    loam_posed start = st.s->xpose[0];
    int ok = 1;
    for (int i = 0; i < 1000 && ok; ++i) ok = loam_mb_step(st.m, st.s, 1, &err) == LOAM_OK;
    CHECK(ok, "%s: %s", what, err.message);
    loam_posed end = st.s->xpose[0];
    double slide = hypot(end.p.x - start.p.x, end.p.y - start.p.y), drop = start.p.z - end.p.z;
    double dq = fabs(start.q.w * end.q.w + start.q.x * end.q.x + start.q.y * end.q.y + start.q.z * end.q.z);
    double turn = 2.0 * acos(fmin(1.0, dq)), speed = 0.0;
    for (int k = 0; k < 6; ++k) speed = fmax(speed, fabs(st.s->qd[k]));
    fprintf(stderr, "%-36s %-8s after 1 s: slid %.2e m, dropped %.6f m (2 mm to rest), turned %.2e rad, |qd| %.1e, %d contacts\n", what,
            loam_mb_solver_name(solver), slide, drop, turn, speed, st.s->ncontact);
    CHECK(slide < max_move && fabs(drop - 0.002) < max_move && turn < 1e-2 && speed < 1e-3, "%s (%s): slid %g m, dropped %g m, turned %g rad, |qd| %g",
          what, loam_mb_solver_name(solver), slide, drop, turn, speed);
    release(&st);
}

static void resting(void) {
    loam_mb_solver solvers[2] = {LOAM_MB_SOLVER_PGS, LOAM_MB_SOLVER_SUBADMM};
    for (int k = 0; k < 2; ++k) {
        loam_mb_geom_def cb[2] = {geom(0, LOAM_SHAPE_CAPSULE, 0.05, 0, 0.2), geom(-1, LOAM_SHAPE_BOX, 0.5, 0.5, 0.1)};
        loam_posed pc[2] = {rotated(0.1, 0.05, 0.15, 0, 1, 0, M_PI / 2), at(0, 0, 0)};
        rest("capsule resting on a box", cb, 2, pc, solvers[k], 1e-3);
        loam_mb_geom_def co[2] = {geom(0, LOAM_SHAPE_CAPSULE, 0.05, 0, 0.8), geom(-1, LOAM_SHAPE_BOX, 0.5, 0.5, 0.1)};
        /* tilted by 4 mrad, so that it lands on one edge first and must settle onto both */
        loam_posed po[2] = {rotated(0.1, 0.02, 0.15, 1, 0, 0, M_PI / 2 + 0.004), at(0, 0, 0)};
        rest("capsule across a box, both ends out", co, 2, po, solvers[k], 1e-3);
        loam_mb_geom_def bb[2] = {geom(0, LOAM_SHAPE_BOX, 0.1, 0.1, 0.1), geom(-1, LOAM_SHAPE_BOX, 0.5, 0.5, 0.1)};
        loam_posed pb[2] = {rotated(0.2, -0.1, 0.2, 0, 0, 1, 0.3), at(0, 0, 0)};
        rest("box resting on a box", bb, 2, pb, solvers[k], 1e-3);
    }
    loam_mesh mesh;
    float v[24];
    int32_t t[36];
    box_mesh(0.5, 0.5, 0.05, &mesh, v, t);
    loam_sdf_grid grid;
    loam_error err;
    CHECK(loam_sdf_grid_build(&mesh, 0.02f, 0.1f, &grid, &err) == LOAM_OK, "%s", err.message);
    for (int k = 0; k < 2; ++k) {
        loam_mb_geom_def sg[2] = {geom(0, LOAM_SHAPE_SPHERE, 0.05, 0, 0), geom(-1, LOAM_SHAPE_MESH, 0, 0, 0)};
        sg[1].shape.grid = &grid;
        loam_posed ps[2] = {at(0.1, 0.1, 0.1), at(0, 0, 0)};
        rest("sphere resting on a mesh SDF floor", sg, 2, ps, solvers[k], 1e-3);
        loam_mb_geom_def cg[2] = {geom(0, LOAM_SHAPE_CAPSULE, 0.03, 0, 0.2), geom(-1, LOAM_SHAPE_MESH, 0, 0, 0)};
        cg[1].shape.grid = &grid;
        loam_posed pcg[2] = {rotated(0.0, 0.1, 0.08, 0, 1, 0, M_PI / 2), at(0, 0, 0)};
        rest("capsule resting on a mesh SDF floor", cg, 2, pcg, solvers[k], 1e-3);
        loam_mb_geom_def co[2] = {geom(0, LOAM_SHAPE_CAPSULE, 0.03, 0, 0.8), geom(-1, LOAM_SHAPE_MESH, 0, 0, 0)};
        co[1].shape.grid = &grid;
        loam_posed po[2] = {rotated(0.1, 0.02, 0.08, 1, 0, 0, M_PI / 2 + 0.004), at(0, 0, 0)};
        rest("capsule across a mesh floor, ends out", co, 2, po, solvers[k], 1e-3);
    }
    loam_sdf_grid_destroy(&grid);
}

/* Ball-ball contacts of a random cloud of n floating spheres against brute force over all pairs:
 * loam_mb_collide tests all pairs itself up to 256 balls and goes through its spatial hash above,
 * and both must find exactly the pairs whose gap is at most the contact margin. */
static void ball_cloud(int n) {
    enum { MAXB = 400 };
    static loam_mb_body_def b[MAXB];
    static loam_mb_geom_def g[MAXB];
    static loam_vec3d c[MAXB];
    static double r[MAXB];
    unsigned long long seed = 12345u + (unsigned)n;
    for (int i = 0; i < n; ++i) {
        double u[4];
        for (int k = 0; k < 4; ++k) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        double side = 0.02 * cbrt((double)n); /* a dense cloud: a few neighbours each */
        c[i] = (loam_vec3d){side * u[0], side * u[1], side * u[2]};
        r[i] = 0.004 + 0.004 * u[3];
        b[i] = loam_mb_body_default_def();
        snprintf(b[i].name, sizeof b[i].name, "ball%d", i);
        b[i].joint = LOAM_JOINT_FLOATING;
        b[i].mass = 1.0;
        b[i].inertia[0] = b[i].inertia[1] = b[i].inertia[2] = 0.01;
        g[i] = geom(i, LOAM_SHAPE_SPHERE, r[i], 0, 0);
    }
    loam_mb_options o = loam_mb_default_options();
    o.max_contacts = 20000;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, n, g, n, &o, &err)) != NULL, "%s", err.message);
    if (!m) return;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    for (int i = 0; i < n; ++i) {
        double* q = s->q + m->q_adr[i];
        q[0] = c[i].x, q[1] = c[i].y, q[2] = c[i].z;
        q[3] = 1.0, q[4] = q[5] = q[6] = 0.0;
    }
    CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_mb_collide(m, s, &err) == LOAM_OK, "%s", err.message);
    int expected = 0, found = 0, wrong = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            expected += dist3(c[i], c[j]) - r[i] - r[j] <= o.contact_margin;
    for (int k = 0; k < s->ncontact; ++k) {
        int a = s->contact[k].geom[0], bb = s->contact[k].geom[1];
        found += 1;
        wrong += !(a >= 0 && bb >= 0 && dist3(c[a], c[bb]) - r[a] - r[bb] <= o.contact_margin);
    }
    fprintf(stderr, "ball cloud of %d: %d contacts, brute force %d, %d not within the margin\n", n, found, expected, wrong);
    CHECK(expected > n / 4, "ball cloud of %d: only %d touching pairs (the test needs a dense cloud)", n, expected);
    CHECK(found == expected && wrong == 0, "ball cloud of %d: %d contacts (%d wrong), brute force %d", n, found, wrong, expected);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    ball_cloud(100); /* every pair tested */
    ball_cloud(400); /* through the hash */
    capsule_capsule();
    capsule_box();
    box_box();
    cylinder();
    sdf();
    shape_types();
    resting();
    TEST_MAIN_END();
}
