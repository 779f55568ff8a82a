/* Insertion sort for the short lists the engine keeps sorted (neighbours, incoming pairs): a handful
 * of entries, where it beats anything cleverer. */
#ifndef LOAM_CORE_SORT_H
#define LOAM_CORE_SORT_H

#include <stdint.h>

static inline void loam_sort_small_ints(int32_t* a, int n) {
    for (int k = 1; k < n; ++k) {
        int32_t v = a[k];
        int m = k - 1;
        while (m >= 0 && a[m] > v) {
            a[m + 1] = a[m];
            --m;
        }
        a[m + 1] = v;
    }
}

#endif
