/* Thread counts for OpenMP regions (core/threads.h). Work is split into fixed blocks whose results
 * are combined in block order, so the thread count never changes a result.
 *
 * State here is only a default and two one-way flags, all atomic; the count a region runs with
 * comes from its object. Fork: libgomp keeps a pool of threads per host thread and cannot start
 * one in a child forked after the parent ran a team (the child's master would wait on pool threads
 * that do not exist there). A pthread_atfork child handler marks such a child, and every loam
 * region in it then runs on one thread, which libgomp does without its pool. */
#include "core/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "loam/core.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static atomic_int g_default;          /* loam_set_threads; 0 = OpenMP's own */
static atomic_int g_teams_ran;        /* a region of several threads ran in this process */
static atomic_int g_forked;           /* this process was forked after that */
static atomic_int g_warned;
static _Thread_local int t_scope;     /* loam_threads_scope_enter of this host thread */
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void) {
    if (atomic_load_explicit(&g_teams_ran, memory_order_relaxed)) atomic_store(&g_forked, 1);
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, on_fork_child); }

void loam_set_threads(int threads) {
#ifdef _OPENMP
    atomic_store(&g_default, threads > 0 ? threads : omp_get_num_procs());
#else
    (void)threads;
#endif
}

int loam_get_threads(void) {
#ifdef _OPENMP
    int t = t_scope > 0 ? t_scope : atomic_load_explicit(&g_default, memory_order_relaxed);
    return t > 0 ? t : omp_get_max_threads();
#else
    return 1;
#endif
}

int loam_threads_forked(void) { return atomic_load_explicit(&g_forked, memory_order_relaxed); }

int loam_team(int requested) {
#ifdef _OPENMP
    if (omp_in_parallel()) return 1;
    if (atomic_load_explicit(&g_forked, memory_order_relaxed)) {
        if (!atomic_exchange(&g_warned, 1))
            fprintf(stderr, "loam: this process was forked after its parent ran OpenMP threads, which libgomp cannot "
                            "use in a child: loam runs single-threaded here\n");
        return 1;
    }
    int n = requested > 0 ? requested : loam_get_threads();
    if (n > 1 && !atomic_load_explicit(&g_teams_ran, memory_order_relaxed)) {
        /* Registered before the first team, so no fork after a team can miss the handler. */
        pthread_once(&g_atfork_once, register_atfork);
        atomic_store(&g_teams_ran, 1);
    }
    return n;
#else
    (void)requested;
    return 1;
#endif
}

int loam_threads_scope_enter(int threads) {
    int previous = t_scope;
    t_scope = threads > 0 ? threads : previous;
    return previous;
}

void loam_threads_scope_leave(int previous) { t_scope = previous; }
