/* Private to the multibody module: the FEM pieces' element data and their part of the step
 * (co-rotational linear FEM on tetrahedra; see loam/multibody.h and docs/multibody.md, "FEM"). */
#ifndef LOAM_MB_FEM_H
#define LOAM_MB_FEM_H

#include "loam/multibody.h"

typedef struct mb_fem_data {
    double* grad;           /* 12 per tet: the rest shape-function gradients g_0..g_3 (1/m) */
    double* volume;         /* per tet, m^3 */
    double* ke;             /* 144 per tet: the rest stiffness, row-major 12 x 12 (node-major, xyz) */
    unsigned char* fixed;   /* per node: held at rest */
    unsigned char* surface; /* per node: on a boundary face (only these get contacts) */
    int bw;                 /* half bandwidth of the piece's 3 nnode system */
    double lambda, mu;      /* Lame parameters, Pa */
} mb_fem_data;

static inline const mb_fem_data* mb_fem_priv(const loam_mb_fem* f) { return (const mb_fem_data*)f->priv; }

/* The half bandwidth the piece's system is stored and factorized with (loam_mb_fem_bandwidth of its
 * mesh, at most 3 nnode - 1). */
static inline int mb_fem_bandwidth(const loam_mb_fem* f) { return mb_fem_priv(f)->bw; }

void mb_fem_free(loam_mb_fem* f);

/* The step, per piece: element rotations, the system A = M (1 + h alpha) + (h^2 + h beta) K(R) and
 * its banded Cholesky factor (work arrays fem_A0, fem_A at fem_aoff[f]), and the free velocity (the
 * unconstrained solve) in work->fem_vel. Returns the piece whose matrix is not SPD, or -1. */
int mb_fem_prepare(const loam_mb_model* m, loam_mb_state* s);
/* x += h v with the constrained velocities in work->fem_vel; 0 if a node is non-finite or huge. */
int mb_fem_integrate(const loam_mb_model* m, loam_mb_state* s, int* bad_piece);
/* Contacts of FEM surface nodes against the geoms (planes, spheres, boxes, capsules, cylinders),
 * appended to state->contact; returns the count that did not fit. */
int mb_fem_collide(const loam_mb_model* m, loam_mb_state* s);

#endif
