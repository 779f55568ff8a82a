/* Involute helical gears (loam/mesh_gen.h): the mesh is closed and outward (every edge met once in
 * each direction, positive volume); the tooth is the standard one (thickness pi m / 2 on the pitch
 * circle, tip at r + m, root at r - 1.25 m); a helix turns the top face by b tan(beta) / r; the signed
 * distance grid puts a tooth's middle inside and a gap's middle outside; bad definitions fail. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/mesh_gen.h"
#include "loam/sdf_grid.h"
#include "test_meshes.h"
#include "test_util.h"

/* Angular thickness of the tooth centred on angle 0 at radius R, from the bottom ring's polygon. */
static double tooth_thickness_angle(const loam_mesh* m, int ring, double R) {
    double lo = 0.0, hi = 0.0;
    for (int p = 0; p < ring; ++p) {
        const float* a = &m->vertices[3 * p];
        const float* b = &m->vertices[3 * ((p + 1) % ring)];
        double ra = hypot(a[0], a[1]), rb = hypot(b[0], b[1]);
        if ((ra - R) * (rb - R) > 0.0 || ra == rb) continue;
        double s = (R - ra) / (rb - ra);
        double x = a[0] + s * (b[0] - a[0]), y = a[1] + s * (b[1] - a[1]), ang = atan2(y, x);
        if (fabs(ang) > M_PI / 18.0) continue; /* another tooth */
        if (ang < lo) lo = ang;
        if (ang > hi) hi = ang;
    }
    return hi - lo;
}

int main(void) {
    loam_error err;
    loam_gear_def d = loam_gear_default_def();
    loam_mesh m;
    CHECK(loam_mesh_gear(&d, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(closed_and_oriented(&m), "spur gear: not closed or not consistently oriented");
    double r = 0.5 * d.module * d.teeth, v = volume(&m);
    CHECK(v > M_PI * pow(r - 1.25 * d.module, 2) * d.face_width && v < M_PI * pow(r + d.module, 2) * d.face_width,
          "spur gear volume %g m^3 outside the root and tip cylinders", v);
    int ring = (m.vertex_count - 2) / 2;
    double thick = tooth_thickness_angle(&m, ring, r) * r;
    CHECK(fabs(thick - M_PI * d.module / 2) < 0.01 * M_PI * d.module / 2, "tooth thickness on the pitch circle %g m, want %g m",
          thick, M_PI * d.module / 2);
    double rmax = 0.0, rmin = 1e9;
    for (int p = 0; p < ring; ++p) {
        double rr = hypot(m.vertices[3 * p], m.vertices[3 * p + 1]);
        rmax = fmax(rmax, rr);
        rmin = fmin(rmin, rr);
    }
    CHECK(fabs(rmax - (r + d.module)) < 1e-6 && fabs(rmin - (r - 1.25 * d.module)) < 1e-6, "tip %g root %g (want %g, %g)",
          rmax, rmin, r + d.module, r - 1.25 * d.module);
    /* Inside a tooth, outside a gap: through the signed distance grid (1.4 million samples at 0.5 mm,
     * most of the test's time; 2 mm cells in the short run still resolve a 6 mm tooth). */
    loam_sdf_grid g;
    CHECK(loam_sdf_grid_build(&m, test_short() ? 0.002f : 0.0005f, 0.002f, &g, &err) == LOAM_OK, "%s", err.message);
    float tooth = loam_sdf_grid_query(&g, (loam_vec3){(float)r, 0, 0}, NULL);
    float gap = loam_sdf_grid_query(&g, (loam_vec3){(float)(r * cos(M_PI / d.teeth)), (float)(r * sin(M_PI / d.teeth)), 0}, NULL);
    CHECK(tooth < 0.0f && gap > 0.0f, "tooth middle %g m, gap middle %g m", tooth, gap);
    loam_sdf_grid_destroy(&g);
    loam_mesh_destroy(&m);

    /* A helical gear: the top face turned by b tan(beta) / r. */
    d.helix_angle_deg = 25.0f;
    d.teeth = 24;
    CHECK(loam_mesh_gear(&d, &m, &err) == LOAM_OK, "%s", err.message);
    CHECK(closed_and_oriented(&m), "helical gear: not closed or not consistently oriented");
    r = 0.5 * d.module * d.teeth;
    int slices = 16, ring2 = (m.vertex_count - 2) / (slices + 1);
    const float* bottom = &m.vertices[0];
    const float* top = &m.vertices[3 * (size_t)slices * ring2];
    double turn = atan2(top[1], top[0]) - atan2(bottom[1], bottom[0]);
    double want = d.face_width * tan(25.0 * M_PI / 180.0) / r;
    CHECK(fabs(turn - want) < 1e-5, "helix turn %g rad, want %g rad", turn, want);
    CHECK(volume(&m) > 0.0, "helical gear volume %g", volume(&m));
    loam_mesh_destroy(&m);

    loam_gear_def bad = loam_gear_default_def();
    bad.teeth = 3;
    CHECK(loam_mesh_gear(&bad, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "teeth"), "3 teeth: %s", err.message);
    bad = loam_gear_default_def();
    bad.helix_angle_deg = 70.0f;
    CHECK(loam_mesh_gear(&bad, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "helix"), "helix 70: %s", err.message);
    bad = loam_gear_default_def();
    bad.module = NAN;
    CHECK(loam_mesh_gear(&bad, &m, &err) == LOAM_ERR_INPUT, "NaN module accepted");
    TEST_MAIN_END();
}
