/* Height fields (issue 24): a plane written as heights has the plane's signed distance and normal
 * (the first-order distance is exact on planar patches), the bilinear surface passes through every
 * sample bit for bit, bad fields are refused with the field named, and granular particles dropped
 * on a sloped height field come to rest one radius from it along its normal, as on the plane. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/heightfield_sdf.h"
#include "loam/granular.h"
#include "test_util.h"

/* The plane n . p = c with n = (sin t cos a, sin t sin a, cos t) as heights h = (c - nx x - ny y) / nz. */
static void plane_heights(int nx, int ny, float dx, float dy, double theta, double azimuth, double c, float* h) {
    double n[3] = {sin(theta) * cos(azimuth), sin(theta) * sin(azimuth), cos(theta)};
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            double x = i * dx - 0.5 * (nx - 1) * dx, y = j * dy - 0.5 * (ny - 1) * dy;
            h[j * nx + i] = (float)((c - n[0] * x - n[1] * y) / n[2]);
        }
}

static double urand(unsigned* s) {
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffffff) / 16777216.0;
}

static void plane_sdf_matches(void) {
    const int nx = 21, ny = 13;
    const float dx = 0.05f, dy = 0.08f;
    const double theta = 0.6, azimuth = 0.9, c = 0.03;
    float h[21 * 13];
    plane_heights(nx, ny, dx, dy, theta, azimuth, c, h);
    loam_heightfield hf;
    loam_error err;
    CHECK(loam_heightfield_create(nx, ny, dx, dy, h, &hf, &err) == LOAM_OK, "%s", err.message);
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = LOAM_SHAPE_HEIGHTFIELD;
    s.local = loam_pose_identity();
    s.heightfield = &hf;
    CHECK(loam_shape_validate(&s, &err) == LOAM_OK, "%s", err.message);
    double n[3] = {sin(theta) * cos(azimuth), sin(theta) * sin(azimuth), cos(theta)};
    unsigned seed = 7;
    double worst = 0.0, worst_n = 0.0, worst_d = 0.0;
    for (int k = 0; k < 2000; ++k) {
        double p[3] = {(urand(&seed) - 0.5) * (nx - 1) * dx, (urand(&seed) - 0.5) * (ny - 1) * dy, (urand(&seed) - 0.5) * 0.4};
        double exact = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - c;
        loam_vec3 nf;
        float f = loam_shape_sdf(&s, (loam_vec3){(float)p[0], (float)p[1], (float)p[2]}, &nf);
        worst = fmax(worst, fabs(f - exact));
        worst_n = fmax(worst_n, fabs(nf.x - n[0]) + fabs(nf.y - n[1]) + fabs(nf.z - n[2]));
        double nd[3], d = loam_heightfield_sdf_d(&hf, p, nd); /* the double instance */
        worst_d = fmax(worst_d, fabs(d - exact) + fabs(nd[0] - n[0]) + fabs(nd[1] - n[1]) + fabs(nd[2] - n[2]));
    }
    /* float heights of ~0.5 m carry ~3e-8 m rounding; a few ulps of the arithmetic on top */
    CHECK(worst < 2e-6, "plane as heights: signed distance off the plane's by %g m", worst);
    CHECK(worst_n < 1e-5, "plane as heights: normal off by %g", worst_n);
    CHECK(worst_d < 2e-6, "plane as heights, double instance: off by %g", worst_d);
    loam_vec3 lo, hi;
    loam_shape_local_bounds(&s, &lo, &hi);
    CHECK(hi.z == hf.max_height && lo.z < -1e29f, "bounds z %g..%g, max height %g", lo.z, hi.z, hf.max_height);
    loam_heightfield_destroy(&hf);
}

/* Spacings that are powers of two make every sample's coordinate exact, so the surface must give
 * back each sample's height exactly; outside the rectangle the border heights continue. */
static void samples_exact(void) {
    const int nx = 7, ny = 5;
    const float dx = 0.25f, dy = 0.5f;
    float h[35];
    unsigned seed = 3;
    for (int k = 0; k < nx * ny; ++k) h[k] = (float)(urand(&seed) - 0.5);
    loam_heightfield hf;
    loam_error err;
    CHECK(loam_heightfield_create(nx, ny, dx, dy, h, &hf, &err) == LOAM_OK, "%s", err.message);
    int bad = 0;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            float x = (float)i * dx - 0.5f * (float)(nx - 1) * dx, y = (float)j * dy - 0.5f * (float)(ny - 1) * dy;
            bad += loam_heightfield_height(&hf, x, y, NULL) != h[j * nx + i];
            double p[2] = {x, y};
            bad += loam_hf_height_d(&hf, p[0], p[1], NULL) != (double)h[j * nx + i];
        }
    CHECK(bad == 0, "%d samples not reproduced exactly", bad);
    /* Midpoint of cell (0, 0): the mean of its four corners. */
    float xm = -0.5f * (nx - 1) * dx + 0.5f * dx, ym = -0.5f * (ny - 1) * dy + 0.5f * dy;
    double mean = 0.25 * ((double)h[0] + h[1] + h[nx] + h[nx + 1]);
    CHECK(fabs(loam_heightfield_height(&hf, xm, ym, NULL) - mean) < 1e-6, "cell centre %g, corner mean %g",
          loam_heightfield_height(&hf, xm, ym, NULL), mean);
    /* Beyond the x = max border at sample row j = 2: the border height, with zero x slope. */
    float g[2];
    float out = loam_heightfield_height(&hf, 10.0f, 0.0f, g);
    CHECK(out == h[2 * nx + nx - 1] && g[0] == 0.0f, "outside: height %g (border %g), slope %g", out, h[2 * nx + nx - 1], g[0]);
    loam_heightfield_destroy(&hf);
}

static void bad_inputs(void) {
    float h[6] = {0, 0, 0, 0, 0, 0};
    loam_heightfield hf;
    loam_error err;
    CHECK(loam_heightfield_create(1, 6, 0.1f, 0.1f, h, &hf, &err) == LOAM_ERR_INPUT && strstr(err.message, "nx = 1"), "%s",
          err.message);
    CHECK(loam_heightfield_create(3, 2, 0.0f, 0.1f, h, &hf, &err) == LOAM_ERR_INPUT && strstr(err.message, "dx = 0"), "%s",
          err.message);
    CHECK(loam_heightfield_create(3, 2, 0.1f, -1.0f, h, &hf, &err) == LOAM_ERR_INPUT && strstr(err.message, "dy = -1"), "%s",
          err.message);
    CHECK(loam_heightfield_create(3, 2, 0.1f, NAN, h, &hf, &err) == LOAM_ERR_INPUT, "NaN dy accepted");
    h[4] = INFINITY;
    CHECK(loam_heightfield_create(3, 2, 0.1f, 0.1f, h, &hf, &err) == LOAM_ERR_INPUT && strstr(err.message, "i = 1, j = 1"),
          "%s", err.message);
    h[4] = NAN;
    CHECK(loam_heightfield_create(3, 2, 0.1f, 0.1f, h, &hf, &err) == LOAM_ERR_INPUT, "NaN height accepted");
    CHECK(loam_heightfield_create(3, 2, 0.1f, 0.1f, NULL, &hf, &err) == LOAM_ERR_INPUT, "NULL heights accepted");
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = LOAM_SHAPE_HEIGHTFIELD;
    s.local = loam_pose_identity();
    CHECK(loam_shape_validate(&s, &err) == LOAM_ERR_INPUT && strstr(err.message, "heightfield"), "%s", err.message);
    /* A body with a height field lacking its data is refused too. */
    loam_body_def b = loam_body_default_def();
    b.shape_count = 1;
    b.shapes[0] = s;
    CHECK(loam_body_def_validate(&b, &err) == LOAM_ERR_INPUT, "body with an empty height field accepted");
}

/* Particles far enough apart not to touch, dropped on a 20-degree slope written as heights with
 * friction above tan 20: each comes to rest at one radius from the plane along its normal. */
static void particles_rest_on_slope(void) {
    const double theta = 20.0 * 3.14159265358979 / 180.0;
    const int nx = 11, ny = 11;
    const float dx = 0.1f, dy = 0.1f, r = 0.01f;
    float h[121];
    plane_heights(nx, ny, dx, dy, theta, 0.0, 0.0, h);
    loam_heightfield hf;
    loam_error err;
    CHECK(loam_heightfield_create(nx, ny, dx, dy, h, &hf, &err) == LOAM_OK, "%s", err.message);
    loam_granular_params prm = loam_granular_default_params();
    loam_world* w = loam_world_create(&prm, &err);
    loam_body_def ground = loam_body_default_def();
    snprintf(ground.name, sizeof ground.name, "terrain");
    ground.shape_count = 1;
    ground.shapes[0].type = LOAM_SHAPE_HEIGHTFIELD;
    ground.shapes[0].local = loam_pose_identity();
    ground.shapes[0].friction = 0.8f;
    ground.shapes[0].heightfield = &hf;
    CHECK(loam_world_add_body(w, &ground, &err) == 0, "%s", err.message);
    enum { N = 9 };
    float xyz[3 * N], rad[N];
    for (int k = 0; k < N; ++k) {
        float x = -0.3f + 0.075f * k, y = -0.3f + 0.07f * (k % 3) * 3.0f;
        xyz[3 * k] = x, xyz[3 * k + 1] = y, xyz[3 * k + 2] = (float)(-tan(theta) * x) + 0.02f + 0.005f * (k % 4);
        rad[k] = r;
    }
    CHECK(loam_world_add_particles(w, N, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    for (int k = 0; k < 2000; ++k) CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
    loam_particles ps = loam_world_particles(w);
    double n[3] = {sin(theta), 0.0, cos(theta)}, worst = 0.0, fastest = 0.0;
    for (int k = 0; k < ps.count; ++k) {
        double along = n[0] * ps.x[k] + n[2] * ps.z[k];
        worst = fmax(worst, fabs(along - r));
        fastest = fmax(fastest, sqrt((double)ps.vx[k] * ps.vx[k] + (double)ps.vy[k] * ps.vy[k] + (double)ps.vz[k] * ps.vz[k]));
    }
    fprintf(stderr, "particles on a 20-degree height field: rest distance off the radius by %.3g m, speed %.3g m/s\n",
            worst, fastest);
    CHECK(ps.count == N, "%d particles", ps.count);
    CHECK(worst < 0.01 * r, "rest distance along the normal off the radius %g m by %g m", (double)r, worst);
    CHECK(fastest < 1e-3, "not at rest: %g m/s", fastest);
    loam_world_destroy(w);
    loam_heightfield_destroy(&hf);
}

int main(void) {
    plane_sdf_matches();
    samples_exact();
    bad_inputs();
    particles_rest_on_slope();
    TEST_MAIN_END();
}
