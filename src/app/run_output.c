#include "app/run_output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

/* Frame the particles' bounding box from the front-left, above, when the scene sets no camera. */
static void auto_camera(loam_camera* cam, const loam_scene* s, const loam_world* w) {
    loam_particles p = loam_world_particles((loam_world*)w);
    loam_vec3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i < p.count; ++i) {
        lo = v3_min(lo, v3(p.x[i], p.y[i], p.z[i]));
        hi = v3_max(hi, v3(p.x[i], p.y[i], p.z[i]));
    }
    for (int b = 0; b < loam_world_body_count(w); ++b)
        for (int k = 0; k < loam_world_body_def(w, b)->shape_count; ++k) {
            const loam_shape* sh = &loam_world_body_def(w, b)->shapes[k];
            if (sh->type == LOAM_SHAPE_PLANE) continue;
            loam_vec3 c = loam_pose_apply(loam_pose_mul(loam_world_body_state(w, b)->pose, sh->local), v3(0, 0, 0));
            lo = v3_min(lo, c);
            hi = v3_max(hi, c);
        }
    if (!(hi.x >= lo.x)) lo = hi = v3(0, 0, 0);
    loam_vec3 center = v3_scale(v3_add(lo, hi), 0.5f);
    float size = v3_length(v3_sub(hi, lo));
    if (size <= 0.0f) size = 1.0f;
    float fov = s->camera.fov_deg > 0.0f ? s->camera.fov_deg : 40.0f;
    float dist = 0.75f * size / tanf(0.5f * fov * (float)(3.14159265358979 / 180.0));
    loam_vec3 dir = v3_normalize(v3(0.55f, -1.0f, 0.6f));
    cam->target = s->camera.has_target ? s->camera.target : center;
    cam->eye = s->camera.has_eye ? s->camera.eye : v3_add(cam->target, v3_scale(dir, dist));
    cam->ortho_height = size;
}

loam_status run_output_open(run_output* o, const loam_scene* s, const loam_world* w, const char* dir,
                            loam_error* err) {
    memset(o, 0, sizeof *o);
    o->scene = s;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    loam_status st = loam_make_dirs(dir, err);
    char path[4200];
    if (st == LOAM_OK && s->output.frames > 0 && s->output.png) {
        snprintf(path, sizeof path, "%s/frames", dir);
        st = loam_make_dirs(path, err);
    }
    if (st == LOAM_OK && s->output.frames > 0 && s->output.vtp) {
        snprintf(path, sizeof path, "%s/particles", dir);
        st = loam_make_dirs(path, err);
        snprintf(path, sizeof path, "%s/particles.pvd", dir);
        if (st == LOAM_OK && !(o->pvd = loam_pvd_create(path, err))) st = err ? err->status : LOAM_ERR_IO;
        if (st == LOAM_OK) st = run_vtk_open(&o->vtk, w, dir, err);
    }
    if (st != LOAM_OK) return st;
    o->camera = loam_camera_default();
    o->camera.width = s->output.width;
    o->camera.height = s->output.height;
    o->camera.up = s->camera.up;
    o->camera.fov_deg = s->camera.fov_deg;
    auto_camera(&o->camera, s, w);
    int n = loam_world_particles((loam_world*)w).count;
    int shapes = 0;
    int bodies = loam_world_body_count(w);
    for (int b = 0; b < bodies; ++b) shapes += loam_world_body_def(w, b)->shape_count;
    o->shape_count = shapes;
    o->shapes = calloc((size_t)shapes + 1, sizeof *o->shapes);
    o->shape_poses = calloc((size_t)shapes + 1, sizeof *o->shape_poses);
    o->shape_rgb = calloc(3 * (size_t)shapes + 3, 1);
    o->speed = calloc((size_t)n + 1, sizeof(float));
    if (!o->shapes || !o->shape_poses || !o->shape_rgb || !o->speed)
        return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for output");
    /* Fixed bodies grey, moving ones orange: the eye finds the tool. */
    for (int b = 0, k = 0; b < bodies; ++b)
        for (int q = 0; q < loam_world_body_def(w, b)->shape_count; ++q, ++k) {
            const loam_body_def* d = loam_world_body_def(w, b);
            o->shapes[k] = d->shapes[q];
            int moving = d->motion != LOAM_MOTION_FIXED;
            uint8_t rgb[3] = {moving ? 230 : 170, moving ? 120 : 175, moving ? 40 : 185};
            memcpy(&o->shape_rgb[3 * k], rgb, 3);
        }
    if (s->output.png && s->output.frames > 0) {
        st = loam_image_alloc(&o->image, o->camera.width, o->camera.height, err);
        if (st == LOAM_OK) st = loam_camera_validate(&o->camera, err);
        if (st != LOAM_OK) return st;
    }
    snprintf(path, sizeof path, "%s/bodies.csv", dir);
    st = loam_atomic_open(&o->bodies_csv, path, err);
    if (st == LOAM_OK)
        fprintf(o->bodies_csv.fp, "step,time_s,body,fx_N,fy_N,fz_N,tx_Nm,ty_Nm,tz_Nm,contacts,x_m,y_m,z_m\n");
    return st;
}

static loam_status render_frame(run_output* o, loam_world* w, const char* path, loam_error* err) {
    const loam_scene* s = o->scene;
    loam_particles p = loam_world_particles(w);
    loam_render_particles rp = loam_render_particles_default();
    rp.count = p.count;
    rp.x = p.x;
    rp.y = p.y;
    rp.z = p.z;
    rp.radius = p.radius;
    if (s->output.color_by == LOAM_COLOR_SPEED) {
        for (int i = 0; i < p.count; ++i)
            o->speed[i] = sqrtf(p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i] + p.vz[i] * p.vz[i]);
        rp.scalar = o->speed;
        rp.colormap = LOAM_COLORMAP_TURBO;
        rp.scalar_min = 0.0f;
        rp.scalar_max = o->color_hi > 0.0f ? o->color_hi : 1.0f;
    } else {
        if (o->frames_written == 0) {
            o->color_lo = INFINITY;
            o->color_hi = -INFINITY;
            for (int i = 0; i < p.count; ++i) {
                o->color_lo = fminf(o->color_lo, p.z[i]);
                o->color_hi = fmaxf(o->color_hi, p.z[i]);
            }
        }
        rp.scalar = p.z;
        rp.scalar_min = o->color_lo;
        rp.scalar_max = o->color_hi > o->color_lo ? o->color_hi : o->color_lo + 1.0f;
    }
    int k = 0;
    for (int b = 0; b < loam_world_body_count(w); ++b) {
        const loam_body_def* d = loam_world_body_def(w, b);
        loam_pose pose = loam_world_body_state(w, b)->pose;
        for (int q = 0; q < d->shape_count; ++q, ++k) o->shape_poses[k] = loam_pose_mul(pose, d->shapes[q].local);
    }
    loam_render_shapes rs = loam_render_shapes_default();
    rs.count = o->shape_count;
    rs.shapes = o->shapes;
    rs.world_poses = o->shape_poses;
    rs.rgb = o->shape_rgb;
    rs.alpha = 0.55f;
    loam_status st = loam_render(&o->camera, &rp, &rs, &o->image, err);
    return st ? st : loam_image_write_png(&o->image, path, err);
}

loam_status run_output_frame(run_output* o, loam_world* w, loam_error* err) {
    const loam_scene* s = o->scene;
    char path[4200], rel[64];
    int k = o->frames_written;
    loam_status st = LOAM_OK;
    if (s->output.png) {
        snprintf(path, sizeof path, "%s/frames/frame_%05d.png", o->dir, k);
        st = render_frame(o, w, path, err);
    }
    if (st == LOAM_OK && s->output.vtp) {
        loam_particles p = loam_world_particles(w);
        loam_vtp_particles vp;
        memset(&vp, 0, sizeof vp);
        vp.count = p.count;
        vp.x = p.x;
        vp.y = p.y;
        vp.z = p.z;
        vp.vx = p.vx;
        vp.vy = p.vy;
        vp.vz = p.vz;
        vp.radius = p.radius;
        vp.contacts = loam_world_step_index(w) > 0 ? p.contact_count : NULL;
        vp.id = p.id;
        vp.time = loam_world_time(w);
        snprintf(rel, sizeof rel, "particles/particles_%05d.vtp", k);
        snprintf(path, sizeof path, "%s/%s", o->dir, rel);
        st = loam_vtp_write(path, &vp, err);
        if (st == LOAM_OK) st = loam_pvd_append(o->pvd, loam_world_time(w), rel, err);
        if (st == LOAM_OK) st = run_vtk_frame(&o->vtk, w, k, rel, err);
    }
    if (st == LOAM_OK) o->frames_written++;
    return st;
}

loam_status run_output_bodies(run_output* o, const loam_world* w, loam_error* err) {
    FILE* f = o->bodies_csv.fp;
    for (int b = 0; b < loam_world_body_count(w); ++b) {
        const loam_body_state* st = loam_world_body_state(w, b);
        fprintf(f, "%lld,%.9g,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%.9g,%.9g,%.9g\n", (long long)loam_world_step_index(w),
                loam_world_time(w), loam_world_body_def(w, b)->name, st->force.x, st->force.y, st->force.z, st->torque.x,
                st->torque.y, st->torque.z, st->contacts, st->pose.p.x, st->pose.p.y, st->pose.p.z);
    }
    if (ferror(f)) return loam_error_set(err, LOAM_ERR_IO, "%s: write error", o->bodies_csv.path);
    return LOAM_OK;
}

loam_status run_output_close(run_output* o, int ok, int quiet, loam_error* err) {
    loam_status st = LOAM_OK;
    if (o->bodies_csv.fp) st = loam_atomic_commit(&o->bodies_csv, err);
    if (ok && st == LOAM_OK && o->scene && o->scene->output.png && o->scene->output.video && o->frames_written >= 2) {
        char pattern[4200], out[4200];
        snprintf(pattern, sizeof pattern, "%s/frames/frame_%%05d.png", o->dir);
        snprintf(out, sizeof out, "%s/movie.mp4", o->dir);
        double seconds = o->scene->duration > 0.0 ? o->scene->duration : 1.0;
        double fps = o->frames_written / seconds;
        loam_video_params vp = {pattern, 0, fps < 1.0 ? 1.0 : (fps > 60.0 ? 60.0 : fps), out};
        int missing = 0;
        loam_error verr;
        if (loam_video_encode(&vp, &missing, &verr) != LOAM_OK && !quiet)
            fprintf(stderr, "loam: note: no movie.mp4: %s\n", verr.message);
    }
    loam_pvd_destroy(o->pvd);
    run_vtk_close(&o->vtk);
    loam_image_destroy(&o->image);
    free(o->shapes);
    free(o->shape_poses);
    free(o->shape_rgb);
    free(o->speed);
    o->pvd = NULL;
    o->shapes = NULL;
    o->shape_poses = NULL;
    o->shape_rgb = NULL;
    o->speed = NULL;
    return st;
}
