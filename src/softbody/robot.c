/* Robot models: allocation, copies and validation that names the first bad element. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/softbody.h"

loam_softbody_robot* loam_softbody_robot_alloc(int masses, int springs, int faces, loam_error* err) {
    if (masses < 0 || springs < 0 || faces < 0 || masses > LOAM_SB_MAX_MASSES || springs > (1 << 26) ||
        faces > (1 << 26)) {
        loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: counts %d masses, %d springs, %d faces outside 0..%d, "
                       "0..%d, 0..%d", masses, springs, faces, LOAM_SB_MAX_MASSES, 1 << 26, 1 << 26);
        return NULL;
    }
    loam_softbody_robot* r = loam_calloc(1, sizeof *r);
    if (!r) goto nomem;
    size_t m = (size_t)masses + 1, s = (size_t)springs + 1, f = (size_t)faces + 1; /* +1: no 0-byte blocks */
    r->mass_count = masses;
    r->spring_count = springs;
    r->face_count = faces;
    r->x = loam_calloc(m, sizeof(float));
    r->y = loam_calloc(m, sizeof(float));
    r->z = loam_calloc(m, sizeof(float));
    r->inv_mass = loam_calloc(m, sizeof(float));
    r->s0 = loam_calloc(s, sizeof(int32_t));
    r->s1 = loam_calloc(s, sizeof(int32_t));
    r->rest = loam_calloc(s, sizeof(float));
    r->material = loam_calloc(s, 1);
    r->face = loam_calloc(3 * f, sizeof(int32_t));
    if (!r->x || !r->y || !r->z || !r->inv_mass || !r->s0 || !r->s1 || !r->rest || !r->material || !r->face) {
        loam_softbody_robot_destroy(r);
        goto nomem;
    }
    for (int i = 0; i < masses; ++i) r->inv_mass[i] = 1.0f;
    return r;
nomem:
    loam_error_set(err, LOAM_ERR_NOMEM, "softbody robot: out of memory for %d masses, %d springs", masses, springs);
    return NULL;
}

void loam_softbody_robot_destroy(loam_softbody_robot* r) {
    if (!r) return;
    loam_free(r->x);
    loam_free(r->y);
    loam_free(r->z);
    loam_free(r->inv_mass);
    loam_free(r->s0);
    loam_free(r->s1);
    loam_free(r->rest);
    loam_free(r->material);
    loam_free(r->face);
    loam_free(r);
}

loam_softbody_robot* loam_softbody_robot_copy(const loam_softbody_robot* r, loam_error* err) {
    if (!r) {
        loam_error_set(err, LOAM_ERR_INPUT, "softbody robot copy: NULL robot");
        return NULL;
    }
    loam_softbody_robot* c = loam_softbody_robot_alloc(r->mass_count, r->spring_count, r->face_count, err);
    if (!c) return NULL;
    size_t m = (size_t)r->mass_count, s = (size_t)r->spring_count;
    memcpy(c->x, r->x, m * sizeof(float));
    memcpy(c->y, r->y, m * sizeof(float));
    memcpy(c->z, r->z, m * sizeof(float));
    memcpy(c->inv_mass, r->inv_mass, m * sizeof(float));
    memcpy(c->s0, r->s0, s * sizeof(int32_t));
    memcpy(c->s1, r->s1, s * sizeof(int32_t));
    memcpy(c->rest, r->rest, s * sizeof(float));
    memcpy(c->material, r->material, s);
    memcpy(c->face, r->face, 3 * (size_t)r->face_count * sizeof(int32_t));
    return c;
}

static int cmp_u64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

loam_status loam_softbody_robot_validate(const loam_softbody_robot* r, int max_masses, loam_error* err) {
    if (!r) return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: NULL robot");
    if (max_masses <= 0 || max_masses > LOAM_SB_MAX_MASSES) max_masses = LOAM_SB_MAX_MASSES;
    int n = r->mass_count;
    if (n < 1 || n > max_masses)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: %d masses; a population slot holds 1..%d", n,
                              max_masses);
    if (r->spring_count < 0 || r->face_count < 0)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: negative spring or face count");
    /* A robot filled by hand may lack arrays its counts promise. */
    if (!r->x || !r->y || !r->z || !r->inv_mass)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: %d masses but NULL x, y, z or inv_mass", n);
    if (r->spring_count > 0 && (!r->s0 || !r->s1 || !r->rest || !r->material))
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: %d springs but NULL s0, s1, rest or material",
                              r->spring_count);
    if (r->face_count > 0 && !r->face)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: %d faces but NULL face", r->face_count);
    for (int i = 0; i < n; ++i) {
        if (!isfinite(r->x[i]) || !isfinite(r->y[i]) || !isfinite(r->z[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: mass %d: non-finite position (%g, %g, %g)", i,
                                  (double)r->x[i], (double)r->y[i], (double)r->z[i]);
        if (!isfinite(r->inv_mass[i]) || r->inv_mass[i] < 0.0f)
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: mass %d: inverse mass %g must be finite and >= 0",
                                  i, (double)r->inv_mass[i]);
    }
    for (int s = 0; s < r->spring_count; ++s) {
        int a = r->s0[s], b = r->s1[s];
        if (a < 0 || a >= n || b < 0 || b >= n)
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: spring %d names mass %d; the robot has masses 0..%d",
                                  s, (a < 0 || a >= n) ? a : b, n - 1);
        if (a == b) return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: spring %d joins mass %d to itself", s, a);
        if (!isfinite(r->rest[s]) || !(r->rest[s] > 0.0f))
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: spring %d (masses %d-%d): rest length %g must be "
                                  "finite and > 0", s, a, b, (double)r->rest[s]);
        int m = r->material[s];
        if (m == LOAM_SB_AIR || m >= LOAM_SB_MATERIAL_COUNT)
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: spring %d: material %d must be 1..%d (air springs "
                                  "do not exist; leave the spring out)", s, m, LOAM_SB_MATERIAL_COUNT - 1);
        if (r->inv_mass[a] == 0.0f && r->inv_mass[b] == 0.0f)
            return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: spring %d joins two fixed masses %d and %d", s, a, b);
    }
    for (int f = 0; f < r->face_count; ++f)
        for (int k = 0; k < 3; ++k) {
            int v = r->face[3 * f + k];
            if (v < 0 || v >= n)
                return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: face %d names mass %d; the robot has masses 0..%d",
                                      f, v, n - 1);
        }
    /* Duplicates: sort the (lower, higher) endpoint keys. */
    if (r->spring_count > 1) {
        uint64_t* keys = loam_malloc(sizeof(uint64_t) * (size_t)r->spring_count);
        if (!keys) return loam_error_set(err, LOAM_ERR_NOMEM, "softbody robot: out of memory checking duplicates");
        for (int s = 0; s < r->spring_count; ++s) {
            uint64_t a = (uint64_t)r->s0[s], b = (uint64_t)r->s1[s];
            keys[s] = a < b ? (a << 32 | b) : (b << 32 | a);
        }
        qsort(keys, (size_t)r->spring_count, sizeof *keys, cmp_u64);
        for (int s = 1; s < r->spring_count; ++s)
            if (keys[s] == keys[s - 1]) {
                int a = (int)(keys[s] >> 32), b = (int)(keys[s] & 0xffffffffu);
                loam_free(keys);
                return loam_error_set(err, LOAM_ERR_INPUT, "softbody robot: two springs join masses %d and %d", a, b);
            }
        loam_free(keys);
    }
    return LOAM_OK;
}

float loam_softbody_robot_length(const loam_softbody_robot* r) {
    if (!r || r->mass_count < 1) return 0.0f;
    float lo[3] = {r->x[0], r->y[0], r->z[0]}, hi[3] = {r->x[0], r->y[0], r->z[0]};
    for (int i = 1; i < r->mass_count; ++i) {
        float p[3] = {r->x[i], r->y[i], r->z[i]};
        for (int k = 0; k < 3; ++k) {
            lo[k] = fminf(lo[k], p[k]);
            hi[k] = fmaxf(hi[k], p[k]);
        }
    }
    return fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
}
