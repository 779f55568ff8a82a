/* Helpers for the softbody tests: one-robot populations and their centre of mass. */
#ifndef LOAM_TEST_SOFTBODY_UTIL_H
#define LOAM_TEST_SOFTBODY_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "loam/softbody.h"

static inline loam_softbody_pop* one_robot_pop(const loam_softbody_def* d, const loam_softbody_materials* m,
                                        const loam_softbody_robot* r) {
    loam_error err;
    const loam_softbody_robot* rs[1] = {r};
    loam_softbody_pop* p = loam_softbody_pop_create(d, m, rs, 1, &err);
    if (!p) {
        fprintf(stderr, "population: %s\n", err.message);
        exit(1);
    }
    return p;
}

static inline void step_or_die(loam_softbody_pop* p, int steps) {
    loam_error err;
    if (loam_softbody_pop_step(p, steps, &err) != LOAM_OK) {
        fprintf(stderr, "step: %s\n", err.message);
        exit(1);
    }
}

/* A voxel box of one material. */
static inline loam_softbody_robot* box_robot(int nx, int ny, int nz, float size, int material) {
    loam_softbody_voxel_def d = loam_softbody_voxel_default_def();
    d.nx = nx, d.ny = ny, d.nz = nz, d.size = size;
    uint8_t* v = malloc((size_t)(nx * ny * nz));
    for (int i = 0; i < nx * ny * nz; ++i) v[i] = (uint8_t)material;
    loam_error err;
    loam_softbody_robot* r = loam_softbody_voxel_robot(&d, v, &err);
    free(v);
    if (!r) {
        fprintf(stderr, "voxel robot: %s\n", err.message);
        exit(1);
    }
    return r;
}

#endif
