/* The surface of a mesh shape from its signed distance grid, by surface nets: one vertex in every cell
 * whose corners change sign, at the mean of the points where its edges cross zero, and a quad across
 * every grid edge that changes sign, joining the four cells around it. The source mesh is not kept
 * once its grid is built, so this is what a body looks like to the solver, within about a cell. */
#include <string.h>

#include "io/surface_internal.h"

/* Cell (i, j, k) spans samples i..i+1, j..j+1, k..k+1. */
static size_t sample_at(const loam_sdf_grid* g, int i, int j, int k) {
    return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}

static int cell_vertex(loam_mesh_builder* b, const loam_sdf_grid* g, int i, int j, int k) {
    static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    float v[8];
    for (int c = 0; c < 8; ++c) v[c] = g->values[sample_at(g, i + (c & 1), j + (c >> 1 & 1), k + (c >> 2 & 1))];
    double sum[3] = {0.0, 0.0, 0.0};
    int crossings = 0;
    for (int e = 0; e < 12; ++e) {
        int a = edges[e][0], c = edges[e][1];
        if ((v[a] < 0.0f) == (v[c] < 0.0f)) continue;
        double t = (double)v[a] / ((double)v[a] - (double)v[c]); /* where the linear interpolant is 0 */
        sum[0] += (a & 1) + t * ((c & 1) - (a & 1));
        sum[1] += (a >> 1 & 1) + t * ((c >> 1 & 1) - (a >> 1 & 1));
        sum[2] += (a >> 2 & 1) + t * ((c >> 2 & 1) - (a >> 2 & 1));
        ++crossings;
    }
    return loam_mesh_add_vertex(b, (float)(g->origin.x + g->cell * (i + sum[0] / crossings)),
                                (float)(g->origin.y + g->cell * (j + sum[1] / crossings)),
                                (float)(g->origin.z + g->cell * (k + sum[2] / crossings)));
}

int loam_grid_surface(loam_mesh_builder* b, const loam_sdf_grid* g) {
    int cx = g->nx - 1, cy = g->ny - 1, cz = g->nz - 1;
    size_t cells = (size_t)cx * (size_t)cy * (size_t)cz;
    int32_t* vertex = loam_malloc(cells * sizeof *vertex);
    if (!vertex) return 0;
    int ok = 1;
    for (int k = 0; k < cz && ok; ++k)
        for (int j = 0; j < cy && ok; ++j)
            for (int i = 0; i < cx && ok; ++i) {
                size_t c = (size_t)i + (size_t)cx * ((size_t)j + (size_t)cy * (size_t)k);
                int inside = 0;
                for (int q = 0; q < 8; ++q)
                    inside += g->values[sample_at(g, i + (q & 1), j + (q >> 1 & 1), k + (q >> 2 & 1))] < 0.0f;
                vertex[c] = inside == 0 || inside == 8 ? -1 : cell_vertex(b, g, i, j, k);
                if (vertex[c] < 0 && inside != 0 && inside != 8) ok = 0;
            }
    /* An edge along axis a from sample s is shared by the cells at s minus 0 or 1 along the other two
     * axes u = a+1, v = a+2 (cyclic); taken in the order (u-, v-), (u+, v-), (u+, v+), (u-, v+) they
     * wind counter-clockwise seen from +a, so the quad faces +a when s is inside, -a otherwise. */
    int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3 && ok; ++a) {
        int u = (a + 1) % 3, w = (a + 2) % 3;
        int s[3];
        for (s[2] = 0; s[2] < n[2] && ok; ++s[2])
            for (s[1] = 0; s[1] < n[1] && ok; ++s[1])
                for (s[0] = 0; s[0] < n[0] && ok; ++s[0]) {
                    if (s[a] >= n[a] - 1 || s[u] < 1 || s[u] >= n[u] - 1 || s[w] < 1 || s[w] >= n[w] - 1) continue;
                    int t[3] = {s[0], s[1], s[2]};
                    t[a] += 1;
                    int in0 = g->values[sample_at(g, s[0], s[1], s[2])] < 0.0f;
                    if (in0 == (g->values[sample_at(g, t[0], t[1], t[2])] < 0.0f)) continue;
                    int q[4];
                    for (int corner = 0; corner < 4; ++corner) {
                        int c3[3] = {s[0], s[1], s[2]};
                        c3[u] -= corner == 0 || corner == 3;
                        c3[w] -= corner < 2;
                        q[corner] = vertex[(size_t)c3[0] + (size_t)cx * ((size_t)c3[1] + (size_t)cy * (size_t)c3[2])];
                    }
                    if (in0) ok = loam_mesh_add_triangle(b, q[0], q[1], q[2]) && loam_mesh_add_triangle(b, q[0], q[2], q[3]);
                    else ok = loam_mesh_add_triangle(b, q[0], q[2], q[1]) && loam_mesh_add_triangle(b, q[0], q[3], q[2]);
                }
    }
    loam_free(vertex);
    return ok;
}
