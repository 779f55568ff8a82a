/* Mesh storage and the entry point that picks a reader by file extension (mesh_obj.c, mesh_stl.c). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_build.h"
#include "loam/io.h"

void loam_mesh_builder_init(loam_mesh_builder* b) { memset(b, 0, sizeof *b); }

void loam_mesh_builder_free(loam_mesh_builder* b) {
    loam_mesh_destroy(&b->mesh);
    loam_free(b->weld);
    memset(b, 0, sizeof *b);
}

/* Grow an array of `count` items of `size` bytes to hold one more; 0 when out of memory. */
static int grow(void** array, int* capacity, int count, size_t size, int limit) {
    if (count < *capacity) return 1;
    if (count >= limit) return 0;
    int cap = *capacity ? (*capacity < limit / 2 ? 2 * *capacity : limit) : 256;
    void* bigger = loam_malloc(size * (size_t)cap);
    if (!bigger) return 0;
    if (count) memcpy(bigger, *array, size * (size_t)count);
    loam_free(*array);
    *array = bigger;
    *capacity = cap;
    return 1;
}

int loam_mesh_add_vertex(loam_mesh_builder* b, float x, float y, float z) {
    loam_mesh* m = &b->mesh;
    if (!grow((void**)&m->vertices, &b->vertex_capacity, m->vertex_count, 3 * sizeof(float), 3 * LOAM_MESH_MAX_TRIANGLES))
        return -1;
    float* v = &m->vertices[3 * (size_t)m->vertex_count];
    v[0] = x;
    v[1] = y;
    v[2] = z;
    return m->vertex_count++;
}

int loam_mesh_add_triangle(loam_mesh_builder* b, int32_t a, int32_t c, int32_t d) {
    loam_mesh* m = &b->mesh;
    if (!grow((void**)&m->triangles, &b->triangle_capacity, m->triangle_count, 3 * sizeof(int32_t),
              LOAM_MESH_MAX_TRIANGLES))
        return 0;
    int32_t* t = &m->triangles[3 * (size_t)m->triangle_count++];
    t[0] = a;
    t[1] = c;
    t[2] = d;
    return 1;
}

static uint32_t coordinate_bits(float f) {
    uint32_t u;
    if (f == 0.0f) f = 0.0f; /* -0 and +0 are one point */
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint32_t point_hash(const float* p) {
    uint32_t h = coordinate_bits(p[0]) * 73856093u ^ coordinate_bits(p[1]) * 19349663u ^ coordinate_bits(p[2]) * 83492791u;
    return h ^ (h >> 15);
}

static int same_point(const float* a, const float* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

/* Keep the table at most half full: rebuild it twice as large. */
static int weld_rehash(loam_mesh_builder* b) {
    int cap = b->weld_capacity ? 2 * b->weld_capacity : 1024;
    int32_t* table = loam_malloc(sizeof(int32_t) * (size_t)cap);
    if (!table) return 0;
    memset(table, 0xff, sizeof(int32_t) * (size_t)cap);
    for (int v = 0; v < b->mesh.vertex_count; ++v) {
        uint32_t k = point_hash(&b->mesh.vertices[3 * (size_t)v]) & (uint32_t)(cap - 1);
        while (table[k] >= 0) k = (k + 1) & (uint32_t)(cap - 1);
        table[k] = v;
    }
    loam_free(b->weld);
    b->weld = table;
    b->weld_capacity = cap;
    return 1;
}

int loam_mesh_weld_vertex(loam_mesh_builder* b, float x, float y, float z) {
    if (2 * (b->mesh.vertex_count + 1) > b->weld_capacity && !weld_rehash(b)) return -1;
    float p[3] = {x, y, z};
    uint32_t mask = (uint32_t)(b->weld_capacity - 1), k = point_hash(p) & mask;
    for (; b->weld[k] >= 0; k = (k + 1) & mask)
        if (same_point(&b->mesh.vertices[3 * (size_t)b->weld[k]], p)) return b->weld[k];
    int v = loam_mesh_add_vertex(b, x, y, z);
    if (v >= 0) b->weld[k] = v;
    return v;
}

loam_status loam_mesh_builder_finish(loam_mesh_builder* b, const char* name, loam_mesh* out, loam_error* err) {
    if (b->mesh.triangle_count == 0) {
        loam_mesh_builder_free(b);
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: no triangles", name);
    }
    *out = b->mesh;
    memset(&b->mesh, 0, sizeof b->mesh);
    loam_mesh_builder_free(b);
    return LOAM_OK;
}

int loam_mesh_parse_float(const char* t, size_t n, float* out) {
    char buf[64];
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, t, n);
    buf[n] = 0;
    char* stop;
    float v = strtof(buf, &stop);
    if (stop != buf + n || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

void loam_mesh_destroy(loam_mesh* mesh) {
    if (!mesh) return;
    loam_free(mesh->vertices);
    loam_free(mesh->triangles);
    memset(mesh, 0, sizeof *mesh);
}

void loam_mesh_bounds(const loam_mesh* m, loam_vec3* lo, loam_vec3* hi) {
    *lo = (loam_vec3){INFINITY, INFINITY, INFINITY};
    *hi = (loam_vec3){-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < m->vertex_count; ++v) {
        const float* p = &m->vertices[3 * (size_t)v];
        lo->x = fminf(lo->x, p[0]);
        lo->y = fminf(lo->y, p[1]);
        lo->z = fminf(lo->z, p[2]);
        hi->x = fmaxf(hi->x, p[0]);
        hi->y = fmaxf(hi->y, p[1]);
        hi->z = fmaxf(hi->z, p[2]);
    }
}

static int has_extension(const char* path, const char* ext) {
    size_t n = strlen(path), e = strlen(ext);
    if (n < e) return 0;
    for (size_t k = 0; k < e; ++k)
        if (tolower((unsigned char)path[n - e + k]) != ext[k]) return 0;
    return 1;
}

loam_status loam_mesh_load(const char* path, loam_mesh* mesh, loam_error* err) {
    if (!mesh) return loam_error_set(err, LOAM_ERR_INPUT, "mesh: null output");
    memset(mesh, 0, sizeof *mesh);
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "mesh: null path");
    int obj = has_extension(path, ".obj"), stl = has_extension(path, ".stl");
    if (!obj && !stl) return loam_error_set(err, LOAM_ERR_INPUT, "%s: unknown mesh format (expected .obj or .stl)", path);
    unsigned char* data;
    size_t length;
    loam_status st = loam_read_file(path, (size_t)1 << 31, "mesh", &data, &length, err);
    if (st != LOAM_OK) return st;
    st = obj ? loam_mesh_read_obj((const char*)data, length, path, mesh, err)
             : loam_mesh_read_stl(data, length, path, mesh, err);
    loam_free(data);
    return st;
}
