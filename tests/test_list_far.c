/* The neighbour list codes a partner j of particle i as j - i in 16 bits, or, when j is 65,535 or
 * more numbers above i, as an escape and j itself (world_internal.h, loam_list_code). Checked: the
 * code round-trips for near, boundary and far partners; and in a world of 70,000 particles that is
 * never renumbered, particle 69,999 resting on particle 0 (the only pair in contact) is held up by
 * it, which needs the far code (the rest of the particles sit apart, on a sparse lattice). */
#include <stdlib.h>

#include "granular/world_internal.h"
#include "loam/core.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "test_util.h"

static void round_trip(void) {
    int32_t js[] = {1, 2, 1000, 65534, 65535, 65536, 70000, 1 << 20, (1 << 30) + 12345};
    int n = (int)(sizeof js / sizeof js[0]);
    for (int base = 0; base < 3; ++base) {
        int i = base * 1000;
        uint16_t e[3 * 9];
        int used = 0;
        for (int k = 0; k < n; ++k) used += loam_list_code(i, i + js[k], &e[used]);
        int32_t out[9];
        int m = loam_list_partners(i, e, used, out);
        CHECK(m == n, "i %d: decoded %d partners of %d", i, m, n);
        for (int k = 0; k < n && k < m; ++k) CHECK(out[k] == i + js[k], "i %d: partner %d is %d, want %d", i, k, out[k], i + js[k]);
        CHECK(used == n + 2 * 5, "i %d: %d entries (five partners are far)", i, used);
    }
}

static void far_pair_in_a_world(void) {
    enum { N = 70000 };
    const float r = 0.005f;
    loam_granular_params p = loam_granular_default_params();
    p.reorder_interval = 0; /* keep the numbers as given */
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    loam_body_def ground = loam_body_default_def();
    ground.shape_count = 1;
    ground.shapes[0].type = LOAM_SHAPE_PLANE;
    ground.shapes[0].local = loam_pose_identity();
    ground.shapes[0].friction = 0.5f;
    CHECK(loam_world_add_body(w, &ground, &err) == 0, "%s", err.message);
    float* xyz = malloc(sizeof(float) * 3 * N);
    float* rad = malloc(sizeof(float) * N);
    for (int k = 0; k < N; ++k) { /* a sparse lattice high above the floor, 4 diameters apart */
        xyz[3 * k] = 0.2f + 0.04f * (float)(k % 300);
        xyz[3 * k + 1] = 0.04f * (float)(k / 300 % 300);
        xyz[3 * k + 2] = 1.0f + 0.04f * (float)(k / 90000);
        rad[k] = r;
    }
    xyz[0] = xyz[1] = 0.0f, xyz[2] = r;                   /* particle 0 on the floor */
    xyz[3 * (N - 1)] = xyz[3 * (N - 1) + 1] = 0.0f;       /* and the last one on top of it */
    xyz[3 * (N - 1) + 2] = 3.0f * r + 1e-5f;
    CHECK(loam_world_add_particles(w, N, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    free(xyz);
    free(rad);
    for (int s = 0; s < 100; ++s) CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
    loam_particles q = loam_world_particles(w);
    int top = -1;
    for (int k = 0; k < q.count; ++k)
        if (q.id[k] == N - 1) top = k;
    CHECK(top >= 0, "particle %d is gone", N - 1);
    /* Without the pair it would have fallen through particle 0 to the floor (z = r) or below. */
    if (top >= 0) CHECK(q.z[top] > 2.9f * r, "the top particle sank to z = %g m (rests at %g)", q.z[top], 3.0f * r);
    CHECK(loam_world_last_stats(w).contacts == 1, "%d pair contacts, want the one", loam_world_last_stats(w).contacts);
    loam_world_destroy(w);
}

int main(void) {
    round_trip();
    far_pair_in_a_world();
    TEST_MAIN_END();
}
