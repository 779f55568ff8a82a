/* Height fields: creation with validation, and the bilinear surface (geom/heightfield_sdf.h). */
#include <math.h>
#include <string.h>

#include "geom/heightfield_sdf.h"
#include "loam/geom.h"

enum { HF_MAX_SAMPLES = 1 << 28 };

static loam_status check_sizes(int nx, int ny, float dx, float dy, loam_error* err) {
    if (nx < 2 || ny < 2)
        return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: nx = %d, ny = %d samples; each must be >= 2", nx, ny);
    if ((long long)nx * (long long)ny > HF_MAX_SAMPLES)
        return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: %d x %d samples is more than %d", nx, ny, HF_MAX_SAMPLES);
    if (!(dx > 0.0f) || !isfinite(dx))
        return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: dx = %g m must be finite and > 0", (double)dx);
    if (!(dy > 0.0f) || !isfinite(dy))
        return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: dy = %g m must be finite and > 0", (double)dy);
    return LOAM_OK;
}

static loam_status check_heights(int nx, int ny, const float* h, float* lo, float* hi, loam_error* err) {
    if (!h) return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: heights is NULL");
    float a = INFINITY, b = -INFINITY;
    for (long long k = 0; k < (long long)nx * ny; ++k) {
        if (!isfinite(h[k]))
            return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: height at sample (i = %d, j = %d) is %g, not finite",
                                  (int)(k % nx), (int)(k / nx), (double)h[k]);
        a = fminf(a, h[k]);
        b = fmaxf(b, h[k]);
    }
    *lo = a, *hi = b;
    return LOAM_OK;
}

loam_status loam_heightfield_create(int nx, int ny, float dx, float dy, const float* heights, loam_heightfield* out,
                                    loam_error* err) {
    if (!out) return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: NULL output");
    memset(out, 0, sizeof *out);
    float lo = 0.0f, hi = 0.0f;
    loam_status st = check_sizes(nx, ny, dx, dy, err);
    if (st == LOAM_OK) st = check_heights(nx, ny, heights, &lo, &hi, err);
    if (st != LOAM_OK) return st;
    size_t n = (size_t)nx * (size_t)ny;
    float* copy = loam_malloc(n * sizeof *copy);
    if (!copy) return loam_error_set(err, LOAM_ERR_NOMEM, "heightfield: out of memory for %d x %d heights", nx, ny);
    memcpy(copy, heights, n * sizeof *copy);
    out->nx = nx, out->ny = ny, out->dx = dx, out->dy = dy;
    out->heights = copy;
    out->min_height = lo, out->max_height = hi;
    return LOAM_OK;
}

void loam_heightfield_destroy(loam_heightfield* hf) {
    if (!hf) return;
    loam_free(hf->heights);
    memset(hf, 0, sizeof *hf);
}

loam_status loam_heightfield_validate(const loam_heightfield* hf, loam_error* err) {
    if (!hf) return loam_error_set(err, LOAM_ERR_INPUT, "heightfield: NULL field");
    float lo = 0.0f, hi = 0.0f;
    loam_status st = check_sizes(hf->nx, hf->ny, hf->dx, hf->dy, err);
    if (st == LOAM_OK) st = check_heights(hf->nx, hf->ny, hf->heights, &lo, &hi, err);
    if (st != LOAM_OK) return st;
    if (!(hf->min_height <= lo) || !(hf->max_height >= hi))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "heightfield: min_height, max_height = %g, %g m do not bound the heights (%g to %g m)",
                              (double)hf->min_height, (double)hf->max_height, (double)lo, (double)hi);
    return LOAM_OK;
}

float loam_heightfield_height(const loam_heightfield* hf, float x, float y, float gradient[2]) {
    return loam_hf_height_f(hf, x, y, gradient);
}
