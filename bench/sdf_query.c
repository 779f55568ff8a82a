/* Query cost of signed distance grids against triangle count (issue: "O(1) query cost independent
 * of triangle count"). Icospheres of radius 5 cm from 80 to 81,920 triangles, each sampled at a
 * 2.5 mm cell; prints per mesh the build time, the grid's memory, the time per grid query (a
 * million random points around the sphere), and for contrast the time per exact query through the
 * triangle hierarchy the grid was built with. Queries on one thread; the build uses all threads.
 *   build/bench_sdf_query [--json] */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "geom/mesh_bvh.h"
#include "loam/sdf_grid.h"
#include "test_meshes.h"

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;
    enum { QUERIES = 1000000, EXACT = 20000 };
    static float pts[3 * QUERIES];
    unsigned s = 2024;
    for (int k = 0; k < 3 * QUERIES; ++k) pts[k] = uniform(&s, -0.065f, 0.065f);
    if (!json) printf("%10s %10s %12s %12s %14s %16s\n", "triangles", "build s", "grid MB", "samples", "grid ns/query",
                      "exact ns/query");
    for (int level = 1; level <= 6; ++level) {
        loam_mesh m = sphere_mesh(0.05f, level);
        loam_sdf_grid g;
        loam_error err;
        double t0 = seconds();
        if (loam_sdf_grid_build(&m, 0.0025f, 0.015f, &g, &err) != LOAM_OK) {
            fprintf(stderr, "bench_sdf_query: %s\n", err.message);
            return 1;
        }
        double build = seconds() - t0;
        float sink = 0.0f;
        t0 = seconds();
        for (int k = 0; k < QUERIES; ++k) {
            loam_vec3 grad;
            sink += loam_sdf_grid_query(&g, (loam_vec3){pts[3 * k], pts[3 * k + 1], pts[3 * k + 2]}, &grad) + grad.x;
        }
        double grid_ns = (seconds() - t0) / QUERIES * 1e9;
        loam_bvh bvh;
        loam_bvh_build(&m, &bvh, &err);
        t0 = seconds();
        for (int k = 0; k < EXACT; ++k) {
            double p[3] = {pts[3 * k], pts[3 * k + 1], pts[3 * k + 2]};
            sink += (float)(loam_bvh_distance(&bvh, p) * (loam_bvh_winding(&bvh, p) > 0.5 ? -1 : 1));
        }
        double exact_ns = (seconds() - t0) / EXACT * 1e9;
        size_t samples = (size_t)g.nx * g.ny * g.nz;
        if (json)
            printf("{\"triangles\": %d, \"build_s\": %.3f, \"grid_bytes\": %zu, \"samples\": %zu, \"grid_ns_per_query\": %.1f, "
                   "\"exact_ns_per_query\": %.1f, \"checksum\": %g}\n",
                   m.triangle_count, build, loam_sdf_grid_memory(&g), samples, grid_ns, exact_ns, sink);
        else
            printf("%10d %10.3f %12.2f %12zu %14.1f %16.1f\n", m.triangle_count, build, loam_sdf_grid_memory(&g) / 1e6,
                   samples, grid_ns, exact_ns);
        loam_bvh_free(&bvh);
        loam_sdf_grid_destroy(&g);
        loam_mesh_destroy(&m);
    }
    return 0;
}
