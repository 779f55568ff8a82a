/* Angle of repose against particle friction.
 *
 * A heap is poured by the lifting-gate method (the slab version of the lifting-cylinder test used to
 * calibrate DEM friction): 1500 spheres (r = 5 mm) fill a slot 8 cm wide between two plates, periodic
 * along y (4 cm) so the heap is a long ridge with far more slope per particle than a cone; they settle,
 * then the plates are drawn up at 0.5 m/s and the grains run out of the bottom onto a rough floor
 * (friction 1.0) and come to rest as a ridge. Its slope is fitted, on each side, to the top of the
 * highest particle in 5 mm wide columns whose height lies between 20% and 80% of the ridge's.
 *
 * Checked: the angle of repose grows with the sliding friction coefficient, angle(0.1) < angle(0.3) <
 * angle(0.6), as published for spheres (Zhou, Xu, Yu & Zulli, Phys. Rev. E 64, 021301 (2001)); and
 * frictionless spheres (mu = 0) spread into a heap flatter than 5 degrees. loam's particles carry no
 * spin, which acts like unlimited rolling resistance, so its heaps with friction are steeper than
 * those of freely rolling spheres with the same mu; the ordering is what is checked there, not the
 * values.
 *
 * The column must be tall enough for the mu = 0 check to mean something: frictionless grains stand
 * by interlocking alone, so a heap only a few grains high keeps the slope of its bottom layer's
 * pockets (a column half as tall, the same 1500 grains over an 8 cm period, left 8.8 degrees), while
 * a taller column runs out into a sheet (measured here: 3.5 to 3.8 degrees over three random fills;
 * mu = 0.1, 0.3, 0.6 gave 10-11, 30-32 and 49-54 degrees).
 *
 * The short run (LOAM_TEST_SHORT, the sanitizer builds) pours only the heaps of mu = 0 and 0.6, at full
 * size (the frictionless and the frictional contacts, the gate, the periodic slot), checks each heap
 * and the frictionless limit, and leaves the ordering over mu = 0.1, 0.3, 0.6 to the Release build. */
#include <math.h>
#include <stdlib.h>

#include "loam/granular.h"
#include "test_scenes.h"
#include "test_util.h"

#define N 1500
#define R 0.005f
#define RHO 2500.0f
#define SLOT_HALF 0.04f   /* the gate's half width, m */
#define PERIOD 0.04f      /* periodic length along y, m: at least 3 of the engine's hash cells */
#define SETTLE_S 0.3      /* s with the gate closed */
#define LIFT_SPEED 0.5f   /* m/s */
#define RELAX_S 0.4       /* s after the gate has cleared the column */
#define MU0_MAX_DEG 5.0   /* the limit for frictionless spheres */

typedef struct heap {
    double angle[2];      /* degrees, x < 0 side and x > 0 side */
    int bins[2];          /* columns in each fit */
    double height, reach; /* ridge height and farthest particle from the axis, m */
    double ke;            /* kinetic energy per particle at the end, m g r */
} heap;

/* Least-squares slope of the column tops on one side (sign = -1 or +1), over columns between 20% and
 * 80% of the ridge height. */
static double side_angle(const loam_particles* p, double xc, int sign, double hmax, int* bins) {
    enum { NB = 200 }; /* 1 m: the mu = 0 heap reaches about 0.6 m */
    const double bw = R;
    double top[NB];
    for (int b = 0; b < NB; ++b) top[b] = -1.0;
    for (int i = 0; i < p->count; ++i) {
        double x = sign * (p->x[i] - xc);
        if (x < 0.0) continue;
        int b = (int)(x / bw);
        if (b < NB && p->z[i] + R > top[b]) top[b] = p->z[i] + R;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int b = 0; b < NB; ++b) {
        if (top[b] < 0.2 * hmax || top[b] > 0.8 * hmax) continue;
        double x = (b + 0.5) * bw;
        sx += x;
        sy += top[b];
        sxx += x * x;
        sxy += x * top[b];
        ++m;
    }
    *bins = m;
    if (m < 2) return NAN;
    double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    return atan(-slope) * 180.0 / TS_PI;
}

static heap pour(float mu) {
    heap h;
    memset(&h, 0, sizeof h);
    loam_granular_params p = loam_granular_default_params();
    p.friction = mu;
    p.periodic_axis = 1;
    p.periodic_lo = 0.0f;
    p.periodic_hi = PERIOD;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    if (!w) return h;
    /* A loose random fill of the slot (packing fraction 0.33), the same for every mu. */
    static float xyz[3 * N], rad[N];
    float lo[3] = {-SLOT_HALF + 1.1f * R, 0.0f, 1.1f * R}, hi[3] = {SLOT_HALF - 1.1f * R, PERIOD, 0.0f};
    hi[2] = lo[2] + (float)(N * 4.0 / 3.0 * TS_PI * R * R * R / 0.33) / ((hi[0] - lo[0]) * PERIOD);
    int n = ts_random_pack(N, R, lo, hi, 1, 31337, xyz);
    CHECK(n == N, "placed %d of %d", n, N);
    for (int i = 0; i < n; ++i) rad[i] = R;
    CHECK(loam_world_add_particles(w, n, xyz, NULL, rad, RHO, &err) == LOAM_OK, "%s", err.message);
    loam_shape ground = ts_plane(1.0f);
    ts_add_fixed(w, "floor", &ground, 1);
    /* The gate: two plates 2 r thick, as tall as the loose fill, longer than the period. */
    loam_body_def gate = loam_body_default_def();
    snprintf(gate.name, sizeof gate.name, "gate");
    gate.motion = LOAM_MOTION_COMMANDED;
    float half_h = 0.5f * (hi[2] + 2.0f * R);
    gate.shape_count = 2;
    for (int s = 0; s < 2; ++s) {
        loam_shape* sh = &gate.shapes[s];
        sh->type = LOAM_SHAPE_BOX;
        sh->local = loam_pose_identity();
        sh->local.p = (loam_vec3){(s ? -1.0f : 1.0f) * (SLOT_HALF + R), 0.5f * PERIOD, half_h};
        sh->size = (loam_vec3){R, PERIOD, half_h};
        sh->friction = 0.5f;
    }
    int g = loam_world_add_body(w, &gate, &err);
    CHECK(g >= 0, "%s", err.message);

    ts_steps(w, (int)(SETTLE_S / p.dt + 0.5));
    loam_particles ps = loam_world_particles(w);
    float column_top = 0.0f;
    for (int i = 0; i < ps.count; ++i) column_top = fmaxf(column_top, ps.z[i] + R);
    loam_twist lift = {{0.0f, 0.0f, LIFT_SPEED}, {0.0f, 0.0f, 0.0f}};
    CHECK(loam_world_command_body(w, g, lift, &err) == LOAM_OK, "%s", err.message);
    /* Until the plates' lower edges are a diameter above the settled column, then let it come to rest. */
    double lift_s = (column_top + 2.0f * R) / LIFT_SPEED;
    ts_steps(w, (int)((lift_s + RELAX_S) / p.dt + 0.5));

    ps = loam_world_particles(w);
    double xc = 0.0;
    for (int i = 0; i < ps.count; ++i) {
        xc += ps.x[i];
        h.height = fmax(h.height, ps.z[i] + R);
    }
    xc /= ps.count;
    for (int i = 0; i < ps.count; ++i) h.reach = fmax(h.reach, fabs(ps.x[i] - xc));
    for (int s = 0; s < 2; ++s) h.angle[s] = side_angle(&ps, xc, s ? 1 : -1, h.height, &h.bins[s]);
    h.ke = ts_ke_per_particle(w) / (RHO * 4.0 / 3.0 * TS_PI * R * R * R * TS_G * R);
    loam_world_destroy(w);
    return h;
}

int main(void) {
    double t0 = ts_now();
    const float mus[4] = {0.0f, 0.1f, 0.3f, 0.6f};
    double angle[4];
    for (int k = 0; k < 4; ++k) {
        angle[k] = NAN;
        if (test_short() && (k == 1 || k == 2)) continue;
        double t1 = ts_now();
        heap h = pour(mus[k]);
        angle[k] = 0.5 * (h.angle[0] + h.angle[1]);
        fprintf(stderr,
                "mu %.1f: angle of repose %.1f deg (sides %.1f and %.1f, %d and %d columns fitted), ridge %.3f m high, "
                "reaching %.3f m; atan(height / reach) %.1f deg; KE %.1e m g r; %.1f s\n",
                mus[k], angle[k], h.angle[0], h.angle[1], h.bins[0], h.bins[1], h.height, h.reach,
                atan(h.height / h.reach) * 180.0 / TS_PI, h.ke, ts_now() - t1);
        CHECK(h.bins[0] >= 4 && h.bins[1] >= 4, "mu %.1f: too few columns on a flank (%d, %d) to fit a slope", mus[k],
              h.bins[0], h.bins[1]);
        CHECK(isfinite(angle[k]) && angle[k] > 0.0 && angle[k] < 80.0, "mu %.1f: angle %g deg", mus[k], angle[k]);
    }
    CHECK_FULL(angle[1] < angle[2] && angle[2] < angle[3], "angle does not grow with friction: %.1f, %.1f, %.1f deg",
          angle[1], angle[2], angle[3]);
    CHECK(angle[0] < MU0_MAX_DEG, "frictionless heap at %.1f deg (limit %.1f)", angle[0], MU0_MAX_DEG);
    CHECK_FULL(angle[0] < 0.75 * angle[1], "frictionless heap %.1f deg not well below the mu = 0.1 heap %.1f deg", angle[0],
          angle[1]);
    fprintf(stderr, "%.1f s\n", ts_now() - t0);
    TEST_MAIN_END();
}
