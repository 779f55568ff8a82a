/* Scene files in, worlds out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "loam/io.h"
#include "loam/sdf_grid.h"
#include "scene/scene_internal.h"

static void scene_defaults(loam_scene* s) {
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "scene");
    s->params = loam_granular_default_params();
    s->duration = 1.0;
    s->density = 2500.0f;
    s->output.frames = 60;
    s->output.png = 1;
    s->output.vtp = 1;
    s->output.video = 1;
    s->output.width = 960;
    s->output.height = 540;
    s->camera.up = v3(0, 0, 1);
    s->camera.fov_deg = 40.0f;
}

loam_status loam_scene_load_buffer(const char* text, size_t length, const char* name, const char* const* overrides,
                                   int override_count, loam_scene* s, loam_error* err) {
    scene_defaults(s);
    if (!text || !name || override_count < 0 || (override_count > 0 && !overrides))
        return loam_error_set(err, LOAM_ERR_INPUT, "scene: null text, name or overrides");
    snprintf(s->path, sizeof s->path, "%s", name);
    scene_doc d;
    loam_status st = doc_load(&d, text, length, name, err);
    for (int k = 0; st == LOAM_OK && k < override_count; ++k) st = doc_apply_override(&d, overrides[k], err);
    if (st == LOAM_OK) st = scene_read(&d, s, err);
    if (st == LOAM_OK) st = loam_granular_params_validate(&s->params, err);
    doc_free(&d);
    if (st != LOAM_OK) loam_scene_destroy(s);
    return st;
}

loam_status loam_scene_load(const char* path, const char* const* overrides, int override_count, loam_scene* s,
                            loam_error* err) {
    memset(s, 0, sizeof *s);
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "scene: null path");
    unsigned char* text;
    size_t len;
    loam_status st = loam_read_file(path, (size_t)64 << 20, "scene", &text, &len, err);
    if (st != LOAM_OK) return st;
    st = loam_scene_load_buffer((const char*)text, len, path, overrides, override_count, s, err);
    loam_free(text);
    return st;
}

void loam_scene_destroy(loam_scene* s) {
    free(s->xyz);
    free(s->vel);
    free(s->radius);
    free(s->bodies);
    s->xyz = s->vel = s->radius = NULL;
    s->bodies = NULL;
    for (int k = 0; k < s->grid_count; ++k) {
        loam_sdf_grid_destroy(s->grids[k]);
        free(s->grids[k]); /* the whole record scene_mesh.c allocated: the grid is its first member */
    }
    free(s->grids);
    s->grids = NULL;
    s->grid_count = 0;
    s->particle_count = s->body_count = 0;
}

loam_world* loam_scene_create_world(const loam_scene* s, loam_error* err) {
    if (s->has_environment) {
        loam_error_set(err, LOAM_ERR_INPUT, "%s: an environment scene makes its world with loam_env_create", s->path);
        return NULL;
    }
    loam_world* w = loam_world_create(&s->params, err);
    if (!w) return NULL;
    if (loam_world_add_particles(w, s->particle_count, s->xyz, s->vel, s->radius, s->density, err) != LOAM_OK) {
        loam_world_destroy(w);
        return NULL;
    }
    for (int b = 0; b < s->body_count; ++b)
        if (loam_world_add_body(w, &s->bodies[b], err) < 0) {
            loam_world_destroy(w);
            return NULL;
        }
    return w;
}
