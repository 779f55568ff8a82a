/* Collaborative cable manipulation (paper 004, Sec. IV-A2; see scenarios.h): two mobile manipulators,
 * each urdf/mobile_base.urdf on a floating base with the Panda welded to its arm mount, carry a
 * Cosserat cable whose ends are welded to the two grippers, and drive around each other so that the
 * part of the cable lying on the floor is dragged round and wound.
 *
 * The base's wheel model: the driven wheels touch the floor through a sphere of the wheel's radius on
 * each wheel link (loam_mb_collide has no cylinders; a sphere rolls like the wheel's rim), so the
 * velocity-controlled wheels drive the base by friction; the caster is frictionless (it swivels);
 * and one NO_SLIP row at the middle of the wheel axle makes the base non-holonomic, as the brief of
 * the paper's scene says (the wheels' sideways friction alone would let a base slide under a large
 * side load). Robots and cable meet only the floor (contype/conaffinity): the arms' capsules and the
 * chassis box have no pair handler against the cable's capsules anyway. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vecd.h"
#include "loam/urdf.h"
#include "scenarios.h"

/* Collision classes: the floor meets everything in class MOVING; nothing else meets anything. */
enum { FLOOR = 1, MOVING = 2 };
static const double MOUNT_TOP = 0.01; /* m: the arm mount plate's top face in its frame */
static const double GRIP = 0.10;      /* m: the grip point below the flange (the Panda hand's fingertips) */

/* The rotation taking x onto the unit vector d (the smallest one). */
static loam_quatd x_onto(loam_vec3d d) {
    loam_vec3d axis = d3_cross(d3(1, 0, 0), d);
    double s = d3_norm(axis), c = d.x;
    if (s < 1e-12) return c > 0 ? qd_identity() : qd_from_axis_angle(d3(0, 0, 1), M_PI);
    return qd_from_axis_angle(d3_scale(axis, 1.0 / s), atan2(s, c));
}

/* Where one robot's base sits and heads at the orbit phase `angle`: robot 0 starts at (0, -R) heading
 * +x, robot 1 at (0, R) heading -x; both go round the origin counter-clockwise, the centre on their
 * left, where their arms (joint 1 at +pi/2) reach. */
static void base_pose(double radius, int robot, double angle, loam_vec3d* p, double* yaw) {
    double a = angle + (robot ? M_PI : 0.0);
    *p = d3(radius * sin(a), -radius * cos(a), 0.0);
    *yaw = a;
}

mb_cable_manip_def mb_cable_manip_default_def(void) {
    mb_cable_manip_def d;
    memset(&d, 0, sizeof d);
    d.segments = 40;
    d.cable_length = 2.0;
    d.cable_radius = 0.01;
    d.cable_density = 1500.0;
    d.cable_young = 1e7;
    d.orbit_radius = 0.9;
    d.orbit_rate = 0.5;
    d.ramp = 0.5;
    d.wheel_kd = 10.0;
    d.grip_weld = 0; /* welded grips diverge under SubADMM (see docs/multibody.md); pinned is the default */
    return d;
}

static loam_status check_def(const mb_cable_manip_def* d, loam_error* err) {
#define BAD(...) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
    if (d->segments < 2 || d->segments > 100000) BAD("cable_manip: segments = %d, expected 2 to 100000", d->segments);
    if (!(d->cable_length > 0 && isfinite(d->cable_length))) BAD("cable_manip: cable_length = %g m, expected > 0", d->cable_length);
    if (!(d->cable_radius > 0 && d->cable_radius < 0.1)) BAD("cable_manip: cable_radius = %g m, expected in (0, 0.1)", d->cable_radius);
    if (!(d->cable_density > 0 && isfinite(d->cable_density))) BAD("cable_manip: cable_density = %g kg/m^3, expected > 0", d->cable_density);
    if (!(d->cable_young > 0 && isfinite(d->cable_young))) BAD("cable_manip: cable_young = %g Pa, expected > 0", d->cable_young);
    if (!(d->orbit_radius >= 0.6 && d->orbit_radius <= 10)) BAD("cable_manip: orbit_radius = %g m, expected 0.6 to 10 (the bases must not meet)", d->orbit_radius);
    if (!(fabs(d->orbit_rate) <= 5)) BAD("cable_manip: orbit_rate = %g rad/s, expected -5 to 5", d->orbit_rate);
    if (!(d->ramp >= 0 && d->ramp <= 100)) BAD("cable_manip: ramp = %g s, expected 0 to 100", d->ramp);
    if (!(d->wheel_kd > 0 && isfinite(d->wheel_kd))) BAD("cable_manip: wheel_kd = %g N m s/rad, expected > 0", d->wheel_kd);
    if (d->grip_weld != 0 && d->grip_weld != 1) BAD("cable_manip: grip_weld = %d, expected 0 or 1", d->grip_weld);
#undef BAD
    return LOAM_OK;
}

/* The cable's initial course: from gripper A straight down to the floor, along the floor with a
 * sideways bulge that takes up the length the straight run between the robots does not need, and
 * up to gripper B. Point k of n + 1 at arclength k L / n; returns 0 if the cable is too short. */
static int cable_course(loam_vec3d pa, loam_vec3d pb, double rest, double L, int n, loam_vec3d* pts) {
    loam_vec3d ga = d3(pa.x, pa.y, rest), gb = d3(pb.x, pb.y, rest);
    loam_vec3d run = d3_sub(gb, ga);
    double D = d3_norm(run), drop_a = pa.z - rest, drop_b = pb.z - rest;
    double e = 0.5 * (L - drop_a - drop_b - D);
    if (e < 0 || D < 1e-9) return 0;
    loam_vec3d u = d3_scale(run, 1.0 / D), side = d3_cross(d3(0, 0, 1), u);
    loam_vec3d c[6] = {pa, ga, d3_add(ga, d3_scale(side, e)), d3_add(gb, d3_scale(side, e)), gb, pb};
    for (int k = 0; k <= n; ++k) {
        double s = L * k / n;
        int leg = 0;
        double len = d3_norm(d3_sub(c[1], c[0]));
        while (leg < 4 && s > len) s -= len, ++leg, len = d3_norm(d3_sub(c[leg + 1], c[leg]));
        double t = len > 0 ? fmin(1.0, s / len) : 0.0;
        pts[k] = d3_add(c[leg], d3_scale(d3_sub(c[leg + 1], c[leg]), t));
    }
    return 1;
}

loam_status mb_cable_manip_create(const char* base_urdf, const char* panda_urdf, const mb_cable_manip_def* def, const loam_mb_options* opt,
                                  mb_cable_manip* sc, loam_error* err) {
    if (!sc) return loam_error_set(err, LOAM_ERR_INPUT, "cable_manip: null scene");
    memset(sc, 0, sizeof *sc);
    if (!base_urdf || !panda_urdf || !def) return loam_error_set(err, LOAM_ERR_INPUT, "cable_manip: null URDF path or definition");
    loam_status st = check_def(def, err);
    if (st != LOAM_OK) return st;
    loam_urdf_options uo = loam_urdf_default_options();
    uo.floating_base = 1;
    loam_error local;
    if (!err) err = &local; /* the status of a failed load is in err */
    loam_mb_model* base = loam_urdf_load(base_urdf, &uo, err);
    if (!base) return err->status;
    loam_mb_model* arm = loam_urdf_load(panda_urdf, NULL, err);
    if (!arm) {
        loam_mb_model_destroy(base);
        return err->status;
    }
    int link1 = loam_mb_body_index(arm, "panda_link1");
    int n = def->segments, mount = loam_mb_body_index(base, "arm_mount"), flange = loam_mb_body_index(arm, "panda_link8");
    int wheel[2] = {loam_mb_body_index(base, "left_wheel"), loam_mb_body_index(base, "right_wheel")};
    if (mount < 0 || flange < 0 || wheel[0] < 0 || wheel[1] < 0 || arm->nv != 7 || link1 < 0 || flange != link1 + 7 || base->body[0].joint != LOAM_JOINT_FLOATING) {
        loam_mb_model_destroy(base), loam_mb_model_destroy(arm);
        return loam_error_set(err, LOAM_ERR_INPUT, "cable_manip: '%s' needs links arm_mount, left_wheel, right_wheel under a floating root, "
                              "'%s' a 7-joint arm ending in panda_link8", base_urdf, panda_urdf);
    }
    int per = base->nbody + arm->nbody, nb = 2 * per + n, pg = base->ngeom + arm->ngeom + 2, ng = 2 * pg + n + 1, nc = 2 * (n - 1) + 2 * 3;
    loam_mb_body_def* b = loam_calloc((size_t)nb, sizeof *b);
    loam_mb_geom_def* g = loam_calloc((size_t)ng, sizeof *g);
    loam_mb_constraint_def* c = loam_calloc((size_t)nc, sizeof *c);
    loam_vec3d* pts = loam_calloc((size_t)n + 1, sizeof *pts);
    loam_mb_state* probe = NULL;
    if (!b || !g || !c || !pts) st = loam_error_set(err, LOAM_ERR_NOMEM, "cable_manip: out of memory for %d segments", n);
    int k = 0;
    for (int r = 0; r < 2 && st == LOAM_OK; ++r) {
        int off = r * per, aoff = off + base->nbody;
        for (int i = 0; i < base->nbody; ++i) {
            b[off + i] = base->body[i];
            snprintf(b[off + i].name, sizeof b[off + i].name, "r%d_%.56s", r, base->body[i].name);
            if (b[off + i].parent >= 0) b[off + i].parent += off;
        }
        b[off].placement = pd_identity(); /* the floating coordinates are then the world pose */
        for (int w = 0; w < 2; ++w) {
            loam_mb_body_def* wb = &b[off + wheel[w]];
            wb->control = LOAM_CONTROL_VELOCITY, wb->kd = def->wheel_kd;
        }
        for (int i = 0; i < arm->nbody; ++i) {
            b[aoff + i] = arm->body[i];
            snprintf(b[aoff + i].name, sizeof b[aoff + i].name, "r%d_%.56s", r, arm->body[i].name);
            b[aoff + i].parent = arm->body[i].parent >= 0 ? arm->body[i].parent + aoff : off + mount;
        }
        b[aoff].joint = LOAM_JOINT_FIXED, b[aoff].placement = (loam_posed){{0, 0, MOUNT_TOP}, {1, 0, 0, 0}};
        for (int i = 1; i <= 7; ++i) { /* the stirring scene's gains: stiff enough for the cable's pull */
            loam_mb_body_def* ab = &b[aoff + i];
            ab->control = LOAM_CONTROL_POSITION, ab->kp = i <= 4 ? 600.0 : 150.0, ab->kd = i <= 4 ? 40.0 : 10.0;
        }
        sc->base[r] = off, sc->flange[r] = aoff + flange, sc->arm_body[r] = aoff + link1;
        sc->wheel[r][0] = off + wheel[0], sc->wheel[r][1] = off + wheel[1];
        for (int i = 0; i < base->ngeom; ++i, ++k) {
            g[k] = base->geom[i];
            g[k].body += off;
            int caster = base->geom[i].shape.type == LOAM_SHAPE_SPHERE;
            g[k].contype = caster ? MOVING : 0, g[k].conaffinity = 0;
            if (caster) g[k].shape.friction = 0.0f; /* a swivelling caster: no sideways grip */
        }
        for (int i = 0; i < arm->ngeom; ++i, ++k) {
            g[k] = arm->geom[i];
            g[k].body += aoff;
            g[k].contype = g[k].conaffinity = 0;
        }
        for (int w = 0; w < 2; ++w, ++k) { /* the driven wheels' rims */
            g[k] = loam_mb_geom_default_def();
            g[k].body = off + wheel[w], g[k].shape.type = LOAM_SHAPE_SPHERE, g[k].shape.size.x = 0.1f, g[k].shape.friction = 1.0f;
            g[k].contype = MOVING, g[k].conaffinity = 0;
        }
    }
    sc->first_segment = 2 * per;
    sc->segments = n;
    loam_mb_cable_def cd = loam_mb_cable_default_def();
    cd.segments = n, cd.length = def->cable_length, cd.radius = def->cable_radius, cd.density = def->cable_density, cd.young = def->cable_young;
    cd.cosserat = 1, cd.poisson = 0.5;
    double l = cd.length / n, EI = cd.young * M_PI * pow(cd.radius, 4) / 4.0;
    cd.damping = 0.02 * EI / l; /* about 2% of a joint's bending stiffness times 1 s: settles in a few tenths of a second */
    if (st == LOAM_OK) st = loam_mb_cable_build(&cd, sc->first_segment, b + sc->first_segment, g + k, c, err);
    for (int i = 0; i < n && st == LOAM_OK; ++i, ++k) {
        b[sc->first_segment + i].placement = pd_identity();
        g[k].contype = MOVING, g[k].conaffinity = 0;
    }
    if (st == LOAM_OK) {
        g[k] = loam_mb_geom_default_def();
        g[k].body = -1, g[k].shape.type = LOAM_SHAPE_PLANE, g[k].contype = FLOOR, g[k].conaffinity = MOVING;
        ++k;
        loam_mb_options o = opt ? *opt : loam_mb_default_options();
        if (!opt) o.dt = 2e-3;
        if (o.max_contacts < 4 * n + 64) o.max_contacts = 4 * n + 64;
        if (!(sc->model = loam_mb_model_create(b, nb, g, k, &o, err))) st = err ? err->status : LOAM_ERR_INPUT;
    }
    static const double q0[7] = {M_PI / 2, 0.35, 0, -2.1, 0, 2.45, 0.785};
    memcpy(sc->q0, q0, sizeof q0);
    sc->def = *def;
    /* Robots at their start, the arms at q0: a probe state gives the grippers' poses. */
    if (st == LOAM_OK && !(probe = loam_mb_state_create(sc->model, err))) st = err ? err->status : LOAM_ERR_NOMEM;
    loam_posed grip[2];
    for (int r = 0; r < 2 && st == LOAM_OK; ++r) {
        loam_vec3d p;
        double yaw;
        base_pose(def->orbit_radius, r, 0.0, &p, &yaw);
        double* q = probe->q + sc->model->q_adr[sc->base[r]];
        loam_quatd h = qd_from_axis_angle(d3(0, 0, 1), yaw);
        q[0] = p.x, q[1] = p.y, q[2] = p.z, q[3] = h.w, q[4] = h.x, q[5] = h.y, q[6] = h.z;
        for (int j = 0; j < 7; ++j) probe->q[sc->model->q_adr[sc->arm_body[r] + j]] = q0[j];
    }
    if (st == LOAM_OK) st = loam_mb_kinematics(sc->model, probe, err);
    for (int r = 0; r < 2 && st == LOAM_OK; ++r) {
        grip[r] = probe->xpose[sc->flange[r]];
        grip[r].p = pd_apply(grip[r], d3(0, 0, GRIP));
    }
    if (st == LOAM_OK && !cable_course(grip[0].p, grip[1].p, cd.radius + 2e-4, cd.length, n, pts))
        st = loam_error_set(err, LOAM_ERR_INPUT, "cable_manip: cable_length = %g m is too short to reach the floor between grippers %g m apart "
                            "and %g m high", cd.length, d3_norm(d3_sub(grip[0].p, grip[1].p)), grip[0].p.z);
    /* Segment poses along the course; then the grips, welded at the relative orientation they start with. */
    loam_quatd seg_q[2] = {qd_identity(), qd_identity()};
    for (int i = 0; i < n && st == LOAM_OK; ++i) {
        loam_vec3d d = d3_sub(pts[i + 1], pts[i]);
        loam_quatd qs = x_onto(d3_scale(d, 1.0 / d3_norm(d)));
        loam_vec3d mid = d3_scale(d3_add(pts[i], pts[i + 1]), 0.5);
        double* q = probe->q + sc->model->q_adr[sc->first_segment + i];
        q[0] = mid.x, q[1] = mid.y, q[2] = mid.z, q[3] = qs.w, q[4] = qs.x, q[5] = qs.y, q[6] = qs.z;
        if (i == 0) seg_q[0] = qs;
        if (i == n - 1) seg_q[1] = qs;
    }
    int nk = 2 * (n - 1);
    for (int r = 0; r < 2 && st == LOAM_OK; ++r) {
        loam_mb_constraint_def* p = &c[nk++];
        *p = loam_mb_constraint_default_def();
        snprintf(p->name, sizeof p->name, "grip%d", r);
        p->side[0] = loam_mb_side_body(sc->first_segment + (r ? n - 1 : 0)), p->side[1] = loam_mb_side_body(sc->flange[r]);
        p->anchor[0] = d3(r ? 0.5 * l : -0.5 * l, 0, 0), p->anchor[1] = d3(0, 0, GRIP);
        loam_mb_constraint_def* a = &c[nk++];
        *a = *p;
        snprintf(a->name, sizeof a->name, "grip%d_weld", r);
        a->type = LOAM_CONSTRAINT_ANGULAR;
        a->frame[1] = qd_mul(qd_conj(grip[r].q), seg_q[r]); /* the segment's frame in the flange's: zero error now */
        loam_mb_constraint_def* w = &c[nk++];
        *w = loam_mb_constraint_default_def();
        snprintf(w->name, sizeof w->name, "r%d_no_slip", r);
        w->type = LOAM_CONSTRAINT_NO_SLIP, w->side[0] = loam_mb_side_body(sc->base[r]), w->side[1] = loam_mb_side_world();
        w->anchor[0] = d3(0.1, 0, 0); /* the middle of the wheel axle, in the base frame */
    }
    if (st == LOAM_OK && !def->grip_weld) { /* pinned grips: drop the two ANGULAR rows */
        c[2 * (n - 1) + 1] = c[2 * (n - 1) + 2];
        c[2 * (n - 1) + 2] = c[2 * (n - 1) + 3];
        c[2 * (n - 1) + 3] = c[2 * (n - 1) + 5];
        nk -= 2;
    }
    if (st == LOAM_OK) st = loam_mb_model_set_constraints(sc->model, c, nk, err);
    for (int r = 0; r < 2 && st == LOAM_OK; ++r) sc->arm_dof[r] = sc->model->v_adr[sc->arm_body[r]];
    if (st == LOAM_OK && !(sc->state = loam_mb_state_create(sc->model, err))) st = err ? err->status : LOAM_ERR_NOMEM;
    if (st == LOAM_OK) {
        loam_mb_state* s = sc->state;
        memcpy(s->q, probe->q, sizeof(double) * (size_t)sc->model->nq);
        for (int r = 0; r < 2; ++r)
            for (int j = 0; j < 7; ++j) s->q_ref[sc->arm_dof[r] + j] = q0[j];
        st = loam_mb_kinematics(sc->model, s, err);
    }
    loam_mb_state_destroy(probe);
    loam_free(b), loam_free(g), loam_free(c), loam_free(pts);
    loam_mb_model_destroy(base), loam_mb_model_destroy(arm);
    if (st != LOAM_OK) mb_cable_manip_destroy(sc);
    return st;
}

void mb_cable_manip_drive(const mb_cable_manip* sc, double t, double hold, double* rate, double* speed) {
    double ramp = sc->def.ramp, u = t <= hold ? 0.0 : ramp > 0 ? fmin(1.0, (t - hold) / ramp) : 1.0;
    double smooth = u * u * (3.0 - 2.0 * u); /* no jerk at either end of the ramp */
    *rate = sc->def.orbit_rate * smooth;
    *speed = *rate * sc->def.orbit_radius;
}

loam_status mb_cable_manip_control(const mb_cable_manip* sc, loam_mb_state* s, double hold, loam_error* err) {
    const loam_mb_model* m = sc ? sc->model : NULL;
    if (!sc || !m || !s || s->nv != m->nv) return loam_error_set(err, LOAM_ERR_INPUT, "cable_manip: control: null or mismatched scene/state");
    double rate, speed;
    mb_cable_manip_drive(sc, s->time + m->opt.dt, hold, &rate, &speed); /* the targets at the step's end */
    /* Gravity compensation of the arms at zero velocity, for their base at rest: the arm dofs' share of
     * the bias forces (the bases, wheels and cable get no applied force). */
    loam_status st = LOAM_OK;
    double* qd = loam_malloc(sizeof(double) * (size_t)m->nv);
    if (!qd) return loam_error_set(err, LOAM_ERR_NOMEM, "cable_manip: control: out of memory");
    memcpy(qd, s->qd, sizeof(double) * (size_t)m->nv);
    memset(s->qd, 0, sizeof(double) * (size_t)m->nv);
    st = loam_mb_inverse_dynamics(m, s, NULL, s->tau, err);
    memcpy(s->qd, qd, sizeof(double) * (size_t)m->nv);
    loam_free(qd);
    if (st != LOAM_OK) return st;
    for (int d = 0; d < m->nv; ++d) {
        int arm = 0;
        for (int r = 0; r < 2; ++r) arm |= d >= sc->arm_dof[r] && d < sc->arm_dof[r] + 7;
        if (!arm) s->tau[d] = 0.0;
    }
    /* Differential drive: forward speed v and yaw rate w give the wheel rates (v -+ w b) / r, the left
     * wheel (at +y, inside the orbit) the slower. Both robots orbit the same way. */
    const double b = 0.225, radius = 0.1;
    for (int r = 0; r < 2; ++r) {
        for (int j = 0; j < 7; ++j) s->q_ref[sc->arm_dof[r] + j] = sc->q0[j], s->qd_ref[sc->arm_dof[r] + j] = 0.0;
        s->qd_ref[m->v_adr[sc->wheel[r][0]]] = (speed - rate * b) / radius;
        s->qd_ref[m->v_adr[sc->wheel[r][1]]] = (speed + rate * b) / radius;
    }
    return LOAM_OK;
}

double mb_cable_manip_lateral_speed(const mb_cable_manip* sc, const loam_mb_state* s, int robot) {
    loam_posed P = s->xpose[sc->base[robot]];
    const double* v = s->xvel + 6 * sc->base[robot];
    loam_vec3d axle = pd_apply(P, d3(0.1, 0, 0)), w = d3(v[3], v[4], v[5]);
    loam_vec3d vel = d3_add(d3(v[0], v[1], v[2]), d3_cross(w, d3_sub(axle, P.p)));
    return d3_dot(vel, qd_rotate(P.q, d3(0, 1, 0)));
}

double mb_cable_manip_grip_gap(const mb_cable_manip* sc, const loam_mb_state* s, int robot) {
    int seg = sc->first_segment + (robot ? sc->segments - 1 : 0);
    double l = sc->def.cable_length / sc->segments;
    loam_vec3d end = pd_apply(s->xpose[seg], d3(robot ? 0.5 * l : -0.5 * l, 0, 0));
    loam_vec3d grip = pd_apply(s->xpose[sc->flange[robot]], d3(0, 0, GRIP));
    return d3_norm(d3_sub(end, grip));
}

void mb_cable_manip_destroy(mb_cable_manip* sc) {
    loam_mb_state_destroy(sc->state);
    loam_mb_model_destroy(sc->model);
    memset(sc, 0, sizeof *sc);
}
