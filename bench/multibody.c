/* Multibody solver benchmark. Scenarios:
 *   spheres   N free spheres settled in a box (a floor and four walls);
 *   stirring  paper 004's granular stirring: the Panda sweeps a stirrer through N spheres
 *             (src/multibody/scenario_stirring.c).
 * Each scenario is brought to a common state with PGS, then every solver steps that same state for a
 * few steps at a fixed iteration budget (the paper's 30/60/90, 3/6/9 for nonsmooth Newton). One JSON
 * object per line:
 *   {"scenario":"spheres","n":N,"solver":"pgs","iterations":30,"steps":S,"time_s":...,"error":...,"contacts":...}
 * time_s is the mean wall time of the constraint solve per step (s), error the mean of the paper's
 * constraint error (m/s) over the steps.
 * Usage: bench_multibody [spheres|stirring] [N ...] (default: spheres 100 200 400).
 * The dense baselines run only on small beds: full-system ADMM up to 200 spheres, nonsmooth Newton
 * up to 100. LOAM_ADMM_BETA_SCALE (environment) sets opt.admm_beta_scale for the ADMM solvers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/multibody.h"
#include "multibody/scenarios.h"

static const double R = 0.01, RHO = 2500.0, HALF = 0.1, DT = 2e-3;

static loam_mb_model* build(int n, loam_mb_solver solver, int iterations) {
    loam_mb_body_def* b = calloc((size_t)n, sizeof *b);
    loam_mb_geom_def* g = calloc((size_t)n + 5, sizeof *g);
    double mass = 4.0 / 3.0 * M_PI * R * R * R * RHO, I = 0.4 * mass * R * R;
    for (int i = 0; i < n; ++i) {
        b[i] = loam_mb_default_body_def();
        snprintf(b[i].name, sizeof b[i].name, "ball%d", i);
        b[i].joint = LOAM_JOINT_FLOATING;
        b[i].mass = mass;
        b[i].inertia[0] = b[i].inertia[1] = b[i].inertia[2] = I;
        g[i] = loam_mb_default_geom_def();
        g[i].body = i;
        g[i].size.x = R;
    }
    /* floor and walls: planes whose local z is the inward normal */
    const double s = sqrt(0.5);
    const loam_quatd rot[5] = {{1, 0, 0, 0}, {s, 0, s, 0}, {s, 0, -s, 0}, {s, -s, 0, 0}, {s, s, 0, 0}};
    const loam_vec3d at[5] = {{0, 0, 0}, {-HALF, 0, 0}, {HALF, 0, 0}, {0, -HALF, 0}, {0, HALF, 0}};
    for (int k = 0; k < 5; ++k) {
        g[n + k] = loam_mb_default_geom_def();
        g[n + k].body = -1;
        g[n + k].type = LOAM_SHAPE_PLANE;
        g[n + k].pose.p = at[k];
        g[n + k].pose.q = rot[k];
    }
    loam_mb_options o = loam_mb_default_options();
    o.dt = DT;
    o.solver = solver;
    o.iterations = iterations;
    o.tolerance = 0.0; /* a fixed budget */
    o.max_contacts = 16 * n + 64;
    const char* scale = getenv("LOAM_ADMM_BETA_SCALE"); /* for the benchmark's sweep of beta */
    if (scale) o.admm_beta_scale = atof(scale);
    loam_mb_model* m = NULL;
    loam_error err;
    if (loam_mb_model_create(b, n, g, n + 5, &o, &m, &err) != LOAM_OK) fprintf(stderr, "%s\n", err.message);
    free(b);
    free(g);
    return m;
}

/* A lattice with a little jitter, layer by layer, settled with PGS. */
static loam_mb_state* settled(loam_mb_model* m, int n) {
    loam_mb_state* s = NULL;
    loam_error err;
    if (loam_mb_state_create(m, &s, &err) != LOAM_OK) return NULL;
    int per_row = (int)floor((2 * HALF - 2 * R) / (2.2 * R));
    unsigned seed = 1;
    for (int i = 0; i < n; ++i) {
        int layer = i / (per_row * per_row), k = i % (per_row * per_row);
        seed = seed * 1664525u + 1013904223u;
        double jitter = 0.05 * R * ((double)(seed >> 8) / 16777216.0 - 0.5);
        double* q = s->q + 7 * i;
        q[0] = -HALF + 2 * R + 2.2 * R * (k % per_row) + jitter;
        q[1] = -HALF + 2 * R + 2.2 * R * (k / per_row) - jitter;
        q[2] = R + 0.001 + 2.2 * R * layer;
    }
    for (int step = 0; step < 400; ++step)
        if (loam_mb_step(m, s, &err) != LOAM_OK) {
            fprintf(stderr, "settling: %s\n", err.message);
            break;
        }
    return s;
}

/* The stirring scene for one solver, at the state `from` (NULL: freshly built). */
static int stirring(int n, loam_mb_solver solver, int iterations, mb_stirring* sc) {
    loam_mb_options o = loam_mb_default_options();
    o.dt = DT;
    o.solver = solver;
    o.iterations = iterations;
    o.tolerance = 0.0;
    const char* scale = getenv("LOAM_ADMM_BETA_SCALE");
    if (scale) o.admm_beta_scale = atof(scale);
    loam_error err;
    if (mb_stirring_create(LOAM_SOURCE_DIR "/urdf/panda.urdf", n, &o, sc, &err) != LOAM_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    return 1;
}

static const double HOLD = 0.3; /* s of settling before the sweep starts */

int main(int argc, char** argv) {
    int sizes[16] = {100, 200, 400}, nsizes = 3, first = 1, stir = 0;
    if (argc > 1 && (strcmp(argv[1], "spheres") == 0 || strcmp(argv[1], "stirring") == 0)) stir = argv[1][1] == 't', first = 2;
    if (argc > first) {
        nsizes = 0;
        for (int a = first; a < argc && nsizes < 16; ++a) sizes[nsizes++] = atoi(argv[a]);
    }
    static const loam_mb_solver solvers[5] = {LOAM_SOLVER_SUBADMM, LOAM_SOLVER_PGS, LOAM_SOLVER_PJ, LOAM_SOLVER_FADMM, LOAM_SOLVER_NNEWTON};
    const int steps = 10;
    loam_error err;
    for (int z = 0; z < nsizes; ++z) {
        int n = sizes[z];
        if (n < 1 || n > 100000) continue;
        loam_mb_model* base = NULL;
        loam_mb_state* start = NULL;
        mb_stirring base_sc;
        if (stir) {
            if (!stirring(n, LOAM_SOLVER_PGS, 50, &base_sc)) return 2;
            base = base_sc.model, start = base_sc.state;
            for (int i = 0; i < 250; ++i) /* settle, then a little of the sweep */
                if (mb_stirring_control(&base_sc, start, HOLD, &err) != LOAM_OK || loam_mb_step(base, start, &err) != LOAM_OK) {
                    fprintf(stderr, "stirring: %s\n", err.message);
                    return 2;
                }
        } else {
            base = build(n, LOAM_SOLVER_PGS, 50);
            if (!base) return 2;
            start = settled(base, n);
        }
        for (int k = 0; k < 5; ++k) {
            if ((solvers[k] == LOAM_SOLVER_FADMM && n > 200) || (solvers[k] == LOAM_SOLVER_NNEWTON && n > 100)) continue;
            for (int level = 1; level <= 3; ++level) {
                int its = (solvers[k] == LOAM_SOLVER_NNEWTON ? 3 : 30) * level;
                mb_stirring sc;
                loam_mb_model* m = NULL;
                loam_mb_state* s = NULL;
                if (stir) {
                    if (!stirring(n, solvers[k], its, &sc)) return 2;
                    m = sc.model, s = sc.state;
                } else {
                    m = build(n, solvers[k], its);
                    if (!m || loam_mb_state_create(m, &s, &err) != LOAM_OK) return 2;
                }
                if (loam_mb_state_copy(m, s, start, &err) != LOAM_OK) return 2;
                double t = 0, e = 0;
                int contacts = 0, done = 0;
                for (int i = 0; i < steps; ++i) {
                    loam_status st = stir ? mb_stirring_control(&sc, s, HOLD, &err) : LOAM_OK;
                    if (st == LOAM_OK) st = loam_mb_step(m, s, &err);
                    if (st != LOAM_OK) {
                        fprintf(stderr, "%s: %s\n", loam_mb_solver_name(solvers[k]), err.message);
                        break;
                    }
                    t += s->solver.time_s, e += s->solver.error, contacts += s->ncontact, ++done;
                }
                if (done)
                    printf("{\"scenario\":\"%s\",\"n\":%d,\"solver\":\"%s\",\"iterations\":%d,\"steps\":%d,\"time_s\":%.6e,"
                           "\"error\":%.6e,\"contacts\":%d}\n",
                           stir ? "stirring" : "spheres", n, loam_mb_solver_name(solvers[k]), its, done, t / done, e / done, contacts / done);
                fflush(stdout);
                if (stir) mb_stirring_destroy(&sc);
                else {
                    loam_mb_state_destroy(s);
                    loam_mb_model_destroy(m);
                }
            }
        }
        if (stir) mb_stirring_destroy(&base_sc);
        else {
            loam_mb_state_destroy(start);
            loam_mb_model_destroy(base);
        }
    }
    return 0;
}
