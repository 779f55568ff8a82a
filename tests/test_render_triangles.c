/* Triangles over a rendered image: a triangle facing the camera covers the pixels inside its
 * projection (not outside), stores its view-axis depth, hides a farther one and is hidden by a
 * nearer one; bad input is refused. */
#include <math.h>
#include <string.h>

#include "loam/render.h"
#include "test_util.h"

int main(void) {
    loam_camera cam = loam_camera_default();
    cam.eye = (loam_vec3){0, 0, 5}, cam.target = (loam_vec3){0, 0, 0}, cam.up = (loam_vec3){0, 1, 0};
    cam.fov_deg = 0.0f, cam.ortho_height = 2.0f, cam.width = 64, cam.height = 64; /* orthographic, 2 m tall */
    loam_image img;
    loam_error err;
    CHECK(loam_image_alloc(&img, 64, 64, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_render(&cam, NULL, NULL, &img, &err) == LOAM_OK, "%s", err.message);
    uint8_t bg[3] = {img.rgb[3 * (32 * 64 + 32)], img.rgb[3 * (32 * 64 + 32) + 1], img.rgb[3 * (32 * 64 + 32) + 2]};
    /* two triangles: a far one (z = 0) around the centre, a near one (z = 1) in the upper right */
    const float x[6] = {-1, 1, 0, 0, 0.9f, 0}, y[6] = {-1, -1, 1, 0, 0, 0.9f}, z[6] = {0, 0, 0, 1, 1, 1};
    const int32_t idx[6] = {0, 1, 2, 3, 4, 5};
    float s[6] = {0, 0, 0, 1, 1, 1};
    loam_render_triangles t = loam_render_triangles_default();
    t.count = 2, t.index = idx, t.vertex_count = 6, t.x = x, t.y = y, t.z = z, t.scalar = s;
    CHECK(loam_render_triangles_draw(&cam, &t, &img, &err) == LOAM_OK, "%s", err.message);
    /* pixel (row 20, col 36) is world (0.14, 0.36): inside both, the near one in front */
    size_t near_px = 20 * 64 + 36, far_px = 60 * 64 + 32, corner = 1 * 64 + 1;
    CHECK(fabsf(img.depth[near_px] - 4.0f) < 1e-4f, "near depth %g, expected 4", (double)img.depth[near_px]);
    CHECK(fabsf(img.depth[far_px] - 5.0f) < 1e-4f, "far depth %g, expected 5", (double)img.depth[far_px]);
    CHECK(isinf(img.depth[corner]), "outside both triangles: depth %g", (double)img.depth[corner]);
    CHECK(memcmp(img.rgb + 3 * near_px, img.rgb + 3 * far_px, 3) != 0, "near and far triangles have one colour");
    CHECK(memcmp(img.rgb + 3 * far_px, bg, 3) != 0, "the far triangle is not drawn");
    /* drawing the far triangle again changes nothing where the near one is in front */
    uint8_t before[3];
    memcpy(before, img.rgb + 3 * near_px, 3);
    t.count = 1;
    CHECK(loam_render_triangles_draw(&cam, &t, &img, &err) == LOAM_OK, "%s", err.message);
    CHECK(!memcmp(before, img.rgb + 3 * near_px, 3) && fabsf(img.depth[near_px] - 4.0f) < 1e-4f, "depth test");
    /* bad input */
    const int32_t bad[3] = {0, 1, 9};
    t.index = bad;
    CHECK(loam_render_triangles_draw(&cam, &t, &img, &err) == LOAM_ERR_INPUT && strstr(err.message, "vertex 9"), "%s",
          err.message);
    CHECK(loam_render_triangles_draw(&cam, NULL, &img, &err) == LOAM_ERR_INPUT, "NULL triangles");
    loam_image_destroy(&img);
    TEST_MAIN_END();
}
