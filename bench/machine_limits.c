/* What one core of this machine can do, measured, for the soft-body roofline in docs/benchmarks-history.md:
 * float32 multiply+add throughput (AVX-512, no FMA: loam builds with -ffp-contract=off), sqrt+divide
 * throughput, gathered loads from L1, read bandwidth from L2 and from DRAM. One thread, CPU time
 * (on a shared machine wall time counts other people's work).
 *   build/bench_machine_limits [--json] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef float v16 __attribute__((vector_size(64)));
static volatile float g_sink;

/* 8 independent chains of acc = acc * m + a: 8 x 16 lanes x 2 flops per iteration. */
__attribute__((target("avx512f"), noinline)) static double mul_add_flops(long iters) {
    v16 acc[8], m, a;
    for (int l = 0; l < 16; ++l) m[l] = 0.999999f, a[l] = 1e-7f;
    for (int k = 0; k < 8; ++k)
        for (int l = 0; l < 16; ++l) acc[k][l] = (float)(k + l);
    double t0 = cpu_s();
    for (long i = 0; i < iters; ++i)
        for (int k = 0; k < 8; ++k) acc[k] = acc[k] * m + a;
    double t = cpu_s() - t0;
    float s = 0;
    for (int k = 0; k < 8; ++k) s += acc[k][0];
    g_sink = s;
    return 256.0 * iters / t;
}

/* The spring's sqrt and divide over an L1-resident array, vectorised by the compiler. */
__attribute__((target("avx512f"), noinline)) static double sqrt_div_per_s(int reps) {
    enum { N = 2048 };
    static float a[N], out[N];
    for (int i = 0; i < N; ++i) a[i] = 1.0f + (float)i;
    double t0 = cpu_s();
    for (int r = 0; r < reps; ++r) {
        for (int i = 0; i < N; ++i) {
            float len = __builtin_sqrtf(a[i]);
            out[i] = (len - 0.5f) / len;
        }
        a[r % N] += out[(r * 7) % N] * 1e-9f;
    }
    double t = cpu_s() - t0;
    g_sink = out[5];
    return (double)N * reps / t;
}

/* x[idx[i]] summed, idx random within an L1-resident table (the spring loop's neighbour loads). */
__attribute__((target("avx512f"), noinline)) static double gathers_per_s(int reps) {
    enum { N = 4096, M = 1331 };
    static int idx[N];
    static float x[M], out[N];
    unsigned s = 1;
    for (int i = 0; i < N; ++i) s = s * 1103515245u + 12345u, idx[i] = (int)((s >> 8) % M);
    for (int i = 0; i < M; ++i) x[i] = (float)i;
    double t0 = cpu_s();
    for (int r = 0; r < reps; ++r) {
        for (int i = 0; i < N; ++i) out[i] += x[idx[i]];
        x[r % M] += 1.0f;
    }
    double t = cpu_s() - t0;
    g_sink = out[3];
    return (double)N * reps / t;
}

/* Bytes read per second from an array of `bytes`, swept `reps` times with 8 vector accumulators. */
__attribute__((target("avx512f"), noinline)) static double read_bw(size_t bytes, int reps) {
    size_t n = bytes / sizeof(v16);
    v16* a = aligned_alloc(64, n * sizeof(v16));
    for (size_t i = 0; i < n; ++i)
        for (int l = 0; l < 16; ++l) a[i][l] = (float)(i & 7);
    v16 acc[8] = {{0}};
    double t0 = cpu_s();
    for (int r = 0; r < reps; ++r)
        for (size_t i = 0; i + 8 <= n; i += 8)
            for (int k = 0; k < 8; ++k) acc[k] += a[i + k];
    double t = cpu_s() - t0;
    float s = 0;
    for (int k = 0; k < 8; ++k) s += acc[k][1];
    g_sink = s;
    free(a);
    return (double)bytes * reps / t;
}

int main(int argc, char** argv) {
    int json = argc > 1 && !strcmp(argv[1], "--json");
    if (!__builtin_cpu_supports("avx512f")) {
        fprintf(stderr, "bench_machine_limits: this CPU has no AVX-512\n");
        return 1;
    }
    double flops = mul_add_flops(50000000);
    double sd = sqrt_div_per_s(100000);
    double ga = gathers_per_s(50000);
    double l2 = read_bw(512u << 10, 4000);
    double dram = read_bw((size_t)1 << 30, 4);
    if (json)
        printf("{\"mul_add_flops_per_s\":%.4g,\"sqrt_div_per_s\":%.4g,\"l1_gathered_loads_per_s\":%.4g,"
               "\"l2_read_bytes_per_s\":%.4g,\"dram_read_bytes_per_s\":%.4g}\n", flops, sd, ga, l2, dram);
    else
        printf("one core, CPU time:\n  float32 mul+add      %.3g GFLOP/s (AVX-512, no FMA)\n"
               "  sqrt + divide        %.3g G/s\n  gathered loads (L1)  %.3g G/s\n  L2 read (512 KiB)    %.3g GB/s\n"
               "  DRAM read (1 GiB)    %.3g GB/s\n", flops * 1e-9, sd * 1e-9, ga * 1e-9, l2 * 1e-9, dram * 1e-9);
    return 0;
}
