/* Run-time CPU features: the AVX2 kernels (built where LOAM_HAVE_AVX2) run only where the CPU has AVX2. */
#ifndef LOAM_CORE_CPU_H
#define LOAM_CORE_CPU_H

/* Whether the AVX2 kernels may run (a load of a flag the runtime set at start-up). */
static inline int loam_cpu_has_avx2(void) {
#ifdef LOAM_HAVE_AVX2
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

#endif
