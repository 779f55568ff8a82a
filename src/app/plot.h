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

#endif
