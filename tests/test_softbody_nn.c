/* Network-generated robots: valid, deterministic per seed, a closed outward surface, no spring
 * shorter than the limit (the rejected ones counted), simulable; bad definitions refused. */
#include <string.h>

#include "softbody_util.h"
#include "test_util.h"

/* For a closed oriented surface every directed edge a->b is matched by b->a as often. */
static int closed(const loam_softbody_robot* r) {
    int n = r->mass_count, ok = 1;
    int* count = calloc((size_t)n * (size_t)n, sizeof(int));
    for (int f = 0; f < r->face_count; ++f)
        for (int e = 0; e < 3; ++e) {
            int a = r->face[3 * f + e], b = r->face[3 * f + (e + 1) % 3];
            ++count[(size_t)a * n + b];
            --count[(size_t)b * n + a];
        }
    for (size_t k = 0; k < (size_t)n * n && ok; ++k) ok = count[k] == 0;
    free(count);
    return ok;
}

static double enclosed_volume(const loam_softbody_robot* r) {
    double v = 0.0;
    for (int f = 0; f < r->face_count; ++f) {
        int a = r->face[3 * f], b = r->face[3 * f + 1], c = r->face[3 * f + 2];
        v += r->x[a] * ((double)r->y[b] * r->z[c] - (double)r->z[b] * r->y[c]) -
             r->y[a] * ((double)r->x[b] * r->z[c] - (double)r->z[b] * r->x[c]) +
             r->z[a] * ((double)r->x[b] * r->y[c] - (double)r->y[b] * r->x[c]);
    }
    return v / 6.0;
}

int main(void) {
    loam_softbody_nn_def d = loam_softbody_nn_default_def();
    loam_error err;
    loam_softbody_nn_info info;
    loam_softbody_robot* r = loam_softbody_nn_robot(&d, 1, &info, &err);
    if (!r && strstr(err.message, "without qhull")) {
        fprintf(stderr, "skipped: %s\n", err.message);
        return 0;
    }
    loam_softbody_robot_destroy(r);
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        r = loam_softbody_nn_robot(&d, seed, &info, &err);
        CHECK(r, "seed %llu: %s", (unsigned long long)seed, err.message);
        if (!r) continue;
        CHECK(loam_softbody_robot_validate(r, 0, &err) == LOAM_OK, "seed %llu: %s", (unsigned long long)seed, err.message);
        CHECK(r->mass_count + info.dropped_points == d.points, "seed %llu: %d masses + %d dropped != %d points",
              (unsigned long long)seed, r->mass_count, info.dropped_points, d.points);
        CHECK(info.tetrahedra > 0 && r->face_count >= 4 && closed(r), "seed %llu: surface not closed", (unsigned long long)seed);
        double vol = enclosed_volume(r), ball = 4.0 / 3.0 * M_PI * pow(d.radius, 3);
        CHECK(vol > 0.0 && vol < ball, "seed %llu: enclosed volume %g outside (0, %g): faces not outward", (unsigned long long)seed,
              vol, ball);
        for (int s = 0; s < r->spring_count; ++s)
            CHECK(r->rest[s] >= d.min_spring && r->material[s] >= 1, "seed %llu: spring %d rest %g material %d",
                  (unsigned long long)seed, s, (double)r->rest[s], r->material[s]);
        for (int i = 0; i < r->mass_count; ++i) {
            double dx = r->x[i] - d.origin.x, dy = r->y[i] - d.origin.y, dz = r->z[i] - d.origin.z;
            CHECK(sqrt(dx * dx + dy * dy + dz * dz) <= d.radius * 1.0001, "seed %llu: mass %d outside the sphere",
                  (unsigned long long)seed, i);
        }
        /* the same seed gives the same robot */
        loam_softbody_robot* again = loam_softbody_nn_robot(&d, seed, NULL, &err);
        CHECK(again && again->mass_count == r->mass_count && again->spring_count == r->spring_count &&
                  !memcmp(again->x, r->x, sizeof(float) * (size_t)r->mass_count) &&
                  !memcmp(again->s0, r->s0, sizeof(int32_t) * (size_t)r->spring_count),
              "seed %llu is not deterministic", (unsigned long long)seed);
        loam_softbody_robot_destroy(again);
        /* it swims without diverging */
        loam_softbody_materials m = loam_softbody_default_materials(100.0f);
        loam_softbody_def sd = loam_softbody_default_def();
        sd.dt = 1e-4;
        const loam_softbody_robot* rs[1] = {r};
        loam_softbody_pop* p = loam_softbody_pop_create(&sd, &m, rs, 1, &err);
        CHECK(p && loam_softbody_pop_step(p, 2000, &err) == LOAM_OK, "seed %llu: %s", (unsigned long long)seed, err.message);
        loam_softbody_pop_destroy(p);
        loam_softbody_robot_destroy(r);
    }
    /* a long minimum spring rejects springs, counted, and none shorter survives */
    d.min_spring = 0.3f * d.radius;
    r = loam_softbody_nn_robot(&d, 3, &info, &err);
    CHECK(r && info.rejected_springs > 0, "min_spring: %s, rejected %d", r ? "robot" : err.message, info.rejected_springs);
    for (int s = 0; r && s < r->spring_count; ++s) CHECK(r->rest[s] >= d.min_spring, "spring %d shorter than the limit", s);
    loam_softbody_robot_destroy(r);
    d = loam_softbody_nn_default_def();
    d.alpha = 1e-4f;
    CHECK(!loam_softbody_nn_robot(&d, 1, &info, &err) && strstr(err.message, "alpha"), "tiny alpha: %s", err.message);
    d = loam_softbody_nn_default_def();
    d.points = 2;
    CHECK(!loam_softbody_nn_robot(&d, 1, &info, &err) && strstr(err.message, "points 2"), "%s", err.message);
    CHECK(!loam_softbody_nn_robot(NULL, 1, &info, &err), "NULL def");
    TEST_MAIN_END();
}
