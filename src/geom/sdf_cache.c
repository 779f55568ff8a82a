/* Signed distance grids cached on disk (loam/sdf_grid.h): building a fine grid of a detailed tool
 * takes seconds, and a scene is run many times. File: a fixed header (magic with the format
 * version, the key, the grid's shape) and the samples as floats in the host's byte order; anything
 * that does not match is ignored and rewritten. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/io.h"
#include "loam/sdf_grid.h"

#define MAGIC "LOAMSDF1"

typedef struct cache_header {
    char magic[8];
    uint64_t key;
    float cell, margin;
    float origin[3];
    int32_t nx, ny, nz, reserved;
} cache_header;

/* FNV-1a over the mesh and the grid parameters. */
static uint64_t fnv(uint64_t h, const void* data, size_t n) {
    const unsigned char* p = data;
    for (size_t k = 0; k < n; ++k) h = (h ^ p[k]) * 1099511628211ull;
    return h;
}

static uint64_t grid_key(const loam_mesh* m, float cell, float margin) {
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, &m->vertex_count, sizeof m->vertex_count);
    h = fnv(h, &m->triangle_count, sizeof m->triangle_count);
    h = fnv(h, m->vertices, sizeof(float) * 3 * (size_t)m->vertex_count);
    h = fnv(h, m->triangles, sizeof(int32_t) * 3 * (size_t)m->triangle_count);
    h = fnv(h, &cell, sizeof cell);
    return fnv(h, &margin, sizeof margin);
}

static int read_cached(const char* path, uint64_t key, float cell, float margin, loam_sdf_grid* g) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    cache_header h;
    int ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, MAGIC, 8) == 0 && h.key == key && h.cell == cell &&
             h.margin == margin && h.nx > 0 && h.ny > 0 && h.nz > 0 && (double)h.nx * h.ny * h.nz <= (double)(1 << 28);
    if (ok) {
        size_t total = (size_t)h.nx * (size_t)h.ny * (size_t)h.nz;
        memset(g, 0, sizeof *g);
        g->values = loam_malloc(sizeof(float) * total);
        ok = g->values && fread(g->values, sizeof(float), total, f) == total && fgetc(f) == EOF;
        g->nx = h.nx;
        g->ny = h.ny;
        g->nz = h.nz;
        g->cell = h.cell;
        g->margin = h.margin;
        g->origin = (loam_vec3){h.origin[0], h.origin[1], h.origin[2]};
        if (!ok) loam_sdf_grid_destroy(g);
    }
    fclose(f);
    return ok;
}

static void write_cached(const char* path, uint64_t key, float margin, const loam_sdf_grid* g) {
    loam_atomic_file f;
    if (loam_atomic_open(&f, path, NULL) != LOAM_OK) return;
    cache_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.key = key;
    h.cell = g->cell;
    h.margin = margin;
    h.origin[0] = g->origin.x;
    h.origin[1] = g->origin.y;
    h.origin[2] = g->origin.z;
    h.nx = g->nx;
    h.ny = g->ny;
    h.nz = g->nz;
    size_t total = (size_t)g->nx * (size_t)g->ny * (size_t)g->nz;
    if (fwrite(&h, sizeof h, 1, f.fp) != 1 || fwrite(g->values, sizeof(float), total, f.fp) != total) {
        loam_atomic_abort(&f);
        return;
    }
    loam_atomic_commit(&f, NULL);
}

loam_status loam_sdf_grid_build_cached(const loam_mesh* mesh, float cell, float margin, const char* cache_dir,
                                       loam_sdf_grid* g, int* from_cache, loam_error* err) {
    if (from_cache) *from_cache = 0;
    if (!g) return loam_error_set(err, LOAM_ERR_INPUT, "sdf grid: null output");
    memset(g, 0, sizeof *g);
    if (!cache_dir || !mesh || mesh->triangle_count <= 0) return loam_sdf_grid_build(mesh, cell, margin, g, err);
    uint64_t key = grid_key(mesh, cell, margin);
    char path[4096];
    snprintf(path, sizeof path, "%s/%016llx.sdf", cache_dir, (unsigned long long)key);
    if (read_cached(path, key, cell, margin, g)) {
        if (from_cache) *from_cache = 1;
        return LOAM_OK;
    }
    loam_status st = loam_sdf_grid_build(mesh, cell, margin, g, err);
    if (st == LOAM_OK && loam_make_dirs(cache_dir, NULL) == LOAM_OK) write_cached(path, key, margin, g);
    return st;
}

void loam_sdf_cache_dir(char* out, size_t cap) {
    const char *dir = getenv("LOAM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (dir && *dir) snprintf(out, cap, "%s", dir);
    else if (xdg && *xdg) snprintf(out, cap, "%s/loam", xdg);
    else if (home && *home) snprintf(out, cap, "%s/.cache/loam", home);
    else if (cap > 0) out[0] = 0;
}
