/* Small scene builders shared by the physics tests: a seeded generator, lattices of spheres,
 * containers, and measurements computed from positions alone (so a test does not trust the
 * engine's own counters for what it checks). Header-only; every function is static. */
#ifndef LOAM_TEST_SCENES_H
#define LOAM_TEST_SCENES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loam/geom.h"
#include "loam/granular.h"
#include "test_util.h"

#define TS_PI 3.14159265358979323846
#define TS_G 9.81

/* splitmix64: the scenes must not depend on the C library's rand(). */
static inline uint64_t ts_next_u64(uint64_t* s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-a, a]. */
static inline float ts_uniform_sym(uint64_t* s, float a) {
    double u = (double)(ts_next_u64(s) >> 11) * (1.0 / 9007199254740992.0);
    return (float)((2.0 * u - 1.0) * a);
}

static inline double ts_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Up to n lattice sites (spacing sp, layers from z0 upwards) inside a vertical cylinder of radius R
 * about the z axis, keeping centres at least r + jitter + r/10 from the wall, each jittered sideways by
 * up to `jitter`. With `stagger`, odd layers are shifted by (sp/2, sp/2), so every sphere sits above a
 * pocket of four and the lattice must collapse into a denser packing. Returns the count written to
 * xyz (3 floats each). */
static inline int ts_lattice_cylinder(int n, float r, float R, float sp, float z0, float jitter, int stagger,
                                      uint64_t seed, float* xyz) {
    int half = (int)floorf(R / sp) + 1;
    int count = 0;
    uint64_t rng = seed;
    for (int layer = 0; count < n; ++layer) {
        int placed = 0;
        for (int j = -half; j <= half && count < n; ++j)
            for (int i = -half; i <= half && count < n; ++i) {
                float shift = stagger && (layer & 1) ? 0.5f * sp : 0.0f;
                float x = (float)i * sp + shift, y = (float)j * sp + shift;
                if (sqrtf(x * x + y * y) + r + jitter + 0.1f * r > R) continue;
                xyz[3 * count] = x + ts_uniform_sym(&rng, jitter);
                xyz[3 * count + 1] = y + ts_uniform_sym(&rng, jitter);
                xyz[3 * count + 2] = z0 + (float)layer * sp;
                ++count;
                ++placed;
            }
        if (placed == 0) break;
    }
    return count;
}

/* Up to n lattice sites filling |x| < hx, |y| < hy (centres at least r + jitter + r/10 inside), layers
 * from z0 upwards. Returns the count. */
static inline int ts_lattice_box(int n, float r, float hx, float hy, float sp, float z0, float jitter, uint64_t seed,
                                 float* xyz) {
    float keep = r + jitter + 0.1f * r;
    int nx = (int)floorf(2.0f * (hx - keep) / sp) + 1, ny = (int)floorf(2.0f * (hy - keep) / sp) + 1;
    if (nx < 1 || ny < 1) return 0;
    float x0 = -0.5f * (float)(nx - 1) * sp, y0 = -0.5f * (float)(ny - 1) * sp;
    uint64_t rng = seed;
    int count = 0;
    for (int layer = 0; count < n; ++layer)
        for (int j = 0; j < ny && count < n; ++j)
            for (int i = 0; i < nx && count < n; ++i) {
                xyz[3 * count] = x0 + (float)i * sp + ts_uniform_sym(&rng, jitter);
                xyz[3 * count + 1] = y0 + (float)j * sp + ts_uniform_sym(&rng, jitter);
                xyz[3 * count + 2] = z0 + (float)layer * sp;
                ++count;
            }
    return count;
}

/* Random sequential addition: up to n centres uniform in the box lo..hi, no two closer than 2r (1.02
 * times, so nothing starts in contact), a disordered start that cannot crystallise the way a lattice
 * does. With periodic_y the y extent is a period and distances wrap across it. Returns the count placed
 * (fewer than n when `tries` random draws per particle do not find room). */
static inline int ts_random_pack(int n, float r, const float lo[3], const float hi[3], int periodic_y, uint64_t seed,
                                 float* xyz) {
    float d = 2.04f * r, cs[3];
    int dim[3];
    long cells = 1;
    for (int k = 0; k < 3; ++k) {
        cs[k] = d;
        dim[k] = (int)((hi[k] - lo[k]) / d) + 1;
        if (k == 1 && periodic_y) {
            /* Whole cells of at least d along the period, so the wrap-around neighbour is adjacent. */
            dim[1] = (int)((hi[1] - lo[1]) / d);
            if (dim[1] < 3) return 0;
            cs[1] = (hi[1] - lo[1]) / (float)dim[1];
        }
        cells *= dim[k];
    }
    int* head = malloc(sizeof(int) * (size_t)cells);
    int* next = malloc(sizeof(int) * (size_t)n);
    for (long q = 0; q < cells; ++q) head[q] = -1;
    float period = hi[1] - lo[1];
    uint64_t rng = seed;
    int count = 0;
    for (int tries = 0; count < n && tries < 200 * n; ++tries) {
        float p[3];
        int a[3];
        for (int k = 0; k < 3; ++k) {
            float mid = 0.5f * (lo[k] + hi[k]), half = 0.5f * (hi[k] - lo[k]);
            p[k] = mid + ts_uniform_sym(&rng, half);
            a[k] = (int)((p[k] - lo[k]) / cs[k]);
            if (a[k] >= dim[k]) a[k] = dim[k] - 1;
            if (a[k] < 0) a[k] = 0;
        }
        int ok = 1;
        for (int dz = -1; dz <= 1 && ok; ++dz)
            for (int dy = -1; dy <= 1 && ok; ++dy)
                for (int dx = -1; dx <= 1 && ok; ++dx) {
                    int b0 = a[0] + dx, b1 = a[1] + dy, b2 = a[2] + dz;
                    if (periodic_y) b1 = (b1 + dim[1]) % dim[1];
                    if (b0 < 0 || b1 < 0 || b2 < 0 || b0 >= dim[0] || b1 >= dim[1] || b2 >= dim[2]) continue;
                    for (int j = head[(b2 * dim[1] + b1) * dim[0] + b0]; j >= 0; j = next[j]) {
                        float ex = p[0] - xyz[3 * j], ey = p[1] - xyz[3 * j + 1], ez = p[2] - xyz[3 * j + 2];
                        if (periodic_y) {
                            if (ey > 0.5f * period) ey -= period;
                            else if (ey < -0.5f * period) ey += period;
                        }
                        if (ex * ex + ey * ey + ez * ez < d * d) {
                            ok = 0;
                            break;
                        }
                    }
                }
        if (!ok) continue;
        for (int k = 0; k < 3; ++k) xyz[3 * count + k] = p[k];
        long q = ((long)a[2] * dim[1] + a[1]) * dim[0] + a[0];
        next[count] = head[q];
        head[q] = count;
        ++count;
    }
    free(head);
    free(next);
    return count;
}

/* A fixed body made of the given shapes at the origin; returns its index. */
static inline int ts_add_fixed(loam_world* w, const char* name, const loam_shape* shapes, int count) {
    loam_body_def d = loam_body_default_def();
    snprintf(d.name, sizeof d.name, "%s", name);
    d.shape_count = count;
    for (int s = 0; s < count; ++s) d.shapes[s] = shapes[s];
    loam_error err;
    int b = loam_world_add_body(w, &d, &err);
    CHECK(b >= 0, "add body %s: %s", name, err.message);
    return b;
}

/* A fixed open box (floor and four walls, loam_open_box_pieces) of inner half extents `half`, walls
 * `wall` thick, friction mu; returns its index. */
static inline int ts_add_open_box(loam_world* w, loam_vec3 half, float wall, float mu) {
    loam_shape pieces[LOAM_BODY_MAX_SHAPES];
    int n = loam_open_box_pieces(half, wall, mu, pieces);
    return ts_add_fixed(w, "box", pieces, n);
}

static inline loam_shape ts_plane(float friction) {
    loam_shape s;
    memset(&s, 0, sizeof s);
    s.type = LOAM_SHAPE_PLANE;
    s.local = loam_pose_identity();
    s.friction = friction;
    return s;
}

/* The column scene of test_column_rest: n spheres of radius r and density rho on a staggered
 * lattice (spacing 2.2 r, first layer at 1.1 r, jitter 0.1 r) in a tube of inner radius tube_r with
 * a floor (walls 4 r thick, friction 0.5). xyz (3 n floats) takes the lattice; returns the number
 * of particles added, 0 on failure (reported). */
static inline int ts_column_in_tube(loam_world* w, int n, float r, float rho, float tube_r, float* xyz) {
    int placed = ts_lattice_cylinder(n, r, tube_r, 2.2f * r, 1.1f * r, 0.1f * r, 1, 15485863u, xyz);
    CHECK(placed == n, "lattice holds %d of %d", placed, n);
    float* rad = malloc(sizeof(float) * (size_t)(placed > 0 ? placed : 1));
    if (!rad) return 0;
    for (int i = 0; i < placed; ++i) rad[i] = r;
    loam_error err;
    int ok = loam_world_add_particles(w, placed, xyz, NULL, rad, rho, &err) == LOAM_OK;
    CHECK(ok, "%s", err.message);
    free(rad);
    loam_shape tube[2];
    ts_add_fixed(w, "tube", tube, loam_tube_pieces(tube_r, 0.1f, 4.0f * r, 1, 0.5f, tube));
    return ok ? placed : 0;
}

/* Run `steps` steps; returns 0 (and reports) at the first failure. */
static inline int ts_steps(loam_world* w, int steps) {
    loam_error err;
    for (int k = 0; k < steps; ++k) {
        loam_status st = loam_world_step(w, 1, &err);
        if (st != LOAM_OK) {
            CHECK(st == LOAM_OK, "step failed: %s", err.message);
            return 0;
        }
    }
    return 1;
}

/* Mass of particle i, kg. */
static inline double ts_mass(const loam_particles* p, int i) { return 1.0 / (double)p->inv_mass[i]; }

/* Kinetic energy per particle, J (from the velocities, not the engine's sum). */
static inline double ts_ke_per_particle(loam_world* w) {
    loam_particles p = loam_world_particles(w);
    double e = 0.0;
    for (int i = 0; i < p.count; ++i)
        e += 0.5 * ts_mass(&p, i) *
             ((double)p.vx[i] * p.vx[i] + (double)p.vy[i] * p.vy[i] + (double)p.vz[i] * p.vz[i]);
    return p.count ? e / p.count : 0.0;
}

/* Centre of mass, m. */
static inline void ts_com(loam_world* w, double c[3]) {
    loam_particles p = loam_world_particles(w);
    double m = 0.0;
    c[0] = c[1] = c[2] = 0.0;
    for (int i = 0; i < p.count; ++i) {
        double mi = ts_mass(&p, i);
        m += mi;
        c[0] += mi * p.x[i];
        c[1] += mi * p.y[i];
        c[2] += mi * p.z[i];
    }
    for (int k = 0; k < 3; ++k) c[k] /= m > 0.0 ? m : 1.0;
}

/* Largest particle-particle overlap r_i + r_j - |x_i - x_j|, m, by a uniform grid over the particles'
 * bounding box (cell = largest diameter), independent of the engine's hash. */
static inline double ts_max_pair_overlap(loam_world* w) {
    loam_particles p = loam_world_particles(w);
    int n = p.count;
    if (n < 2) return 0.0;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, rmax = 0.0f;
    const float* c[3] = {p.x, p.y, p.z};
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            lo[k] = fminf(lo[k], c[k][i]);
            hi[k] = fmaxf(hi[k], c[k][i]);
        }
        rmax = fmaxf(rmax, p.radius[i]);
    }
    float cell = 2.0f * rmax;
    int dim[3];
    long cells = 1;
    for (int k = 0; k < 3; ++k) {
        dim[k] = (int)((hi[k] - lo[k]) / cell) + 1;
        cells *= dim[k];
    }
    int* head = malloc(sizeof(int) * (size_t)cells);
    int* next = malloc(sizeof(int) * (size_t)n);
    int* cid = malloc(sizeof(int) * (size_t)n);
    for (long q = 0; q < cells; ++q) head[q] = -1;
    for (int i = 0; i < n; ++i) {
        int a[3];
        for (int k = 0; k < 3; ++k) {
            a[k] = (int)((c[k][i] - lo[k]) / cell);
            if (a[k] >= dim[k]) a[k] = dim[k] - 1;
        }
        cid[i] = (a[2] * dim[1] + a[1]) * dim[0] + a[0];
        next[i] = head[cid[i]];
        head[cid[i]] = i;
    }
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
        int a0 = cid[i] % dim[0], a1 = (cid[i] / dim[0]) % dim[1], a2 = cid[i] / (dim[0] * dim[1]);
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int b0 = a0 + dx, b1 = a1 + dy, b2 = a2 + dz;
                    if (b0 < 0 || b1 < 0 || b2 < 0 || b0 >= dim[0] || b1 >= dim[1] || b2 >= dim[2]) continue;
                    for (int j = head[(b2 * dim[1] + b1) * dim[0] + b0]; j >= 0; j = next[j]) {
                        if (j <= i) continue;
                        double ddx = (double)p.x[i] - p.x[j], ddy = (double)p.y[i] - p.y[j],
                               ddz = (double)p.z[i] - p.z[j];
                        double ov = (double)p.radius[i] + p.radius[j] - sqrt(ddx * ddx + ddy * ddy + ddz * ddz);
                        if (ov > worst) worst = ov;
                    }
                }
    }
    free(head);
    free(next);
    free(cid);
    return worst;
}

#endif
