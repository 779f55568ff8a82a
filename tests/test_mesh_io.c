/* Mesh readers (OBJ, ASCII and binary STL): a unit cube written in each format reads back as 8
 * shared vertices and 12 triangles enclosing volume 1 with outward orientation (divergence theorem);
 * malformed files fail with status 2 and a message naming the file and line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loam/io.h"
#include "loam/mesh.h"
#include "test_util.h"

/* The unit cube [0,1]^3 as 12 counter-clockwise triangles (seen from outside). */
static const float CUBE[12][3][3] = {
    {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}}, {{0, 0, 0}, {1, 1, 0}, {1, 0, 0}}, /* z = 0, normal -z */
    {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}}, {{0, 0, 1}, {1, 1, 1}, {0, 1, 1}}, /* z = 1 */
    {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}}, {{0, 0, 0}, {1, 0, 1}, {0, 0, 1}}, /* y = 0 */
    {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}}, {{0, 1, 0}, {1, 1, 1}, {1, 1, 0}}, /* y = 1 */
    {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}}, {{0, 0, 0}, {0, 1, 1}, {0, 1, 0}}, /* x = 0 */
    {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}, {{1, 0, 0}, {1, 1, 1}, {1, 0, 1}}, /* x = 1 */
};

static double signed_volume(const loam_mesh* m) {
    double v = 0.0;
    for (int t = 0; t < m->triangle_count; ++t) {
        const float* a = &m->vertices[3 * m->triangles[3 * t]];
        const float* b = &m->vertices[3 * m->triangles[3 * t + 1]];
        const float* c = &m->vertices[3 * m->triangles[3 * t + 2]];
        v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
    }
    return v;
}

static void check_cube(const loam_mesh* m, const char* what) {
    CHECK(m->vertex_count == 8, "%s: %d vertices, expected 8 (welded)", what, m->vertex_count);
    CHECK(m->triangle_count == 12, "%s: %d triangles", what, m->triangle_count);
    double v = signed_volume(m);
    CHECK(fabs(v - 1.0) < 1e-6, "%s: enclosed volume %g, expected 1 (outward triangles)", what, v);
    loam_vec3 lo, hi;
    loam_mesh_bounds(m, &lo, &hi);
    CHECK(lo.x == 0 && lo.y == 0 && lo.z == 0 && hi.x == 1 && hi.y == 1 && hi.z == 1, "%s: bounds", what);
}

static size_t cube_ascii_stl(char* out, size_t cap) {
    size_t n = (size_t)snprintf(out, cap, "solid cube\n");
    for (int t = 0; t < 12; ++t) {
        n += (size_t)snprintf(out + n, cap - n, "  facet normal 0 0 0\n    outer loop\n");
        for (int c = 0; c < 3; ++c)
            n += (size_t)snprintf(out + n, cap - n, "      vertex %g %g %g\n", CUBE[t][c][0], CUBE[t][c][1], CUBE[t][c][2]);
        n += (size_t)snprintf(out + n, cap - n, "    endloop\n  endfacet\n");
    }
    n += (size_t)snprintf(out + n, cap - n, "endsolid cube\n");
    return n;
}

static size_t cube_binary_stl(unsigned char* out) {
    memset(out, 0, 84);
    memcpy(out, "solid but binary", 16); /* binary headers often start so: the size decides */
    out[80] = 12;
    for (int t = 0; t < 12; ++t) {
        unsigned char* rec = out + 84 + 50 * t;
        memset(rec, 0, 50);
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k) memcpy(rec + 12 + 12 * c + 4 * k, &CUBE[t][c][k], 4); /* little-endian host */
    }
    return 84 + 50 * 12;
}

static const char* OBJ_CUBE =
    "# a cube as quads, with the statements exporters add\n"
    "mtllib cube.mtl\no cube\n"
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\r\n"
    "v 0 0 1 1.0\nv 1 0 1\nv 1 1 1 0.5 0.5 0.5\nv 0 1 1\n"
    "vt 0 0\nvn 0 0 1\ng sides\nusemtl grey\ns off\n"
    "f 1 4 3 2\n"             /* z = 0 */
    "f 5/1 6/1 7/1 8/1\n"     /* z = 1 */
    "f 1//1 2//1 6//1 5//1\n" /* y = 0 */
    "f -5/1/1 -1/1/1 -2/1/1 -6/1/1\n" /* y = 1: 4 8 7 3 */
    "f 1 5 8 4\n"             /* x = 0 */
    "f 2 3 7 6\n";            /* x = 1 */

typedef struct bad_case {
    const char* text;
    const char* expect; /* in the message */
} bad_case;

int main(void) {
    loam_error err;
    loam_mesh m;
    CHECK(loam_mesh_read_obj(OBJ_CUBE, strlen(OBJ_CUBE), "cube.obj", &m, &err) == LOAM_OK, "%s", err.message);
    check_cube(&m, "OBJ");
    CHECK(m.vertex_count == 8, "OBJ keeps its own vertices");
    loam_mesh_destroy(&m);

    static char text[8192];
    size_t n = cube_ascii_stl(text, sizeof text);
    CHECK(loam_mesh_read_stl((const unsigned char*)text, n, "cube.stl", &m, &err) == LOAM_OK, "%s", err.message);
    check_cube(&m, "ASCII STL");
    loam_mesh ascii = m;

    static unsigned char bin[84 + 50 * 12];
    size_t nb = cube_binary_stl(bin);
    CHECK(loam_mesh_read_stl(bin, nb, "cube_bin.stl", &m, &err) == LOAM_OK, "%s", err.message);
    check_cube(&m, "binary STL");
    CHECK(memcmp(m.vertices, ascii.vertices, sizeof(float) * 24) == 0 &&
              memcmp(m.triangles, ascii.triangles, sizeof(int32_t) * 36) == 0,
          "binary and ASCII STL of one cube differ");
    loam_mesh_destroy(&m);
    loam_mesh_destroy(&ascii);

    /* Files, by extension (any case). */
    char dir[] = "/tmp/loam_mesh_XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/cube.STL", dir);
    FILE* f = fopen(path, "wb");
    fwrite(bin, 1, nb, f);
    fclose(f);
    CHECK(loam_mesh_load(path, &m, &err) == LOAM_OK, "%s", err.message);
    check_cube(&m, "cube.STL file");
    loam_mesh_destroy(&m);
    unlink(path);
    snprintf(path, sizeof path, "%s/cube.obj", dir);
    f = fopen(path, "wb");
    fputs(OBJ_CUBE, f);
    fclose(f);
    CHECK(loam_mesh_load(path, &m, &err) == LOAM_OK, "%s", err.message);
    check_cube(&m, "cube.obj file");
    loam_mesh_destroy(&m);
    unlink(path);
    snprintf(path, sizeof path, "%s/cube.ply", dir);
    CHECK(loam_mesh_load(path, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "cube.ply"), "ply: %s", err.message);
    snprintf(path, sizeof path, "%s/missing.obj", dir);
    CHECK(loam_mesh_load(path, &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "missing.obj"), "missing: %s",
          err.message);
    rmdir(dir);

    /* Malformed OBJ: the status, the file and the line. */
    const bad_case objs[] = {
        {"v 0 0 0\nv 1 0\n", "bad.obj:2:"},
        {"v 0 0 0\nv 1 0 nan\n", "bad.obj:2:"},
        {"v 0 0 0\nv 1 0 1e99\n", "bad.obj:2:"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "bad.obj:4:"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "bad.obj:4: face corner '9'"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "bad.obj:4:"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "bad.obj:4:"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", "bad.obj:4:"},
        {"v 0 0 0\n\n# c\nbogus 1 2\n", "bad.obj:4: unknown OBJ statement 'bogus'"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\n", "no triangles"},
        {"", "no triangles"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", "bad.obj:4:"},
        {"v 0 0 0 0 0 0 0 0\n", "bad.obj:1:"},
    };
    for (size_t k = 0; k < sizeof objs / sizeof objs[0]; ++k) {
        loam_status st = loam_mesh_read_obj(objs[k].text, strlen(objs[k].text), "bad.obj", &m, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, objs[k].expect), "OBJ case %zu: status %d, message '%s'", k,
              (int)st, err.message);
        CHECK(m.vertices == NULL && m.triangles == NULL, "OBJ case %zu left a mesh behind", k);
    }
    const char nul_obj[] = "v 0 0 0\nv 1\0 0 0\n";
    CHECK(loam_mesh_read_obj(nul_obj, sizeof nul_obj - 1, "bad.obj", &m, &err) == LOAM_ERR_INPUT, "NUL byte accepted");

    /* Malformed STL. */
    n = cube_ascii_stl(text, sizeof text);
    char* cut = strstr(text, "endloop");
    const bad_case stls[] = {
        {"solid x\n  facet normal 0 0 1\n    outer loop\n      vertex 0 0 0\n      vertex 1 0 0\n    endloop\n",
         "bad.stl:6: expected 'vertex'"},
        {"solid x\n  facet normal 0 0\n", "bad.stl:3:"},
        {"solid x\n  facet normal 0 0 1\n outer loop\n vertex 0 0 inf\n", "bad.stl:4:"},
        {"solid x\nendsolid x\n", "no triangles"},
        {"hello\n", "bad.stl:1: expected 'solid'"},
        {"solid x\n  facet normal 0 0 1\n    outer loop\n      vertex 0 0 0\n      vertex 1 0 0\n      vertex 0 1 0\n"
         "    endloop\n  endfacet\n",
         "the end of the file"},
    };
    for (size_t k = 0; k < sizeof stls / sizeof stls[0]; ++k) {
        loam_status st = loam_mesh_read_stl((const unsigned char*)stls[k].text, strlen(stls[k].text), "bad.stl", &m, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, stls[k].expect), "STL case %zu: status %d, message '%s'", k,
              (int)st, err.message);
    }
    CHECK(cut != NULL, "no endloop in the generated cube");
    CHECK(loam_mesh_read_stl((const unsigned char*)text, (size_t)(cut - text), "cut.stl", &m, &err) == LOAM_ERR_INPUT,
          "a cut ASCII STL was accepted");
    /* Binary: one byte short is not binary any more, and not text either. */
    CHECK(loam_mesh_read_stl(bin, nb - 1, "short.stl", &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "short.stl"),
          "short binary: %s", err.message);
    float nan = NAN;
    memcpy(bin + 84 + 50 * 3 + 12 + 12 + 4, &nan, 4);
    CHECK(loam_mesh_read_stl(bin, nb, "nan.stl", &m, &err) == LOAM_ERR_INPUT && strstr(err.message, "triangle 4 corner 2"),
          "NaN corner: %s", err.message);
    TEST_MAIN_END();
}
