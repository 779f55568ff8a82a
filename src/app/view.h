/* `loam view` (cmd_view.c) and its soft-robot mode (view_robot.c). */
#ifndef LOAM_APP_VIEW_H
#define LOAM_APP_VIEW_H

typedef struct view_options {
    const char* scene;
    const char* robot;   /* --robot FILE: a soft robot instead of a scene */
    int robot_env;       /* loam_softbody_env for --robot: water (default) or land */
    const char* screenshot;
    double seconds;      /* close after this much wall time; < 0: when the user closes */
    long long max_steps; /* stop stepping after this many; < 0: the scene's duration (a robot: never) */
    int threads, width, height;
    int realtime;        /* step no faster than simulated time = wall time */
    int set_count;
    const char* sets[64];
} view_options;

/* --realtime: the step count this frame may reach, `limit` without it. The clock counts from the
 * start and restarts after every pause, so a paused world does not race to catch up. */
typedef struct realtime_clock {
    double wall;     /* when the clock (re)started */
    long long steps; /* steps done then */
    int paused;
} realtime_clock;
long long realtime_cap(realtime_clock* c, int realtime, int paused, long long done, long long limit, double dt);

/* Show a soft robot (loam/softbody.h) stepping in water or on land, its surface coloured by its
 * muscles' activation; the exit status. Only with the viewer built (LOAM_HAVE_VIEWER). */
int view_robot(const view_options* o);

#endif
