/* The rows' solve order as a schedule for threads (see loam_coloring in world_internal.h). */
#include "granular/rows.h"
#include "granular/row_sweep.h"

/* Few crossing rows are swept by one thread, colour after colour, with no barrier between colours:
 * a barrier costs microseconds, and a bed where little moves (a bulldozer's, most of it asleep) has
 * a dozen colours of a few dozen crossing rows each. One thread meets the rows in the same batches
 * of 8 as the parallel sweep (chunks are multiples of 8 from each colour's start), so both give the
 * same bits. Parallel by colour above this many crossing rows per colour on average. */
enum { LOAM_SERIAL_CROSSING_PER_COLOR = 256 };

static int crossing_serial(const loam_coloring* k) {
    return k->crossing < LOAM_SERIAL_CROSSING_PER_COLOR * k->colors;
}

/* Block b's inner rows, colour by colour, pairs before bodies. */
static float sweep_block(const loam_row_pass* p, int b, float most) {
    const int32_t* marks = loam_block_marks(&p->w->coloring, b);
    for (int col = 0; col < LOAM_COLOR_SLOTS; ++col) {
        int lo = marks[2 * col], mid = marks[2 * col + 1], hi = marks[2 * col + 2];
        most = p->pairs(p, lo, mid, b, col < LOAM_MAX_COLORS, most); /* the serial colour's may share */
        most = p->bodies(p, mid, hi, b, most);
    }
    return most;
}

/* Crossing rows of colour col, block after block (rows of one colour share no particle, so the
 * order changes no bit; the serial colour's may, and keep this order), on the calling thread. */
static float sweep_color(const loam_row_pass* p, int col, float most) {
    const loam_coloring* k = &p->w->coloring;
    for (int t = k->task_mark[col + 1]; t < k->task_mark[col + 2]; ++t)
        most = p->pairs(p, k->tasks[3 * t], k->tasks[3 * t + 1], k->tasks[3 * t + 2], col < LOAM_MAX_COLORS, most);
    return most;
}

float loam_row_sweep(const loam_row_pass* p) {
    const loam_coloring* k = &p->w->coloring;
    int blocks = loam_block_count(p->w->count);
    float mine = 0.0f;
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < blocks; ++b) mine = sweep_block(p, k->block_order[b], mine);
    if (crossing_serial(k)) {
#pragma omp single
        for (int col = 0; col < k->colors; ++col) mine = sweep_color(p, col, mine);
        return mine;
    }
    for (int col = 0; col < k->colors; ++col) {
        if (col == LOAM_MAX_COLORS) {
#pragma omp single
            mine = sweep_color(p, col, mine);
            continue;
        }
#pragma omp for schedule(static)
        for (int t = k->task_mark[col + 1]; t < k->task_mark[col + 2]; ++t)
            mine = p->pairs(p, k->tasks[3 * t], k->tasks[3 * t + 1], k->tasks[3 * t + 2], 1, mine);
    }
    return mine;
}
