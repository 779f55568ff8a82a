/* cp_prepare_diag (SubADMM's preparation) against cp_prepare (the other solvers'): the same Delassus
 * diagonal J A^-1 J^T, each segment's share of it, and the same warm-started velocity, on a problem
 * with the three kinds of group a step makes (a banded FEM-like piece, a free body's 6 x 6, a dense
 * tree) and rows that start at the top, the middle and the end of the band. */
#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "contact/cp.h"
#include "test_util.h"

enum { NB = 14, BW = 3, N6 = 6, N7 = 7, N = NB + N6 + N7, NROW = 6, NSEG = 10 };

/* An SPD matrix of size n, zero beyond half bandwidth bw (bw = n - 1: dense): diagonally dominant
 * with entries that depend on the position, so that no symmetry hides an indexing mistake. */
static void spd(double* a, int n, int bw, double seed) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            int d = i > j ? i - j : j - i;
            a[i * n + j] = d > bw ? 0.0 : d == 0 ? 4.0 * bw + 2.0 + 0.1 * i : -1.0 / (1.0 + d + seed * (i + j));
        }
}

/* The band storage of a dense n x n matrix (core/dense.h): row i's columns i - bw .. i - bw + ld - 1. */
static void to_band(const double* a, int n, int bw, int ld, double* band) {
    for (int i = 0; i < n; ++i)
        for (int c = i - bw; c < i - bw + ld; ++c) dense_band_row(band, bw, ld, i)[c] = c >= 0 && c < n ? a[i * n + c] : 0.0;
}

int main(void) {
    enum { LD = 2 * BW + 1 };
    static double A0d[NB * NB], A0[NB * LD], L0[NB * LD], A1[N6 * N6], L1[N6 * N6], A2[N7 * N7], L2[N7 * N7];
    spd(A0d, NB, BW, 0.01), spd(A1, N6, N6 - 1, 0.2), spd(A2, N7, N7 - 1, 0.05);
    to_band(A0d, NB, BW, LD, A0); /* the banded group is band-stored whole, as an FEM piece's */
    memcpy(L0, A0, sizeof A0), memcpy(L1, A1, sizeof A1), memcpy(L2, A2, sizeof A2);
    CHECK(dense_cholesky_band(L0, NB, BW, LD) < 0, "band factor");
    /* the band factor itself, from the lower band alone (ld = bw + 1) and from the whole band: L L^T
     * = A on and below the diagonal, for a band that takes rows four, two and one at a time
     * (bandwidth 6 and 3 on 20 unknowns); and its solve against the dense Cholesky's */
    for (int bw = 3; bw <= 6; bw += 3)
        for (int ld = bw + 1; ld <= 2 * bw + 1; ld += bw) {
            enum { NF = 20 };
            static double A[NF * NF], Ld[NF * NF], L[NF * (2 * 6 + 1)]; /* the widest band stored whole */
            double x[NF], y[NF];
            spd(A, NF, bw, 0.02);
            to_band(A, NF, bw, ld, L);
            CHECK(dense_cholesky_band(L, NF, bw, ld) < 0, "band factor, bandwidth %d, ld %d", bw, ld);
            double worst = 0.0;
            for (int i = 0; i < NF; ++i)
                for (int j = i - bw > 0 ? i - bw : 0; j <= i; ++j) {
                    double s = 0.0;
                    for (int k = i - bw > 0 ? i - bw : 0; k <= j; ++k) s += dense_band_row(L, bw, ld, i)[k] * dense_band_row(L, bw, ld, j)[k];
                    worst = fmax(worst, fabs(s - A[i * NF + j]));
                }
            CHECK(worst < 1e-12, "band factor, bandwidth %d, ld %d: |L L^T - A| = %.3e", bw, ld, worst);
            memcpy(Ld, A, sizeof A);
            CHECK(dense_cholesky(Ld, NF) < 0, "dense factor");
            for (int i = 0; i < NF; ++i) x[i] = y[i] = sin(0.4 * i + bw);
            dense_cholesky_band_solve(L, NF, bw, ld, x);
            dense_cholesky_solve(Ld, NF, y);
            worst = 0.0;
            for (int i = 0; i < NF; ++i) worst = fmax(worst, fabs(x[i] - y[i]));
            CHECK(worst < 1e-12, "band solve, bandwidth %d, ld %d: %.3e from the dense solve", bw, ld, worst);
        }
    CHECK(dense_cholesky(L1, N6) < 0, "6 x 6 factor");
    CHECK(dense_cholesky(L2, N7) < 0, "7 x 7 factor");
    cp_group groups[3] = {{0, NB, A0, L0, BW, CP_BANDED, NULL, NULL}, {NB, N6, A1, L1, 0, CP_DENSE, NULL, NULL}, {NB + N6, N7, A2, L2, 0, CP_DENSE, NULL, NULL}};

    /* rows 0-2: a contact between the piece (nodes in its middle) and the free body; row 3: the
     * piece's first unknowns and the tree; row 4: the piece's last unknowns; row 5: the tree alone */
    int row_seg[NROW + 1] = {0, 2, 4, 6, 8, 9, 10}, group_of[NSEG] = {0, 1, 0, 1, 0, 1, 0, 2, 0, 2};
    cp_seg seg[NSEG];
    static double J[NSEG * NB], e[NROW], lambda0[NROW] = {0.3, -0.1, 0.05, 0.0, 1.2, -0.7};
    size_t val = 0;
    for (int k = 0; k < NSEG; ++k) {
        seg[k] = (cp_seg){group_of[k], val, 0, 0};
        int n = groups[group_of[k]].n, r = 0;
        while (row_seg[r + 1] <= k) ++r;
        for (int i = 0; i < n; ++i) {
            int on = group_of[k] != 0 ? 1 : r < 3 ? (i >= 6 && i < 9) : r == 3 ? i < 3 : i >= NB - 3;
            J[val + i] = on ? sin(1.0 + 0.7 * k + 1.3 * i) : 0.0;
        }
        val += (size_t)n;
    }
    cp_seg_ranges(seg, NSEG, groups, J);
    CHECK(seg[0].lo == 6 && seg[0].hi == 9 && seg[6].lo == 0 && seg[6].hi == 3 && seg[8].lo == NB - 3 && seg[8].hi == NB && seg[1].lo == 0 &&
              seg[1].hi == N6,
          "segment ranges: [%d, %d) [%d, %d) [%d, %d) [%d, %d)", seg[0].lo, seg[0].hi, seg[6].lo, seg[6].hi, seg[8].lo, seg[8].hi, seg[1].lo, seg[1].hi);
    cp_block blocks[4] = {{0, CP_CONTACT, 0.5, 0.0}, {3, CP_EQUALITY, 0.0, 0.0}, {4, CP_UNILATERAL, 0.0, 0.0}, {5, CP_EQUALITY, 0.0, 1e-3}};

    double vA[N], vB[N], lamA[NROW], lamB[NROW], diagA[NROW], diagB[NROW], segd[NSEG], t[N];
    static double AJA[NSEG * NB], AJB[NSEG * NB];
    for (int i = 0; i < N; ++i) vA[i] = vB[i] = cos(0.3 * i);
    memcpy(lamA, lambda0, sizeof lamA), memcpy(lamB, lambda0, sizeof lamB);
    cp_problem pa = {N, 3, groups, vA, NROW, row_seg, seg, J, AJA, e, lamA, 4, blocks, diagA, NULL};
    cp_problem pb = {N, 3, groups, vB, NROW, row_seg, seg, J, AJB, e, lamB, 4, blocks, diagB, NULL};
    cp_prepare(&pa);
    cp_prepare_diag(&pb, segd, t);

    for (int r = 0; r < NROW; ++r) {
        CHECK(diagA[r] > 0.0 && fabs(diagB[r] - diagA[r]) <= 1e-12 * diagA[r], "row %d: diag %.17g, cp_prepare's %.17g", r, diagB[r],
              diagA[r]);
        double sum = 0.0;
        for (int k = row_seg[r]; k < row_seg[r + 1]; ++k) {
            /* each segment's share: j . A^-1 j over its own group, from cp_prepare's A^-1 J^T */
            double share = 0.0;
            for (int i = 0; i < groups[seg[k].group].n; ++i) share += J[seg[k].val + i] * AJA[seg[k].val + i];
            CHECK(fabs(segd[k] - share) <= 1e-12 * share, "segment %d: %.17g, expected %.17g", k, segd[k], share);
            if (seg[k].group == 0) { /* and against the dense matrix the band was taken from */
                static double Ld[NB * NB];
                double y[NB], dense = 0.0;
                memcpy(Ld, A0d, sizeof A0d);
                CHECK(dense_cholesky(Ld, NB) < 0, "dense factor of the piece");
                memcpy(y, J + seg[k].val, sizeof y);
                dense_cholesky_solve(Ld, NB, y);
                for (int i = 0; i < NB; ++i) dense += J[seg[k].val + i] * y[i];
                CHECK(fabs(segd[k] - dense) <= 1e-12 * dense, "segment %d: %.17g, from the dense matrix %.17g", k, segd[k], dense);
            }
            sum += segd[k];
        }
        CHECK(sum == diagB[r], "row %d: the segments' shares do not add up to its diagonal", r);
    }
    for (int i = 0; i < N; ++i) CHECK(fabs(vB[i] - vA[i]) <= 1e-12 * (1.0 + fabs(vA[i])), "v[%d] = %.17g, cp_prepare's %.17g", i, vB[i], vA[i]);
    CHECK(memcmp(lamA, lamB, sizeof lamA) == 0, "the impulses were changed");
    TEST_MAIN_END();
}
