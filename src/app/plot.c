/* Line plots for the commands' curves (the evolve fitness curve), drawn into a loam_image. */
#include "app/plot.h"

#include <math.h>
#include <stdlib.h>

#include "loam/render.h"

static void put(loam_image* im, int x, int y, const unsigned char c[3]) {
    if (x < 0 || y < 0 || x >= im->width || y >= im->height) return;
    unsigned char* p = im->rgb + 3 * ((size_t)y * im->width + x);
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
}

/* Bresenham, `thick` pixels wide (a square brush). */
static void line(loam_image* im, int x0, int y0, int x1, int y1, const unsigned char c[3], int thick) {
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, e = dx + dy;
    for (;;) {
        for (int a = 0; a < thick; ++a)
            for (int b = 0; b < thick; ++b) put(im, x0 + a - thick / 2, y0 + b - thick / 2, c);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * e;
        if (e2 >= dy) e += dy, x0 += sx;
        if (e2 <= dx) e += dx, y0 += sy;
    }
}

loam_status plot_lines_png(const char* path, int width, int height, int n, const plot_series* series, int count,
                           double y_max, double grid, loam_error* err) {
    loam_image im;
    loam_status st = loam_image_alloc(&im, width, height, err);
    if (st) return st;
    for (size_t i = 0; i < 3 * (size_t)width * height; ++i) im.rgb[i] = 255;
    const int m = 20, x0 = m, x1 = width - m, y0 = height - m, y1 = m;
    if (!(y_max > 0.0) || !isfinite(y_max)) y_max = 1.0;
    const unsigned char grey[3] = {210, 210, 210}, black[3] = {0, 0, 0};
    if (grid > 0.0 && y_max / grid < 200.0)
        for (double g = grid; g < y_max; g += grid) {
            int y = y0 - (int)lround((y0 - y1) * g / y_max);
            line(&im, x0, y, x1, y, grey, 1);
        }
    line(&im, x0, y0, x1, y0, black, 1);
    line(&im, x0, y1, x1, y1, black, 1);
    line(&im, x0, y0, x0, y1, black, 1);
    line(&im, x1, y0, x1, y1, black, 1);
    for (int s = 0; s < count; ++s)
        for (int i = 0; i + 1 < n || (n == 1 && i == 0); ++i) {
            int j = n == 1 ? 0 : i + 1;
            double v0 = series[s].y[i], v1 = series[s].y[j];
            if (!isfinite(v0) || !isfinite(v1)) continue;
            int xa = x0 + (n > 1 ? (x1 - x0) * i / (n - 1) : 0), xb = x0 + (n > 1 ? (x1 - x0) * j / (n - 1) : 0);
            int ya = y0 - (int)lround((y0 - y1) * fmin(v0, y_max) / y_max);
            int yb = y0 - (int)lround((y0 - y1) * fmin(v1, y_max) / y_max);
            line(&im, xa, ya, xb, yb, series[s].rgb, 3);
            if (n == 1) break;
        }
    st = loam_image_write_png(&im, path, err);
    loam_image_free(&im);
    return st;
}
