/* Issue 5 test 5: voxel robots have the combinatorial mass, spring and face counts, no duplicate
 * springs, outward faces, and air voxels remove exactly the springs no solid voxel holds. */
#include <stdlib.h>
#include <string.h>

#include "loam/softbody.h"
#include "test_util.h"

static loam_softbody_robot* build(int nx, int ny, int nz, const uint8_t* v) {
    loam_softbody_voxel_def d = loam_softbody_voxel_default_def();
    d.nx = nx, d.ny = ny, d.nz = nz, d.size = 0.1f;
    loam_error err;
    loam_softbody_robot* r = loam_softbody_voxel_robot(&d, v, &err);
    CHECK(r, "voxel robot %dx%dx%d: %s", nx, ny, nz, err.message);
    return r;
}

static loam_softbody_robot* build_full(int nx, int ny, int nz) {
    uint8_t* v = malloc((size_t)(nx * ny * nz));
    memset(v, LOAM_SB_BONE, (size_t)(nx * ny * nz));
    loam_softbody_robot* r = build(nx, ny, nz, v);
    free(v);
    return r;
}

/* Signed volume enclosed by the faces (divergence theorem): equals the solid volume only when every
 * face points outward and the surface is closed. */
static double enclosed_volume(const loam_softbody_robot* r) {
    double v = 0.0;
    for (int f = 0; f < r->face_count; ++f) {
        int a = r->face[3 * f], b = r->face[3 * f + 1], c = r->face[3 * f + 2];
        double ax = r->x[a], ay = r->y[a], az = r->z[a], bx = r->x[b], by = r->y[b], bz = r->z[b];
        double cx = r->x[c], cy = r->y[c], cz = r->z[c];
        v += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
    }
    return v / 6.0;
}

static void check_springs_sane(const loam_softbody_robot* r, const char* what) {
    loam_error err;
    CHECK(loam_softbody_robot_validate(r, 0, &err) == LOAM_OK, "%s: %s", what, err.message); /* incl. duplicates */
    for (int s = 0; s < r->spring_count; ++s) {
        int a = r->s0[s], b = r->s1[s];
        double dx = r->x[b] - r->x[a], dy = r->y[b] - r->y[a], dz = r->z[b] - r->z[a];
        double d = sqrt(dx * dx + dy * dy + dz * dz);
        CHECK(fabs(d - r->rest[s]) < 1e-6, "%s: spring %d rest %g vs distance %g", what, s, (double)r->rest[s], d);
    }
}

static void full_box(int n1, int n2, int n3) {
    loam_softbody_robot* r = build_full(n1, n2, n3);
    if (!r) return;
    int masses = (n1 + 1) * (n2 + 1) * (n3 + 1);
    int edges = n1 * (n2 + 1) * (n3 + 1) + (n1 + 1) * n2 * (n3 + 1) + (n1 + 1) * (n2 + 1) * n3;
    int face_diag = 2 * ((n1 + 1) * n2 * n3 + n1 * (n2 + 1) * n3 + n1 * n2 * (n3 + 1));
    int body_diag = 4 * n1 * n2 * n3;
    int tris = 4 * (n1 * n2 + n2 * n3 + n1 * n3);
    CHECK(r->mass_count == masses, "%dx%dx%d masses %d, expected %d", n1, n2, n3, r->mass_count, masses);
    CHECK(r->spring_count == edges + face_diag + body_diag, "%dx%dx%d springs %d, expected %d", n1, n2, n3,
          r->spring_count, edges + face_diag + body_diag);
    CHECK(r->face_count == tris, "%dx%dx%d faces %d, expected %d", n1, n2, n3, r->face_count, tris);
    double vol = 0.001 * n1 * n2 * n3;
    CHECK(fabs(enclosed_volume(r) - vol) < 1e-6, "%dx%dx%d enclosed volume %g, expected %g", n1, n2, n3,
          enclosed_volume(r), vol);
    check_springs_sane(r, "full box");
    loam_softbody_robot_destroy(r);
}

/* Independent count: the union of the 28 corner pairs of every solid voxel, by brute force. */
static int brute_springs(int nx, int ny, int nz, const uint8_t* v) {
    int lx = nx + 1, ly = ny + 1, lz = nz + 1, nodes = lx * ly * lz;
    char* seen = calloc((size_t)nodes * (size_t)nodes, 1);
    int count = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                if (!v[i + nx * (j + ny * k)]) continue;
                int c[8];
                for (int q = 0; q < 8; ++q) c[q] = (i + (q & 1)) + lx * ((j + (q >> 1 & 1)) + ly * (k + (q >> 2)));
                for (int a = 0; a < 8; ++a)
                    for (int b = a + 1; b < 8; ++b) {
                        int lo = c[a] < c[b] ? c[a] : c[b], hi = c[a] ^ c[b] ^ lo;
                        if (!seen[(size_t)lo * nodes + hi]) seen[(size_t)lo * nodes + hi] = 1, ++count;
                    }
            }
    free(seen);
    return count;
}

int main(void) {
    full_box(1, 1, 1); /* 8 masses, 28 springs, 12 triangles */
    full_box(2, 1, 1); /* 12, 50, 20 */
    full_box(3, 3, 3); /* 64, 468, 108 */
    full_box(1, 2, 3);

    /* The literal counts of the issue, besides the formula. */
    loam_softbody_robot* r = build_full(1, 1, 1);
    CHECK(r && r->spring_count == 28 && r->face_count == 12, "1x1x1: 28 springs, 12 faces");
    loam_softbody_robot_destroy(r);
    r = build_full(2, 1, 1);
    CHECK(r && r->spring_count == 50 && r->face_count == 20, "2x1x1: 50 springs, 20 faces");
    loam_softbody_robot_destroy(r);
    r = build_full(3, 3, 3);
    CHECK(r && r->spring_count == 468 && r->face_count == 108 && r->mass_count == 64, "3x3x3: 64, 468, 108");
    loam_softbody_robot_destroy(r);

    /* 3x3x3 with an air centre: only the centre's 4 body diagonals go (its edges and face diagonals
     * are held by solid neighbours); the cavity adds 6 inner faces pointing into it. */
    uint8_t v27[27];
    memset(v27, LOAM_SB_BONE, sizeof v27);
    v27[13] = LOAM_SB_AIR;
    r = build(3, 3, 3, v27);
    if (r) {
        CHECK(r->spring_count == 464, "hollow 3x3x3: %d springs, expected 464", r->spring_count);
        CHECK(r->face_count == 120, "hollow 3x3x3: %d faces, expected 120", r->face_count);
        CHECK(fabs(enclosed_volume(r) - 0.026) < 1e-6, "hollow 3x3x3: volume %g, expected 0.026", enclosed_volume(r));
        /* no spring crosses the centre voxel's body: both ends on its corners and length sqrt(3) h */
        for (int s = 0; s < r->spring_count; ++s) {
            int a = r->s0[s], b = r->s1[s];
            int inside = 1;
            float ends[2][3] = {{r->x[a], r->y[a], r->z[a]}, {r->x[b], r->y[b], r->z[b]}};
            for (int e = 0; e < 2; ++e)
                for (int k = 0; k < 3; ++k) inside &= fabsf(ends[e][k] - 0.1f) < 1e-5f || fabsf(ends[e][k] - 0.2f) < 1e-5f;
            CHECK(!(inside && r->rest[s] > 0.17f), "hollow 3x3x3: spring %d is a body diagonal of the air voxel", s);
        }
        check_springs_sane(r, "hollow 3x3x3");
        loam_softbody_robot_destroy(r);
    }
    /* 2x1x1 with one air voxel is the 1x1x1 robot. */
    uint8_t v2[2] = {LOAM_SB_BONE, LOAM_SB_AIR};
    r = build(2, 1, 1, v2);
    CHECK(r && r->mass_count == 8 && r->spring_count == 28 && r->face_count == 12, "bone+air: %d masses, %d springs",
          r ? r->mass_count : -1, r ? r->spring_count : -1);
    loam_softbody_robot_destroy(r);

    /* Materials: in bone + muscle, the 6 springs of the shared face get the composite. */
    uint8_t vm[2] = {LOAM_SB_BONE, LOAM_SB_MUSCLE_FIRST};
    r = build(2, 1, 1, vm);
    if (r) {
        int comp = loam_softbody_composite_id(LOAM_SB_BONE, LOAM_SB_MUSCLE_FIRST), nc = 0, nb = 0, nm = 0;
        for (int s = 0; s < r->spring_count; ++s) {
            nc += r->material[s] == comp;
            nb += r->material[s] == LOAM_SB_BONE;
            nm += r->material[s] == LOAM_SB_MUSCLE_FIRST;
        }
        CHECK(nc == 6 && nb == 22 && nm == 22, "bone+muscle: %d composite, %d bone, %d muscle (expected 6, 22, 22)", nc, nb,
              nm);
        loam_softbody_robot_destroy(r);
    }

    /* Random robots against the brute-force union of corner pairs. */
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        loam_softbody_voxel_def d = loam_softbody_voxel_default_def();
        d.nx = 4, d.ny = 3, d.nz = 5;
        uint8_t v[60];
        loam_error err;
        CHECK(loam_softbody_random_voxels(&d, seed, 0.4f, v, &err) == LOAM_OK, "random voxels: %s", err.message);
        r = loam_softbody_voxel_robot(&d, v, &err);
        CHECK(r, "random robot %llu: %s", (unsigned long long)seed, err.message);
        if (!r) continue;
        int expect = brute_springs(4, 3, 5, v);
        CHECK(r->spring_count == expect, "random robot %llu: %d springs, brute force %d", (unsigned long long)seed,
              r->spring_count, expect);
        int solid = 0;
        for (int i = 0; i < 60; ++i) solid += v[i] != 0;
        CHECK(fabs(enclosed_volume(r) - solid * 1e-6) < 1e-9, "random robot %llu: volume %g for %d voxels",
              (unsigned long long)seed, enclosed_volume(r), solid);
        check_springs_sane(r, "random robot");
        loam_softbody_robot_destroy(r);
    }

    /* Composite ids: all 231 pairs distinct in 23..253, values the means of their parts. */
    loam_softbody_materials m = loam_softbody_default_materials(1.0f);
    char used[LOAM_SB_MATERIAL_COUNT] = {0};
    for (int a = 1; a < LOAM_SB_BASE_COUNT; ++a)
        for (int b = a + 1; b < LOAM_SB_BASE_COUNT; ++b) {
            int id = loam_softbody_composite_id(a, b);
            CHECK(id >= LOAM_SB_BASE_COUNT && id < LOAM_SB_MATERIAL_COUNT && !used[id], "composite (%d, %d) = %d", a, b, id);
            if (id < 0 || id >= LOAM_SB_MATERIAL_COUNT) continue;
            used[id] = 1;
            CHECK(m.m[id].k == 0.5f * (m.m[a].k + m.m[b].k), "composite %d k", id);
            CHECK(id == loam_softbody_composite_id(b, a), "composite order");
        }
    CHECK(m.m[LOAM_SB_BONE].k == 100.0f && m.m[LOAM_SB_TISSUE].k == 40.0f && m.m[1].k == 50.0f && m.m[1].dL0 == 0.14f,
          "Table I");
    CHECK(loam_softbody_materials_validate(&m, NULL) == LOAM_OK, "default materials valid");
    CHECK(loam_softbody_composite_id(0, 3) == -1 && loam_softbody_composite_id(1, 23) == -1, "composite range");

    /* Bad input is refused with a message. */
    loam_softbody_voxel_def d = loam_softbody_voxel_default_def();
    d.nx = 1, d.ny = 1, d.nz = 1;
    uint8_t bad = 23, air = 0;
    loam_error err;
    CHECK(!loam_softbody_voxel_robot(&d, &bad, &err) && strstr(err.message, "material 23"), "%s", err.message);
    CHECK(!loam_softbody_voxel_robot(&d, &air, &err) && strstr(err.message, "air"), "%s", err.message);
    d.size = -1.0f;
    CHECK(!loam_softbody_voxel_robot(&d, &bad, &err) && strstr(err.message, "size"), "%s", err.message);
    CHECK(!loam_softbody_voxel_robot(NULL, &bad, &err), "NULL def");
    TEST_MAIN_END();
}
