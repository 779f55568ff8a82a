/* `heightfield` shapes in scene files (docs/scene-format.md): inline rows, CSV and 8- and 16-bit
 * grayscale PNG files give the heights the format defines (row order, scale and offset), a world
 * built from such a scene rests particles on the field, and malformed fields are refused with the
 * scene line named. */
#define _POSIX_C_SOURCE 200809L
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loam/scene.h"
#include "test_util.h"

static char g_dir[] = "/tmp/loam_hf_XXXXXX";

static const loam_heightfield* load(const char* text, loam_scene* s, loam_error* err) {
    char name[256];
    snprintf(name, sizeof name, "%s/scene.yaml", g_dir);
    if (loam_scene_load_buffer(text, strlen(text), name, NULL, 0, s, err) != LOAM_OK) return NULL;
    if (s->body_count != 1 || s->bodies[0].shape_count != 1 || s->bodies[0].shapes[0].type != LOAM_SHAPE_HEIGHTFIELD) {
        loam_scene_destroy(s);
        return NULL;
    }
    return s->bodies[0].shapes[0].heightfield;
}

static void inline_rows(void) {
    const char* text = "loam: 1\n"
                       "particles:\n"
                       "  - points: {positions: [[0, 0, 0.3], [0.1, 0.1, 0.3]], radius: 0.01}\n"
                       "bodies:\n"
                       "  - name: ground\n"
                       "    shapes:\n"
                       "      - type: heightfield\n"
                       "        dx: 0.25\n"
                       "        dy: 0.5\n"
                       "        heights:\n"
                       "          - [0.0, 0.1, 0.2]\n"
                       "          - [0.3, 0.4, 0.5]\n";
    loam_scene s;
    loam_error err;
    const loam_heightfield* hf = load(text, &s, &err);
    CHECK(hf != NULL, "inline scene: %s", err.message);
    if (!hf) return;
    CHECK(hf->nx == 3 && hf->ny == 2 && hf->dx == 0.25f && hf->dy == 0.5f, "inline: %d x %d, %g, %g", hf->nx, hf->ny, hf->dx,
          hf->dy);
    float want[6] = {0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f};
    CHECK(memcmp(hf->heights, want, sizeof want) == 0, "inline heights not in row order (row 0 at the lowest y)");
    /* lowest-y row first: the corner (-dx, -dy/2) is row 0's first value, (+dx, +dy/2) row 1's last */
    CHECK(loam_heightfield_height(hf, 0.25f, 0.25f, NULL) == 0.5f, "corner height %g", loam_heightfield_height(hf, 0.25f, 0.25f, NULL));
    loam_world* w = loam_scene_create_world(&s, &err);
    CHECK(w != NULL, "world: %s", err.message);
    for (int k = 0; w && k < 1500; ++k) CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
    if (w) {
        /* the particle at (0.1, 0.1) rests one radius above the bilinear surface along its normal */
        loam_particles ps = loam_world_particles(w);
        for (int k = 0; k < ps.count; ++k) {
            loam_vec3 n;
            float f = loam_shape_sdf(&s.bodies[0].shapes[0], (loam_vec3){ps.x[k], ps.y[k], ps.z[k]}, &n);
            CHECK(fabsf(f - 0.01f) < 2e-4f, "particle %d rests %g m from the field, radius 0.01 m", k, f);
        }
        loam_world_destroy(w);
    }
    loam_scene_destroy(&s);
}

static void csv_file(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/hills.csv", g_dir);
    FILE* f = fopen(path, "w");
    fputs("# heights, m\n1, 2, 3\n4,5,6\n\n", f);
    fclose(f);
    const char* text = "loam: 1\nparticles:\n  - points: {positions: [[0, 0, 2]], radius: 0.01}\nbodies:\n  - shapes:\n"
                       "      - {type: heightfield, file: hills.csv, dx: 0.1, height_scale: 0.5, height_offset: -1}\n";
    loam_scene s;
    loam_error err;
    const loam_heightfield* hf = load(text, &s, &err);
    CHECK(hf != NULL, "csv scene: %s", err.message);
    if (!hf) return;
    CHECK(hf->nx == 3 && hf->ny == 2 && hf->dy == 0.1f, "csv: %d x %d, dy %g (defaults to dx)", hf->nx, hf->ny, hf->dy);
    for (int k = 0; k < 6; ++k)
        CHECK(hf->heights[k] == -1.0f + 0.5f * (float)(k + 1), "csv height %d = %g", k, hf->heights[k]);
    loam_scene_destroy(&s);
}

/* A 3 x 2 PNG, top row first in the file. */
static void png_file(int bits) {
    char path[512];
    snprintf(path, sizeof path, "%s/map%d.png", g_dir, bits);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = 3, img.height = 2;
    img.format = bits == 16 ? PNG_FORMAT_LINEAR_Y : PNG_FORMAT_GRAY;
    uint16_t deep[6] = {0, 1000, 65535, 30000, 40000, 50000};
    uint8_t shallow[6] = {0, 10, 255, 30, 40, 50};
    CHECK(png_image_write_to_file(&img, path, 0, bits == 16 ? (void*)deep : (void*)shallow, 0, NULL), "write %s", path);
    char text[512];
    snprintf(text, sizeof text,
             "loam: 1\nparticles:\n  - points: {positions: [[0, 0, 2]], radius: 0.01}\nbodies:\n  - shapes:\n"
             "      - {type: heightfield, file: map%d.png, dx: 0.1, dy: 0.2, height_scale: 2.0, height_offset: 0.5}\n",
             bits);
    loam_scene s;
    loam_error err;
    const loam_heightfield* hf = load(text, &s, &err);
    CHECK(hf != NULL, "png %d scene: %s", bits, err.message);
    if (!hf) return;
    CHECK(hf->nx == 3 && hf->ny == 2, "png: %d x %d", hf->nx, hf->ny);
    double top = bits == 16 ? 65535.0 : 255.0;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) {
            int pixel = (1 - j) * 3 + i; /* the image's top row is the highest y */
            double v = bits == 16 ? deep[pixel] : shallow[pixel];
            double want = 0.5 + 2.0 * v / top;
            CHECK(fabs(hf->heights[j * 3 + i] - want) < 1e-6, "png %d: height (%d, %d) = %g, want %g", bits, i, j,
                  hf->heights[j * 3 + i], want);
        }
    loam_scene_destroy(&s);
}

static void bad(const char* shape, const char* want, int line) {
    char text[1024], where[64];
    snprintf(text, sizeof text, "loam: 1\nparticles:\n  - points: {positions: [[0, 0, 2]], radius: 0.01}\nbodies:\n  - shapes:\n%s",
             shape);
    loam_scene s;
    loam_error err;
    loam_error_clear(&err);
    loam_status st = loam_scene_load_buffer(text, strlen(text), "bad.yaml", NULL, 0, &s, &err);
    snprintf(where, sizeof where, "bad.yaml:%d:", line);
    CHECK(st == LOAM_ERR_INPUT && strstr(err.message, want) && strstr(err.message, where), "%s: status %d, message '%s'",
          want, (int)st, err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
}

int main(void) {
    CHECK(mkdtemp(g_dir) != NULL, "mkdtemp");
    inline_rows();
    csv_file();
    png_file(16);
    png_file(8);
    bad("      - {type: heightfield, dx: 0.1, heights: [[0, 1], [2]]}\n", "row 1 of 'heights' has 1 values", 6);
    bad("      - {type: heightfield, dx: 0.1, heights: [[0, 1]]}\n", "ny = 1", 6);
    bad("      - {type: heightfield, heights: [[0, 1], [2, 3]]}\n", "needs 'dx'", 6);
    bad("      - {type: heightfield, dx: 0.1, heights: [[0, 1], [2, 3]], file: a.csv}\n", "exactly one of", 6);
    bad("      - {type: heightfield, dx: 0.1, heights: [[0, .nan], [2, 3]]}\n", "", 6);
    bad("      - {type: heightfield, dx: 0.1, file: /nonexistent/h.csv}\n", "/nonexistent/h.csv", 6);
    bad("      - {type: heightfield, dx: 0.1, radius: 1, heights: [[0, 1], [2, 3]]}\n", "has no 'radius'", 6);
    bad("      - {type: heightfield, dx: -0.1, heights: [[0, 1], [2, 3]]}\n", "dx", 6);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0, "cleanup");
    TEST_MAIN_END();
}
