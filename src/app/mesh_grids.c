/* See mesh_grids.h. Worlds hold a handful of bodies, so finding a grid's earlier users is a plain scan. */
#include "app/mesh_grids.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "loam/granular.h"
#include "loam/sdf_grid.h"

static const loam_sdf_grid* shape_grid(const loam_world* w, int b, int q) {
    const loam_shape* sh = &loam_world_body_def(w, b)->shapes[q];
    return sh->type == LOAM_SHAPE_MESH ? sh->grid : NULL;
}

/* How many mesh shapes use g; *first says whether (b, q) is the first of them. */
static int grid_users(const loam_world* w, const loam_sdf_grid* g, int b, int q, int* first) {
    int users = 0;
    *first = 1;
    for (int c = 0; c < loam_world_body_count(w); ++c)
        for (int r = 0; r < loam_world_body_def(w, c)->shape_count; ++r) {
            if (shape_grid(w, c, r) != g) continue;
            ++users;
            if (c < b || (c == b && r < q)) *first = 0;
        }
    return users;
}

/* Step (*b, *q) on to the next shape, body by body, that is the first user of its grid (start
 * from *b = 0, *q = -1); 0 when there is none. *users: the shapes sharing that grid. */
static int next_grid(const loam_world* w, int* b, int* q, int* users) {
    for (++*q; *b < loam_world_body_count(w); ++*b, *q = 0)
        for (; *q < loam_world_body_def(w, *b)->shape_count; ++*q) {
            const loam_sdf_grid* g = shape_grid(w, *b, *q);
            if (!g) continue;
            int first;
            *users = grid_users(w, g, *b, *q, &first);
            if (first) return 1;
        }
    return 0;
}

void mesh_grids_print(FILE* f, const loam_scene* s, const loam_world* w) {
    for (int b = 0, q = -1, users; next_grid(w, &b, &q, &users);) {
        const loam_sdf_grid* g = shape_grid(w, b, q);
        char shared[64] = "";
        if (users > 1) snprintf(shared, sizeof shared, ", shared by %d shapes", users);
        fprintf(f, "loam: mesh tool '%s' (bodies[%d]%s): grid %dx%dx%d samples every %g mm, %.3g MB",
                loam_world_body_def(w, b)->name, b, shared, g->nx, g->ny, g->nz, 1e3 * g->cell,
                (double)loam_sdf_grid_memory(g) / 1e6);
        const char* file;
        int cached;
        double seconds;
        if (loam_scene_grid_source(s, g, &file, &cached, &seconds))
            fprintf(f, ", %s %s in %.3g s", file, cached ? "read from the cache" : "sampled", seconds);
        fputc('\n', f);
    }
}

/* A float as the decimal it was written as (0.003, not 0.0030000000260770321). */
static double float_json(float v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.7g", v);
    return strtod(buf, NULL);
}

static cJSON* grid_json(const loam_scene* s, const loam_world* w, int b, int q, int users) {
    const loam_sdf_grid* g = shape_grid(w, b, q);
    cJSON* o = cJSON_CreateObject();
    if (!o) return NULL;
    int dims[3] = {g->nx, g->ny, g->nz};
    const char* file;
    cJSON_AddStringToObject(o, "body", loam_world_body_def(w, b)->name);
    cJSON_AddNumberToObject(o, "body_index", b);
    cJSON_AddNumberToObject(o, "shape", q);
    cJSON_AddNumberToObject(o, "shared_by", users);
    if (loam_scene_grid_source(s, g, &file, NULL, NULL)) cJSON_AddStringToObject(o, "file", file);
    cJSON_AddItemToObject(o, "dims", cJSON_CreateIntArray(dims, 3));
    cJSON_AddNumberToObject(o, "cell_m", float_json(g->cell));
    cJSON_AddNumberToObject(o, "margin_m", float_json(g->margin));
    cJSON_AddNumberToObject(o, "bytes", (double)loam_sdf_grid_memory(g));
    return o;
}

cJSON* mesh_grids_json(const loam_scene* s, const loam_world* w) {
    cJSON* list = cJSON_CreateArray();
    for (int b = 0, q = -1, users; list && next_grid(w, &b, &q, &users);) {
        cJSON* o = grid_json(s, w, b, q, users);
        if (!o || !cJSON_AddItemToArray(list, o)) {
            cJSON_Delete(o);
            cJSON_Delete(list);
            return NULL;
        }
    }
    return list;
}
