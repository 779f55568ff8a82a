/* For the Jacobi sweeps only: each particle's list of the pairs it is the partner (higher index)
 * of, so it can gather their impulses without another thread writing to it. Built by counting and
 * placing (a transpose of the owners' lists), then each list is sorted, so the result does not
 * depend on which thread placed what. Also counts every particle's contacts for mass splitting. */
#include "core/sort.h"
#include "granular/world_internal.h"

void loam_contacts_incoming(loam_world* w) {
    loam_contacts* c = &w->contacts;
    int n = w->count;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) c->in_count[i] = 0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s)
            __atomic_add_fetch(&c->in_count[c->pair_j[s]], 1, __ATOMIC_RELAXED);
    int32_t sum = 0;
    for (int i = 0; i < n; ++i) {
        c->in_start[i] = sum;
        sum += c->in_count[i];
        c->in_count[i] = 0; /* refilled below */
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s) {
            int j = c->pair_j[s];
            int at = __atomic_fetch_add(&c->in_count[j], 1, __ATOMIC_RELAXED);
            c->in_slot[c->in_start[j] + at] = s;
        }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        loam_sort_small_ints(&c->in_slot[c->in_start[i]], c->in_count[i]);
        w->contact_total[i] = c->pair_count[i] + c->in_count[i] + c->body_count[i];
    }
}
