/* The `particles:` section: a list of generators, each adding particles to the scene.
 *   - lattice: a simple-cubic lattice filling a box or the cylinder inscribed in it;
 *   - points: explicit centres. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/vec.h"
#include "scene/scene_internal.h"

#define TRY(expr)                            \
    do {                                     \
        loam_status try_status_ = (expr);    \
        if (try_status_) return try_status_; \
    } while (0)

enum { SCENE_MAX_PARTICLES = 1 << 26 };

static loam_status reserve(loam_scene* s, const snode* at, double more, loam_error* err) {
    if ((double)s->particle_count + more > SCENE_MAX_PARTICLES)
        return snode_error(at, err, "would make %.0f particles; loam scenes hold at most %d", (double)s->particle_count + more,
                           SCENE_MAX_PARTICLES);
    size_t n = (size_t)s->particle_count + (size_t)more;
    float* xyz = realloc(s->xyz, sizeof(float) * 3 * (n ? n : 1));
    if (xyz) s->xyz = xyz;
    float* vel = realloc(s->vel, sizeof(float) * 3 * (n ? n : 1));
    if (vel) s->vel = vel;
    float* rad = realloc(s->radius, sizeof(float) * (n ? n : 1));
    if (rad) s->radius = rad;
    if (!xyz || !vel || !rad) return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for %zu particles", n);
    return LOAM_OK;
}

static void push(loam_scene* s, loam_vec3 p, loam_vec3 v, float r) {
    int k = s->particle_count++;
    s->xyz[3 * k] = p.x;
    s->xyz[3 * k + 1] = p.y;
    s->xyz[3 * k + 2] = p.z;
    s->vel[3 * k] = v.x;
    s->vel[3 * k + 1] = v.y;
    s->vel[3 * k + 2] = v.z;
    s->radius[k] = r;
}

static loam_status read_lattice(const snode* m, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"lo", "hi", "spacing", "radius", "radius_spread", "jitter", "velocity",
                                       "seed", "region", NULL};
    static const char* const regions[] = {"box", "cylinder", NULL};
    TRY(snode_check_map(m, keys, err));
    snode n;
    const char* need[] = {"lo", "hi", "spacing", "radius"};
    for (int k = 0; k < 4; ++k)
        if (!snode_get(m, need[k], &n)) return snode_error(m, err, "a lattice needs '%s'", need[k]);
    loam_vec3 lo, hi, vel = v3(0, 0, 0);
    double spacing, radius, spread = 0.0, jitter = 0.0;
    int seed = 1, region = 0;
    TRY(opt_vec3(m, "lo", -1e7, 1e7, &lo, err));
    TRY(opt_vec3(m, "hi", -1e7, 1e7, &hi, err));
    TRY(opt_double(m, "spacing", 1e-7, 1e6, &spacing, err));
    TRY(opt_double(m, "radius", 1e-7, 1e3, &radius, err));
    TRY(opt_double(m, "radius_spread", 0.0, 0.9, &spread, err));
    TRY(opt_double(m, "jitter", 0.0, 0.5, &jitter, err));
    TRY(opt_vec3(m, "velocity", -1e4, 1e4, &vel, err));
    TRY(opt_int(m, "seed", 0, 2147483647, &seed, err));
    TRY(opt_enum(m, "region", regions, &region, err));
    if (!(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z)) {
        snode_get(m, "hi", &n);
        return snode_error(&n, err, "hi must be above lo on every axis");
    }
    /* The small allowance keeps e.g. 0.396 / 0.018 = 21.99999 (float inputs) at 22 points. */
    double count[3] = {floor((hi.x - lo.x) / spacing + 1e-4), floor((hi.y - lo.y) / spacing + 1e-4),
                       floor((hi.z - lo.z) / spacing + 1e-4)};
    if (count[0] * count[1] * count[2] == 0.0) return LOAM_OK; /* also keeps a huge count on another axis out of the int loops */
    TRY(reserve(s, m, count[0] * count[1] * count[2], err));
    loam_rng rng = {(uint64_t)seed * 0x9E3779B97F4A7C15ull + 1};
    loam_vec3 c = v3_scale(v3_add(lo, hi), 0.5f);
    float rx = 0.5f * (hi.x - lo.x), ry = 0.5f * (hi.y - lo.y);
    for (int k = 0; k < (int)count[2]; ++k)
        for (int j = 0; j < (int)count[1]; ++j)
            for (int i = 0; i < (int)count[0]; ++i) {
                /* Centres sit half a spacing in from lo, as LIGGGHTS' lattice does. */
                loam_vec3 p = v3(lo.x + (float)((i + 0.5) * spacing), lo.y + (float)((j + 0.5) * spacing),
                                 lo.z + (float)((k + 0.5) * spacing));
                if (region == 1) {
                    float ex = (p.x - c.x) / (rx - (float)(0.5 * spacing)), ey = (p.y - c.y) / (ry - (float)(0.5 * spacing));
                    if (ex * ex + ey * ey > 1.0f) continue;
                }
                float r = (float)(radius * (1.0 + spread * (2.0 * loam_rng_uniform(&rng) - 1.0)));
                if (jitter > 0.0) {
                    p.x += (float)(jitter * spacing * (2.0 * loam_rng_uniform(&rng) - 1.0));
                    p.y += (float)(jitter * spacing * (2.0 * loam_rng_uniform(&rng) - 1.0));
                }
                push(s, p, vel, r);
            }
    return LOAM_OK;
}

static loam_status read_points(const snode* m, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"positions", "radius", "velocity", NULL};
    TRY(snode_check_map(m, keys, err));
    snode list;
    if (!snode_get(m, "positions", &list) || !snode_is_seq(&list))
        return snode_error(m, err, "points need 'positions': a list of [x, y, z]");
    double radius = 0.0;
    loam_vec3 vel = v3(0, 0, 0);
    snode n;
    if (!snode_get(m, "radius", &n)) return snode_error(m, err, "points need 'radius' (m)");
    TRY(snode_double(&n, 1e-7, 1e3, &radius, err));
    TRY(opt_vec3(m, "velocity", -1e4, 1e4, &vel, err));
    int count = snode_seq_length(&list);
    TRY(reserve(s, m, count, err));
    for (int k = 0; k < count; ++k) {
        snode item = snode_seq_item(&list, k);
        loam_vec3 p;
        TRY(snode_vec3(&item, -1e7, 1e7, &p, err));
        push(s, p, vel, (float)radius);
    }
    return LOAM_OK;
}

loam_status scene_read_particles(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const kinds[] = {"lattice", "points", NULL};
    snode list;
    if (!snode_get(root, "particles", &list)) return LOAM_OK;
    if (!snode_is_seq(&list)) return snode_error(&list, err, "expected a list of generators (- lattice: ..., - points: ...)");
    for (int k = 0; k < snode_seq_length(&list); ++k) {
        snode item = snode_seq_item(&list, k);
        TRY(snode_check_map(&item, kinds, err));
        if (item.node->data.mapping.pairs.top - item.node->data.mapping.pairs.start != 1)
            return snode_error(&item, err, "each generator is one of 'lattice' or 'points', alone");
        snode body;
        if (snode_get(&item, "lattice", &body)) TRY(read_lattice(&body, s, err));
        else if (snode_get(&item, "points", &body)) TRY(read_points(&body, s, err));
        else return snode_error(&item, err, "expected 'lattice' or 'points'");
    }
    return LOAM_OK;
}
