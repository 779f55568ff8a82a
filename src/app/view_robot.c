/* `loam view --robot ROBOT.json`: a soft robot (`loam robot`, `loam evolve`) in a window as it swims
 * or walks, its surface coloured by muscle activation (-1 blue to 1 red, as `loam evolve --replay`
 * renders it), a floor under it on land. */
#ifdef LOAM_HAVE_VIEWER
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "app/activation.h"
#include "app/progress.h"
#include "app/view.h"
#include "loam/softbody.h"
#include "loam/viewer.h"

/* The robot's surface, and on land a floor square around it (after the robot, which the viewer's
 * camera frames at the first draw). */
static loam_status draw(loam_viewer* v, const loam_softbody_robot* r, const loam_softbody_state* s, const float* act,
                        const loam_softbody_def* def, float length, loam_error* err) {
    loam_render_triangles tr = loam_render_triangles_default();
    tr.count = r->face_count, tr.index = r->face, tr.vertex_count = s->mass_count;
    tr.x = s->x, tr.y = s->y, tr.z = s->z, tr.scalar = act, tr.scalar_min = -1.0f, tr.scalar_max = 1.0f;
    tr.colormap = LOAM_COLORMAP_TURBO;
    loam_status st = loam_viewer_draw_triangles(v, &tr, err);
    if (st != LOAM_OK || def->env != LOAM_SB_LAND) return st;
    double cx = 0.0, cy = 0.0;
    for (int i = 0; i < s->mass_count; ++i) cx += s->x[i], cy += s->y[i];
    cx /= s->mass_count, cy /= s->mass_count;
    float h = 4.0f * length, fx[4], fy[4], fz[4] = {def->floor_z, def->floor_z, def->floor_z, def->floor_z};
    for (int k = 0; k < 4; ++k) fx[k] = (float)cx + (k == 1 || k == 2 ? h : -h), fy[k] = (float)cy + (k >= 2 ? h : -h);
    const int32_t quad[6] = {0, 1, 2, 0, 2, 3};
    loam_render_triangles floor = loam_render_triangles_default();
    floor.count = 2, floor.index = quad, floor.vertex_count = 4, floor.x = fx, floor.y = fy, floor.z = fz;
    floor.color[0] = 190, floor.color[1] = 180, floor.color[2] = 160;
    return loam_viewer_draw_triangles(v, &floor, err);
}

int view_robot(const view_options* o) {
    loam_error err;
    loam_softbody_robot* r = loam_softbody_robot_load(o->robot, &err);
    if (!r) return fprintf(stderr, "loam view: %s\n", err.message), (int)err.status;
    if (r->face_count == 0) {
        fprintf(stderr, "loam view: %s: the robot has no surface faces to draw\n", o->robot);
        loam_softbody_robot_destroy(r);
        return 2;
    }
    if (o->threads >= 0) loam_set_threads(o->threads);
    loam_softbody_def def = loam_softbody_default_def();
    def.env = (loam_softbody_env)o->robot_env;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    loam_softbody_pop* p = loam_softbody_pop_create(&def, &mats, (const loam_softbody_robot* const*)&r, 1, &err);
    float* act = malloc(sizeof(float) * (size_t)r->mass_count + 1);
    int* cnt = malloc(sizeof(int) * (size_t)r->mass_count + 1);
    loam_viewer_options vo = loam_viewer_default_options();
    vo.width = o->width, vo.height = o->height, vo.title = "loam view: soft robot";
    loam_viewer* v = p && act && cnt ? loam_viewer_create(&vo, &err) : NULL;
    if (!v) {
        if (p && (!act || !cnt)) loam_error_set(&err, LOAM_ERR_NOMEM, "out of memory");
        fprintf(stderr, "loam view: %s: %s\n", o->robot, err.message);
        free(act), free(cnt);
        loam_softbody_pop_destroy(p);
        loam_softbody_robot_destroy(r);
        return (int)err.status;
    }
    float length = loam_softbody_robot_length(r);
    long long limit = o->max_steps >= 0 ? o->max_steps : LLONG_MAX, done = 0, rate_steps = 0;
    double t0 = loam_now(), rate_t = t0, rate = 0.0;
    realtime_clock clock = {t0, 0, 0};
    loam_status st = LOAM_OK;
    loam_viewer_input in = {0};
    loam_softbody_state s;
    for (;;) {
        if ((st = loam_viewer_poll(v, &in, &err)) != LOAM_OK || in.close) break;
        if (o->seconds >= 0.0 && loam_now() - t0 >= o->seconds) break;
        long long want = in.paused ? in.steps : LLONG_MAX, before = done;
        long long cap = realtime_cap(&clock, o->realtime, in.paused, done, limit, def.dt);
        if (!in.paused && cap - done < want) want = cap - done;
        double start = loam_now();
        /* Steps in chunks of ten for up to a thirtieth of a second, so the window stays responsive. */
        while (st == LOAM_OK && done < limit && want > 0 && (in.paused || loam_now() - start < 1.0 / 30.0)) {
            long long chunk = limit - done < 10 ? limit - done : 10;
            if (chunk > want) chunk = want;
            st = loam_softbody_pop_step(p, (int)chunk, &err);
            done += chunk, rate_steps += chunk, want -= chunk;
        }
        double now = loam_now();
        if (now - rate_t >= 0.5) rate = rate_steps / (now - rate_t), rate_steps = 0, rate_t = now;
        char status[160];
        snprintf(status, sizeof status, "%.0f steps/s, step %lld, t = %.3f s%s", rate, done, loam_softbody_pop_time(p),
                 in.paused ? " [paused: space runs, N steps]" : "");
        loam_viewer_set_status(v, status);
        if (st == LOAM_OK) st = loam_softbody_pop_state(p, 0, &s, &err);
        if (st != LOAM_OK) break;
        app_muscle_activation(r, &mats, loam_softbody_pop_time(p), act, cnt);
        if ((st = draw(v, r, &s, act, &def, length, &err)) != LOAM_OK) break;
        if ((st = loam_viewer_present(v, NULL, &err)) != LOAM_OK) break;
        if (done == before) nanosleep(&(struct timespec){0, 16000000}, NULL); /* nothing to step: ~60 Hz redraws */
    }
    if (st == LOAM_OK && o->screenshot) { /* the final state, drawn once more */
        st = loam_softbody_pop_state(p, 0, &s, &err);
        if (st == LOAM_OK) st = draw(v, r, &s, act, &def, length, &err);
        if (st == LOAM_OK) st = loam_viewer_present(v, o->screenshot, &err);
    }
    if (st != LOAM_OK) fprintf(stderr, "loam view: %s: %s\n", o->robot, err.message);
    else fprintf(stderr, "loam: %lld steps, t = %.3f s\n", done, loam_softbody_pop_time(p));
    loam_viewer_destroy(v);
    free(act), free(cnt);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
    return (int)st;
}
#else
typedef int view_robot_needs_the_viewer; /* ISO C wants something in a translation unit */
#endif
