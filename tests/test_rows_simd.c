/* The AVX2 row kernels (Gauss-Seidel and Jacobi sweeps, warm start, pushes, row geometry) give the same bits as the scalar ones
 * (rows.h), and the AVX2 neighbour-candidate test keeps the same candidates as the scalar one
 * (reach.h), so a result does not depend on the CPU it ran on. Rows of one colour with random normals, gaps (speculative and
 * overlapping), warm impulses, masses and velocities, in sticking and sliding regimes. */
#include <stdlib.h>
#include <string.h>

#include "granular/rows.h"
#include "granular/reach.h"
#include "test_util.h"

enum { ROWS = 203, PARTICLES = 2 * ROWS + 5 }; /* not a multiple of 8: the scalar tail runs too */
/* The rows' block starts at record BASE: rows keep i as an offset from there (records below it are
 * not used), so a kernel that forgets the block's start reads the wrong records. */
enum { BASE = 5, RECORDS = PARTICLES + BASE };

static float uniform(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

typedef struct {
    uint16_t i[ROWS]; /* offsets from BASE */
    int32_t j[ROWS];
    int16_t n[3][ROWS];
    float f[8][ROWS]; /* f[0..2] unused: normals are n */
    float v[4 * RECORDS] __attribute__((aligned(16)));
    float prev[4 * RECORDS] __attribute__((aligned(16))); /* Jacobi's snapshot */
} problem;

/* Jacobi's snapshot of v: the velocities, and inverse masses split over 1 to 8 contacts. */
static void snapshot(problem* p, unsigned* seed) {
    for (int k = 0; k < RECORDS; ++k) {
        for (int a = 0; a < 3; ++a) p->prev[4 * k + a] = p->v[4 * k + a];
        p->prev[4 * k + 3] = (float)(int)uniform(seed, 1.0f, 8.999f) * p->v[4 * k + 3];
    }
}

static void view(problem* p, loam_rows* r) {
    r->i = p->i;
    r->j = p->j;
    r->nx = p->n[0];
    r->ny = p->n[1];
    r->nz = p->n[2];
    float** fields[] = {&r->gap, &r->lx, &r->ly, &r->lz, &r->push};
    for (int a = 0; a < 5; ++a) *fields[a] = p->f[3 + a];
    r->omega = 0.9f; /* a relaxation other than 1: the kernels' effective masses divide it */
}

static void make(problem* p, unsigned seed, float speed) {
    memset(p, 0, sizeof *p);
    int perm[PARTICLES];
    for (int k = 0; k < PARTICLES; ++k) perm[k] = k;
    for (int k = PARTICLES - 1; k > 0; --k) { /* distinct particles per row, as in one colour */
        int m = (int)uniform(&seed, 0.0f, (float)k + 0.999f);
        int t = perm[k];
        perm[k] = perm[m];
        perm[m] = t;
    }
    for (int q = 0; q < ROWS; ++q) {
        p->i[q] = (uint16_t)perm[2 * q];
        p->j[q] = BASE + perm[2 * q + 1];
        float nx = uniform(&seed, -1, 1), ny = uniform(&seed, -1, 1), nz = uniform(&seed, -1, 1);
        float len = sqrtf(nx * nx + ny * ny + nz * nz) + 1e-3f;
        p->n[0][q] = loam_normal_pack(nx / len);
        p->n[1][q] = loam_normal_pack(ny / len);
        p->n[2][q] = loam_normal_pack(nz / len);
        p->f[3][q] = uniform(&seed, -5e-4f, 5e-4f);
        for (int a = 4; a < 7; ++a) p->f[a][q] = q % 3 ? uniform(&seed, -1e-5f, 3e-5f) : 0.0f;
        p->f[7][q] = q % 2 ? uniform(&seed, 0.0f, 1e-5f) : 0.0f;
    }
    for (int k = 0; k < RECORDS; ++k) {
        for (int a = 0; a < 3; ++a) p->v[4 * k + a] = uniform(&seed, -speed, speed);
        p->v[4 * k + 3] = uniform(&seed, 200.0f, 3000.0f);
    }
}

#ifdef LOAM_HAVE_AVX2
/* Candidate clouds around a particle, some just inside and just outside the reach, some across a
 * periodic boundary: the AVX2 filter keeps exactly the scalar loop's candidates, in its order. */
static void compare_reach_filters(void) {
    enum { CAND = 203 };
    static float x[CAND], y[CAND], z[CAND], r[CAND];
    static int32_t idx[CAND], out_a[CAND + 8], out_b[CAND + 8];
    int kept_total = 0, dropped_total = 0;
    for (unsigned seed = 1; seed <= 60; ++seed) {
        unsigned rng = seed * 104729u;
        int axis = (int)(seed % 4) - 1;
        float len = 0.05f, margin = seed % 2 ? 0.001f : 0.0f;
        float p[4] = {uniform(&rng, 0.0f, len), uniform(&rng, 0.0f, len), uniform(&rng, 0.0f, len), 0.005f};
        int n = (int)(seed * 37u % CAND) + 1;
        for (int s = 0; s < n; ++s) {
            x[s] = uniform(&rng, 0.0f, len);
            y[s] = uniform(&rng, 0.0f, len);
            z[s] = uniform(&rng, 0.0f, len);
            r[s] = uniform(&rng, 0.004f, 0.006f);
            idx[s] = (int32_t)(rng % 1000u);
            if (s % 5 == 0) { /* exactly at the reach along x */
                y[s] = p[1];
                z[s] = p[2];
                x[s] = p[0] + p[3] + r[s] + margin;
            }
        }
        int32_t above = 500;
        int na = 0;
        for (int s = 0; s < n; ++s) {
            out_a[na] = idx[s];
            na += loam_within_reach(p, x[s], y[s], z[s], r[s], margin, axis, len) & (idx[s] > above);
        }
        int nb = loam_reach_filter_avx2(p, x, y, z, r, idx, n, above, margin, axis, len, out_b);
        CHECK(na == nb && memcmp(out_a, out_b, sizeof(int32_t) * (size_t)na) == 0,
              "seed %u (axis %d, %d candidates): scalar keeps %d, AVX2 %d", seed, axis, n, na, nb);
        kept_total += na;
        dropped_total += n - na;
    }
    CHECK(kept_total > 100 && dropped_total > 100, "the clouds must test both outcomes: %d kept, %d dropped",
          kept_total, dropped_total);
}
#endif

int main(void) {
#ifdef LOAM_HAVE_AVX2
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "no AVX2 on this CPU: nothing to compare\n");
        TEST_MAIN_END();
    }
    static problem a, b;
    int cases = 0;
    for (unsigned seed = 1; seed <= 40; ++seed) {
        float speed = seed % 4 == 0 ? 1.0f : 0.01f; /* fast: most rows slide; slow: most stick */
        make(&a, seed, speed);
        b = a;
        loam_rows ra, rb;
        view(&a, &ra);
        view(&b, &rb);
        float mu = seed % 5 == 0 ? 0.0f : 0.5f, alpha = seed % 2 ? 0.0f : 0.2f;
        for (int sweep = 0; sweep < 3; ++sweep) {
            float ma = loam_rows_velocity(&ra, 0, ROWS, BASE, a.v, a.v, mu, 1000.0f, alpha, 0.0f);
            float mb = loam_rows_velocity_avx2(&rb, 0, ROWS, BASE, b.v, b.v, mu, 1000.0f, alpha, 0.0f);
            CHECK(memcmp(&ma, &mb, sizeof ma) == 0, "seed %u sweep %d: largest change %g vs %g", seed, sweep, ma, mb);
        }
        CHECK(memcmp(&a, &b, sizeof a) == 0, "seed %u: Gauss-Seidel sweeps differ", seed);
        unsigned split = seed;
        for (int sweep = 0; sweep < 3; ++sweep) {
            snapshot(&a, &split);
            memcpy(b.prev, a.prev, sizeof a.prev);
            float ma = loam_rows_velocity(&ra, 0, ROWS, BASE, a.v, a.prev, mu, 1000.0f, alpha, 0.0f);
            float mb = loam_rows_velocity_avx2(&rb, 0, ROWS, BASE, b.v, b.prev, mu, 1000.0f, alpha, 0.0f);
            CHECK(memcmp(&ma, &mb, sizeof ma) == 0, "seed %u Jacobi sweep %d: largest change %g vs %g", seed, sweep, ma, mb);
        }
        CHECK(memcmp(&a, &b, sizeof a) == 0, "seed %u: Jacobi sweeps differ", seed);
        /* The warm start, from the impulses the sweeps left in the rows. */
        loam_rows_warm(&ra, 0, ROWS, BASE, a.v);
        loam_rows_warm_avx2(&rb, 0, ROWS, BASE, b.v);
        CHECK(memcmp(&a, &b, sizeof a) == 0, "seed %u: warm starts differ", seed);
        for (int k = 0; k < RECORDS; ++k) a.v[4 * k] = a.v[4 * k + 1] = a.v[4 * k + 2] = 0.0f; /* push from rest */
        b = a;
        view(&b, &rb);
        for (int sweep = 0; sweep < 2; ++sweep) {
            loam_rows_push(&ra, 0, ROWS, BASE, a.v, a.v, 200.0f);
            loam_rows_push_avx2(&rb, 0, ROWS, BASE, b.v, b.v, 200.0f);
        }
        CHECK(memcmp(&a, &b, sizeof a) == 0, "seed %u: Gauss-Seidel push sweeps differ", seed);
        for (int sweep = 0; sweep < 2; ++sweep) {
            snapshot(&a, &split);
            memcpy(b.prev, a.prev, sizeof a.prev);
            loam_rows_push(&ra, 0, ROWS, BASE, a.v, a.prev, 200.0f);
            loam_rows_push_avx2(&rb, 0, ROWS, BASE, b.v, b.prev, 200.0f);
        }
        CHECK(memcmp(&a, &b, sizeof a) == 0, "seed %u: Jacobi push sweeps differ", seed);
        /* Geometry from positions, with body rows (j < 0) mixed in and a periodic axis. */
        unsigned rng = seed * 7919u;
        for (int k = 0; k < RECORDS; ++k) {
            for (int c = 0; c < 3; ++c) a.v[4 * k + c] = uniform(&rng, 0.0f, 0.02f);
            a.v[4 * k + 3] = uniform(&rng, 0.001f, 0.003f);
        }
        for (int q = 0; q < ROWS; q += 7) a.j[q] = ~q;
        if (seed % 3 == 0) a.v[4 * (BASE + a.i[1])] = a.v[4 * a.j[1]]; /* coincident in x */
        b = a;
        int axis = (int)(seed % 4) - 1; /* -1: none */
        float wa = loam_rows_geometry(&ra, 0, ROWS, BASE, a.v, axis, 0.015f, 0.0f);
        float wb = loam_rows_geometry_avx2(&rb, 0, ROWS, BASE, b.v, axis, 0.015f, 0.0f);
        CHECK(wa == wb && wa > 0.0f, "seed %u: largest overlap %g vs %g", seed, wa, wb);
        CHECK(memcmp(&a, &b, sizeof a) == 0, "seed %u: geometry differs", seed);
        /* The comparison must see real work: impulses and pushes changed. */
        int moved = 0;
        for (int k = 0; k < PARTICLES; ++k) moved += a.v[4 * k] != 0.0f;
        CHECK(moved > PARTICLES / 5, "seed %u: only %d particles pushed", seed, moved);
        ++cases;
    }
    CHECK(cases == 40, "%d cases", cases);
    compare_reach_filters();
#else
    fprintf(stderr, "built without the AVX2 kernels: nothing to compare\n");
#endif
    TEST_MAIN_END();
}
