#include "app/run_vtk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "loam/io.h"

/* File-safe and unique: two bodies called "a b" and "a_b" get "a_b" and "a_b_1". */
static void body_file_name(run_vtk* v, int b, const char* name) {
    char* out = v->bodies[b].file;
    size_t n = 0;
    for (const char* c = name; *c && n < 63; ++c, ++n)
        out[n] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *c) ? *c : '_';
    out[n] = '\0';
    if (n == 0 || out[0] == '.') snprintf(out, sizeof v->bodies[b].file, "body%d", b);
    for (int k = 0; k < b; ++k)
        if (strcmp(v->bodies[k].file, out) == 0) {
            size_t len = strlen(out);
            snprintf(out + len, sizeof v->bodies[b].file - len, "_%d", b);
            break;
        }
}

loam_status run_vtk_open(run_vtk* v, const loam_world* w, const char* dir, loam_error* err) {
    memset(v, 0, sizeof *v);
    snprintf(v->dir, sizeof v->dir, "%s", dir);
    /* Floors are infinite: draw them as squares reaching well past the particles. */
    loam_particles p = loam_world_particles((loam_world*)w);
    loam_vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i < p.count; ++i) {
        lo = v3_min(lo, v3(p.x[i], p.y[i], p.z[i]));
        hi = v3_max(hi, v3(p.x[i], p.y[i], p.z[i]));
    }
    if (!(hi.x >= lo.x)) lo = hi = v3(0, 0, 0);
    loam_vec3 centre = v3_scale(v3_add(lo, hi), 0.5f);
    float half = fmaxf(0.75f * v3_length(v3_sub(hi, lo)), 0.5f);
    char path[4200];
    snprintf(path, sizeof path, "%s/bodies", dir);
    loam_status st = loam_make_dirs(path, err);
    snprintf(path, sizeof path, "%s/scene", dir);
    if (st == LOAM_OK) st = loam_make_dirs(path, err);
    if (st != LOAM_OK) return st;
    v->body_count = loam_world_body_count(w);
    v->bodies = calloc((size_t)v->body_count + 1, sizeof *v->bodies);
    if (!v->bodies) return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for body surfaces");
    for (int b = 0; b < v->body_count; ++b) {
        const loam_body_def* d = loam_world_body_def(w, b);
        body_file_name(v, b, d->name);
        v->bodies[b].moving = d->motion != LOAM_MOTION_FIXED;
        loam_vec3 local_centre = loam_pose_apply_inverse(loam_world_body_state(w, b)->pose, centre);
        st = loam_shapes_surface(d->shapes, d->shape_count, local_centre, half, &v->bodies[b].surface, err);
        if (st != LOAM_OK) {
            char why[sizeof err->message];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            return loam_error_set(err, st, "body '%s': %s", d->name, why);
        }
    }
    snprintf(path, sizeof path, "%s/scene.pvd", dir);
    if (!(v->pvd = loam_pvd_create(path, err))) return err ? err->status : LOAM_ERR_IO;
    return LOAM_OK;
}

loam_status run_vtk_frame(run_vtk* v, const loam_world* w, int index, const char* particles_file, loam_error* err) {
    enum { NAME_BYTES = 128 };
    double time = loam_world_time(w);
    loam_vtm_block* blocks = calloc((size_t)v->body_count + 1, sizeof *blocks);
    char* names = calloc((size_t)v->body_count + 1, NAME_BYTES);
    if (!blocks || !names) {
        free(blocks);
        free(names);
        return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for frame %d", index);
    }
    char path[4200], rel[160];
    snprintf(names, NAME_BYTES, "../%s", particles_file);
    blocks[0] = (loam_vtm_block){"particles", names};
    loam_status st = LOAM_OK;
    for (int b = 0; b < v->body_count && st == LOAM_OK; ++b) {
        run_vtk_body* body = &v->bodies[b];
        char* file = names + (size_t)(b + 1) * NAME_BYTES;
        if (body->moving) snprintf(file, NAME_BYTES, "../bodies/%s_%05d.vtp", body->file, index);
        else snprintf(file, NAME_BYTES, "../bodies/%s.vtp", body->file);
        const char* name = loam_world_body_def(w, b)->name;
        blocks[b + 1] = (loam_vtm_block){name[0] ? name : body->file, file};
        if (body->moving || index == 0) {
            snprintf(path, sizeof path, "%s/%s", v->dir, file + 3);
            st = loam_vtp_write_surface(path, &body->surface, loam_world_body_state(w, b)->pose, time, err);
        }
    }
    snprintf(rel, sizeof rel, "scene/scene_%05d.vtm", index);
    snprintf(path, sizeof path, "%s/%s", v->dir, rel);
    if (st == LOAM_OK) st = loam_vtm_write(path, blocks, v->body_count + 1, err);
    if (st == LOAM_OK) st = loam_pvd_append(v->pvd, time, rel, err);
    free(blocks);
    free(names);
    return st;
}

void run_vtk_close(run_vtk* v) {
    for (int b = 0; b < v->body_count; ++b) loam_mesh_destroy(&v->bodies[b].surface);
    free(v->bodies);
    loam_pvd_destroy(v->pvd);
    memset(v, 0, sizeof *v);
}
