/* Involute helical gears as meshes (loam/mesh_gen.h). The tooth profile: on the base circle
 * r_b = r cos(alpha) the involute at roll angle t is r_b (cos t + t sin t, sin t - t cos t), i.e.
 * radius r_b sqrt(1 + t^2) at polar angle t - atan(t). A tooth is symmetric about its centre line;
 * its half angular thickness at radius R is pi/(2z) + inv(alpha) - inv(alpha_R), inv(a) = tan a - a,
 * alpha_R = acos(r_b / R) (the standard tooth, thickness pi m / 2 on the pitch circle). Below the
 * base circle the flank runs radially down to the root circle r - 1.25 m. A helical gear turns the
 * profile by z tan(beta) / r with height. The profile is star-shaped about the axis, so the end
 * caps are fans from the centre. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_build.h"
#include "loam/mesh_gen.h"

loam_gear_def loam_gear_default_def(void) {
    loam_gear_def d = {0.004f, 18, 20.0f, 0.0f, 0.02f, 8, 0};
    return d;
}

static double involute(double a) { return tan(a) - a; }

/* One tooth period's profile, counter-clockwise, as (radius, angle) pairs centred on angle 0 for the
 * tooth; returns the number of points written. */
static int tooth_profile(const loam_gear_def* d, double* rad, double* ang) {
    double z = d->teeth, m = d->module, alpha = d->pressure_angle_deg * M_PI / 180.0;
    double r = 0.5 * m * z, rb = r * cos(alpha), ra = r + m, rf = r - 1.25 * m;
    double half_pitch = M_PI / (2.0 * z); /* half the tooth's angular thickness at the pitch circle */
    int n = 0, k = d->flank_points;
    double r_start = rb > rf ? rb : rf;
    /* Root arc to the middle of the gap, right flank up, tip, left flank down (angles grow CCW). */
    double gap_mid = -M_PI / z;
    double flank_root = half_pitch + involute(alpha) - involute(acos(fmin(1.0, rb / r_start)));
    rad[n] = rf;
    ang[n++] = gap_mid;
    if (rb > rf) { /* a radial line from the root up to the base circle */
        rad[n] = rf;
        ang[n++] = -flank_root;
    }
    for (int i = 0; i <= k; ++i) { /* right flank (below the centre line), radius rising */
        double R = r_start + (ra - r_start) * i / k;
        double psi = half_pitch + involute(alpha) - involute(acos(fmin(1.0, rb / R)));
        rad[n] = R;
        ang[n++] = -psi;
    }
    for (int i = k; i >= 0; --i) { /* left flank, radius falling */
        double R = r_start + (ra - r_start) * i / k;
        double psi = half_pitch + involute(alpha) - involute(acos(fmin(1.0, rb / R)));
        rad[n] = R;
        ang[n++] = psi;
    }
    if (rb > rf) {
        rad[n] = rf;
        ang[n++] = flank_root;
    }
    return n; /* the next tooth's first point closes the gap */
}

loam_status loam_mesh_gear(const loam_gear_def* d, loam_mesh* out, loam_error* err) {
    if (!out) return loam_error_set(err, LOAM_ERR_INPUT, "gear: null output");
    memset(out, 0, sizeof *out);
    if (!d) return loam_error_set(err, LOAM_ERR_INPUT, "gear: null definition");
#define BAD(cond, ...) \
    if (cond) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
    BAD(!(d->module > 0.0f) || !isfinite(d->module), "gear: module = %g m, expected > 0", d->module);
    BAD(d->teeth < 6 || d->teeth > 400, "gear: teeth = %d, expected 6 to 400", d->teeth);
    BAD(!(d->pressure_angle_deg >= 10.0f && d->pressure_angle_deg <= 35.0f), "gear: pressure_angle_deg = %g, expected 10 to 35",
        d->pressure_angle_deg);
    BAD(!(fabsf(d->helix_angle_deg) < 60.0f), "gear: helix_angle_deg = %g, expected |.| < 60", d->helix_angle_deg);
    BAD(!(d->face_width > 0.0f) || !isfinite(d->face_width), "gear: face_width = %g m, expected > 0", d->face_width);
    BAD(d->flank_points < 2 || d->flank_points > 64, "gear: flank_points = %d, expected 2 to 64", d->flank_points);
    BAD(d->slices < 0 || d->slices > 1000, "gear: slices = %d, expected 0 (automatic) to 1000", d->slices);
#undef BAD
    double rad[2 * 64 + 8], ang[2 * 64 + 8];
    int per_tooth = tooth_profile(d, rad, ang), ring = per_tooth * d->teeth;
    int slices = d->slices ? d->slices : (d->helix_angle_deg != 0.0f ? 16 : 1);
    double r = 0.5 * d->module * d->teeth, twist = tan(d->helix_angle_deg * M_PI / 180.0) / r; /* rad per m */
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    int ok = 1;
    for (int s = 0; s <= slices && ok; ++s) {
        double zc = -0.5 * d->face_width + d->face_width * s / slices, turn = twist * zc;
        for (int t = 0; t < d->teeth && ok; ++t)
            for (int p = 0; p < per_tooth && ok; ++p) {
                double a = ang[p] + 2.0 * M_PI * t / d->teeth + turn;
                ok = loam_mesh_add_vertex(&b, (float)(rad[p] * cos(a)), (float)(rad[p] * sin(a)), (float)zc) >= 0;
            }
    }
    int bottom = ok ? loam_mesh_add_vertex(&b, 0.0f, 0.0f, -0.5f * d->face_width) : -1;
    int top = ok ? loam_mesh_add_vertex(&b, 0.0f, 0.0f, 0.5f * d->face_width) : -1;
    ok = ok && bottom >= 0 && top >= 0;
    for (int s = 0; s < slices && ok; ++s)
        for (int p = 0; p < ring && ok; ++p) {
            int a = s * ring + p, c = s * ring + (p + 1) % ring, e = a + ring, f = c + ring;
            ok = loam_mesh_add_triangle(&b, a, c, f) && loam_mesh_add_triangle(&b, a, f, e); /* outward wall */
        }
    for (int p = 0; p < ring && ok; ++p) {
        ok = loam_mesh_add_triangle(&b, bottom, (p + 1) % ring, p) &&
             loam_mesh_add_triangle(&b, top, slices * ring + p, slices * ring + (p + 1) % ring);
    }
    if (!ok) {
        loam_mesh_builder_free(&b);
        return loam_error_set(err, LOAM_ERR_NOMEM, "gear: out of memory");
    }
    return loam_mesh_builder_finish(&b, "gear", out, err);
}
