/* Thread count for OpenMP regions. Work is split into fixed blocks whose results are combined in
 * block order, so the thread count never changes a result. */
#include "loam/core.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int g_threads;

void loam_set_threads(int threads) {
#ifdef _OPENMP
    g_threads = threads > 0 ? threads : omp_get_num_procs();
    omp_set_num_threads(g_threads);
#else
    (void)threads;
    g_threads = 1;
#endif
}

int loam_get_threads(void) {
#ifdef _OPENMP
    return g_threads > 0 ? g_threads : omp_get_max_threads();
#else
    return 1;
#endif
}
