/* A progress bar on a terminal (rewritten in place, at most 10 times a second), or a line every 10%
 * when stderr is a file or a pipe, so logs stay readable. */
#ifndef LOAM_APP_PROGRESS_H
#define LOAM_APP_PROGRESS_H

#include <stdint.h>

typedef struct loam_progress {
    int64_t total;
    int tty, enabled;
    double start, last_draw;
    int last_decile;
} loam_progress;

double loam_now(void);
void loam_progress_start(loam_progress* p, int64_t total, int enabled);
void loam_progress_update(loam_progress* p, int64_t done, double sim_time);
void loam_progress_finish(loam_progress* p, int64_t done, double sim_time);

#endif
