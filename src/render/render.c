/* loam_render's front door: check every input before touching memory, then prepare the shapes and
 * hand over to the tiled rasteriser. */
#include <math.h>
#include <string.h>

#include "render/internal.h"

loam_render_particles loam_render_particles_default(void) {
    loam_render_particles p;
    memset(&p, 0, sizeof p);
    p.scalar_max = 1.0f;
    p.colormap = LOAM_COLORMAP_VIRIDIS;
    p.color[0] = 214; /* sand */
    p.color[1] = 178;
    p.color[2] = 120;
    return p;
}

loam_render_shapes loam_render_shapes_default(void) {
    loam_render_shapes s;
    memset(&s, 0, sizeof s);
    s.alpha = 1.0f;
    return s;
}

static loam_status check_particles(const loam_render_particles* p, loam_error* err) {
    if (p->count < 0)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: particle count %d < 0", p->count);
    if (p->count > 0 && (!p->x || !p->y || !p->z || !p->radius))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: particle x, y, z or radius is NULL");
    if (p->scalar && !(isfinite(p->scalar_min) && isfinite(p->scalar_max)))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: scalar_min/max = %g/%g, want finite",
                              (double)p->scalar_min, (double)p->scalar_max);
    if ((unsigned)p->colormap >= LOAM_COLORMAP_COUNT)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: unknown colormap %d", (int)p->colormap);
    return LOAM_OK;
}

static int pose_is_finite(loam_pose p) {
    return v3_is_finite(p.p) && isfinite(p.q.w) && isfinite(p.q.x) && isfinite(p.q.y) &&
           isfinite(p.q.z) && (p.q.w != 0.0f || p.q.x != 0.0f || p.q.y != 0.0f || p.q.z != 0.0f);
}

static loam_status check_shapes(const loam_render_shapes* s, loam_error* err) {
    if (s->count < 0) return loam_error_set(err, LOAM_ERR_INPUT, "render: shape count %d < 0", s->count);
    if (s->count > 0 && (!s->shapes || !s->world_poses))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: shapes or world_poses is NULL");
    if (!(s->alpha > 0.0f && s->alpha <= 1.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "render: shape alpha %g outside (0, 1]",
                              (double)s->alpha);
    for (int i = 0; i < s->count; ++i) {
        const loam_shape* sh = &s->shapes[i];
        if ((unsigned)sh->type >= LOAM_SHAPE_TYPE_COUNT)
            return loam_error_set(err, LOAM_ERR_INPUT, "render: shape %d has unknown type %d", i,
                                  (int)sh->type);
        if (!v3_is_finite(sh->size) || !pose_is_finite(s->world_poses[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "render: shape %d (%s) has a non-finite size "
                                  "or pose", i, loam_shape_type_name(sh->type));
    }
    return LOAM_OK;
}

loam_status loam_render(const loam_camera* cam, const loam_render_particles* particles,
                        const loam_render_shapes* shapes, loam_image* out, loam_error* err) {
    loam_status st = loam_camera_validate(cam, err);
    if (st != LOAM_OK) return st;
    if (!out || !out->rgb || !out->depth)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: output image is NULL or not allocated");
    if (out->width != cam->width || out->height != cam->height)
        return loam_error_set(err, LOAM_ERR_INPUT, "render: image is %dx%d but the camera is %dx%d",
                              out->width, out->height, cam->width, cam->height);
    if (particles && (st = check_particles(particles, err)) != LOAM_OK) return st;
    if (shapes && (st = check_shapes(shapes, err)) != LOAM_OK) return st;

    rview v;
    rview_init(&v, cam);
    int ns = shapes ? shapes->count : 0;
    rshape* prepared = loam_malloc((ns > 0 ? (size_t)ns : 1) * sizeof *prepared);
    if (!prepared) return loam_error_set(err, LOAM_ERR_NOMEM, "render: out of memory for shapes");
    int visible = 0;
    for (int i = 0; i < ns; ++i) {
        const uint8_t* rgb = shapes->rgb ? shapes->rgb + 3 * (size_t)i : NULL;
        if (rshape_prepare(&prepared[visible], &v, &shapes->shapes[i], shapes->world_poses[i], rgb))
            ++visible;
    }
    st = render_draw(&v, particles, prepared, visible, shapes ? shapes->alpha : 1.0f, out, err);
    loam_free(prepared);
    return st;
}
