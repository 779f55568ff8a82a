/* Depth images and height maps (loam_depth_image, loam_height_map) against brute force: every
 * pixel's ray against every particle, for random clouds seen in perspective and orthographically;
 * a sphere straight ahead at distance D reads D - r at the centre pixel; particles behind the eye,
 * outside the box or non-finite are ignored; bad arguments are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/render.h"
#include "test_util.h"

enum { N = 300 };

static float uniform(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

/* Reference depth of pixel (px, py): the camera frame built here from the definition. */
static float brute_depth(const loam_camera* cam, const loam_render_particles* p, int px, int py) {
    double f[3] = {cam->target.x - cam->eye.x, cam->target.y - cam->eye.y, cam->target.z - cam->eye.z};
    double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; ++k) f[k] /= fl;
    double u0[3] = {cam->up.x, cam->up.y, cam->up.z};
    double rt[3] = {f[1] * u0[2] - f[2] * u0[1], f[2] * u0[0] - f[0] * u0[2], f[0] * u0[1] - f[1] * u0[0]};
    double rl = sqrt(rt[0] * rt[0] + rt[1] * rt[1] + rt[2] * rt[2]);
    for (int k = 0; k < 3; ++k) rt[k] /= rl;
    double up[3] = {rt[1] * f[2] - rt[2] * f[1], rt[2] * f[0] - rt[0] * f[2], rt[0] * f[1] - rt[1] * f[0]};
    double aspect = (double)cam->width / cam->height, best = INFINITY;
    double nx = ((px + 0.5) / cam->width * 2.0 - 1.0), ny = (1.0 - (py + 0.5) / cam->height * 2.0);
    for (int i = 0; i < p->count; ++i) {
        if (!isfinite(p->x[i]) || !(p->radius[i] > 0)) continue; /* what loam ignores too */
        double d[3] = {p->x[i] - cam->eye.x, p->y[i] - cam->eye.y, p->z[i] - cam->eye.z};
        double c[3] = {d[0] * rt[0] + d[1] * rt[1] + d[2] * rt[2], d[0] * up[0] + d[1] * up[1] + d[2] * up[2],
                       d[0] * f[0] + d[1] * f[1] + d[2] * f[2]};
        double r = p->radius[i], t;
        if (c[2] - r <= 0) continue;
        if (cam->fov_deg > 0) {
            double th = tan(0.5 * cam->fov_deg * M_PI / 180.0), sx = nx * th * aspect, sy = ny * th;
            double dd = sx * sx + sy * sy + 1, dc = sx * c[0] + sy * c[1] + c[2];
            double disc = dc * dc - dd * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2] - r * r);
            if (disc < 0) continue;
            t = (dc - sqrt(disc)) / dd;
        } else {
            double sx = nx * 0.5 * cam->ortho_height * aspect, sy = ny * 0.5 * cam->ortho_height;
            double h2 = r * r - (sx - c[0]) * (sx - c[0]) - (sy - c[1]) * (sy - c[1]);
            if (h2 < 0) continue;
            t = c[2] - sqrt(h2);
        }
        if (t < best) best = t;
    }
    return (float)best;
}

int main(void) {
    static float x[N], y[N], z[N], r[N], depth[64 * 48], height[40 * 30];
    unsigned s = 3;
    for (int i = 0; i < N; ++i) {
        x[i] = uniform(&s, -0.2f, 0.2f);
        y[i] = uniform(&s, -0.2f, 0.2f);
        z[i] = uniform(&s, 0.0f, 0.1f);
        r[i] = uniform(&s, 0.005f, 0.02f);
    }
    x[0] = NAN;     /* ignored */
    r[1] = -1.0f;   /* ignored */
    loam_render_particles p = loam_render_particles_default();
    p.count = N;
    p.x = x;
    p.y = y;
    p.z = z;
    p.radius = r;
    loam_error err;
    for (int ortho = 0; ortho < 2; ++ortho) {
        loam_camera cam = loam_camera_default();
        cam.width = 64;
        cam.height = 48;
        cam.eye = (loam_vec3){0.3f, -0.6f, 0.5f};
        cam.target = (loam_vec3){0, 0, 0.05f};
        if (ortho) {
            cam.fov_deg = 0.0f;
            cam.ortho_height = 0.5f;
        }
        CHECK(loam_depth_image(&cam, &p, depth, &err) == LOAM_OK, "%s", err.message);
        int hits = 0, bad = 0;
        for (int py = 0; py < cam.height; ++py)
            for (int px = 0; px < cam.width; ++px) {
                float want = brute_depth(&cam, &p, px, py), got = depth[py * cam.width + px];
                if (isinf(want) ? !isinf(got) : !(fabsf(got - want) < 1e-4f)) ++bad;
                hits += !isinf(want);
            }
        CHECK(bad == 0 && hits > 500, "%s: %d of %d pixels differ from brute force (%d hits)", ortho ? "ortho" : "perspective",
              bad, cam.width * cam.height, hits);
    }
    /* One sphere straight ahead: the centre pixel of an odd image reads D - r. */
    float one_x = 0, one_y = 1.0f, one_z = 0, one_r = 0.1f;
    loam_render_particles q = loam_render_particles_default();
    q.count = 1;
    q.x = &one_x;
    q.y = &one_y;
    q.z = &one_z;
    q.radius = &one_r;
    loam_camera cam = loam_camera_default();
    cam.width = cam.height = 35;
    cam.eye = (loam_vec3){0, 0, 0};
    cam.target = (loam_vec3){0, 1, 0};
    cam.up = (loam_vec3){0, 0, 1};
    CHECK(loam_depth_image(&cam, &q, depth, &err) == LOAM_OK, "%s", err.message);
    CHECK(fabsf(depth[17 * 35 + 17] - 0.9f) < 1e-6f && isinf(depth[0]), "centre %g (want 0.9), corner %g", depth[17 * 35 + 17],
          depth[0]);
    one_y = -1.0f; /* behind the eye */
    CHECK(loam_depth_image(&cam, &q, depth, &err) == LOAM_OK && isinf(depth[17 * 35 + 17]), "a sphere behind the eye is seen");

    /* Height map against brute force over the cells' centres. */
    const int W = 40, H = 30;
    const float x0 = -0.25f, x1 = 0.15f, y0 = -0.1f, y1 = 0.2f;
    CHECK(loam_height_map(&p, x0, y0, x1, y1, -0.5f, W, H, height, &err) == LOAM_OK, "%s", err.message);
    int bad = 0, covered = 0;
    for (int row = 0; row < H; ++row)
        for (int col = 0; col < W; ++col) {
            double cx = x0 + (col + 0.5) * (x1 - x0) / W, cy = y1 - (row + 0.5) * (y1 - y0) / H, want = -0.5;
            for (int i = 0; i < N; ++i) {
                if (!isfinite(x[i]) || !(r[i] > 0)) continue;
                double h2 = (double)r[i] * r[i] - (cx - x[i]) * (cx - x[i]) - (cy - y[i]) * (cy - y[i]);
                if (h2 >= 0) want = fmax(want, z[i] + sqrt(h2));
            }
            covered += want > -0.5;
            if (fabs(height[row * W + col] - want) > 1e-4) ++bad;
        }
    CHECK(bad == 0 && covered > 200, "height map: %d of %d cells differ (%d covered)", bad, W * H, covered);
    float far_x = 1e30f, far_r = 1.0f;
    q.x = &far_x;
    q.y = &one_x;
    q.z = &one_x;
    q.radius = &far_r;
    CHECK(loam_height_map(&q, x0, y0, x1, y1, 0.0f, W, H, height, &err) == LOAM_OK && height[0] == 0.0f, "far particle");
    CHECK(loam_height_map(&p, x1, y0, x0, y1, 0.0f, W, H, height, &err) == LOAM_ERR_INPUT, "empty box accepted");
    CHECK(loam_height_map(&p, x0, y0, x1, y1, 0.0f, 0, H, height, &err) == LOAM_ERR_INPUT, "zero width accepted");
    TEST_MAIN_END();
}
