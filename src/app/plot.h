/* Line plots as PNG through loam's image code (no text: the axes' ranges go to the caller's log). */
#ifndef LOAM_APP_PLOT_H
#define LOAM_APP_PLOT_H

#include "loam/core.h"

typedef struct plot_series {
    const double* y;          /* n values at x = 0..n-1 */
    unsigned char rgb[3];
} plot_series;

/* White background, a black frame, light grey lines at every `grid` units of y (0 = none); y from 0
 * to y_max. Written atomically. */
loam_status plot_lines_png(const char* path, int width, int height, int n, const plot_series* series, int count,
                           double y_max, double grid, loam_error* err);

/* Points (x, y) with their least-squares line y = intercept + slope x (NAN: none) and R^2 (NAN: not
 * shown) in the legend next to `label`. */
typedef struct plot_fit_series {
    const double *x, *y;
    int n;
    double slope, intercept, r2;
    const char* label;        /* lowercase letters, digits and . , = - + : ( ) / ^ _ %; N R T */
    unsigned char rgb[3];
} plot_fit_series;

typedef struct plot_panel {
    const char* title;        /* above the panel */
    const char* xlabel;       /* under the x axis */
    const char* ylabel;       /* at the left, under the y axis' top value */
    int nseries;
    const plot_fit_series* series;
} plot_panel;

/* Panels side by side, each panel_width x height pixels, axes from 0 to the largest x and 1.1 times
 * the largest y (both values written at the axes' ends), grid lines at the quarters; text in a 5 x 7
 * pixel font at twice its size. Written atomically. */
loam_status plot_fits_png(const char* path, int panel_width, int height, const plot_panel* panels, int npanels, loam_error* err);

/* The same panels on log-log axes (work-precision plots): each series' points joined in order,
 * points with x or y not > 0 left out, the axes spanning whole decades with a grey line and a label
 * (1e-4) at each; x_falls: x decreases to the right (errors tightening). Written atomically. */
loam_status plot_loglog_png(const char* path, int panel_width, int height, const plot_panel* panels, int npanels, int x_falls,
                            loam_error* err);

#endif
