#include "app/progress.h"
#include "core/clock.h"

#include <stdio.h>
#include <unistd.h>

double loam_now(void) { return loam_clock_seconds(); }

void loam_progress_start(loam_progress* p, int64_t total, int enabled) {
    p->total = total > 0 ? total : 1;
    p->enabled = enabled;
    p->tty = isatty(2);
    p->start = p->last_draw = loam_now();
    p->last_decile = -1;
}

static void draw(loam_progress* p, int64_t done, double sim_time, int final) {
    double now = loam_now(), elapsed = now - p->start;
    double frac = (double)done / (double)p->total;
    double rate = elapsed > 0.0 ? (double)done / elapsed : 0.0;
    double eta = rate > 0.0 ? (double)(p->total - done) / rate : 0.0;
    if (p->tty) {
        char bar[31];
        int filled = (int)(frac * 30.0);
        for (int k = 0; k < 30; ++k) bar[k] = k < filled ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %3.0f%%  step %lld/%lld  t = %.3f s  %.1f steps/s  %s %.0f s   ", bar, 100.0 * frac,
                (long long)done, (long long)p->total, sim_time, rate, final ? "took" : "ETA", final ? elapsed : eta);
        if (final) fputc('\n', stderr);
    } else {
        fprintf(stderr, "progress: %3.0f%%  step %lld/%lld  t = %.3f s  %.1f steps/s\n", 100.0 * frac, (long long)done,
                (long long)p->total, sim_time, rate);
    }
    fflush(stderr);
    p->last_draw = now;
}

void loam_progress_update(loam_progress* p, int64_t done, double sim_time) {
    if (!p->enabled) return;
    if (p->tty) {
        if (loam_now() - p->last_draw >= 0.1) draw(p, done, sim_time, 0);
        return;
    }
    int decile = (int)(10 * done / p->total);
    if (decile != p->last_decile) {
        p->last_decile = decile;
        draw(p, done, sim_time, 0);
    }
}

void loam_progress_finish(loam_progress* p, int64_t done, double sim_time) {
    if (p->enabled && p->tty) draw(p, done, sim_time, 1);
}
