/* core/lanes.h promises each lane operation is the scalar one, bit for bit, so the passes written
 * with it give the bits their scalar loops gave. Checked here against those scalar expressions on
 * awkward values (NaN, infinities, signed zeros, subnormals, huge and tiny numbers) and random
 * ones. CMake builds this file twice: as test_lanes (SSE2 on x86-64) and as test_lanes_scalar
 * (LOAM_LANES_SCALAR, the plain C lanes every other machine gets). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/lanes.h"
#include "test_util.h"

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float pool[64];
static int pool_n;

static void fill_pool(void) {
    const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.5f, 3.5f, 1e-40f, -1e-40f, 1e30f, -1e30f,
                             3.40282347e38f, -3.40282347e38f, INFINITY, -INFINITY, NAN, 1e-7f, 123456.7f};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; ++k) pool[pool_n++] = special[k];
    srand(7);
    while (pool_n < 64) pool[pool_n++] = ((float)rand() / (float)RAND_MAX - 0.5f) * 200.0f;
}

/* Lanes of a and b from the pool, a different slice each round. */
static void pick(int round, float a[4], float b[4]) {
    for (int k = 0; k < 4; ++k) {
        a[k] = pool[(round * 4 + k) % pool_n];
        b[k] = pool[(round * 7 + 3 * k + 1) % pool_n];
    }
}

static int same_bits(loam_f4 got, const float want[4]) {
    float g[4];
    f4_store(g, got);
    for (int k = 0; k < 4; ++k)
        if (bits_of(g[k]) != bits_of(want[k]) && !(isnan(g[k]) && isnan(want[k]))) return 0;
    return 1;
}

static void check_arithmetic(void) {
    for (int round = 0; round < 400; ++round) {
        float a[4], b[4], want[4];
        pick(round, a, b);
        loam_f4 va = f4_load(a), vb = f4_load(b);
        for (int k = 0; k < 4; ++k) want[k] = a[k] + b[k];
        CHECK(same_bits(f4_add(va, vb), want), "add, round %d", round);
        for (int k = 0; k < 4; ++k) want[k] = a[k] - b[k];
        CHECK(same_bits(f4_sub(va, vb), want), "sub, round %d", round);
        for (int k = 0; k < 4; ++k) want[k] = a[k] * b[k];
        CHECK(same_bits(f4_mul(va, vb), want), "mul, round %d", round);
        for (int k = 0; k < 4; ++k) want[k] = a[k] / b[k];
        CHECK(same_bits(f4_div(va, vb), want), "div, round %d", round);
        /* min and max exactly as the scalar loops wrote them: which operand wins on NaN and on
         * +0 / -0 is part of the promise */
        for (int k = 0; k < 4; ++k) want[k] = a[k] < b[k] ? a[k] : b[k];
        CHECK(same_bits(f4_min(va, vb), want), "min, round %d", round);
        for (int k = 0; k < 4; ++k) want[k] = a[k] > b[k] ? a[k] : b[k];
        CHECK(same_bits(f4_max(va, vb), want), "max, round %d", round);
        for (int k = 0; k < 4; ++k) want[k] = fabsf(a[k]);
        CHECK(same_bits(f4_abs(va), want), "abs, round %d", round);
        int le = f4_bits(f4_le(va, vb)), le_want = 0;
        for (int k = 0; k < 4; ++k) le_want |= (a[k] <= b[k]) << k;
        CHECK(le == le_want, "le bits %x, want %x, round %d", le, le_want, round);
        /* select and and through masks */
        loam_f4 mask = f4_le(va, vb);
        for (int k = 0; k < 4; ++k) want[k] = a[k] <= b[k] ? b[k] : a[k];
        CHECK(same_bits(f4_select(mask, va, vb), want), "select, round %d", round);
        int both = f4_bits(f4_and(mask, f4_le(vb, va))), both_want = 0;
        for (int k = 0; k < 4; ++k) both_want |= (a[k] <= b[k] && b[k] <= a[k]) << k;
        CHECK(both == both_want, "and bits %x, want %x", both, both_want);
    }
}

static void check_round_and_ints(void) {
    /* rintf in the default mode (ties to even) for every |x| < 2^31 */
    const float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, 7.0f, -7.3f, 1e9f, -1e9f, 0.0f, -0.0f, 3.7f};
    for (size_t s = 0; s + 4 <= sizeof x / sizeof x[0]; ++s) {
        float want[4];
        for (int k = 0; k < 4; ++k) want[k] = rintf(x[s + k]);
        float got[4];
        f4_store(got, f4_round(f4_load(&x[s])));
        for (int k = 0; k < 4; ++k) /* -0.0 may come back as +0.0 through the integers: compare values */
            CHECK(got[k] == want[k], "round(%g) = %g, want %g", (double)x[s + k], (double)got[k], (double)want[k]);
    }
    int32_t calm[6] = {5, -1, 7, -1, 0, -1};
    CHECK(f4_bits(f4_int_eq(calm, -1)) == 0xA, "int_eq bits %x", f4_bits(f4_int_eq(calm, -1)));
    /* the tail repeats its last integer: lanes 2, 3 copy lane 1 */
    CHECK(f4_bits(f4_int_eq_upto(&calm[2], 2, -1)) == 0xE, "int_eq_upto bits %x", f4_bits(f4_int_eq_upto(&calm[2], 2, -1)));
}

static void check_rows_and_tails(void) {
    float rows[16], cols[4][4];
    for (int k = 0; k < 16; ++k) rows[k] = (float)k + 0.25f;
    for (int m = 1; m <= 4; ++m) {
        loam_f4 c[4];
        f4_load_rows(rows, m, c);
        for (int a = 0; a < 4; ++a) f4_store(cols[a], c[a]);
        for (int a = 0; a < 4; ++a)
            for (int k = 0; k < 4; ++k) {
                int row = k < m ? k : m - 1;
                CHECK(cols[a][k] == rows[4 * row + a], "load_rows m %d column %d lane %d: %g", m, a, k, (double)cols[a][k]);
            }
        float out[16];
        for (int k = 0; k < 16; ++k) out[k] = -1.0f;
        f4_store_rows(out, m, c[0], c[1], c[2], c[3]);
        for (int k = 0; k < 16; ++k)
            CHECK(out[k] == (k < 4 * m ? rows[k] : -1.0f), "store_rows m %d writes %g at %d", m, (double)out[k], k);
        float tail[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
        f4_store_upto(tail, f4_load_upto(rows, m), m);
        for (int k = 0; k < 4; ++k) CHECK(tail[k] == (k < m ? rows[k] : -1.0f), "upto m %d lane %d: %g", m, k, (double)tail[k]);
        float lanes[4];
        f4_store(lanes, f4_load_upto(rows, m));
        CHECK(lanes[3] == rows[m - 1], "load_upto m %d repeats %g", m, (double)lanes[3]);
    }
    float v[4] = {3.0f, -2.0f, 8.0f, 1.0f};
    CHECK(f4_hmax(f4_load(v)) == 8.0f && f4_hmin(f4_load(v)) == -2.0f, "hmax %g hmin %g", (double)f4_hmax(f4_load(v)),
          (double)f4_hmin(f4_load(v)));
}

int main(void) {
    fill_pool();
    check_arithmetic();
    check_round_and_ints();
    check_rows_and_tails();
    TEST_MAIN_END();
}
