/* The linked spatial hash finds every pair that brute force finds, and the engine reports each such
 * pair exactly once.
 *
 * Two layers are checked against an O(n^2) brute force that uses the engine's own float arithmetic
 * (separation = lower index - higher index, minimum image along a periodic axis, cut = r_i + r_j +
 * margin * r_max, compared squared; particles at rest with gravity 0, so the engine's adaptive margin
 * is params.margin * r_max):
 *  1. the hash itself (collide/spatial_hash.h): build it, query the 27 buckets around each particle,
 *     walk the chains, keep the candidates that pass the distance test; each brute-force pair must be
 *     found from both of its particles (the engine relies on that) and nothing else, for the tightest
 *     valid cell (2 r_max + margin), a looser one, and with a periodic axis a cell that makes the
 *     period exactly 3 cells. The chains must hold every particle exactly once.
 *  2. the engine: a world with the same particles, one step; loam_world_last_stats().contacts must
 *     equal the brute-force pair count (so no pair is missed or counted twice), dropped_neighbors
 *     must be 0 while no particle has 256 neighbours, and the per-particle contact counts must be the
 *     brute-force degrees (compared as sorted lists: slots may be renumbered).
 *
 * Clouds: uniform, negative coordinates, large offsets (1e3..5e3 m), clustered (many particles per
 * cell), very dense (~140 neighbours), polydisperse, a wide margin, periodic on each axis. Tables:
 * the default (2 N) with 1 thread and, for some clouds, 2 threads, 7 buckets (each met ~4 times per query), 1021 (hash only),
 * and 1 bucket (on the first 500 particles: every query walks everything 27 times). Plus targeted
 * pairs whose distance is the largest float below the cut, placed a few ulps below cell boundaries
 * (as the hash itself draws them) at small and large coordinates (where x / cell rounds coarsely,
 * across 2^17 cells) and along periodic axes, and pairs at the largest touching distance across the
 * periodic seam, one of them in the last float below hi. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collide/spatial_hash.h"
#include "granular/world_internal.h" /* LOAM_MAX_MARGIN, when the engine has adaptive margins */
#include "loam/granular.h"
#include "test_util.h"

/* The engine refuses a periodic interval shorter than 3 of its largest hash cells:
 * (2 + largest adaptive margin + neighbour-list skin) r_max. */
#ifndef LOAM_MAX_MARGIN
#define LOAM_MAX_MARGIN 0.1f
#endif
static float engine_cell_radii(void) { return 2.0f + LOAM_MAX_MARGIN + loam_granular_default_params().skin; }

/* ---- a small deterministic generator (SplitMix64) ------------------------------------------- */

static uint64_t g_rng = 12345;
static double uniform(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* ---- a cloud of particles --------------------------------------------------------------------- */

typedef struct cloud {
    const char* name;
    int n;
    float *x, *y, *z, *r;
    float margin;          /* params.margin (fraction of r_max) */
    int periodic_axis;     /* -1 or 0..2 */
    float periodic_lo, periodic_hi;
} cloud;

static void cloud_alloc(cloud* c, const char* name, int n) {
    memset(c, 0, sizeof *c);
    c->name = name;
    c->n = n;
    c->x = calloc((size_t)n, sizeof(float));
    c->y = calloc((size_t)n, sizeof(float));
    c->z = calloc((size_t)n, sizeof(float));
    c->r = calloc((size_t)n, sizeof(float));
    c->margin = 0.1f;
    c->periodic_axis = -1;
}

static void cloud_free(cloud* c) {
    free(c->x);
    free(c->y);
    free(c->z);
    free(c->r);
}

static float max_radius(const cloud* c) {
    float m = 0.0f;
    for (int i = 0; i < c->n; ++i)
        if (c->r[i] > m) m = c->r[i];
    return m;
}

/* Uniform in the box [lo, lo + size] on each axis, radius r0 * (1 +- spread). */
static void fill_uniform(cloud* c, const float lo[3], const float size[3], float r0, float spread) {
    for (int i = 0; i < c->n; ++i) {
        c->x[i] = (float)(lo[0] + size[0] * uniform());
        c->y[i] = (float)(lo[1] + size[1] * uniform());
        c->z[i] = (float)(lo[2] + size[2] * uniform());
        c->r[i] = (float)(r0 * (1.0 + spread * (2.0 * uniform() - 1.0)));
    }
}

/* Five overlapping blobs, 6 cm wide (a few cells), radii 4..8 mm. */
static void fill_clusters(cloud* c) {
    for (int i = 0; i < c->n; ++i) {
        int blob = i % 5;
        float cx = -0.2f + 0.1f * (float)blob, cy = 0.05f * (float)(blob % 2), cz = -0.1f;
        c->x[i] = cx + (float)(0.06 * uniform());
        c->y[i] = cy + (float)(0.06 * uniform());
        c->z[i] = cz + (float)(0.06 * uniform());
        c->r[i] = (float)(0.004 + 0.004 * uniform());
    }
}

/* The engine's pair test, in the engine's float arithmetic (see src/granular/detect.c). */
static int pair_touches(const cloud* c, int i, int j, float margin_abs) {
    int lo = i < j ? i : j, hi = i < j ? j : i;
    float d[3] = {c->x[lo] - c->x[hi], c->y[lo] - c->y[hi], c->z[lo] - c->z[hi]};
    if (c->periodic_axis >= 0) {
        float len = c->periodic_hi - c->periodic_lo;
        int a = c->periodic_axis;
        if (d[a] > 0.5f * len) d[a] -= len;
        else if (d[a] < -0.5f * len) d[a] += len;
    }
    float cut = c->r[i] + c->r[j] + margin_abs;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < cut * cut;
}

/* Brute force: per-particle degree, and a bitset-free pair list as (i, j) with i < j, sorted. */
typedef struct pair_list {
    int count, cap;
    int32_t* ij; /* 2 per pair */
} pair_list;

static void pairs_push(pair_list* p, int i, int j) {
    if (p->count == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->ij = realloc(p->ij, sizeof(int32_t) * 2 * (size_t)p->cap);
    }
    p->ij[2 * p->count] = i;
    p->ij[2 * p->count + 1] = j;
    p->count++;
}

static float margin_abs_of(const cloud* c) { return c->margin * max_radius(c); }

static void brute_force(const cloud* c, pair_list* out, int* degree) {
    float m = margin_abs_of(c);
    memset(out, 0, sizeof *out);
    memset(degree, 0, sizeof(int) * (size_t)c->n);
    for (int i = 0; i < c->n; ++i)
        for (int j = i + 1; j < c->n; ++j)
            if (pair_touches(c, i, j, m)) {
                pairs_push(out, i, j);
                degree[i]++;
                degree[j]++;
            }
}

/* The largest number of neighbours any particle has within r_i + r_j + reach. */
static int max_degree_within(const cloud* c, float reach) {
    int* deg = calloc((size_t)c->n, sizeof(int));
    for (int i = 0; i < c->n; ++i)
        for (int j = i + 1; j < c->n; ++j)
            if (pair_touches(c, i, j, reach)) {
                deg[i]++;
                deg[j]++;
            }
    int m = 0;
    for (int i = 0; i < c->n; ++i)
        if (deg[i] > m) m = deg[i];
    free(deg);
    return m;
}

static int cmp_pair(const void* a, const void* b) {
    const int32_t* p = a;
    const int32_t* q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    if (p[1] != q[1]) return p[1] < q[1] ? -1 : 1;
    return 0;
}

static int cmp_int(const void* a, const void* b) {
    int p = *(const int*)a, q = *(const int*)b;
    return p < q ? -1 : p > q;
}

/* ---- layer 1: the hash alone ------------------------------------------------------------------ */

/* Any cell at least as large as the largest cut, r_max + r_max + margin, must find every pair. */
static void check_hash(const cloud* c, const pair_list* want, int table_size, float cell, int threads) {
    float margin = margin_abs_of(c);
    loam_spatial_hash h;
    CHECK(loam_hash_init(&h, table_size, c->n), "%s: hash init", c->name);
    loam_hash_set_cell(&h, cell, c->periodic_axis, c->periodic_lo, c->periodic_hi);
    loam_set_threads(threads); /* the build pushes onto chains with compare-and-swap from every thread */
    loam_hash_build(&h, c->n, c->x, c->y, c->z);
    loam_set_threads(1);

    /* Every particle sits in exactly one chain, and chains end. */
    int* seen = calloc((size_t)c->n, sizeof(int));
    long total = 0;
    for (int b = 0; b < h.table_size && total <= c->n; ++b)
        for (int32_t j = h.head[b]; j >= 0 && total <= c->n; j = h.next[j]) {
            ++total;
            if (j < c->n) seen[j]++;
        }
    int bad_chain = total != c->n;
    for (int i = 0; i < c->n; ++i) bad_chain |= seen[i] != 1;
    CHECK(!bad_chain, "%s (table %d): the chains hold %ld entries for %d particles, or a particle twice", c->name,
          table_size, total, c->n);

    /* The compact runs (made in place of the chains) hold each bucket's chain, ascending, and
     * nothing else. */
    int* chain_len = calloc((size_t)h.table_size, sizeof(int));
    for (int b = 0; b < h.table_size && !bad_chain; ++b)
        for (int32_t j = h.head[b]; j >= 0; j = h.next[j]) ++chain_len[b];
    loam_hash_compact(&h, c->n);
    int bad_run = h.bucket_start[0] != 0 || h.bucket_start[h.table_size] != c->n;
    for (int b = 0; b < h.table_size && !bad_run; ++b) {
        bad_run |= h.bucket_start[b + 1] - h.bucket_start[b] != chain_len[b];
        for (int k = h.bucket_start[b]; k < h.bucket_start[b + 1] && !bad_run; ++k)
            bad_run |= h.bucket_of[h.items[k]] != b || (k > h.bucket_start[b] && h.items[k] <= h.items[k - 1]);
    }
    free(chain_len);
    CHECK(!bad_run, "%s (table %d): the compact runs differ from the chains", c->name, table_size);

    /* The pairs found through the 27 buckets around each particle, from both ends: the engine needs
     * i to find j and j to find i (the lower index owns the pair, the higher resolves it). */
    pair_list got = {0, 0, NULL};
    int32_t* mark = malloc(sizeof(int32_t) * (size_t)c->n);
    for (int i = 0; i < c->n; ++i) mark[i] = -1;
    for (int i = 0; i < c->n; ++i) {
        int32_t buckets[27];
        int nb = loam_hash_neighbor_buckets(&h, c->x[i], c->y[i], c->z[i], buckets);
        CHECK(nb >= 1 && nb <= 27, "%s: %d buckets", c->name, nb);
        for (int k = 0; k < nb; ++k) {
            CHECK(buckets[k] >= 0 && buckets[k] < h.table_size, "%s: bucket %d of %d", c->name, buckets[k], h.table_size);
            if (buckets[k] < 0 || buckets[k] >= h.table_size) continue;
            for (int s = h.bucket_start[buckets[k]]; s < h.bucket_start[buckets[k] + 1]; ++s) {
                int32_t j = h.items[s];
                if (j == i || mark[j] == i) continue;
                if (!pair_touches(c, i, j, margin)) continue;
                mark[j] = i;
                pairs_push(&got, i, j);
            }
        }
    }
    qsort(got.ij, (size_t)got.count, 2 * sizeof(int32_t), cmp_pair);
    pair_list both = {0, 0, NULL};
    for (int k = 0; k < want->count; ++k) {
        pairs_push(&both, want->ij[2 * k], want->ij[2 * k + 1]);
        pairs_push(&both, want->ij[2 * k + 1], want->ij[2 * k]);
    }
    qsort(both.ij, (size_t)both.count, 2 * sizeof(int32_t), cmp_pair);
    int missing = 0, extra = 0, a = 0, b = 0, shown = 0;
    while (a < both.count || b < got.count) {
        int cmp = a >= both.count ? 1 : b >= got.count ? -1 : cmp_pair(&both.ij[2 * a], &got.ij[2 * b]);
        if (cmp == 0) {
            ++a;
            ++b;
        } else if (cmp < 0) {
            if (shown++ < 5) {
                int i = both.ij[2 * a], j = both.ij[2 * a + 1];
                fprintf(stderr,
                        "  %s (table %d, cell %.9g): %d at (%.9g, %.9g, %.9g) r %.9g did not find %d at "
                        "(%.9g, %.9g, %.9g) r %.9g\n",
                        c->name, table_size, cell, i, c->x[i], c->y[i], c->z[i], c->r[i], j, c->x[j], c->y[j],
                        c->z[j], c->r[j]);
            }
            ++missing;
            ++a;
        } else {
            ++extra;
            ++b;
        }
    }
    CHECK(missing == 0 && extra == 0,
          "%s (table %d, cell %.9g): hash query missed %d and invented %d of %d brute-force pairs (each counted "
          "from both ends)", c->name, table_size, cell, missing, extra, want->count);
    free(both.ij);
    free(got.ij);
    free(mark);
    free(seen);
    loam_hash_free(&h);
}

/* Many threads pushing onto the same few chains at once: every particle must still be in exactly
 * one chain (a push that is not atomic loses particles). Chains only, no queries, so it is cheap. */
static void check_concurrent_build(void) {
    enum { n = 1 << 21 };
    float* x = malloc(sizeof(float) * n);
    float* y = malloc(sizeof(float) * n);
    float* z = malloc(sizeof(float) * n);
    int* seen = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) {
        x[i] = (float)(0.1 * uniform());
        y[i] = (float)(0.1 * uniform());
        z[i] = (float)(0.1 * uniform());
    }
    int lost = 0;
    for (int rep = 0; rep < 4; ++rep) {
        loam_spatial_hash h;
        int table = 1 + rep % 3;
        CHECK(loam_hash_init(&h, table, n), "hash init");
        loam_hash_set_cell(&h, 0.021f, -1, 0.0f, 0.0f);
        loam_set_threads(4);
        loam_hash_build(&h, n, x, y, z);
        loam_set_threads(1);
        memset(seen, 0, sizeof(int) * n);
        long total = 0;
        for (int b = 0; b < h.table_size; ++b)
            for (int32_t j = h.head[b]; j >= 0 && total <= n; j = h.next[j]) {
                ++total;
                if (j < n) seen[j]++;
            }
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += seen[i] != 1;
        if (bad || total != n) ++lost;
        CHECK(bad == 0 && total == n, "4 threads, %d buckets: chains hold %ld entries for %d particles, %d particles not "
              "exactly once", table, total, (int)n, bad);
        loam_hash_free(&h);
    }
    fprintf(stderr, "%-30s n %7d  4 threads, 1-3 buckets, 4 builds: %s\n", "concurrent build", (int)n,
            lost ? "particles lost" : "every particle once");
    free(x);
    free(y);
    free(z);
    free(seen);
}

/* ---- layer 2: the engine ------------------------------------------------------------------------ */

static void check_engine(const cloud* c, const pair_list* want, const int* degree, int table_size, int threads) {
    loam_granular_params p = loam_granular_default_params();
    p.gravity.x = p.gravity.y = p.gravity.z = 0.0f;
    p.margin = c->margin;
    p.hash_table_size = table_size;
    p.periodic_axis = c->periodic_axis;
    p.periodic_lo = c->periodic_lo;
    p.periodic_hi = c->periodic_hi;
    loam_error err;
    loam_error_clear(&err);
    loam_set_threads(threads);
    loam_world* w = loam_world_create(&p, &err);
    loam_set_threads(1);
    CHECK(w != NULL, "%s: world: %s", c->name, err.message);
    if (!w) return;
    float* xyz = malloc(sizeof(float) * 3 * (size_t)c->n);
    for (int i = 0; i < c->n; ++i) {
        xyz[3 * i] = c->x[i];
        xyz[3 * i + 1] = c->y[i];
        xyz[3 * i + 2] = c->z[i];
    }
    loam_status st = loam_world_add_particles(w, c->n, xyz, NULL, c->r, 2500.0f, &err);
    CHECK(st == LOAM_OK, "%s: add_particles: %s", c->name, err.message);
    loam_set_threads(threads);
    if (st == LOAM_OK) st = loam_world_step(w, 1, &err);
    /* Back to one thread: on a busy machine, idle OpenMP threads spinning at barriers of later
     * single-threaded work cost more than the work. */
    loam_set_threads(1);
    CHECK(st == LOAM_OK, "%s: step: %s", c->name, err.message);
    if (st == LOAM_OK) {
        loam_step_stats s = loam_world_last_stats(w);
        CHECK(s.contacts == want->count, "%s (table %d, %d threads): engine reports %d contacts, brute force %d pairs",
              c->name, table_size, threads, s.contacts, want->count);
        /* The neighbour list holds pairs within the contact reach plus the skin; nothing may be dropped
         * while no particle has 256 such neighbours. */
        int max_listed = max_degree_within(c, margin_abs_of(c) + p.skin * max_radius(c));
        if (max_listed < 256)
            CHECK(s.dropped_neighbors == 0,
                  "%s (table %d, %d threads): %d neighbours dropped though no particle has more than %d within the "
                  "contact reach plus the skin",
                  c->name, table_size, threads, s.dropped_neighbors, max_listed);
        /* Per-particle counts (no bodies here, so contact_count is the particle degree). */
        loam_particles ps = loam_world_particles(w);
        CHECK(ps.count == c->n, "%s: %d particles", c->name, ps.count);
        int* got = malloc(sizeof(int) * (size_t)c->n);
        int* exp = malloc(sizeof(int) * (size_t)c->n);
        for (int i = 0; i < c->n; ++i) {
            got[i] = ps.contact_count[i];
            exp[i] = degree[i];
        }
        qsort(got, (size_t)c->n, sizeof(int), cmp_int);
        qsort(exp, (size_t)c->n, sizeof(int), cmp_int);
        int differ = 0;
        for (int i = 0; i < c->n; ++i) differ += got[i] != exp[i];
        CHECK(differ == 0, "%s (table %d, %d threads): per-particle contact counts differ from brute force in %d places",
              c->name, table_size, threads, differ);
        free(got);
        free(exp);
    }
    free(xyz);
    loam_world_destroy(w);
}

/* Brute force once, then the hash and the engine with several table sizes. A table of one bucket
 * makes every query walk all particles 27 times, so that case runs on the first `tiny_n` only. */
static void run_tables(const cloud* c, const int* tables, int table_count, int engine, int threads) {
    pair_list want;
    int* degree = malloc(sizeof(int) * (size_t)c->n);
    brute_force(c, &want, degree);
    int max_degree = 0;
    for (int i = 0; i < c->n; ++i)
        if (degree[i] > max_degree) max_degree = degree[i];
    fprintf(stderr, "%-30s n %5d  pairs %6d  max degree %3d  tables", c->name, c->n, want.count, max_degree);
    for (int t = 0; t < table_count; ++t) fprintf(stderr, " %d", tables[t] ? tables[t] : 2 * c->n);
    fputc('\n', stderr);
    CHECK(want.count > 0, "%s: a cloud with no pairs tests nothing", c->name);
    /* Cells: the tightest that is valid (the engine's at rest: 2 r_max + margin), a looser one, and
     * with a periodic axis one that makes the period exactly 3 cells. */
    float rmax = max_radius(c);
    float cells[3] = {2.0f * rmax + margin_abs_of(c), 1.37f * (2.0f * rmax + margin_abs_of(c)), 0.0f};
    if (c->periodic_axis >= 0) {
        float three = (c->periodic_hi - c->periodic_lo) / 3.5f;
        if (three >= cells[0]) cells[2] = three;
    }
    for (int t = 0; t < table_count; ++t) {
        int size = tables[t] ? tables[t] : 2 * c->n;
        /* every cell size with the default table; the tightest cell with the others (a tiny table
         * costs ~n^2 per query pass) */
        for (int k = 0; k < (tables[t] == 0 ? 3 : 1); ++k)
            if (cells[k] > 0.0f) check_hash(c, &want, size, cells[k], threads);
        if (engine) check_engine(c, &want, degree, tables[t], threads);
    }
    free(want.ij);
    free(degree);
}

static void run_cloud(cloud* c) {
    static const int big[] = {0, 7};
    static const int mid[] = {1021};
    static const int one[] = {1};
    enum { tiny_n = 500 };
    run_tables(c, big, 2, 1, 1);
    run_tables(c, mid, 1, 0, 1);
    int n = c->n;
    if (c->n > tiny_n) c->n = tiny_n; /* the first tiny_n particles as a cloud of their own */
    run_tables(c, one, 1, 1, 1);
    c->n = n;
}

/* The default table built and stepped by 2 threads. Kept apart from the rest, which runs on one
 * thread: on a busy machine idle OpenMP workers spinning between parallel regions cost more than
 * the work. */
static void run_cloud_threads(cloud* c) {
    static const int def[] = {0};
    run_tables(c, def, 1, 1, 2);
}

/* ---- targeted: the largest separations below the cut, across cell boundaries ------------------- */

/* For a lane of pairs along one axis: particle A just below a cell boundary (stepping down a few
 * ulps at a time, so every rounding pattern of x / cell shows up), particle B the farthest float
 * position that still touches A. Lanes sit 10 cuts apart on the other axes. */
/* With periodic_cells > 0, `axis` is periodic over about that many cells starting two cells below
 * `center` (the hash then makes its cells L / floor(L / c) from lo). */
static void near_cut_pairs(cloud* c, const char* name, int axis, double center, int pairs_per_boundary,
                           int boundaries, float r, float margin_frac, float periodic_cells) {
    cloud_alloc(c, name, 2 * pairs_per_boundary * boundaries);
    c->margin = margin_frac;
    for (int i = 0; i < c->n; ++i) c->r[i] = r;
    float margin_abs = margin_frac * r;
    float cut = r + r + margin_abs;
    float cell = cut; /* the tightest valid cell, as run_tables tries it (and the engine at rest uses) */
    if (periodic_cells > 0.0f) {
        c->periodic_axis = axis;
        c->periodic_lo = (float)(center - 2.0 * cell);
        c->periodic_hi = c->periodic_lo + periodic_cells * cell;
    }
    /* The cell boundaries as the hash draws them: ask it. */
    loam_spatial_hash h;
    CHECK(loam_hash_init(&h, 1, 1), "hash init");
    loam_hash_set_cell(&h, cell, c->periodic_axis, c->periodic_lo, c->periodic_hi);
    float origin = h.origin[axis], inv = h.inv_cell[axis];
    loam_hash_free(&h);
    int k = 0;
    for (int b = 0; b < boundaries; ++b) {
        /* A cell boundary near `center`: the smallest float x with floor((x - origin) * inv) one above
         * its neighbour below, found by walking floats, exactly as the hash computes cells. */
        float x = (float)(center + b * 3.7 * cell);
        float base = floorf((x - origin) * inv);
        while (floorf((x - origin) * inv) == base) x = nextafterf(x, INFINITY);
        for (int p = 0; p < pairs_per_boundary; ++p) {
            float a = x;
            for (int s = 0; s <= p; ++s) a = nextafterf(a, -INFINITY);
            /* the farthest float above a still within the cut */
            float bpos = a + cut;
            while (!((a - bpos) * (a - bpos) < cut * cut)) bpos = nextafterf(bpos, -INFINITY);
            while (1) {
                float next = nextafterf(bpos, INFINITY);
                if (!((a - next) * (a - next) < cut * cut)) break;
                bpos = next;
            }
            float lane_u = (float)(20.0 * cut * (p + 1)), lane_v = (float)(20.0 * cut * (b + 1));
            float* ax[3] = {c->x, c->y, c->z};
            int u = (axis + 1) % 3, v = (axis + 2) % 3;
            ax[axis][k] = a;
            ax[u][k] = lane_u;
            ax[v][k] = lane_v;
            ++k;
            ax[axis][k] = bpos;
            ax[u][k] = lane_u;
            ax[v][k] = lane_v;
            ++k;
        }
    }
}

int main(void) {
    cloud c;
    loam_set_threads(1);

    /* Uniform, monodisperse-ish, around the origin (negative and positive coordinates). */
    cloud_alloc(&c, "uniform around origin", 2000);
    fill_uniform(&c, (const float[3]){-0.3f, -0.3f, -0.3f}, (const float[3]){0.5f, 0.5f, 0.5f}, 0.012f, 0.05f);
    run_cloud(&c);
    cloud_free(&c);

    /* All negative coordinates. */
    cloud_alloc(&c, "negative octant", 2000);
    fill_uniform(&c, (const float[3]){-7.3f, -2.9f, -11.1f}, (const float[3]){0.45f, 0.45f, 0.45f}, 0.01f, 0.1f);
    run_cloud(&c);
    cloud_free(&c);

    /* Large offsets, 1e3..5e3 m, where a float ulp is ~0.1-0.5 mm. */
    cloud_alloc(&c, "large offsets +", 2000);
    fill_uniform(&c, (const float[3]){1000.0f, 2752.0f, 4999.0f}, (const float[3]){0.5f, 0.5f, 0.5f}, 0.01f, 0.1f);
    run_cloud(&c);
    cloud_free(&c);
    cloud_alloc(&c, "large offsets -", 2000);
    fill_uniform(&c, (const float[3]){-4096.3f, -1500.0f, -2752.5f}, (const float[3]){0.5f, 0.5f, 0.5f}, 0.01f, 0.1f);
    run_cloud(&c);
    cloud_free(&c);

    /* Clustered: many particles per cell (dense overlapping blobs in few cells), polydisperse. */
    cloud_alloc(&c, "clustered", 2000);
    fill_clusters(&c);
    run_cloud(&c);
    cloud_free(&c);

    /* Very dense: ~100-200 neighbours per particle in a box three cells wide. Absurd as physics, but
     * below the documented 256-neighbour limit, so nothing may be dropped; with 7 buckets each
     * bucket is met about 4 times per query. */
    cloud_alloc(&c, "dense cluster", 1000);
    fill_uniform(&c, (const float[3]){0.5f, -0.5f, 0.25f}, (const float[3]){0.034f, 0.034f, 0.034f}, 0.005f, 0.0f);
    run_cloud(&c);
    cloud_free(&c);

    /* Strongly polydisperse: radii from 1 mm to 20 mm, so small particles share cells by the dozen. */
    cloud_alloc(&c, "polydisperse 1..20 mm", 2000);
    fill_uniform(&c, (const float[3]){-0.25f, -0.25f, -0.25f}, (const float[3]){0.5f, 0.5f, 0.5f}, 0.0105f, 0.9f);
    run_cloud(&c);
    cloud_free(&c);

    /* A larger contact margin. */
    cloud_alloc(&c, "margin 0.5", 2000);
    c.margin = 0.5f;
    fill_uniform(&c, (const float[3]){-0.3f, 0.2f, -0.3f}, (const float[3]){0.5f, 0.5f, 0.5f}, 0.01f, 0.3f);
    run_cloud(&c);
    cloud_free(&c);

    /* Periodic on each axis: the interval is 3, 4 and 17 of the engine's largest cells long (and the
     * hash alone is also tried with exactly 3 cells), particles anywhere in it, pairs across the seam
     * by minimum image. r_max is 0.011. */
    {
        static const char* names[3] = {"periodic x (3 cells)", "periodic y (4.5 cells)", "periodic z (17 cells)"};
        const float cell = engine_cell_radii() * 0.011f;
        const float lengths[3] = {3.05f * cell, 4.5f * cell, 17.2f * cell};
        const float los[3] = {-0.731f, 12.5f, -2000.25f};
        for (int axis = 0; axis < 3; ++axis) {
            cloud_alloc(&c, names[axis], 1500);
            float lo[3] = {0.0f, 0.0f, 0.0f}, size[3] = {0.3f, 0.3f, 0.3f};
            lo[axis] = los[axis];
            size[axis] = lengths[axis];
            c.periodic_axis = axis;
            c.periodic_lo = los[axis];
            c.periodic_hi = los[axis] + lengths[axis];
            fill_uniform(&c, lo, size, 0.01f, 0.1f);
            /* stay inside [lo, hi): the engine wraps only after a step */
            float* ax[3] = {c.x, c.y, c.z};
            for (int i = 0; i < c.n; ++i)
                if (ax[axis][i] >= c.periodic_hi) ax[axis][i] = c.periodic_lo;
            /* make sure some pairs straddle the seam: particles right at lo and right below hi */
            for (int i = 0; i < 40; ++i) {
                ax[axis][2 * i] = c.periodic_lo + (float)(0.002 * uniform());
                ax[axis][2 * i + 1] = nextafterf(c.periodic_hi, -INFINITY) - (float)(0.002 * uniform());
                int u = (axis + 1) % 3, v = (axis + 2) % 3;
                ax[u][2 * i + 1] = ax[u][2 * i];
                ax[v][2 * i + 1] = ax[v][2 * i];
            }
            run_cloud(&c);
            cloud_free(&c);
        }
    }

    /* Targeted: the farthest touching pairs straddling cell boundaries, at small and large coordinates
     * and where x / cell crosses a power of two (2^17 cells of 21 mm is 2752.5 m). */
    {
        struct { const char* name; int axis; double center; } spots[] = {
            {"near-cut pairs at 0.3 m", 0, 0.3},
            {"near-cut pairs at -1.7 m", 1, -1.7},
            {"near-cut pairs at 1000 m", 2, 1000.0},
            {"near-cut pairs at 2^17 cells", 0, 131072.0 * 0.021 - 8 * 0.021},
            {"near-cut pairs at -2^17 cells", 1, -131072.0 * 0.021 - 8 * 0.021},
            {"near-cut pairs at 4999 m", 2, 4999.0},
        };
        for (size_t s = 0; s < sizeof spots / sizeof spots[0]; ++s) {
            near_cut_pairs(&c, spots[s].name, spots[s].axis, spots[s].center, 24, 6, 0.01f, 0.1f, 0.0f);
            run_cloud(&c);
            cloud_free(&c);
        }
        /* The same along a periodic axis, whose cells are L / floor(L / c): a hair over c here. */
        near_cut_pairs(&c, "near-cut pairs, periodic x", 0, 0.37, 24, 6, 0.01f, 0.1f, 29.00002f);
        run_cloud(&c);
        cloud_free(&c);
        near_cut_pairs(&c, "near-cut pairs, periodic z", 2, 2752.5 - 0.2, 24, 6, 0.01f, 0.1f, 30.00002f);
        run_cloud(&c);
        cloud_free(&c);
    }

    /* Pairs straddling the periodic seam at the largest separation that still touches. */
    {
        cloud_alloc(&c, "near-cut pairs across seam", 64);
        float r = 0.01f;
        c.periodic_axis = 0;
        c.periodic_lo = -1.25f;
        c.periodic_hi = 0.75f;
        float len = c.periodic_hi - c.periodic_lo;
        float cut = r + r + 0.1f * r;
        for (int p = 0; p < 32; ++p) {
            c.r[2 * p] = c.r[2 * p + 1] = r;
            /* lower index near hi, higher index near lo: d = x_hi_side - x_lo_side > len / 2 */
            /* the first right below hi, where (x - lo) / cell rounds up to the cell count */
            float a = p == 0 ? nextafterf(c.periodic_hi, -INFINITY) : c.periodic_hi - (float)p * 0.0006f;
            float b = c.periodic_lo;
            for (;;) {
                float d = a - b;
                if (d > 0.5f * len) d -= len;
                if (!(d * d < cut * cut)) break;
                b = nextafterf(b, INFINITY);
            }
            b = nextafterf(b, -INFINITY);
            c.x[2 * p] = a;
            c.x[2 * p + 1] = b;
            c.y[2 * p] = c.y[2 * p + 1] = 0.5f * (float)p;
            c.z[2 * p] = c.z[2 * p + 1] = 0.0f;
        }
        run_cloud(&c);
        cloud_free(&c);
    }

    check_concurrent_build();

    /* Two threads, last (see run_cloud_threads): the hash built with concurrent compare-and-swap
     * pushes, the engine stepped in parallel blocks. */
    cloud_alloc(&c, "2 threads: clustered", 2000);
    fill_clusters(&c);
    run_cloud_threads(&c);
    cloud_free(&c);
    cloud_alloc(&c, "2 threads: large offsets", 3000);
    fill_uniform(&c, (const float[3]){-2752.5f, 1000.0f, 4096.0f}, (const float[3]){0.5f, 0.5f, 0.5f}, 0.01f, 0.3f);
    run_cloud_threads(&c);
    cloud_free(&c);
    {
        cloud_alloc(&c, "2 threads: periodic y", 2000);
        float len = 5.5f * engine_cell_radii() * 0.013f;
        c.periodic_axis = 1;
        c.periodic_lo = -0.25f;
        c.periodic_hi = -0.25f + len;
        fill_uniform(&c, (const float[3]){0.0f, -0.25f, 0.0f}, (const float[3]){0.3f, len, 0.3f}, 0.01f, 0.3f);
        for (int i = 0; i < c.n; ++i)
            if (c.y[i] >= c.periodic_hi) c.y[i] = c.periodic_lo;
        run_cloud_threads(&c);
        cloud_free(&c);
    }

    TEST_MAIN_END();
}
