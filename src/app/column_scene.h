/* The column-at-rest scene of paper 000 (Figs. 3 and 6: "particles at rest inside a tall cylindrical
 * column") and of the LIGGGHTS peer input bench/peers/liggghts/in.column (the same bed in an open box).
 * Monodisperse spheres start on a simple-cubic lattice and settle under gravity. */
#ifndef LOAM_APP_COLUMN_SCENE_H
#define LOAM_APP_COLUMN_SCENE_H

#include <stdint.h>

#include "loam/granular.h"

typedef enum column_container {
    COLUMN_CYLINDER = 0,  /* a tube with a floor, the paper's container */
    COLUMN_BOX            /* an open box, in.column's container */
} column_container;

typedef struct column_spec {
    int particles;            /* N */
    column_container container;
    float radius;             /* particle radius, m; default 0.005 (in.column) */
    float density;            /* kg/m^3; default 2500 */
    float spacing;            /* lattice spacing, m; default 0 = 2.4 r (in.column: 1.2 d) */
    int nx, ny;               /* box: lattice points along x and y; 0 = column_default_footprint() */
    float column_radius;      /* cylinder: inner radius, m; 0 = column_default_radius() */
    float wall_friction;      /* Coulomb coefficient of the container walls */
    float speed;              /* initial horizontal speed is uniform in [-speed, speed], m/s; default 0.05 */
    float jitter;             /* horizontal position jitter, uniform in [-jitter, jitter], m; default 0.1 r */
    uint64_t seed;            /* fixed, so every run builds the same bed */
} column_spec;

/* What was built. */
typedef struct column_info {
    int nx, ny, layers;       /* lattice extent actually used (cylinder: nx = ny = grid width) */
    int per_layer;            /* lattice points per layer */
    float lattice_top;        /* highest initial centre, m */
    float column_radius;      /* cylinder inner radius, m (0 for the box) */
    float inner_x, inner_y;   /* box inner side lengths, m (0 for the cylinder) */
    float wall_height;        /* container inner height, m */
} column_info;

column_spec column_default_spec(void);
/* in.column's footprints: 10k = 25x20, 50k = 50x50, 100k = 100x50 (all 20 layers, the README's
 * settled tops of ~0.13 m); any other N gets a near-square footprint with 20 layers. */
void column_default_footprint(int particles, int* nx, int* ny);
/* A tall column: inner radius such that the settled bed (packing ~0.6) is about two diameters high. */
float column_default_radius(int particles, float radius);

/* Adds the particles and the container to an empty world. */
loam_status column_build(loam_world* world, const column_spec* spec, column_info* info, loam_error* err);

#endif
