/* See loam/sdf_grid.h. The build runs once per mesh and resolution: two hierarchy queries per
 * sample (mesh_bvh.c), in parallel over z slices. */
#include "loam/sdf_grid.h"

#include <math.h>
#include <string.h>

#include "core/threads.h"
#include "geom/mesh_bvh.h"

loam_status loam_sdf_grid_build(const loam_mesh* mesh, float cell, float margin, loam_sdf_grid* g, loam_error* err) {
    if (!g) return loam_error_set(err, LOAM_ERR_INPUT, "sdf grid: null output");
    memset(g, 0, sizeof *g);
    if (!mesh || mesh->triangle_count <= 0) return loam_error_set(err, LOAM_ERR_INPUT, "sdf grid: empty mesh");
    if (!(cell > 0.0f) || !isfinite(cell))
        return loam_error_set(err, LOAM_ERR_INPUT, "sdf grid: cell = %g m, expected a positive size", cell);
    if (!(margin >= cell) || !isfinite(margin))
        return loam_error_set(err, LOAM_ERR_INPUT, "sdf grid: margin = %g m, expected at least the cell (%g m)", margin,
                              cell);
    loam_vec3 lo, hi;
    loam_mesh_bounds(mesh, &lo, &hi);
    /* Far beyond any tool, and it keeps every distance and difference of distances finite in float. */
    const float limit = 1e9f;
    float far = fmaxf(fmaxf(fabsf(lo.x), fabsf(lo.y)), fmaxf(fmaxf(fabsf(lo.z), fabsf(hi.x)), fmaxf(fabsf(hi.y), fabsf(hi.z))));
    if (!(far + margin <= limit))
        return loam_error_set(err, LOAM_ERR_INPUT, "sdf grid: mesh coordinates up to %g m plus margin %g m exceed %g m", far,
                              margin, limit);
    double n[3] = {ceil((hi.x - lo.x + 2.0 * margin) / cell) + 1.0, ceil((hi.y - lo.y + 2.0 * margin) / cell) + 1.0,
                   ceil((hi.z - lo.z + 2.0 * margin) / cell) + 1.0};
    if (n[0] * n[1] * n[2] > (double)(1 << 28))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "sdf grid: cell %g m over a %g x %g x %g m box needs %.3g samples, more than 2^28", cell,
                              hi.x - lo.x + 2 * margin, hi.y - lo.y + 2 * margin, hi.z - lo.z + 2 * margin,
                              n[0] * n[1] * n[2]);
    g->nx = (int)n[0];
    g->ny = (int)n[1];
    g->nz = (int)n[2];
    g->cell = cell;
    g->margin = margin;
    g->origin = (loam_vec3){lo.x - margin, lo.y - margin, lo.z - margin};
    size_t total = (size_t)g->nx * (size_t)g->ny * (size_t)g->nz;
    g->values = loam_malloc(sizeof(float) * total);
    loam_bvh bvh;
    loam_status st = g->values ? loam_bvh_build(mesh, &bvh, err)
                               : loam_error_set(err, LOAM_ERR_NOMEM, "sdf grid: out of memory for %zu samples", total);
    if (st != LOAM_OK) {
        loam_sdf_grid_destroy(g);
        return st;
    }
    /* the default team: the calling thread's scope (an environment at creation) or the process's */
#pragma omp parallel for schedule(dynamic, 1) num_threads(loam_team(0))
    for (int k = 0; k < g->nz; ++k)
        for (int j = 0; j < g->ny; ++j)
            for (int i = 0; i < g->nx; ++i) {
                double p[3] = {g->origin.x + (double)i * cell, g->origin.y + (double)j * cell, g->origin.z + (double)k * cell};
                double d = loam_bvh_distance(&bvh, p);
                double w = loam_bvh_winding(&bvh, p);
                g->values[((size_t)k * g->ny + j) * g->nx + i] = (float)(w > 0.5 ? -d : d);
            }
    loam_bvh_free(&bvh);
    return LOAM_OK;
}

float loam_sdf_grid_query(const loam_sdf_grid* g, loam_vec3 p, loam_vec3* gradient) {
    float u[3] = {(p.x - g->origin.x) / g->cell, (p.y - g->origin.y) / g->cell, (p.z - g->origin.z) / g->cell};
    int dims[3] = {g->nx, g->ny, g->nz}, c[3];
    float f[3], outside2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        float top = (float)(dims[a] - 1);
        float v = u[a] < 0.0f ? 0.0f : u[a] > top ? top : u[a];
        if (!(v == v)) v = 0.0f; /* NaN input: answer for the corner rather than index with it */
        float out = (u[a] - v) * g->cell;
        outside2 += out * out;
        c[a] = (int)v;
        if (c[a] >= dims[a] - 1) c[a] = dims[a] > 1 ? dims[a] - 2 : 0;
        f[a] = dims[a] > 1 ? v - (float)c[a] : 0.0f;
    }
    size_t sx = 1, sy = (size_t)g->nx, sz = (size_t)g->nx * (size_t)g->ny;
    size_t base = (size_t)c[2] * sz + (size_t)c[1] * sy + (size_t)c[0];
    size_t dx = g->nx > 1 ? sx : 0, dy = g->ny > 1 ? sy : 0, dz = g->nz > 1 ? sz : 0;
    const float* v = g->values;
    float v000 = v[base], v100 = v[base + dx], v010 = v[base + dy], v110 = v[base + dx + dy];
    float v001 = v[base + dz], v101 = v[base + dx + dz], v011 = v[base + dy + dz], v111 = v[base + dx + dy + dz];
    float x0 = v000 + f[0] * (v100 - v000), x1 = v010 + f[0] * (v110 - v010);
    float x2 = v001 + f[0] * (v101 - v001), x3 = v011 + f[0] * (v111 - v011);
    float y0 = x0 + f[1] * (x1 - x0), y1 = x2 + f[1] * (x3 - x2);
    float value = y0 + f[2] * (y1 - y0);
    if (outside2 > 0.0f) {
        /* Every point of the mesh lies at least `margin` inside the grid's box on every axis, so the
         * distance to it is at least the distance to the box plus the margin (also at corners). */
        float out = sqrtf(outside2);
        if (gradient) {
            float top[3] = {g->origin.x + g->cell * (float)(g->nx - 1), g->origin.y + g->cell * (float)(g->ny - 1),
                            g->origin.z + g->cell * (float)(g->nz - 1)};
            float q[3] = {p.x, p.y, p.z}, lo[3] = {g->origin.x, g->origin.y, g->origin.z}, d[3];
            for (int a = 0; a < 3; ++a) d[a] = q[a] < lo[a] ? q[a] - lo[a] : q[a] > top[a] ? q[a] - top[a] : 0.0f;
            *gradient = (loam_vec3){d[0] / out, d[1] / out, d[2] / out};
        }
        return out + g->margin;
    }
    if (gradient) {
        float gx0 = (v100 - v000) + f[1] * ((v110 - v010) - (v100 - v000));
        float gx1 = (v101 - v001) + f[1] * ((v111 - v011) - (v101 - v001));
        float gy0 = x1 - x0, gy1 = x3 - x2;
        gradient->x = (gx0 + f[2] * (gx1 - gx0)) / g->cell;
        gradient->y = (gy0 + f[2] * (gy1 - gy0)) / g->cell;
        gradient->z = (y1 - y0) / g->cell;
    }
    return value;
}

size_t loam_sdf_grid_memory(const loam_sdf_grid* g) {
    return sizeof *g + sizeof(float) * (size_t)g->nx * (size_t)g->ny * (size_t)g->nz;
}

void loam_sdf_grid_destroy(loam_sdf_grid* g) {
    if (!g) return;
    loam_free(g->values);
    memset(g, 0, sizeof *g);
}
