/* Steady state allocates nothing. loam sizes its scratch (hash, contact lists, solver buffers) on the
 * first steps and reuses it, so once a scene has warmed up, stepping must not call loam_malloc at all:
 * not once per step, and not "now and then" when a contact list happens to grow (loam/core.h counts
 * every loam_malloc/loam_calloc). The scene is a working one, not an idle one: a settled bed in a box
 * with a plate ploughing through it, so contacts appear, break and move between blocks every step. */
#include <stdlib.h>

#include "loam/granular.h"
#include "test_scenes.h"
#include "test_util.h"

#define N 800
#define R 0.005f

int main(void) {
    double t0 = ts_now();
    uint64_t at_start = loam_alloc_count();
    loam_granular_params p = loam_granular_default_params();
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    /* The counter must see loam's allocations at all, or "unchanged" below would prove nothing. */
    CHECK(loam_alloc_count() > at_start, "creating a world did not move loam_alloc_count()");
    static float xyz[3 * N], rad[N];
    const float hx = 0.08f, hy = 0.04f;
    float lo[3] = {-hx + 1.1f * R, -hy + 1.1f * R, 1.1f * R}, hi[3] = {hx - 1.1f * R, hy - 1.1f * R, 0.0f};
    hi[2] = lo[2] + (float)(N * 4.0 / 3.0 * TS_PI * R * R * R / 0.3) / ((hi[0] - lo[0]) * (hi[1] - lo[1]));
    int n = ts_random_pack(N, R, lo, hi, 0, 7, xyz);
    CHECK(n == N, "placed %d of %d", n, N);
    for (int i = 0; i < n; ++i) rad[i] = R;
    CHECK(loam_world_add_particles(w, n, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    loam_shape box[5];
    int pieces = loam_open_box_pieces((loam_vec3){hx, hy, 0.05f}, 4.0f * R, 0.5f, box);
    ts_add_fixed(w, "box", box, pieces);
    /* A plate standing in the box, its lower edge 1 cm above the floor, held still while the bed
     * settles around it, then driven along +x. */
    loam_body_def plate = loam_body_default_def();
    snprintf(plate.name, sizeof plate.name, "plate");
    plate.motion = LOAM_MOTION_COMMANDED;
    plate.pose.p = (loam_vec3){-0.05f, 0.0f, 0.01f + 0.05f};
    plate.shape_count = 1;
    plate.shapes[0].type = LOAM_SHAPE_BOX;
    plate.shapes[0].local = loam_pose_identity();
    plate.shapes[0].size = (loam_vec3){0.005f, 0.02f, 0.05f};
    plate.shapes[0].friction = 0.5f;
    int b = loam_world_add_body(w, &plate, &err);
    CHECK(b >= 0, "%s", err.message);
    ts_steps(w, 400); /* settle */
    loam_twist push = {{0.05f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
    CHECK(loam_world_command_body(w, b, push, &err) == LOAM_OK, "%s", err.message);
    ts_steps(w, 300); /* warm up: the plate ploughs 1.5 cm */

    uint64_t allocs = loam_alloc_count();
    size_t bytes = loam_bytes_in_use(), world_bytes = loam_world_memory(w);
    int contacts_min = 1 << 30, contacts_max = 0, grew_at = -1;
    for (int k = 0; k < 200; ++k) {
        if (!ts_steps(w, 1)) break;
        int c = loam_world_body_state(w, b)->contacts;
        if (c < contacts_min) contacts_min = c;
        if (c > contacts_max) contacts_max = c;
        if (grew_at < 0 && loam_alloc_count() != allocs) grew_at = k;
    }
    uint64_t after = loam_alloc_count();
    fprintf(stderr,
            "200 steps of a plate ploughing a bed of %d particles (%d..%d plate contacts, %d pairs at the end): "
            "%llu allocations, bytes in use %zu -> %zu, world memory %zu -> %zu; %.1f s\n",
            n, contacts_min, contacts_max, loam_world_last_stats(w).contacts, (unsigned long long)(after - allocs),
            bytes, loam_bytes_in_use(), world_bytes, loam_world_memory(w), ts_now() - t0);
    CHECK(after == allocs, "%llu allocations during 200 steady steps (first after step %d)",
          (unsigned long long)(after - allocs), grew_at);
    CHECK(loam_bytes_in_use() == bytes, "bytes in use changed: %zu -> %zu", bytes, loam_bytes_in_use());
    CHECK(contacts_max > 0, "the plate never touched the bed: the scene is not exercising anything");
    CHECK(loam_world_body_state(w, b)->pose.p.x > -0.05f + 0.05f * 0.45f,
          "the plate did not move: x = %g", loam_world_body_state(w, b)->pose.p.x);
    loam_world_destroy(w);
    TEST_MAIN_END();
}
