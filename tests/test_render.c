/* Render checks: coverage and depth against closed-form geometry, shapes where their poses put them,
 * byte-identical output across thread counts, PNG round trip through libpng, MP4 via ffmpeg, and
 * rejection of bad input. */
#include <dirent.h>
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "loam/render.h"
#include "test_util.h"

static const double k_pi = 3.14159265358979323846;

static loam_camera top_ortho(int side, float height) {
    loam_camera c = loam_camera_default();
    c.eye = (loam_vec3){0, 0, 5};
    c.target = (loam_vec3){0, 0, 0};
    c.up = (loam_vec3){0, 1, 0};
    c.fov_deg = 0;
    c.ortho_height = height;
    c.width = c.height = side;
    return c;
}

static int covered(const loam_image* img) {
    int n = 0;
    for (int i = 0; i < img->width * img->height; ++i) n += isfinite(img->depth[i]);
    return n;
}

static float depth_at(const loam_image* img, int x, int y) { return img->depth[y * img->width + x]; }

/* Pixel of world point (x, y) for top_ortho: +x right, +y up the image. */
static float depth_world(const loam_image* img, float h, float x, float y) {
    float px = (x / h + 0.5f) * (float)img->width, py = (0.5f - y / h) * (float)img->height;
    return depth_at(img, (int)px, (int)py);
}

static void test_particle_geometry(void) {
    loam_image img;
    loam_camera cam = top_ortho(201, 2.0f);
    CHECK(loam_image_alloc(&img, 201, 201, NULL) == LOAM_OK, "alloc");
    float x = 0, y = 0, z = 0, r = 0.5f;
    loam_render_particles p = loam_render_particles_default();
    p.count = 1;
    p.x = &x, p.y = &y, p.z = &z, p.radius = &r;
    CHECK(loam_render(&cam, &p, NULL, &img, NULL) == LOAM_OK, "ortho render");
    double expect = k_pi * r * r / pow(2.0 / 201, 2);
    CHECK(fabs(covered(&img) / expect - 1) < 0.02, "ortho disc %d px, expected %.0f", covered(&img), expect);
    CHECK(fabsf(depth_at(&img, 100, 100) - 4.5f) < 1e-4f, "centre depth %g", depth_at(&img, 100, 100));
    CHECK(memcmp(&img.rgb[3 * (100 * 201 + 100)], p.color, 3) != 0, "centre shows background colour");

    /* Perspective: the silhouette's half-angle has tangent r / sqrt(D^2 - r^2). */
    cam.fov_deg = 30;
    cam.eye = (loam_vec3){0, -3, 0};
    cam.up = (loam_vec3){0, 0, 1};
    r = 0.1f;
    CHECK(loam_render(&cam, &p, NULL, &img, NULL) == LOAM_OK, "perspective render");
    double slope = r / sqrt(9.0 - r * r), pix = 2 * tan(15 * k_pi / 180) / 201;
    expect = k_pi * pow(slope / pix, 2);
    CHECK(fabs(covered(&img) / expect - 1) < 0.03, "perspective disc %d px, expected %.0f",
          covered(&img), expect);
    CHECK(fabsf(depth_at(&img, 100, 100) - 2.9f) < 1e-4f, "centre depth %g", depth_at(&img, 100, 100));

    /* Spheres that cannot be drawn are skipped, not fatal. */
    float bad_x[3] = {NAN, 0, 0}, bad_y[3] = {0, 0, 0}, bad_z[3] = {0, 0, 0}, bad_r[3] = {0.1f, -1, 0};
    p.count = 3;
    p.x = bad_x, p.y = bad_y, p.z = bad_z, p.radius = bad_r;
    CHECK(loam_render(&cam, &p, NULL, &img, NULL) == LOAM_OK, "non-finite particles");
    CHECK(covered(&img) == 0, "skipped particles drew %d px", covered(&img));
    loam_image_destroy(&img);
}

static loam_shape make_shape(loam_shape_type type, loam_vec3 size) {
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.local = loam_pose_identity();
    s.size = size;
    return s;
}

static void test_shapes(void) {
    const float h = 2.0f;
    loam_camera cam = top_ortho(200, h);
    loam_image img;
    loam_image_alloc(&img, 200, 200, NULL);
    loam_shape box = make_shape(LOAM_SHAPE_BOX, (loam_vec3){0.3f, 0.2f, 0.1f});
    loam_pose pose = loam_pose_identity();
    pose.p = (loam_vec3){0.5f, 0, 0};
    loam_render_shapes s = loam_render_shapes_default();
    s.count = 1;
    s.shapes = &box;
    s.world_poses = &pose;
    CHECK(loam_render(&cam, NULL, &s, &img, NULL) == LOAM_OK, "box render");
    double pix = pow(h / 200, 2);
    CHECK(fabs(covered(&img) * pix / (0.6 * 0.4) - 1) < 0.03, "box covers %d px", covered(&img));
    CHECK(fabsf(depth_world(&img, h, 0.5f, 0.01f) - 4.9f) < 2e-3f, "box top depth %g",
          depth_world(&img, h, 0.5f, 0.01f));
    CHECK(isinf(depth_world(&img, h, -0.5f, 0)), "box seen on the wrong side");

    /* A quarter turn about z swaps the footprint's sides. */
    pose.q = loam_quat_from_axis_angle((loam_vec3){0, 0, 1}, (float)(k_pi / 2));
    loam_render(&cam, NULL, &s, &img, NULL);
    CHECK(isfinite(depth_world(&img, h, 0.5f, 0.25f)), "rotated box missing at y = 0.25");
    CHECK(isinf(depth_world(&img, h, 0.75f, 0.0f)), "rotated box still at x = 0.75");

    /* Opaque shapes hide a particle inside them; translucent ones let it through. */
    float x = 0.5f, y = 0.01f, z = 0, r = 0.05f;
    loam_render_particles p = loam_render_particles_default();
    p.count = 1;
    p.x = &x, p.y = &y, p.z = &z, p.radius = &r;
    loam_render(&cam, &p, &s, &img, NULL);
    CHECK(fabsf(depth_world(&img, h, 0.5f, 0.01f) - 4.9f) < 2e-3f, "opaque box let the particle show");
    s.alpha = 0.5f;
    loam_render(&cam, &p, &s, &img, NULL);
    CHECK(fabsf(depth_world(&img, h, 0.5f, 0.01f) - 4.95f) < 1e-3f, "translucent depth %g",
          depth_world(&img, h, 0.5f, 0.01f));
    s.alpha = 1.0f;

    /* Traced round shapes: sphere area and depth, the tube's annulus (open ends: hollow shows). */
    loam_shape sphere = make_shape(LOAM_SHAPE_SPHERE, (loam_vec3){0.5f, 0, 0});
    pose = loam_pose_identity();
    s.shapes = &sphere;
    loam_render(&cam, NULL, &s, &img, NULL);
    CHECK(fabs(covered(&img) * pix / (k_pi * 0.25) - 1) < 0.03, "sphere shape %d px", covered(&img));
    CHECK(fabsf(depth_world(&img, h, 0.0f, 0.0f) - 4.5f) < 2e-3f, "sphere depth %g",
          depth_world(&img, h, 0, 0));
    loam_shape tube = make_shape(LOAM_SHAPE_TUBE, (loam_vec3){0.5f, 0.2f, 0.3f});
    s.shapes = &tube;
    loam_render(&cam, NULL, &s, &img, NULL);
    double ring = k_pi * (0.7 * 0.7 - 0.5 * 0.5);
    CHECK(fabs(covered(&img) * pix / ring - 1) < 0.03, "tube ring %d px", covered(&img));
    CHECK(isinf(depth_world(&img, h, 0, 0)), "tube hollow not see-through");

    /* A plane fills the view from above; seen from the side only below the horizon. */
    loam_shape plane = make_shape(LOAM_SHAPE_PLANE, (loam_vec3){0, 0, 0});
    s.shapes = &plane;
    loam_render(&cam, NULL, &s, &img, NULL);
    CHECK(covered(&img) == 200 * 200 && fabsf(depth_at(&img, 7, 150) - 5) < 1e-4f, "plane from above");
    cam.eye = (loam_vec3){0, -3, 1};
    cam.target = (loam_vec3){0, 0, 1};
    cam.up = (loam_vec3){0, 0, 1};
    cam.fov_deg = 50;
    loam_render(&cam, NULL, &s, &img, NULL);
    CHECK(isinf(depth_at(&img, 100, 60)) && isfinite(depth_at(&img, 100, 140)), "horizon");
    loam_image_destroy(&img);
}

/* One sphere drawn two ways, as a particle (camera-frame normals) and as a traced SPHERE shape
 * (local-frame normals), must look the same: this catches a light or a normal in the wrong frame. */
static void test_particle_matches_shape(void) {
    loam_camera cam = loam_camera_default();
    cam.width = 160, cam.height = 120;
    loam_image a, b;
    loam_image_alloc(&a, 160, 120, NULL);
    loam_image_alloc(&b, 160, 120, NULL);
    float x = 0.1f, y = 0.2f, z = 0.3f, r = 0.4f;
    loam_render_particles p = loam_render_particles_default();
    p.count = 1;
    p.x = &x, p.y = &y, p.z = &z, p.radius = &r;
    loam_render(&cam, &p, NULL, &a, NULL);
    loam_shape sphere = make_shape(LOAM_SHAPE_SPHERE, (loam_vec3){r, 0, 0});
    loam_pose pose = loam_pose_identity();
    pose.p = (loam_vec3){x, y, z};
    pose.q = loam_quat_from_euler_deg((loam_vec3){30, 50, 70}); /* a sphere does not care */
    loam_render_shapes s = loam_render_shapes_default();
    s.count = 1, s.shapes = &sphere, s.world_poses = &pose, s.rgb = p.color;
    loam_render(&cam, NULL, &s, &b, NULL);
    int differ = 0;
    for (int i = 0; i < 160 * 120 * 3; ++i) differ += abs(a.rgb[i] - b.rgb[i]) > 3;
    CHECK(covered(&a) > 1000 && differ < covered(&a) / 20, "%d of %d channels differ", differ,
          3 * covered(&a));
    loam_image_destroy(&a);
    loam_image_destroy(&b);
}

typedef struct scene {
    int n;
    float *x, *y, *z, *r, *speed;
    loam_shape shapes[6];
    loam_pose poses[6];
    uint8_t rgb[18];
    int shape_count;
} scene;

/* About 20k particles heaped in an open box, the benchmark case. */
static void scene_make(scene* s, int n) {
    s->n = n;
    s->x = malloc(5 * sizeof(float) * (size_t)n);
    s->y = s->x + n, s->z = s->y + n, s->r = s->z + n, s->speed = s->r + n;
    uint32_t seed = 12345;
    for (int i = 0; i < n; ++i) {
        int ix = i % 40, iy = (i / 40) % 40, iz = i / 1600;
        seed = seed * 1664525u + 1013904223u;
        float jitter = (float)(seed >> 8) / 16777216.0f;
        s->x[i] = -0.6f + 0.03f * (float)ix + 0.005f * jitter;
        s->y[i] = -0.6f + 0.03f * (float)iy;
        s->z[i] = 0.015f + 0.03f * (float)iz;
        s->r[i] = 0.013f + 0.002f * jitter;
        s->speed[i] = jitter;
    }
    s->shape_count = loam_open_box_pieces((loam_vec3){0.63f, 0.63f, 0.25f}, 0.02f, 0.5f, s->shapes);
    s->shapes[s->shape_count] = make_shape(LOAM_SHAPE_PLANE, (loam_vec3){0, 0, 0});
    s->shapes[s->shape_count].local.p.z = -0.02f;
    ++s->shape_count;
    for (int i = 0; i < s->shape_count; ++i) {
        s->poses[i] = s->shapes[i].local;
        s->rgb[3 * i] = (uint8_t)(120 + 20 * i), s->rgb[3 * i + 1] = 130, s->rgb[3 * i + 2] = 150;
    }
}

static loam_status scene_render(const scene* s, const loam_camera* cam, float alpha, loam_image* img) {
    loam_render_particles p = loam_render_particles_default();
    p.count = s->n;
    p.x = s->x, p.y = s->y, p.z = s->z, p.radius = s->r, p.scalar = s->speed;
    p.colormap = LOAM_COLORMAP_TURBO;
    loam_render_shapes sh = loam_render_shapes_default();
    sh.count = s->shape_count;
    sh.shapes = s->shapes, sh.world_poses = s->poses, sh.rgb = s->rgb, sh.alpha = alpha;
    return loam_render(cam, &p, &sh, img, NULL);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void test_determinism_and_speed(const char* dir) {
    scene s;
    scene_make(&s, 20000);
    loam_camera cam = loam_camera_default();
    loam_image a, b;
    loam_image_alloc(&a, cam.width, cam.height, NULL);
    loam_image_alloc(&b, cam.width, cam.height, NULL);
    size_t bytes = loam_bytes_in_use();
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    double best = 1e9;
    for (int rep = 0; rep < 3; ++rep) {
        double t0 = now();
        CHECK(scene_render(&s, &cam, 1.0f, &a) == LOAM_OK, "scene render");
        best = fmin(best, now() - t0);
    }
    fprintf(stderr, "render: 20000 particles + %d shapes at %dx%d, one thread: %.1f ms\n",
            s.shape_count, cam.width, cam.height, 1e3 * best);
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
    CHECK(best < 1.5, "render took %.3f s on one thread (budget 0.5 s)", best);
#endif
    CHECK(loam_bytes_in_use() == bytes, "render leaked %zu bytes", loam_bytes_in_use() - bytes);
    CHECK(covered(&a) > cam.width * cam.height / 4, "scene covers only %d px", covered(&a));
    for (float alpha = 1.0f; alpha > 0.0f; alpha -= 0.6f) {
#ifdef _OPENMP
        omp_set_num_threads(1);
#endif
        scene_render(&s, &cam, alpha, &a);
#ifdef _OPENMP
        omp_set_num_threads(4);
#endif
        scene_render(&s, &cam, alpha, &b);
        CHECK(memcmp(a.rgb, b.rgb, 3 * (size_t)a.width * a.height) == 0, "rgb differs by threads");
        CHECK(memcmp(a.depth, b.depth, sizeof(float) * a.width * a.height) == 0, "depth differs");
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    char path[512];
    snprintf(path, sizeof path, "%s/scene.png", dir);
    CHECK(loam_image_write_png(&a, path, NULL) == LOAM_OK, "scene png");
    loam_image_destroy(&a);
    loam_image_destroy(&b);
    free(s.x);
}

static void test_png(const char* dir) {
    loam_image img;
    loam_image_alloc(&img, 37, 21, NULL);
    for (int i = 0; i < 37 * 21 * 3; ++i) img.rgb[i] = (uint8_t)(i * 7 + i / 11);
    char path[512];
    snprintf(path, sizeof path, "%s/round.png", dir);
    CHECK(loam_image_write_png(&img, path, NULL) == LOAM_OK, "png write");
    png_image in;
    memset(&in, 0, sizeof in);
    in.version = PNG_IMAGE_VERSION;
    CHECK(png_image_begin_read_from_file(&in, path), "libpng cannot open %s", path);
    in.format = PNG_FORMAT_RGB;
    uint8_t* back = calloc(PNG_IMAGE_SIZE(in), 1);
    CHECK(in.width == 37 && in.height == 21, "png size %ux%u", in.width, in.height);
    CHECK(png_image_finish_read(&in, NULL, back, 0, NULL), "libpng read: %s", in.message);
    CHECK(PNG_IMAGE_SIZE(in) == 37 * 21 * 3 && memcmp(back, img.rgb, 37 * 21 * 3) == 0,
          "pixels changed in the round trip");
    free(back);
    loam_error err;
    snprintf(path, sizeof path, "%s/no/such/dir/x.png", dir);
    CHECK(loam_image_write_png(&img, path, &err) == LOAM_ERR_IO, "write into a missing dir");
    CHECK(access(path, F_OK) != 0, "failed write left a file");
    loam_image_destroy(&img);
}

static void test_video(const char* dir) {
    loam_image img;
    loam_image_alloc(&img, 63, 47, NULL); /* odd: the encoder must pad */
    char path[512], pattern[512], out[512];
    for (int f = 0; f < 4; ++f) {
        memset(img.rgb, 40 * f, 63 * 47 * 3);
        snprintf(path, sizeof path, "%s/frame_%04d.png", dir, f + 3);
        loam_image_write_png(&img, path, NULL);
    }
    loam_image_destroy(&img);
    snprintf(pattern, sizeof pattern, "%s/frame_%%04d.png", dir);
    snprintf(out, sizeof out, "%s/movie.mp4", dir);
    loam_video_params vp = {pattern, 3, 10.0, out};
    loam_error err;
    int missing = -1;
    char exe[4096];
    if (loam_ffmpeg_find(exe, sizeof exe)) {
        loam_status st = loam_video_encode(&vp, &missing, &err);
        CHECK(st == LOAM_OK && missing == 0, "encode: %s", st ? err.message : "");
        FILE* fp = fopen(out, "rb");
        char head[8] = {0};
        CHECK(fp && fread(head, 1, 8, fp) == 8 && memcmp(head + 4, "ftyp", 4) == 0, "not an MP4");
        if (fp) fclose(fp);
        remove(out);
    } else {
        fprintf(stderr, "render: ffmpeg not on PATH, skipping the encode check\n");
    }
    const char* old = getenv("PATH");
    char* saved = old ? strdup(old) : NULL;
    setenv("PATH", "/nonexistent-loam-dir", 1);
    CHECK(loam_video_encode(&vp, &missing, &err) == LOAM_ERR_IO && missing == 1, "no ffmpeg: %d", missing);
    CHECK(strstr(err.message, "ffmpeg not found") != NULL, "message: %s", err.message);
    CHECK(access(out, F_OK) != 0, "missing ffmpeg left an output");

    /* Stand-in ffmpegs: one writes half a file and fails (nothing may be left), one lacks libx264
     * (the MPEG-4 retry must be taken). Each writes to its last argument, minus "file:". */
    char bin[400];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    mkdir(bin, 0777);
    setenv("PATH", bin, 1);
    const char* scripts[2] = {
        "#!/bin/sh\nfor a; do last=$a; done\nprintf half > \"${last#file:}\"\nexit 3\n",
        "#!/bin/sh\ncase \"$*\" in *libx264*) exit 1;; esac\n"
        "for a; do last=$a; done\nprintf '....ftypmpeg4' > \"${last#file:}\"\n"};
    for (int i = 0; i < 2; ++i) {
        snprintf(path, sizeof path, "%s/ffmpeg", bin);
        FILE* fp = fopen(path, "w");
        if (fp) fputs(scripts[i], fp), fclose(fp);
        chmod(path, 0755);
        loam_status st = loam_video_encode(&vp, &missing, &err);
        if (i == 0) {
            CHECK(st == LOAM_ERR_IO && missing == 0, "failing ffmpeg: %d", st);
            CHECK(access(out, F_OK) != 0, "failing ffmpeg left %s", out);
        } else {
            char head[16] = {0};
            fp = fopen(out, "rb");
            CHECK(st == LOAM_OK && fp && fread(head, 1, 13, fp) == 13 && !strcmp(head + 4, "ftypmpeg4"),
                  "no MPEG-4 fallback: %s", st ? err.message : head);
            if (fp) fclose(fp);
            remove(out);
        }
        remove(path);
    }
    rmdir(bin);
    if (saved) setenv("PATH", saved, 1);
    free(saved);
    const char* bad[] = {"x_%s.png", "x_%d_%d.png", "x.png", "x_%5d.png"};
    for (int i = 0; i < 4; ++i) {
        vp.pattern = bad[i];
        CHECK(loam_video_encode(&vp, &missing, &err) == LOAM_ERR_INPUT && missing == 0, "%s", bad[i]);
    }
}

static void test_bad_input(void) {
    loam_camera cam = loam_camera_default();
    loam_image img;
    loam_error err;
    CHECK(loam_image_alloc(&img, 0, 10, &err) == LOAM_ERR_INPUT && img.rgb == NULL, "zero width");
    CHECK(loam_image_alloc(NULL, 10, 10, &err) == LOAM_ERR_INPUT, "NULL image");
    loam_image_alloc(&img, cam.width, cam.height, NULL);
    CHECK(loam_render(NULL, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "NULL camera");
    CHECK(loam_render(&cam, NULL, NULL, NULL, &err) == LOAM_ERR_INPUT, "NULL output");
    loam_camera c = cam;
    c.eye.x = NAN;
    CHECK(loam_render(&c, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "NaN eye");
    c = cam, c.target = c.eye;
    CHECK(loam_render(&c, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "eye == target");
    c = cam, c.up = (loam_vec3){1.5f, -2.5f, 1.2f};
    CHECK(loam_render(&c, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "up along the view");
    c = cam, c.fov_deg = 0, c.ortho_height = 0;
    CHECK(loam_render(&c, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "ortho height 0");
    c = cam, c.width = 100;
    CHECK(loam_render(&c, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "size mismatch");
    c = cam, c.height = -1;
    CHECK(loam_render(&c, NULL, NULL, &img, &err) == LOAM_ERR_INPUT, "negative height");
    loam_render_particles p = loam_render_particles_default();
    p.count = 5;
    CHECK(loam_render(&cam, &p, NULL, &img, &err) == LOAM_ERR_INPUT, "NULL particle arrays");
    p.count = -1;
    CHECK(loam_render(&cam, &p, NULL, &img, &err) == LOAM_ERR_INPUT, "negative count");
    loam_render_shapes s = loam_render_shapes_default();
    loam_shape sh = make_shape((loam_shape_type)99, (loam_vec3){1, 1, 1});
    loam_pose pose = loam_pose_identity();
    s.count = 1, s.shapes = &sh, s.world_poses = &pose;
    CHECK(loam_render(&cam, NULL, &s, &img, &err) == LOAM_ERR_INPUT, "bad shape type");
    sh.type = LOAM_SHAPE_BOX, s.alpha = 0;
    CHECK(loam_render(&cam, NULL, &s, &img, &err) == LOAM_ERR_INPUT, "alpha 0");
    s.alpha = 1, pose.p.z = INFINITY;
    CHECK(loam_render(&cam, NULL, &s, &img, &err) == LOAM_ERR_INPUT && err.message[0], "inf pose");
    CHECK(loam_image_write_png(&img, NULL, &err) == LOAM_ERR_INPUT, "NULL path");
    CHECK(loam_image_write_png(NULL, "x.png", &err) == LOAM_ERR_INPUT, "NULL image to png");
    CHECK(loam_video_encode(NULL, NULL, &err) == LOAM_ERR_INPUT, "NULL video params");
    loam_image_destroy(&img);
    loam_image_destroy(&img); /* twice is harmless */
}

static void test_colormap(void) {
    uint8_t c[3];
    loam_colormap_eval(LOAM_COLORMAP_VIRIDIS, 0.0f, c);
    CHECK(c[0] == 68 && c[1] == 1 && c[2] == 84, "viridis(0) = %d %d %d", c[0], c[1], c[2]);
    loam_colormap_eval(LOAM_COLORMAP_VIRIDIS, 2.0f, c);
    CHECK(c[0] == 253 && c[1] == 231 && c[2] == 37, "viridis(>1) = %d %d %d", c[0], c[1], c[2]);
    loam_colormap_eval(LOAM_COLORMAP_TURBO, 0.5f, c);
    CHECK(c[1] > c[0] && c[1] > c[2], "turbo(0.5) not green: %d %d %d", c[0], c[1], c[2]);
    loam_colormap_eval(LOAM_COLORMAP_TURBO, NAN, c);
    CHECK(c[0] == 128 && c[1] == 128 && c[2] == 128, "NaN not grey");
}

static void remove_dir(const char* dir) {
    DIR* d = opendir(dir);
    struct dirent* e;
    char path[1024];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        CHECK(strstr(e->d_name, ".tmp.") == NULL, "temporary file left: %s", e->d_name);
        remove(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

int main(void) {
    char dir[] = "/tmp/loam_render_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    test_particle_geometry();
    test_shapes();
    test_particle_matches_shape();
    test_png(dir);
    test_video(dir);
    test_bad_input();
    test_colormap();
    test_determinism_and_speed(dir);
    if (getenv("LOAM_KEEP_RENDER")) fprintf(stderr, "render: output kept in %s\n", dir);
    else remove_dir(dir);
    TEST_MAIN_END();
}
