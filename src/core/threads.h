/* The team size of loam's OpenMP regions. Every parallel region in loam asks here, with the thread
 * count of the object it works for, and opens itself with num_threads(that): no region reads or
 * writes process-wide OpenMP state, so host threads stepping different objects never race on it.
 *
 * A team of 1 means the region runs inline on the calling thread. In libgomp, num_threads(1) and a
 * false if() clause are the same call (GCC passes `cond ? n : 1` as the team size), and a team of
 * one neither wakes nor waits on the thread pool; that is what makes a forked child safe below. */
#ifndef LOAM_CORE_THREADS_H
#define LOAM_CORE_THREADS_H

/* Threads for a region of an object that asks for `requested` (> 0), or for the default (0: the
 * calling host thread's scope, else loam_set_threads's count, else OpenMP's own: OMP_NUM_THREADS
 * or every core). 1 inside another active region (a batch steps each of its worlds on one thread)
 * and in a child process forked after this process ran a team of several threads (libgomp's pool
 * cannot be used there; loam warns once on stderr). Without OpenMP, 1. */
int loam_team(int requested);

/* A default for the calling host thread only, for work that belongs to an object but has no thread
 * count of its own (an environment's grids at creation, its observations): returns the previous
 * scope, to give back to loam_threads_scope_leave. 0 = no scope. */
int loam_threads_scope_enter(int threads);
void loam_threads_scope_leave(int previous);

#endif
