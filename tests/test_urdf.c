/* URDF (test 5, loading part): the shipped Panda carries Gaz et al.'s masses and inertias and
 * Franka's limits, and its link poses equal the kinematic chain's (loam_chain_panda, modified DH);
 * the mobile base's wheel inertias are turned by their inertial rpy; writing a model and loading it
 * back gives the same model bit for bit; each malformed file under tests/data/urdf_bad/ fails with
 * a message naming the line, the element and the attribute. */
#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "loam/chain.h"
#include "loam/sdf_grid.h"
#include "loam/urdf.h"
#include "test_util.h"

static loam_mb_model* load(const char* rel, int floating) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", LOAM_SOURCE_DIR, rel);
    loam_urdf_options o = loam_urdf_default_options();
    o.floating_base = floating;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_urdf_load(path, &o, &err)) != NULL, "%s", err.message);
    return m;
}

static void panda(void) {
    loam_mb_model* m = load("urdf/panda.urdf", 0);
    if (!m) return;
    CHECK(m->nbody == 9 && m->nv == 7 && m->nq == 7, "panda: %d bodies, nv %d", m->nbody, m->nv);
    CHECK(strcmp(m->name, "panda") == 0, "robot name '%s'", m->name);
    /* Gaz et al. 2019: mass, com, (ixx, iyy, izz, ixy, ixz, iyz). */
    static const double gaz[7][10] = {
        {4.970684, 0.003875, 0.002081, -0.04762, 0.70337, 0.70661, 0.009117, -0.000139, 0.006772, 0.019169},
        {0.646926, -0.003141, -0.02872, 0.003495, 0.007962, 0.02811, 0.025995, -0.003925, 0.010254, 0.000704},
        {3.228604, 0.027518, 0.039252, -0.066502, 0.037242, 0.036155, 0.01083, -0.004761, -0.011396, -0.012805},
        {3.587895, -0.05317, 0.104419, 0.027454, 0.025853, 0.019552, 0.028323, 0.007796, -0.001332, 0.008641},
        {1.225946, -0.011953, 0.041065, -0.038437, 0.035549, 0.029474, 0.008627, -0.002117, -0.004037, 0.000229},
        {1.666555, 0.060149, -0.014117, -0.010517, 0.001964, 0.004354, 0.005433, 0.000109, -0.001158, 0.000341},
        {0.735522, 0.010517, -0.004252, 0.061597, 0.012516, 0.010027, 0.004815, -0.000428, -0.001196, -0.000741}};
    static const double lower[7] = {-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973};
    static const double upper[7] = {2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973};
    static const double effort[7] = {87, 87, 87, 87, 12, 12, 12}, speed[7] = {2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61};
    for (int j = 0; j < 7; ++j) {
        char name[32];
        snprintf(name, sizeof name, "panda_link%d", j + 1);
        int i = loam_mb_body_index(m, name);
        CHECK(i == j + 1, "%s is body %d", name, i);
        if (i < 0) continue;
        const loam_mb_body_def* b = &m->body[i];
        const double* g = gaz[j];
        double got[10] = {b->mass, b->com.x, b->com.y, b->com.z, b->inertia[0], b->inertia[1], b->inertia[2], b->inertia[3], b->inertia[4], b->inertia[5]};
        for (int k = 0; k < 10; ++k) CHECK(got[k] == g[k], "%s: parameter %d = %.17g, Gaz et al. %.17g", name, k, got[k], g[k]);
        CHECK(b->joint == LOAM_JOINT_REVOLUTE && b->limited && b->lower == lower[j] && b->upper == upper[j], "%s: limits [%g, %g]", name,
              b->lower, b->upper);
        CHECK(b->max_effort == effort[j] && b->max_velocity == speed[j], "%s: effort %g, velocity %g", name, b->max_effort, b->max_velocity);
        CHECK(m->dof_body[j] == i, "dof %d belongs to body %d", j, m->dof_body[j]);
    }
    CHECK(m->body[8].joint == LOAM_JOINT_FIXED && strcmp(m->body[8].name, "panda_link8") == 0, "flange");
    CHECK(m->ngeom == 8, "%d collision geoms", m->ngeom);

    /* The URDF's kinematics equal the chain's modified-DH Panda at random joint angles. */
    loam_chain chain;
    loam_error err;
    CHECK(loam_chain_panda(&chain, loam_pose_identity(), &err) == LOAM_OK, "%s", err.message);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    unsigned seed = 3;
    double worst = 0;
    for (int trial = 0; trial < 50 && s; ++trial) {
        float q[8] = {0};
        for (int j = 0; j < 7; ++j) {
            seed = seed * 1664525u + 1013904223u;
            q[j] = (float)(lower[j] + (upper[j] - lower[j]) * (double)(seed >> 8) / 16777216.0);
            s->q[j] = q[j];
        }
        CHECK(loam_chain_set_positions(&chain, q, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
        for (int l = 0; l < 8; ++l) {
            loam_pose c = chain.pose[l];
            loam_posed d = s->xpose[l + 1];
            double dq = fmin(fabs(c.q.w - d.q.w) + fabs(c.q.x - d.q.x) + fabs(c.q.y - d.q.y) + fabs(c.q.z - d.q.z),
                             fabs(c.q.w + d.q.w) + fabs(c.q.x + d.q.x) + fabs(c.q.y + d.q.y) + fabs(c.q.z + d.q.z));
            worst = fmax(worst, fabs(c.p.x - d.p.x) + fabs(c.p.y - d.p.y) + fabs(c.p.z - d.p.z) + dq);
        }
    }
    CHECK(worst < 1e-5, "URDF and chain Panda link poses differ by %.3e (float chain)", worst);

    /* Write and read back: the same model, bit for bit. */
    const char* tmp = "test_urdf_roundtrip.urdf";
    CHECK(loam_urdf_write(m, tmp, &err) == LOAM_OK, "%s", err.message);
    loam_mb_model* r = NULL;
    CHECK((r = loam_urdf_load(tmp, NULL, &err)) != NULL, "%s", err.message);
    if (r) {
        CHECK(r->nbody == m->nbody && r->nv == m->nv && r->ngeom == m->ngeom, "round trip: %d bodies, %d geoms", r->nbody, r->ngeom);
        for (int i = 0; i < m->nbody && i < r->nbody; ++i) {
            const loam_mb_body_def *a = &m->body[i], *b = &r->body[i];
            int same = strcmp(a->name, b->name) == 0 && a->parent == b->parent && a->joint == b->joint && a->mass == b->mass &&
                       a->com.x == b->com.x && a->com.y == b->com.y && a->com.z == b->com.z && a->limited == b->limited &&
                       a->lower == b->lower && a->upper == b->upper && a->max_effort == b->max_effort && a->max_velocity == b->max_velocity &&
                       a->damping == b->damping && memcmp(a->inertia, b->inertia, sizeof a->inertia) == 0;
            CHECK(same, "round trip changed body %d '%s'", i, a->name);
            double dp = fabs(a->placement.p.x - b->placement.p.x) + fabs(a->placement.p.y - b->placement.p.y) + fabs(a->placement.p.z - b->placement.p.z);
            double dq = fmin(fabs(a->placement.q.w - b->placement.q.w) + fabs(a->placement.q.x - b->placement.q.x) +
                                 fabs(a->placement.q.y - b->placement.q.y) + fabs(a->placement.q.z - b->placement.q.z),
                             fabs(a->placement.q.w + b->placement.q.w) + fabs(a->placement.q.x + b->placement.q.x) +
                                 fabs(a->placement.q.y + b->placement.q.y) + fabs(a->placement.q.z + b->placement.q.z));
            CHECK(dp == 0.0 && dq < 1e-15, "round trip moved body %d's joint frame by %.3e m, %.3e", i, dp, dq);
        }
        for (int g = 0; g < m->ngeom && g < r->ngeom; ++g) {
            const loam_shape *a = &m->geom[g].shape, *b = &r->geom[g].shape;
            CHECK(a->type == b->type && a->size.x == b->size.x && a->size.z == b->size.z && m->geom[g].body == r->geom[g].body,
                  "round trip changed geom %d", g);
        }
    }
    remove(tmp);
    loam_mb_model_destroy(r);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void mobile_base(void) {
    loam_mb_model* m = load("urdf/mobile_base.urdf", 1);
    if (!m) return;
    CHECK(m->nbody == 5 && m->nv == 8 && m->nq == 9, "mobile base: %d bodies, nv %d, nq %d", m->nbody, m->nv, m->nq);
    CHECK(m->body[0].joint == LOAM_JOINT_FLOATING, "the base is not floating");
    int w = loam_mb_body_index(m, "left_wheel");
    if (w >= 0) {
        const double* I = m->body[w].inertia;
        /* the cylinder's axis (0.0075 kg m^2) turned onto the link's y */
        CHECK(fabs(I[0] - 0.0040625) < 1e-15 && fabs(I[1] - 0.0075) < 1e-15 && fabs(I[2] - 0.0040625) < 1e-15 && fabs(I[3]) < 1e-15 &&
                  fabs(I[4]) < 1e-15 && fabs(I[5]) < 1e-15,
              "wheel inertia (%g %g %g %g %g %g)", I[0], I[1], I[2], I[3], I[4], I[5]);
        CHECK(m->body[w].joint == LOAM_JOINT_REVOLUTE && !m->body[w].limited && m->body[w].damping == 0.01, "wheel joint");
        CHECK(m->body[w].axis.y == 1.0, "wheel axis");
    }
    CHECK(m->ngeom == 5 && m->geom[0].shape.type == LOAM_SHAPE_BOX && m->geom[0].shape.size.x == 0.3f && m->geom[0].shape.size.z == 0.1f, "chassis box");
    loam_mb_model_destroy(m);
}

static void malformed(void) {
    static const struct { const char* file; const char* expect[3]; } bad[] = {
        {"xml_unclosed.urdf", {":4:", "XML", "link"}},
        {"top_not_robot.urdf", {":2:", "<model>", "<robot>"}},
        {"mass_not_number.urdf", {":5:", "<link name=\"base\">: <mass>", "'value' = 'heavy'"}},
        {"mass_negative.urdf", {":5:", "<mass>", "negative"}},
        {"inertia_missing_attribute.urdf", {":6:", "<inertia>", "'ixz'"}},
        {"inertia_impossible.urdf", {":4:", "<link name=\"arm\">", "triangle"}},
        {"joint_missing_limit.urdf", {":5:", "<joint name=\"elbow\">", "<limit>"}},
        {"limit_reversed.urdf", {":8:", "<joint name=\"elbow\">: <limit>", "lower = 1.5"}},
        {"limit_effort_missing.urdf", {":8:", "<limit>", "'effort'"}},
        {"joint_type_unknown.urdf", {":5:", "<joint name=\"slide\">", "'planar'"}},
        {"joint_unknown_link.urdf", {":7:", "<child>", "'forearm' is not defined"}},
        {"link_two_parents.urdf", {":10:", "<joint name=\"j2\">", "already has parent joint 'j1'"}},
        {"joint_cycle.urdf", {":2:", "<robot name=\"r\">", "cycle"}},
        {"axis_zero.urdf", {":8:", "<axis>", "zero"}},
        {"origin_short.urdf", {":6:", "<joint name=\"wrist\">: <origin>", "'xyz' = '0 0.1'"}},
        {"shape_unknown.urdf", {":6:", "<cone>", "unknown shape"}},
        {"box_size_nan.urdf", {":5:", "<box>", "'size'"}},
        {"link_duplicate.urdf", {":4:", "<link name=\"base\">", "used twice"}},
        {"mesh_no_filename.urdf", {":5:", "<mesh>", "'filename'"}},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/data/urdf_bad/%s", LOAM_SOURCE_DIR, bad[k].file);
        loam_mb_model* m = NULL;
        loam_error err;
        loam_urdf_options strict = loam_urdf_default_options();
        strict.strict = 1; /* limit_reversed and shape_unknown are only warnings otherwise (below) */
        m = loam_urdf_load(path, &strict, &err);
        loam_status st = m ? LOAM_OK : err.status;
        CHECK(st == LOAM_ERR_INPUT && m == NULL, "%s: status %d", bad[k].file, (int)st);
        if (st == LOAM_OK) {
            loam_mb_model_destroy(m);
            continue;
        }
        CHECK(strstr(err.message, bad[k].file) != NULL, "%s: the message does not name the file: %s", bad[k].file, err.message);
        for (int e = 0; e < 3; ++e)
            CHECK(strstr(err.message, bad[k].expect[e]) != NULL, "%s: the message lacks \"%s\": %s", bad[k].file, bad[k].expect[e], err.message);
    }
    loam_mb_model* m = NULL;
    loam_error err;
    m = loam_urdf_load("/nonexistent/robot.urdf", NULL, &err);
    CHECK(m == NULL && err.status == LOAM_ERR_INPUT && strstr(err.message, "cannot open"), "%s", err.message);
}

static int g_warnings;
static char g_last_warning[1200];
static void keep_warning(void* user, const char* message) {
    (void)user;
    ++g_warnings;
    snprintf(g_last_warning, sizeof g_last_warning, "%s", message);
}

static loam_mb_model* load_wild(const char* rel, loam_urdf_options* o, loam_status want, const char* const expect[3]) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/urdf_wild/%s", LOAM_SOURCE_DIR, rel);
    loam_urdf_options d = loam_urdf_default_options();
    if (!o) o = &d;
    o->warn = keep_warning;
    g_warnings = 0;
    g_last_warning[0] = 0;
    loam_mb_model* m = NULL;
    loam_error err;
    m = loam_urdf_load(path, o, &err);
    loam_status st = m ? LOAM_OK : err.status;
    CHECK(st == want, "%s: status %d, expected %d: %s", rel, (int)st, (int)want, st ? err.message : "");
    for (int e = 0; st != LOAM_OK && expect && e < 3; ++e)
        CHECK(strstr(err.message, expect[e]) != NULL, "%s: the message lacks \"%s\": %s", rel, expect[e], err.message);
    return m;
}

/* What urdfdom accepts and descriptions in the wild carry: XML version 0.0, white space before the
 * declaration, an axis on a fixed joint; package:// meshes found beside the URDF or through
 * ROS_PACKAGE_PATH; xacro files named as such. */
static void wild(void) {
    loam_mb_model* m = load_wild("pkg/my_robot/urdf/robot.urdf", NULL, LOAM_OK, NULL);
    if (m) {
        CHECK(m->nbody == 2 && m->body[1].joint == LOAM_JOINT_FIXED, "version 0.0 + fixed joint with zero axis: %d bodies", m->nbody);
        CHECK(m->ngeom == 1 && m->geom[0].shape.type == LOAM_SHAPE_MESH && m->geom[0].shape.grid && m->geom[0].npoints == 8,
              "package:// mesh beside the URDF: sdf %p, %d points", (const void*)m->geom[0].shape.grid, m->geom[0].npoints);
        if (m->geom[0].shape.grid) { /* the grid is the cube's: 5 cm from its centre to a face */
            float d = loam_sdf_grid_query(m->geom[0].shape.grid, (loam_vec3){0.0f, 0.0f, 0.0f}, NULL);
            float out = loam_sdf_grid_query(m->geom[0].shape.grid, (loam_vec3){0.08f, 0.0f, 0.0f}, NULL);
            CHECK(fabsf(d + 0.05f) < 2e-3f && fabsf(out - 0.03f) < 2e-3f, "cube grid: %g at the centre, %g 3 cm outside a face", (double)d, (double)out);
        }
        CHECK(g_warnings == 0, "warning: %s", g_last_warning);
        loam_mb_model_destroy(m);
    }
    /* outside the package: not found (a warning naming where it looked), then through ROS_PACKAGE_PATH */
    unsetenv("ROS_PACKAGE_PATH");
    m = load_wild("elsewhere.urdf", NULL, LOAM_OK, NULL);
    CHECK(g_warnings == 1 && strstr(g_last_warning, "elsewhere.urdf:7: <link name=\"cube\">: <mesh>: filename 'package://my_robot/meshes/cube.obj' "
                                                     "not found") && strstr(g_last_warning, "ROS_PACKAGE_PATH") &&
              strstr(g_last_warning, "collides with nothing"),
          "%d warnings: %s", g_warnings, g_last_warning);
    CHECK(m && m->ngeom == 1 && !m->geom[0].shape.grid, "an unfound mesh stays without a grid");
    loam_mb_model_destroy(m);
    setenv("ROS_PACKAGE_PATH", "/nonexistent:" LOAM_SOURCE_DIR "/tests/data/urdf_wild/pkg", 1);
    m = load_wild("elsewhere.urdf", NULL, LOAM_OK, NULL);
    CHECK(m && g_warnings == 0 && m->geom[0].shape.grid && fabs(m->geom[0].points[0]) == 0.1f, "through ROS_PACKAGE_PATH, scaled 2x: %s", g_last_warning);
    loam_mb_model_destroy(m);
    unsetenv("ROS_PACKAGE_PATH");
    loam_urdf_options o = loam_urdf_default_options();
    o.package_path = LOAM_SOURCE_DIR "/tests/data/urdf_wild/pkg/my_robot"; /* a package folder itself */
    m = load_wild("elsewhere.urdf", &o, LOAM_OK, NULL);
    CHECK(m && g_warnings == 0 && m->geom[0].shape.grid, "through package_path: %s", g_last_warning);
    loam_mb_model_destroy(m);
    /* a format loam does not read: a warning by default, an error under strict */
    m = load_wild("pkg/my_robot/urdf/visual_dae.urdf", NULL, LOAM_OK, NULL);
    CHECK(g_warnings == 1 && strstr(g_last_warning, "visual_dae.urdf:6: <link name=\"body\">: <mesh>") && strstr(g_last_warning, "OBJ and STL"),
          "%d warnings: %s", g_warnings, g_last_warning);
    loam_mb_model_destroy(m);
    o = loam_urdf_default_options();
    o.strict = 1;
    static const char* const dae[3] = {"visual_dae.urdf:6:", "<mesh>", "body.dae"};
    m = load_wild("pkg/my_robot/urdf/visual_dae.urdf", &o, LOAM_ERR_INPUT, dae);
    static const char* const xacro[3] = {"robot.urdf.xacro:3: <xacro:property>", "xacro file", "`xacro "};
    m = load_wild("robot.urdf.xacro", NULL, LOAM_ERR_INPUT, xacro);
    static const char* const subst[3] = {"substitution_args.urdf:8:", "<origin>", "xacro expression"};
    m = load_wild("substitution_args.urdf", NULL, LOAM_ERR_INPUT, subst);
}

/* Self-collision: base -(fixed)- mount -(j1)- upper -(j2)- lower; upper overlaps base (adjacent
 * through the fixed joint), lower overlaps base at q = 0 (not adjacent). */
static int chain_contacts(loam_mb_self_collision mode, const char* srdf, int* nexclude) {
    loam_urdf_options o = loam_urdf_default_options();
    o.self_collision = mode;
    o.srdf = srdf;
    loam_mb_model* m = load_wild("chain.urdf", &o, LOAM_OK, NULL);
    if (!m) return -1;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL && loam_mb_collide(m, s, &err) == LOAM_OK, "%s", err.message);
    int mask = 0; /* bit 0: upper-base, bit 1: lower-base */
    for (int k = 0; s && k < s->ncontact; ++k) {
        const char *a = m->body[s->contact[k].body[0]].name, *b = s->contact[k].body[1] >= 0 ? m->body[s->contact[k].body[1]].name : "";
        if ((!strcmp(a, "upper") && !strcmp(b, "base")) || (!strcmp(b, "upper") && !strcmp(a, "base"))) mask |= 1;
        if ((!strcmp(a, "lower") && !strcmp(b, "base")) || (!strcmp(b, "lower") && !strcmp(a, "base"))) mask |= 2;
    }
    *nexclude = m->nexclude;
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return mask;
}

static void self_collision(void) {
    int nx = 0;
    int all = chain_contacts(LOAM_SELF_COLLISION_ALL, NULL, &nx);
    CHECK(all == 3 && nx == 0, "all: contacts mask %d (expected upper-base and lower-base), %d excluded", all, nx);
    int adj = chain_contacts(LOAM_SELF_COLLISION_ADJACENT, NULL, &nx);
    CHECK(adj == 0 && nx == 1, "adjacent: contacts mask %d, %d excluded pairs (expected lower-base, overlapping at q = 0)", adj, nx);
    int off = chain_contacts(LOAM_SELF_COLLISION_OFF, NULL, &nx);
    CHECK(off == 0 && nx == 0, "off: contacts mask %d", off);
    int srdf = chain_contacts(LOAM_SELF_COLLISION_ALL, LOAM_SOURCE_DIR "/tests/data/urdf_wild/chain.srdf", &nx);
    CHECK(srdf == 1 && nx == 1, "all + SRDF disabling base-lower: contacts mask %d, %d excluded", srdf, nx);
    loam_urdf_options o = loam_urdf_default_options();
    o.srdf = LOAM_SOURCE_DIR "/tests/data/urdf_wild/chain_bad.srdf";
    static const char* const bad[3] = {"chain_bad.srdf:3:", "<disable_collisions>", "'link2' = 'forearm' is not a link"};
    load_wild("chain.urdf", &o, LOAM_ERR_INPUT, bad);
    o = loam_urdf_default_options();
    o.self_collision = (loam_mb_self_collision)7;
    static const char* const mode[3] = {"chain.urdf", "self_collision", "mode 7"};
    load_wild("chain.urdf", &o, LOAM_ERR_INPUT, mode);
}

/* A mesh geom collides through its grid and points, like the primitives: the 0.1 m cube from a URDF,
 * floating, dropped 1 cm onto a world plane, and a second one onto the first, come to rest a face
 * on the plane (centre at 0.05 m) and on the cube (0.15 m). */
static void mesh_contacts(void) {
    loam_urdf_options o = loam_urdf_default_options();
    o.floating_base = 1;
    loam_mb_model* cube = load_wild("pkg/my_robot/urdf/robot.urdf", &o, LOAM_OK, NULL);
    if (!cube) return;
    loam_mb_body_def bodies[4];
    loam_mb_geom_def geoms[3];
    for (int k = 0; k < 2; ++k) {
        bodies[2 * k] = cube->body[0], bodies[2 * k + 1] = cube->body[1];
        snprintf(bodies[2 * k].name, sizeof bodies[0].name, "cube%d", k);
        snprintf(bodies[2 * k + 1].name, sizeof bodies[0].name, "flange%d", k);
        bodies[2 * k + 1].parent = 2 * k;
        geoms[k] = cube->geom[0];
        geoms[k].body = 2 * k;
    }
    geoms[2] = loam_mb_geom_default_def();
    geoms[2].shape.type = LOAM_SHAPE_PLANE, geoms[2].body = -1;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(bodies, 4, geoms, 3, NULL, &err)) != NULL, "%s", err.message);
    loam_mb_state* s = NULL;
    if (m) CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (s) {
        s->q[m->q_adr[0] + 2] = 0.06, s->q[m->q_adr[2] + 2] = 0.17;
        s->q[m->q_adr[2]] = 0.02; /* off centre: it rests on part of the lower cube's top face */
        for (int n = 0; n < 1500; ++n)
            if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
                CHECK(0, "%s", err.message);
                break;
            }
        double z0 = s->xpose[0].p.z, z1 = s->xpose[2].p.z, v = 0;
        for (int k = 0; k < m->nv; ++k) v = fmax(v, fabs(s->qd[k]));
        CHECK(fabs(z0 - 0.05) < 2e-3 && fabs(z1 - 0.15) < 3e-3 && v < 1e-2, "mesh cubes rest at z = %.4f and %.4f m (0.05, 0.15), speed %.2e",
              z0, z1, v);
        fprintf(stderr, "mesh cubes: z = %.5f, %.5f m after 1.5 s, %d contacts\n", z0, z1, s->ncontact);
    }
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    loam_mb_model_destroy(cube);
}

int main(void) {
    panda();
    mobile_base();
    malformed();
    wild();
    self_collision();
    mesh_contacts();
    TEST_MAIN_END();
}
