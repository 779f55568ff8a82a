/* Node numbering of FEM meshes (loam_mb_fem_bandwidth, loam_mb_fem_reorder): a beam whose nodes are
 * shuffled has a band as wide as the piece; reverse Cuthill-McKee brings it back near the beam
 * mesher's numbering along its length; the renumbered mesh is the same mesh (every tet's corners
 * at the same places, the clamp on the same nodes), and one implicit step of the clamped piece under
 * gravity gives every node the same velocity through either numbering; bad meshes are refused with
 * the entry named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

enum { NX = 24, NY = 2, NZ = 2 };

/* One step of a beam clamped at its nodes `fixed`, from rest under gravity: the nodes' velocities. */
static void one_step(int nnode, int ntet, const double* node, const int* tet, int nfixed, const int* fixed, double* v) {
    loam_error err;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 0.01;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_mb_body_def b = loam_mb_body_default_def();
    snprintf(b.name, sizeof b.name, "anchor");
    b.joint = LOAM_JOINT_FIXED;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    loam_mb_fem_def fd = loam_mb_fem_default_def();
    snprintf(fd.name, sizeof fd.name, "beam");
    fd.nnode = nnode, fd.ntet = ntet, fd.node = node, fd.tet = tet, fd.nfixed = nfixed, fd.fixed = fixed, fd.young = 1e6;
    CHECK(m && loam_mb_model_add_fem(m, &fd, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    CHECK(s && loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    if (s) memcpy(v, s->fem_v, sizeof(double) * 3 * (size_t)nnode);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    loam_error err;
    loam_mb_fem_beam_def bd = loam_mb_fem_beam_default_def();
    bd.nx = NX, bd.ny = NY, bd.nz = NZ, bd.tets_per_cell = 5;
    int nnode, ntet;
    loam_mb_fem_beam_counts(&bd, &nnode, &ntet);
    double *node = malloc(sizeof(double) * 3 * (size_t)nnode), *shuffled = malloc(sizeof(double) * 3 * (size_t)nnode);
    int *tet = malloc(sizeof(int) * 4 * (size_t)ntet), *tet2 = malloc(sizeof(int) * 4 * (size_t)ntet), *perm = malloc(sizeof(int) * (size_t)nnode);
    int *rcm = malloc(sizeof(int) * (size_t)nnode), *seen = calloc((size_t)nnode, sizeof(int));
    double *v0 = malloc(sizeof(double) * 3 * (size_t)nnode), *v1 = malloc(sizeof(double) * 3 * (size_t)nnode);
    CHECK(loam_mb_fem_beam_build(&bd, node, tet, &err) == LOAM_OK, "%s", err.message);
    int clamp[(NY + 1) * (NZ + 1)], clamp2[(NY + 1) * (NZ + 1)], nclamp = (NY + 1) * (NZ + 1);
    for (int k = 0; k < nclamp; ++k) clamp[k] = k; /* the face at x = 0: the mesher's first nodes */

    /* shuffle: node i becomes perm[i] (a fixed Fisher-Yates from an LCG) */
    for (int i = 0; i < nnode; ++i) perm[i] = i;
    unsigned lcg = 12345u;
    for (int i = nnode - 1; i > 0; --i) {
        lcg = lcg * 1664525u + 1013904223u;
        int j = (int)(lcg % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < nnode; ++i) memcpy(shuffled + 3 * perm[i], node + 3 * i, sizeof(double) * 3);
    for (int t = 0; t < 4 * ntet; ++t) tet2[t] = perm[tet[t]];
    for (int k = 0; k < nclamp; ++k) clamp2[k] = perm[clamp[k]];

    int bw_beam = loam_mb_fem_bandwidth(nnode, ntet, tet), bw_shuffled = loam_mb_fem_bandwidth(nnode, ntet, tet2);
    CHECK(loam_mb_fem_reorder(nnode, ntet, shuffled, tet2, nclamp, clamp2, rcm, &err) == LOAM_OK, "%s", err.message);
    int bw_rcm = loam_mb_fem_bandwidth(nnode, ntet, tet2);
    printf("%d nodes: half bandwidth %d along the beam, %d shuffled, %d after reverse Cuthill-McKee\n", nnode, bw_beam, bw_shuffled, bw_rcm);
    CHECK(bw_shuffled > 10 * bw_beam, "the shuffle kept the band narrow (%d against %d)", bw_shuffled, bw_beam);
    CHECK(bw_rcm <= 2 * bw_beam, "reverse Cuthill-McKee left a band of %d (the beam's numbering: %d)", bw_rcm, bw_beam);

    /* the same mesh: rcm is a permutation, and each tet's corners and each clamp sit where they did */
    int bijective = 1;
    for (int i = 0; i < nnode; ++i) bijective &= rcm[i] >= 0 && rcm[i] < nnode && !seen[rcm[i]]++;
    CHECK(bijective, "new_of_old is not a permutation");
    double moved = 0.0;
    for (int t = 0; t < 4 * ntet && bijective; ++t)
        for (int c = 0; c < 3; ++c) moved = fmax(moved, fabs(shuffled[3 * tet2[t] + c] - node[3 * tet[t] + c]));
    for (int k = 0; k < nclamp && bijective; ++k) {
        CHECK(clamp2[k] == rcm[perm[clamp[k]]], "clamp %d: node %d, expected %d", k, clamp2[k], rcm[perm[clamp[k]]]);
        for (int c = 0; c < 3; ++c) moved = fmax(moved, fabs(shuffled[3 * clamp2[k] + c] - node[3 * clamp[k] + c]));
    }
    CHECK(moved == 0.0, "a corner moved by %g m", moved);

    /* the same physics: one step, node by node through the two numberings */
    one_step(nnode, ntet, node, tet, nclamp, clamp, v0);
    one_step(nnode, ntet, shuffled, tet2, nclamp, clamp2, v1);
    double worst = 0.0, largest = 0.0;
    for (int i = 0; i < nnode && bijective; ++i)
        for (int c = 0; c < 3; ++c) {
            worst = fmax(worst, fabs(v1[3 * rcm[perm[i]] + c] - v0[3 * i + c]));
            largest = fmax(largest, fabs(v0[3 * i + c]));
        }
    printf("one step: largest node speed %.3e m/s, the numberings differ by %.3e m/s\n", largest, worst);
    CHECK(largest > 1e-4 && worst <= 1e-10 * largest, "renumbered step differs by %.3e m/s (largest %.3e)", worst, largest);

    /* bad meshes name the entry */
    tet2[4 * 7 + 2] = nnode;
    CHECK(loam_mb_fem_reorder(nnode, ntet, shuffled, tet2, 0, NULL, NULL, &err) == LOAM_ERR_INPUT && strstr(err.message, "tet 7: node 2"), "%s",
          err.message);
    tet2[4 * 7 + 2] = 0, clamp2[3] = -1;
    CHECK(loam_mb_fem_reorder(nnode, ntet, shuffled, tet2, nclamp, clamp2, NULL, &err) == LOAM_ERR_INPUT && strstr(err.message, "fixed[3] = -1"), "%s",
          err.message);
    CHECK(loam_mb_fem_reorder(0, ntet, shuffled, tet2, 0, NULL, NULL, &err) == LOAM_ERR_INPUT, "nnode 0 accepted");
    CHECK(loam_mb_fem_bandwidth(0, 0, NULL) == -1, "bandwidth of an empty mesh");
    free(node), free(shuffled), free(tet), free(tet2), free(perm), free(rcm), free(seen), free(v0), free(v1);
    TEST_MAIN_END();
}
