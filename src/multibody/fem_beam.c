/* A box beam as a tetrahedral mesh for FEM pieces (loam_mb_fem_beam_build, loam/multibody.h). */
#include <math.h>
#include <string.h>

#include "core/vecd.h"
#include "multibody/mb_internal.h"

loam_mb_fem_beam_def loam_mb_fem_beam_default_def(void) {
    loam_mb_fem_beam_def d;
    memset(&d, 0, sizeof d);
    d.nx = 10, d.ny = 2, d.nz = 2;
    d.size = d3(1.0, 0.1, 0.1);
    d.tets_per_cell = 6;
    d.pose = pd_identity();
    return d;
}

static int valid(const loam_mb_fem_beam_def* d) {
    return d && d->nx >= 1 && d->ny >= 1 && d->nz >= 1 && (double)(d->nx + 1) * (d->ny + 1) * (d->nz + 1) <= 1e6 &&
           (d->tets_per_cell == 5 || d->tets_per_cell == 6) && d->size.x > 0 && d->size.y > 0 && d->size.z > 0 && d3_is_finite(d->size);
}

void loam_mb_fem_beam_counts(const loam_mb_fem_beam_def* d, int* nnode, int* ntet) {
    int ok = valid(d);
    if (nnode) *nnode = ok ? (d->nx + 1) * (d->ny + 1) * (d->nz + 1) : 0;
    if (ntet) *ntet = ok ? d->tets_per_cell * d->nx * d->ny * d->nz : 0;
}

loam_status loam_mb_fem_beam_build(const loam_mb_fem_beam_def* d, double* node, int* tet, loam_error* err) {
    if (!d || !node || !tet) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM beam: null definition or output");
    if (!valid(d))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM beam: cells %d x %d x %d (each >= 1, at most 1e6 nodes), size (%g, %g, %g) m (> 0), "
                              "tets_per_cell %d (5 or 6)", d->nx, d->ny, d->nz, d->size.x, d->size.y, d->size.z, d->tets_per_cell);
    if (!d3_is_finite(d->pose.p) || !qd_is_finite(d->pose.q) || !(qd_norm(d->pose.q) > 1e-9))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM beam: pose is not finite with a nonzero quaternion");
    loam_posed P = {d->pose.p, qd_normalize(d->pose.q)};
    int ny = d->ny + 1, nz = d->nz + 1;
    for (int i = 0; i <= d->nx; ++i)
        for (int j = 0; j < ny; ++j)
            for (int k = 0; k < nz; ++k) {
                loam_vec3d p = d3(d->size.x * i / d->nx, d->size.y * ((double)j / d->ny - 0.5), d->size.z * ((double)k / d->nz - 0.5));
                d3_store(node + 3 * ((i * ny + j) * nz + k), pd_apply(P, p));
            }
    int t = 0;
    for (int i = 0; i < d->nx; ++i)
        for (int j = 0; j < d->ny; ++j)
            for (int k = 0; k < d->nz; ++k) {
                int c[8]; /* corner (a, b, c) with bits a = 1, b = 2, c = 4 */
                for (int b = 0; b < 8; ++b) c[b] = ((i + (b & 1)) * ny + j + ((b >> 1) & 1)) * nz + k + ((b >> 2) & 1);
                if (d->tets_per_cell == 6) {
                    /* Kuhn's split: the six monotone paths from corner 0 to corner 7, one per order of
                     * the axes; every cell is cut along the same diagonal, so faces match */
                    static const int ax[6][3] = {{1, 2, 4}, {1, 4, 2}, {2, 1, 4}, {2, 4, 1}, {4, 1, 2}, {4, 2, 1}};
                    for (int p = 0; p < 6; ++p, ++t) {
                        int* v = tet + 4 * t;
                        v[0] = c[0], v[1] = c[ax[p][0]], v[2] = c[ax[p][0] | ax[p][1]], v[3] = c[7];
                    }
                } else {
                    /* a central tet on four alternate corners, one tet at each other corner; odd cells
                     * take the other four corners, so shared faces are cut along the same diagonal */
                    int odd = (i + j + k) & 1, cen[4] = {0, 3, 5, 6};
                    if (odd) cen[0] = 1, cen[1] = 2, cen[2] = 4, cen[3] = 7;
                    int* v = tet + 4 * t++;
                    for (int q = 0; q < 4; ++q) v[q] = c[cen[q]];
                    for (int q = 0; q < 4; ++q) { /* a corner outside the central tet and its three neighbours */
                        int corner = cen[q] ^ 7;
                        v = tet + 4 * t++;
                        v[0] = c[corner], v[1] = c[corner ^ 1], v[2] = c[corner ^ 2], v[3] = c[corner ^ 4];
                    }
                }
            }
    return LOAM_OK;
}
