/* Public robot descriptions, loaded unchanged from the pybullet wheel's pybullet_data (PyPI
 * `pybullet`; scripts/setup.sh installs it, nothing is copied into this repository):
 * - the Franka Panda (franka_panda/panda.urdf: package:// OBJ collision meshes, a fixed joint with a
 *   zero axis) and the KUKA iiwa (kuka_iiwa/model.urdf: STL meshes), welded at the base, with PD
 *   gains (10 Hz on each joint's inertia) holding their starting pose: every joint stays within 0.01 rad
 *   (m for the fingers) of it over 2 s, with the meshes colliding through their grids and the
 *   default self-collision;
 * - Laikago (laikago/laikago_toes.urdf: meshes and toe spheres), welded at the base, passive: its base
 *   stays where it was and its joints stay finite over 2 s;
 * - the quadrupeds whose legs overlap at their starting pose (vision60, spirit40, spirit40newer,
 *   minitaur_rainbow_dash and _v1; with them a1 and laikago), welded and passive, run 5 s under the
 *   default self-collision without diverging (all finite, no joint faster than 200 rad/s: passive
 *   legs swing under gravity; laikago's lower legs reach 92 rad/s with no contact at all).
 * Every mesh of these files is found and read (no warning). The test exits 77 (skipped) with a
 * message when pybullet_data is missing. The short run (LOAM_TEST_SHORT, the sanitizer builds) steps a
 * tenth of those times, with the same checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/urdf.h"
#include "test_util.h"

static char g_data[1024];
static int g_warnings;

static void count_warning(void* user, const char* message) {
    (void)user;
    ++g_warnings;
    fprintf(stderr, "warning: %s\n", message);
}

static int find_pybullet_data(void) {
    FILE* p = popen("python3 -c \"import pybullet_data; print(pybullet_data.getDataPath())\" 2>/dev/null", "r");
    if (!p) return 0;
    int ok = fgets(g_data, sizeof g_data, p) != NULL;
    pclose(p);
    g_data[strcspn(g_data, "\r\n")] = 0;
    return ok && g_data[0];
}

static loam_mb_model* load(const char* rel) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", g_data, rel);
    loam_urdf_options o = loam_urdf_default_options();
    o.warn = count_warning;
    g_warnings = 0;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_urdf_load(path, &o, &err)) != NULL, "%s", err.message);
    CHECK(g_warnings == 0, "%s: %d warnings", rel, g_warnings);
    return m;
}

static int mesh_grids(const loam_mb_model* m) {
    int n = 0;
    for (int g = 0; g < m->ngeom; ++g) n += m->geom[g].shape.type == LOAM_SHAPE_MESH && m->geom[g].shape.grid && m->geom[g].npoints > 0;
    return n;
}

/* PD gains alone (no gravity compensation: the joints sag until the springs carry gravity) holding
 * the starting pose for `seconds`; returns the largest joint deviation. */
static double hold(const char* rel, int expect_dofs, int expect_meshes, double seconds) {
    loam_mb_model* m = load(rel);
    if (!m) return INFINITY;
    CHECK(m->nv == expect_dofs, "%s: %d dofs, expected %d", rel, m->nv, expect_dofs);
    CHECK(mesh_grids(m) == expect_meshes, "%s: %d mesh geoms with grids, expected %d", rel, mesh_grids(m), expect_meshes);
    loam_error err;
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) {
        loam_mb_model_destroy(m);
        return INFINITY;
    }
    CHECK(loam_mb_mass_matrix(m, s, &err) == LOAM_OK, "%s", err.message);
    for (int b = 0; b < m->nbody; ++b) {
        if (loam_joint_nv(m->body[b].joint) != 1) continue;
        int d = m->v_adr[b], t = m->body_tree[b], l = m->dof_local[d];
        double Mdd = s->mass_matrix[m->tree_madr[t] + l * m->tree_nv[t] + l];
        /* a 10 Hz, critically damped joint on its own inertia; no effort clamp (the test is about
         * the model holding still, not about the URDF's motor limits) */
        double w = 2.0 * M_PI * 10.0;
        m->body[b].control = LOAM_CONTROL_POSITION;
        m->body[b].kp = Mdd * w * w;
        m->body[b].kd = 2.0 * Mdd * w;
        m->body[b].max_effort = 0.0;
        s->q_ref[d] = s->q[m->q_adr[b]];
    }
    double* q0 = malloc(sizeof(double) * (size_t)(m->nq > 0 ? m->nq : 1));
    memcpy(q0, s->q, sizeof(double) * (size_t)m->nq);
    double worst = 0.0;
    int steps = test_steps((int)lround(seconds / m->opt.dt));
    for (int n = 0; n < steps; ++n) {
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "%s: step %d: %s", rel, n, err.message);
            worst = INFINITY;
            break;
        }
        for (int k = 0; k < m->nq; ++k) worst = fmax(worst, fabs(s->q[k] - q0[k]));
    }
    fprintf(stderr, "%s: %d dofs, %d mesh grids, joints within %.2e of the starting pose over %g s (%d contacts at the end)\n", rel, m->nv,
            mesh_grids(m), worst, seconds, s->ncontact);
    free(q0);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return worst;
}

/* Passive, welded at the base: returns 1 if every step stayed finite with joints slower than
 * 200 rad/s and the base where it started. */
static int passive(const char* rel, double seconds, int expect_meshes) {
    loam_mb_model* m = load(rel);
    if (!m) return 0;
    if (expect_meshes >= 0) CHECK(mesh_grids(m) == expect_meshes, "%s: %d mesh grids, expected %d", rel, mesh_grids(m), expect_meshes);
    loam_error err;
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) {
        loam_mb_model_destroy(m);
        return 0;
    }
    loam_posed base = s->xpose[0];
    int steps = test_steps((int)lround(seconds / m->opt.dt)), ok = 1;
    double fastest = 0.0;
    for (int n = 0; n < steps && ok; ++n) {
        if (loam_mb_step(m, s, 1, &err) != LOAM_OK) {
            CHECK(0, "%s: %s", rel, err.message);
            ok = 0;
            break;
        }
        for (int k = 0; k < m->nv; ++k) fastest = fmax(fastest, fabs(s->qd[k]));
        for (int k = 0; k < m->nq; ++k) ok &= isfinite(s->q[k]);
    }
    CHECK(ok && fastest < 200.0, "%s: finite %d, fastest joint %.3g rad/s", rel, ok, fastest);
    double moved = fabs(s->xpose[0].p.x - base.p.x) + fabs(s->xpose[0].p.y - base.p.y) + fabs(s->xpose[0].p.z - base.p.z);
    CHECK(moved == 0.0, "%s: the welded base moved by %.3e m", rel, moved);
    fprintf(stderr, "%s: %g s passive, welded: finite, fastest joint %.3g rad/s, base moved %.1e m\n", rel, seconds, fastest, moved);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
    return ok;
}

int main(void) {
    if (!find_pybullet_data()) {
        fprintf(stderr, "SKIP: pybullet_data is not installed (it comes with `pip install pybullet`; scripts/setup.sh installs it)\n");
        return 77;
    }
    fprintf(stderr, "pybullet_data: %s\n", g_data);
    /* The Panda: 7 arm joints and 2 fingers; 11 collision meshes (link0-7, hand, two fingers). */
    double panda = hold("franka_panda/panda.urdf", 9, 11, 2.0);
    CHECK(panda < 0.01, "Panda: a joint moved %.3e from its starting pose", panda);
    double iiwa = hold("kuka_iiwa/model.urdf", 7, 8, 2.0);
    CHECK(iiwa < 0.01, "iiwa: a joint moved %.3e from its starting pose", iiwa);
    passive("laikago/laikago_toes.urdf", 2.0, 13);
    /* 5 s each under the default self-collision: these diverged within 5 steps when every pair of
     * links but parent-child collided (their legs overlap at q = 0). */
    static const char* quadrupeds[] = {"quadruped/vision60.urdf", "quadruped/spirit40.urdf", "quadruped/spirit40newer.urdf",
                                       "quadruped/minitaur_rainbow_dash.urdf", "quadruped/minitaur_rainbow_dash_v1.urdf", "a1/a1.urdf",
                                       "laikago/laikago.urdf"};
    for (size_t k = 0; k < sizeof quadrupeds / sizeof quadrupeds[0]; ++k) passive(quadrupeds[k], 5.0, -1);
    TEST_MAIN_END();
}
