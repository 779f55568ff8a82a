/* Sleeping particles (params.sleep_speed > 0). A bed that a tool disturbs in one place is mostly at
 * rest elsewhere, yet every resting contact costs as much to detect and solve as a moving one. A
 * particle that has stayed slower than sleep_speed for sleep_time falls asleep: its velocity is
 * zero, it does not move, and in the solve it weighs infinitely much (an awake neighbour meets it as
 * a wall). Pairs of sleepers and a sleeper's contacts with still walls are not contacts at all.
 * Detection marks a sleeper to wake when a particle or a body surface faster than sleep_speed
 * touches it; it wakes after that step and stays awake for at least sleep_time.
 *
 * This is an approximation, off by default: a sleeping region does not creep, and a force pressed
 * into it slowly (a jammed pile, below sleep_speed) is carried as by a wall. docs/solver.md says
 * when it is safe; the Bulldozing environment measures what it changes (docs/benchmarks-history.md). */
#include <math.h>

#include "granular/world_internal.h"

void loam_world_wake_all(loam_world* w) {
    if (!w || !w->calm) return; /* before the first step nobody sleeps */
    for (int i = 0; i < w->count; ++i) w->calm[i] = 0;
    w->sleep_changed = w->stats.sleeping > 0;
    w->stats.sleeping = 0;
}

void loam_granular_update_sleep(loam_world* w) {
    int n = w->count;
    float speed = w->params.sleep_speed;
    if (!(speed > 0.0f)) {
        /* Off (or just switched off): everyone awake. */
        int changed = w->stats.sleeping > 0;
        if (changed)
            for (int i = 0; i < n; ++i) w->calm[i] = 0;
        w->stats.sleeping = 0;
        w->sleep_changed = changed;
        return;
    }
    /* sleep_time is a float: 0.05f / 1e-3 is 50.0000007, which must mean 50 steps, not 51. */
    double steps = ceil(w->params.sleep_time / w->params.dt - 1e-4);
    int32_t calm_needed = steps < 1.0 ? 1 : (steps > 1e9 ? 1000000000 : (int32_t)steps);
    float s2 = speed * speed;
    int changed = 0, sleeping = 0;
#pragma omp parallel for schedule(static) reduction(+ : changed, sleeping) num_threads(w->team)
    for (int i = 0; i < n; ++i) {
        if (w->calm[i] == LOAM_ASLEEP) {
            if (w->wake[i]) {
                w->wake[i] = 0;
                w->calm[i] = 0;
                changed++;
            } else {
                sleeping++;
            }
            continue;
        }
        float v2 = w->vx[i] * w->vx[i] + w->vy[i] * w->vy[i] + w->vz[i] * w->vz[i];
        if (v2 >= s2) {
            w->calm[i] = 0;
            continue;
        }
        if (++w->calm[i] >= calm_needed) {
            w->calm[i] = LOAM_ASLEEP;
            w->vx[i] = w->vy[i] = w->vz[i] = 0.0f;
            changed++;
            sleeping++;
        }
    }
    w->stats.sleeping = sleeping;
    w->sleep_changed = changed > 0;
}
