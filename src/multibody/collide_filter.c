/* Which body pairs the contact search skips: the same body, a joint's parent and child, each tree's
 * self-collision setting and the model's excluded pairs (an SRDF's <disable_collisions>). See
 * loam_mb_self_collision in loam/multibody.h. */
#include <stdlib.h>

#include "core/context.h"
#include "loam/multibody.h"

const char* loam_mb_self_collision_name(loam_mb_self_collision mode) {
    switch (mode) {
    case LOAM_SELF_COLLISION_ALL: return "all";
    case LOAM_SELF_COLLISION_ADJACENT: return "adjacent";
    case LOAM_SELF_COLLISION_OFF: return "off";
    }
    return "unknown";
}

loam_status loam_mb_model_set_self_collision(loam_mb_model* m, int body, loam_mb_self_collision mode, loam_error* err) {
    if (!m) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: self collision: null model");
    if (body < 0 || body >= m->nbody)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: self collision: body %d, expected 0 to %d", body, m->nbody - 1);
    if ((unsigned)mode > (unsigned)LOAM_SELF_COLLISION_OFF)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: self collision of body '%s': mode %d is not all (0), adjacent (1) or off (2)",
                              m->body[body].name, (int)mode);
    m->tree_self[m->body_tree[body]] = mode;
    return LOAM_OK;
}

static int by_key(const void* a, const void* b) {
    long long x = *(const long long*)a, y = *(const long long*)b;
    return (x > y) - (x < y);
}

loam_status loam_mb_model_exclude_pairs(loam_mb_model* m, const int* pairs, int count, loam_error* err) {
    if (!m || (count > 0 && !pairs)) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: exclude pairs: null model or pairs");
    if (count < 0 || count > 10000000) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: exclude pairs: count %d, expected 0 to 1e7", count);
    for (int i = 0; i < count; ++i) {
        int a = pairs[2 * i], b = pairs[2 * i + 1];
        if (a < 0 || b < 0 || a >= m->nbody || b >= m->nbody || a == b)
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: exclude pair %d: bodies %d and %d, expected two distinct bodies 0 to %d", i, a,
                                  b, m->nbody - 1);
    }
    if (count == 0) return LOAM_OK;
    long long* keys = loam_ctx_malloc(m->opt.context, sizeof *keys * ((size_t)m->nexclude + (size_t)count));
    if (!keys) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: exclude pairs: out of memory");
    int n = 0;
    for (int i = 0; i < m->nexclude; ++i) keys[n++] = m->exclude[i];
    for (int i = 0; i < count; ++i) {
        int a = pairs[2 * i], b = pairs[2 * i + 1];
        keys[n++] = (long long)(a < b ? a : b) * m->nbody + (a < b ? b : a);
    }
    qsort(keys, (size_t)n, sizeof *keys, by_key);
    int u = 0;
    for (int i = 0; i < n; ++i)
        if (u == 0 || keys[i] != keys[u - 1]) keys[u++] = keys[i];
    loam_free(m->exclude);
    m->exclude = keys;
    m->nexclude = u;
    return LOAM_OK;
}

/* The body a link is welded to through fixed joints: the top of its rigid group. */
static int rigid_top(const loam_mb_model* m, int b) {
    while (m->body[b].parent >= 0 && m->body[b].joint == LOAM_JOINT_FIXED) b = m->body[b].parent;
    return b;
}

int loam_mb_bodies_skip(const loam_mb_model* m, int a, int b) {
    if (a < 0 || b < 0) return 0;
    if (a == b || m->body[a].parent == b || m->body[b].parent == a) return 1;
    if (m->nexclude > 0) {
        long long key = (long long)(a < b ? a : b) * m->nbody + (a < b ? b : a);
        if (bsearch(&key, m->exclude, (size_t)m->nexclude, sizeof key, by_key)) return 1;
    }
    int t = m->body_tree[a];
    if (t != m->body_tree[b]) return 0;
    switch (m->tree_self[t]) {
    case LOAM_SELF_COLLISION_OFF: return 1;
    case LOAM_SELF_COLLISION_ADJACENT: {
        int ra = rigid_top(m, a), rb = rigid_top(m, b);
        if (ra == rb) return 1;
        int pa = m->body[ra].parent, pb = m->body[rb].parent;
        return (pa >= 0 && rigid_top(m, pa) == rb) || (pb >= 0 && rigid_top(m, pb) == ra);
    }
    default: return 0;
    }
}
