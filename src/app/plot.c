/* Plots for the commands, drawn into a loam_image: line plots (the evolve fitness curve), scatter
 * plots with fitted lines and a labelled legend (the multibody scaling plot), and log-log curves
 * (the multibody work-precision plot). */
#include "app/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    loam_image_destroy(&im);
    return st;
}

/* A 5 x 7 pixel font for the labels the plots need (authored here): each glyph is 7 rows, top first,
 * of 5 bits, the leftmost pixel the highest bit. Characters without a glyph draw as a blank. */
typedef struct glyph {
    char c;
    unsigned char rows[7];
} glyph;

static const glyph FONT[] = {
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},     {'2', {14, 17, 1, 2, 4, 8, 31}},
    {'3', {30, 1, 1, 14, 1, 1, 30}},     {'4', {2, 6, 10, 18, 31, 2, 2}},    {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},      {'8', {14, 17, 17, 14, 17, 17, 14}},
    {'9', {14, 17, 17, 15, 1, 2, 12}},   {'a', {0, 0, 14, 1, 15, 17, 15}},   {'b', {16, 16, 30, 17, 17, 17, 30}},
    {'c', {0, 0, 14, 16, 16, 17, 14}},   {'d', {1, 1, 15, 17, 17, 17, 15}},  {'e', {0, 0, 14, 17, 31, 16, 14}},
    {'f', {6, 9, 8, 28, 8, 8, 8}},       {'g', {0, 15, 17, 17, 15, 1, 14}},  {'h', {16, 16, 22, 25, 17, 17, 17}},
    {'i', {4, 0, 12, 4, 4, 4, 14}},      {'j', {2, 0, 6, 2, 2, 18, 12}},     {'k', {16, 16, 18, 20, 24, 20, 18}},
    {'l', {12, 4, 4, 4, 4, 4, 14}},      {'m', {0, 0, 26, 21, 21, 17, 17}},  {'n', {0, 0, 22, 25, 17, 17, 17}},
    {'o', {0, 0, 14, 17, 17, 17, 14}},   {'p', {0, 0, 30, 17, 30, 16, 16}},  {'q', {0, 0, 15, 17, 15, 1, 1}},
    {'r', {0, 0, 22, 25, 16, 16, 16}},   {'s', {0, 0, 15, 16, 14, 1, 30}},   {'t', {8, 8, 28, 8, 8, 9, 6}},
    {'u', {0, 0, 17, 17, 17, 19, 13}},   {'v', {0, 0, 17, 17, 17, 10, 4}},   {'w', {0, 0, 17, 17, 21, 21, 10}},
    {'x', {0, 0, 17, 10, 4, 10, 17}},    {'y', {0, 0, 17, 17, 15, 1, 14}},   {'z', {0, 0, 31, 2, 4, 8, 31}},
    {'N', {17, 25, 21, 19, 17, 17, 17}}, {'R', {30, 17, 17, 30, 20, 18, 17}}, {'T', {31, 4, 4, 4, 4, 4, 4}},
    {'.', {0, 0, 0, 0, 0, 12, 12}},      {',', {0, 0, 0, 0, 12, 4, 8}},      {'=', {0, 0, 31, 0, 31, 0, 0}},
    {'-', {0, 0, 0, 31, 0, 0, 0}},       {'+', {0, 4, 4, 31, 4, 4, 0}},      {':', {0, 12, 12, 0, 12, 12, 0}},
    {'(', {2, 4, 8, 8, 8, 4, 2}},        {')', {8, 4, 2, 2, 2, 4, 8}},       {'/', {1, 1, 2, 4, 8, 16, 16}},
    {'^', {4, 10, 17, 0, 0, 0, 0}},      {'_', {0, 0, 0, 0, 0, 0, 31}},      {'%', {24, 25, 2, 4, 8, 19, 3}},
};

/* Text with its top-left corner at (x, y), each font pixel `scale` pixels wide; returns the end x. */
static int text(loam_image* im, int x, int y, const char* s, const unsigned char c[3], int scale) {
    for (; *s; ++s, x += 6 * scale) {
        const glyph* g = NULL;
        for (size_t k = 0; k < sizeof FONT / sizeof FONT[0]; ++k)
            if (FONT[k].c == *s) g = &FONT[k];
        if (!g) continue;
        for (int r = 0; r < 7; ++r)
            for (int b = 0; b < 5; ++b)
                if (g->rows[r] & (16 >> b))
                    for (int a = 0; a < scale; ++a)
                        for (int d = 0; d < scale; ++d) put(im, x + b * scale + a, y + r * scale + d, c);
    }
    return x;
}

static void box(loam_image* im, int x, int y, int half, const unsigned char c[3]) {
    for (int a = -half; a <= half; ++a)
        for (int b = -half; b <= half; ++b) put(im, x + a, y + b, c);
}

/* A white image for npanels panels side by side, after checking the arguments. */
static loam_status panels_begin(loam_image* im, const char* path, int panel_width, int height, const plot_panel* panels, int npanels,
                                loam_error* err) {
    if (!path || !panels || npanels < 1 || panel_width < 200 || height < 200)
        return loam_error_set(err, LOAM_ERR_INPUT, "plot: %s, %d panels of %d x %d pixels (expected a path, >= 1 panel, >= 200 x 200)",
                              path ? path : "(no path)", npanels, panel_width, height);
    loam_status st = loam_image_alloc(im, panel_width * npanels, height, err);
    if (st) return st;
    memset(im->rgb, 255, 3 * (size_t)im->width * (size_t)height);
    return LOAM_OK;
}

static void frame(loam_image* im, int left, int right, int top, int bottom, const unsigned char c[3]) {
    line(im, left, bottom, right, bottom, c, 1);
    line(im, left, top, right, top, c, 1);
    line(im, left, bottom, left, top, c, 1);
    line(im, right, bottom, right, top, c, 1);
}

loam_status plot_fits_png(const char* path, int panel_width, int height, const plot_panel* panels, int npanels, loam_error* err) {
    loam_image im;
    loam_status st = panels_begin(&im, path, panel_width, height, panels, npanels, err);
    if (st) return st;
    const unsigned char black[3] = {0, 0, 0}, grey[3] = {215, 215, 215};
    for (int p = 0; p < npanels; ++p) {
        const plot_panel* P = &panels[p];
        int left = p * panel_width + 70, right = (p + 1) * panel_width - 20, top = 40, bottom = height - 50;
        double xmax = 0.0, ymax = 0.0;
        for (int s = 0; s < P->nseries; ++s)
            for (int i = 0; i < P->series[s].n; ++i) {
                if (isfinite(P->series[s].x[i])) xmax = fmax(xmax, P->series[s].x[i]);
                if (isfinite(P->series[s].y[i])) ymax = fmax(ymax, P->series[s].y[i]);
            }
        if (!(xmax > 0)) xmax = 1.0;
        ymax = ymax > 0 ? 1.1 * ymax : 1.0;
        for (int g = 1; g < 5; ++g) { /* quarter lines */
            int y = bottom - (bottom - top) * g / 4, x = left + (right - left) * g / 4;
            line(&im, left, y, right, y, grey, 1);
            line(&im, x, top, x, bottom, grey, 1);
        }
        frame(&im, left, right, top, bottom, black);
        char buf[96];
        text(&im, left, 12, P->title ? P->title : "", black, 2);
        text(&im, left - 8, bottom + 8, "0", black, 2);
        snprintf(buf, sizeof buf, "%g", xmax);
        text(&im, right - 12 * (int)strlen(buf), bottom + 8, buf, black, 2);
        text(&im, (left + right) / 2 - 6 * (int)strlen(P->xlabel ? P->xlabel : "") , bottom + 28, P->xlabel ? P->xlabel : "", black, 2);
        snprintf(buf, sizeof buf, "%.3g", ymax);
        text(&im, p * panel_width + 4, top, buf, black, 2);
        text(&im, p * panel_width + 4, top + 20, P->ylabel ? P->ylabel : "", black, 2);
        for (int s = 0; s < P->nseries; ++s) {
            const plot_fit_series* S = &P->series[s];
#define PX(v) (left + (int)lround((right - left) * (v) / xmax))
#define PY(v) (bottom - (int)lround((bottom - top) * fmin((v), ymax) / ymax))
            double xlo = INFINITY, xhi = 0.0;
            for (int i = 0; i < S->n; ++i) {
                if (!isfinite(S->x[i]) || !isfinite(S->y[i])) continue;
                box(&im, PX(S->x[i]), PY(S->y[i]), 3, S->rgb);
                xlo = fmin(xlo, S->x[i]), xhi = fmax(xhi, S->x[i]);
            }
            if (isfinite(S->slope) && isfinite(S->intercept) && xhi > xlo) {
                double ya = fmax(0.0, S->intercept + S->slope * xlo), yb = fmax(0.0, S->intercept + S->slope * xhi);
                line(&im, PX(xlo), PY(ya), PX(xhi), PY(yb), S->rgb, 2);
            }
#undef PX
#undef PY
            /* the legend: a swatch, the label, R^2 */
            int ly = top + 8 + 18 * s;
            box(&im, left + 14, ly + 6, 5, S->rgb);
            if (isfinite(S->r2)) snprintf(buf, sizeof buf, "%s R^2=%.3f", S->label ? S->label : "", S->r2);
            else snprintf(buf, sizeof buf, "%s", S->label ? S->label : "");
            text(&im, left + 26, ly, buf, black, 2);
        }
    }
    st = loam_image_write_png(&im, path, err);
    loam_image_destroy(&im);
    return st;
}

/* The decades [lo, hi] (log10) that hold every positive value of v over the panel's series (x or
 * y); one decade around a single value; 0 if there is none. */
static int decades(const plot_panel* P, int want_x, int* lo, int* hi) {
    double a = INFINITY, b = -INFINITY;
    for (int s = 0; s < P->nseries; ++s)
        for (int i = 0; i < P->series[s].n; ++i) {
            double v = want_x ? P->series[s].x[i] : P->series[s].y[i];
            if (v > 0.0 && isfinite(v)) a = fmin(a, log10(v)), b = fmax(b, log10(v));
        }
    if (!(a <= b)) return 0;
    *lo = (int)floor(a + 1e-9), *hi = (int)ceil(b - 1e-9);
    if (*hi <= *lo) *hi = *lo + 1;
    return 1;
}

loam_status plot_loglog_png(const char* path, int panel_width, int height, const plot_panel* panels, int npanels, int x_falls,
                            loam_error* err) {
    loam_image im;
    loam_status st = panels_begin(&im, path, panel_width, height, panels, npanels, err);
    if (st) return st;
    const unsigned char black[3] = {0, 0, 0}, grey[3] = {215, 215, 215};
    for (int p = 0; p < npanels; ++p) {
        const plot_panel* P = &panels[p];
        int left = p * panel_width + 70, right = (p + 1) * panel_width - 30, top = 40, bottom = height - 50;
        int x0 = 0, x1 = 1, y0 = 0, y1 = 1;
        char buf[96];
        text(&im, left, 12, P->title ? P->title : "", black, 2);
        if (!decades(P, 1, &x0, &x1) || !decades(P, 0, &y0, &y1)) continue; /* nothing to draw: the title alone */
        for (int d = x0; d <= x1; ++d) {
            int x = left + (right - left) * (x_falls ? x1 - d : d - x0) / (x1 - x0);
            line(&im, x, top, x, bottom, grey, 1);
            snprintf(buf, sizeof buf, "1e%d", d);
            text(&im, x - 6 * (int)strlen(buf), bottom + 8, buf, black, 2);
        }
        for (int d = y0; d <= y1; ++d) {
            int y = bottom - (bottom - top) * (d - y0) / (y1 - y0);
            line(&im, left, y, right, y, grey, 1);
            snprintf(buf, sizeof buf, "1e%d", d);
            text(&im, p * panel_width + 4, y - 7, buf, black, 2);
        }
        frame(&im, left, right, top, bottom, black);
        text(&im, (left + right) / 2 - 6 * (int)strlen(P->xlabel ? P->xlabel : ""), bottom + 28, P->xlabel ? P->xlabel : "", black, 2);
        text(&im, p * panel_width + 4, 12, P->ylabel ? P->ylabel : "", black, 2); /* in the title row, left of it */
        for (int s = 0; s < P->nseries; ++s) {
            const plot_fit_series* S = &P->series[s];
            int have = 0, px = 0, py = 0;
            for (int i = 0; i < S->n; ++i) {
                if (!(S->x[i] > 0.0 && S->y[i] > 0.0 && isfinite(S->x[i]) && isfinite(S->y[i]))) continue;
                double fx = (log10(S->x[i]) - x0) / (x1 - x0), fy = (log10(S->y[i]) - y0) / (y1 - y0);
                int x = left + (int)lround((right - left) * (x_falls ? 1.0 - fx : fx)), y = bottom - (int)lround((bottom - top) * fy);
                box(&im, x, y, 3, S->rgb);
                if (have) line(&im, px, py, x, y, S->rgb, 2);
                have = 1, px = x, py = y;
            }
            int ly = top + 8 + 18 * s; /* the legend */
            box(&im, left + 14, ly + 6, 5, S->rgb);
            text(&im, left + 26, ly, S->label ? S->label : "", black, 2);
        }
    }
    st = loam_image_write_png(&im, path, err);
    loam_image_destroy(&im);
    return st;
}
