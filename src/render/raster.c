/* loam_render: the image is cut into fixed tiles; particles and shapes are binned to the tiles they
 * may cover, in a fixed order, and each tile is drawn start to finish by one thread. A pixel's
 * value therefore depends only on the input, never on which thread drew it or when. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/threads.h"
#include "render/internal.h"

#define TILE 32
#define MAX_LAYERS 8 /* translucent shape surfaces blended per pixel; nearer ones are kept */

typedef struct rparticle {
    float cx, cy, cz, r, r2, znear;
    float color[3];
} rparticle;

/* Items of each tile in the order given: items[start[t] .. start[t+1]). */
typedef struct rbins {
    size_t* start;
    int* items;
} rbins;

typedef struct rctx {
    const rview* v;
    int tiles_x;
    const rparticle* parts;
    const rrect* part_rects;
    rbins part_bins;
    const rshape* shapes;
    rbins shape_bins;
    float alpha;
    loam_image* out;
} rctx;

typedef struct sort_key { float z; int index; } sort_key;

static int cmp_key(const void* a, const void* b) {
    const sort_key* x = a;
    const sort_key* y = b;
    if (x->z != y->z) return x->z < y->z ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static void bins_free(rbins* b) {
    loam_free(b->start);
    loam_free(b->items);
    b->start = NULL;
    b->items = NULL;
}

static loam_status bins_build(rbins* b, int tiles_x, int tiles_y, const rrect* rects,
                              const int* order, int count, loam_error* err) {
    size_t tiles = (size_t)tiles_x * (size_t)tiles_y;
    b->items = NULL;
    b->start = loam_calloc(tiles + 1, sizeof *b->start);
    if (!b->start) return loam_error_set(err, LOAM_ERR_NOMEM, "render: out of memory for tiles");
    for (int i = 0; i < count; ++i) {
        rrect r = rects[order[i]];
        for (int ty = r.y0 / TILE; ty <= r.y1 / TILE; ++ty)
            for (int tx = r.x0 / TILE; tx <= r.x1 / TILE; ++tx) ++b->start[(size_t)ty * tiles_x + tx + 1];
    }
    for (size_t t = 0; t < tiles; ++t) b->start[t + 1] += b->start[t];
    b->items = loam_malloc((b->start[tiles] + 1) * sizeof *b->items);
    size_t* fill = loam_malloc(tiles * sizeof *fill);
    if (!b->items || !fill) {
        loam_free(fill);
        bins_free(b);
        return loam_error_set(err, LOAM_ERR_NOMEM, "render: out of memory for tile lists");
    }
    memcpy(fill, b->start, tiles * sizeof *fill);
    for (int i = 0; i < count; ++i) {
        rrect r = rects[order[i]];
        for (int ty = r.y0 / TILE; ty <= r.y1 / TILE; ++ty)
            for (int tx = r.x0 / TILE; tx <= r.x1 / TILE; ++tx)
                b->items[fill[(size_t)ty * tiles_x + tx]++] = order[i];
    }
    loam_free(fill);
    return LOAM_OK;
}

static void put_pixel(loam_image* out, size_t idx, const float c[3]) {
    for (int k = 0; k < 3; ++k) out->rgb[3 * idx + k] = render_byte(c[k]);
}

static void draw_particle(const rctx* c, const rparticle* p, rrect r) {
    const rview* v = c->v;
    float* depth = c->out->depth;
    for (int py = r.y0; py <= r.y1; ++py) {
        float sy = rview_sy(v, py);
        for (int px = r.x0; px <= r.x1; ++px) {
            size_t idx = (size_t)py * (size_t)v->width + (size_t)px;
            if (p->znear >= depth[idx]) continue;
            float sx = rview_sx(v, px), z;
            loam_vec3 n;
            if (v->ortho) {
                float ox = sx - p->cx, oy = sy - p->cy, h2 = p->r2 - ox * ox - oy * oy;
                if (h2 < 0.0f) continue;
                float h = sqrtf(h2);
                z = p->cz - h;
                n = v3(ox, oy, -h);
            } else {
                /* Distance of the centre from the ray rather than the textbook discriminant
                 * b^2 - ac, which cancels catastrophically in float for small far spheres. */
                float inv = 1.0f / sqrtf(sx * sx + sy * sy + 1.0f);
                loam_vec3 d = v3(sx * inv, sy * inv, inv), ctr = v3(p->cx, p->cy, p->cz);
                float tc = v3_dot(d, ctr);
                loam_vec3 e = v3_sub(ctr, v3_scale(d, tc));
                float h2 = p->r2 - v3_dot(e, e);
                if (h2 < 0.0f) continue;
                float s = tc - sqrtf(h2);
                z = s * inv;
                n = v3_sub(v3_scale(d, s), ctr);
            }
            if (!(z < depth[idx])) continue;
            depth[idx] = z;
            float shade = render_shade(v3_scale(n, 1.0f / p->r), v->light_cam);
            float col[3] = {p->color[0] * shade, p->color[1] * shade, p->color[2] * shade};
            put_pixel(c->out, idx, col);
        }
    }
}

typedef struct layer { float z; float rgb[3]; } layer;

static void draw_shapes_pixel(const rctx* c, const int* list, size_t count, int px, int py) {
    const rview* v = c->v;
    size_t idx = (size_t)py * (size_t)v->width + (size_t)px;
    float* depth = &c->out->depth[idx];
    layer layers[MAX_LAYERS];
    int nl = 0;
    for (size_t i = 0; i < count; ++i) {
        const rshape* s = &c->shapes[list[i]];
        if (px < s->rect.x0 || px > s->rect.x1 || py < s->rect.y0 || py > s->rect.y1) continue;
        if (s->zmin >= *depth) continue;
        layer l;
        if (!rshape_trace(s, v, px, py, *depth, &l.z, l.rgb)) continue;
        if (c->alpha >= 1.0f) {
            *depth = l.z;
            put_pixel(c->out, idx, l.rgb);
            continue;
        }
        /* Keep the MAX_LAYERS nearest, sorted near to far; equal depths keep shape order. */
        int at = nl;
        while (at > 0 && layers[at - 1].z > l.z) --at;
        if (at >= MAX_LAYERS) continue;
        if (nl < MAX_LAYERS) ++nl;
        memmove(&layers[at + 1], &layers[at], (size_t)(nl - 1 - at) * sizeof *layers);
        layers[at] = l;
    }
    if (nl == 0) return;
    float col[3];
    for (int k = 0; k < 3; ++k) col[k] = (float)c->out->rgb[3 * idx + k];
    for (int i = nl - 1; i >= 0; --i)
        for (int k = 0; k < 3; ++k) col[k] = c->alpha * layers[i].rgb[k] + (1.0f - c->alpha) * col[k];
    put_pixel(c->out, idx, col);
}

static void draw_tile(const rctx* c, int tile) {
    const rview* v = c->v;
    int tx = tile % c->tiles_x, ty = tile / c->tiles_x;
    rrect t = {tx * TILE, ty * TILE, tx * TILE + TILE - 1, ty * TILE + TILE - 1};
    if (t.x1 >= v->width) t.x1 = v->width - 1;
    if (t.y1 >= v->height) t.y1 = v->height - 1;
    for (int py = t.y0; py <= t.y1; ++py) {
        /* A pale vertical gradient: reads as sky, keeps dark particles contrasted. */
        float f = v->height > 1 ? (float)py / (float)(v->height - 1) : 0.0f;
        float bg[3] = {246.0f - 42.0f * f, 248.0f - 34.0f * f, 252.0f - 24.0f * f};
        for (int px = t.x0; px <= t.x1; ++px) {
            size_t idx = (size_t)py * (size_t)v->width + (size_t)px;
            c->out->depth[idx] = INFINITY;
            put_pixel(c->out, idx, bg);
        }
    }
    for (size_t i = c->part_bins.start[tile]; i < c->part_bins.start[tile + 1]; ++i) {
        int id = c->part_bins.items[i];
        rrect r = c->part_rects[id];
        r.x0 = r.x0 > t.x0 ? r.x0 : t.x0;
        r.y0 = r.y0 > t.y0 ? r.y0 : t.y0;
        r.x1 = r.x1 < t.x1 ? r.x1 : t.x1;
        r.y1 = r.y1 < t.y1 ? r.y1 : t.y1;
        draw_particle(c, &c->parts[id], r);
    }
    size_t s0 = c->shape_bins.start[tile], s1 = c->shape_bins.start[tile + 1];
    if (s1 == s0) return;
    for (int py = t.y0; py <= t.y1; ++py)
        for (int px = t.x0; px <= t.x1; ++px)
            draw_shapes_pixel(c, c->shape_bins.items + s0, s1 - s0, px, py);
}

/* Screen rectangle of a sphere given in camera coordinates; 0 when it cannot be drawn. For a
 * perspective view the bounds are the slopes of the planes through the eye tangent to the sphere. */
static int particle_rect(const rview* v, const rparticle* p, rrect* r) {
    if (!(p->znear > 0.0f)) return 0;
    float lo[2], hi[2];
    const float cxy[2] = {p->cx, p->cy};
    for (int a = 0; a < 2; ++a) {
        if (v->ortho) {
            lo[a] = cxy[a] - p->r;
            hi[a] = cxy[a] + p->r;
            continue;
        }
        float q = p->cz * p->cz - p->r2, root = p->r * sqrtf(cxy[a] * cxy[a] + q);
        lo[a] = (cxy[a] * p->cz - root) / q;
        hi[a] = (cxy[a] * p->cz + root) / q;
    }
    if (!(isfinite(lo[0]) && isfinite(hi[0]) && isfinite(lo[1]) && isfinite(hi[1]))) return 0;
    *r = rview_clip_rect(v, lo[0], hi[0], lo[1], hi[1]);
    return r->x0 <= r->x1 && r->y0 <= r->y1;
}

static void particle_color(const loam_render_particles* P, int i, float out[3]) {
    uint8_t rgb[3] = {P->color[0], P->color[1], P->color[2]};
    if (P->scalar) {
        float span = P->scalar_max - P->scalar_min;
        float t = span != 0.0f ? (P->scalar[i] - P->scalar_min) / span : 0.5f;
        loam_colormap_eval(P->colormap, t, rgb);
    }
    for (int k = 0; k < 3; ++k) out[k] = (float)rgb[k];
}

/* Prepared particles, visible ones listed near to far so most hidden pixels fail the cheap
 * znear test before any square root. */
static int prepare_particles(const rview* v, const loam_render_particles* P, rparticle* parts,
                             rrect* rects, sort_key* keys, int* order) {
    int visible = 0;
    for (int i = 0; i < P->count; ++i) {
        loam_vec3 w = v3(P->x[i], P->y[i], P->z[i]);
        float r = P->radius[i];
        if (!v3_is_finite(w) || !(r > 0.0f) || !isfinite(r)) continue;
        loam_vec3 cp = rview_to_cam(v, w);
        rparticle* p = &parts[i];
        p->cx = cp.x;
        p->cy = cp.y;
        p->cz = cp.z;
        p->r = r;
        p->r2 = r * r;
        p->znear = cp.z - r;
        if (!particle_rect(v, p, &rects[i])) continue;
        particle_color(P, i, p->color);
        keys[visible].z = p->znear;
        keys[visible].index = i;
        ++visible;
    }
    qsort(keys, (size_t)visible, sizeof *keys, cmp_key);
    for (int i = 0; i < visible; ++i) order[i] = keys[i].index;
    return visible;
}

loam_status render_draw(const rview* v, const loam_render_particles* P, const rshape* shapes,
                        int shape_count, float alpha, loam_image* out, loam_error* err) {
    int n = P ? P->count : 0;
    int tiles_x = (v->width + TILE - 1) / TILE, tiles_y = (v->height + TILE - 1) / TILE;
    size_t m = n > 0 ? (size_t)n : 1, ms = shape_count > 0 ? (size_t)shape_count : 1;
    rparticle* parts = loam_malloc(m * sizeof *parts);
    rrect* rects = loam_malloc(m * sizeof *rects);
    sort_key* keys = loam_malloc(m * sizeof *keys);
    int* order = loam_malloc(m * sizeof *order);
    rrect* shape_rects = loam_malloc(ms * sizeof *shape_rects);
    int* shape_order = loam_malloc(ms * sizeof *shape_order);
    rctx c;
    memset(&c, 0, sizeof c);
    loam_status st = LOAM_OK;
    if (!parts || !rects || !keys || !order || !shape_rects || !shape_order) {
        st = loam_error_set(err, LOAM_ERR_NOMEM, "render: out of memory for %d particles", n);
        goto done;
    }
    int visible = n > 0 ? prepare_particles(v, P, parts, rects, keys, order) : 0;
    for (int i = 0; i < shape_count; ++i) {
        shape_rects[i] = shapes[i].rect;
        shape_order[i] = i;
    }
    st = bins_build(&c.part_bins, tiles_x, tiles_y, rects, order, visible, err);
    if (st != LOAM_OK) goto done;
    st = bins_build(&c.shape_bins, tiles_x, tiles_y, shape_rects, shape_order, shape_count, err);
    if (st != LOAM_OK) goto done;
    c.v = v;
    c.tiles_x = tiles_x;
    c.parts = parts;
    c.part_rects = rects;
    c.shapes = shapes;
    c.alpha = alpha;
    c.out = out;
    int tiles = tiles_x * tiles_y;
    /* the default team: the calling thread's scope (an environment's observations) or the process's */
#pragma omp parallel for schedule(dynamic, 1) num_threads(loam_team(0))
    for (int t = 0; t < tiles; ++t) draw_tile(&c, t);
done:
    bins_free(&c.part_bins);
    bins_free(&c.shape_bins);
    loam_free(parts);
    loam_free(rects);
    loam_free(keys);
    loam_free(order);
    loam_free(shape_rects);
    loam_free(shape_order);
    return st;
}
