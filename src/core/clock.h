/* Wall-clock seconds for the stage timings and environment step timings: monotonic, so a clock
 * adjustment never gives a negative duration. One definition for the library and the command. */
#ifndef LOAM_CORE_CLOCK_H
#define LOAM_CORE_CLOCK_H

#include <time.h>

static inline double loam_clock_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
