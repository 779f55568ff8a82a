/* The storages of a group's matrix (contact/cp.h's cp_storage): one small problem on a lumped mass
 * (three particles of different masses, one group of 9 unknowns: A diagonal) stored DENSE (with its
 * Cholesky factor), DIAGONAL (its 9 entries) and MATRIX_FREE (A^-1 applied by a callback) gives the
 * same Delassus diagonal (cp_prepare's and SubADMM's cp_prepare_diag) and, from PGS and PJ, the same
 * impulses and velocities within the solvers' tolerance; SubADMM refuses the storages it cannot
 * build subsystems from. The problem: two particles on the ground (contacts), the two touching each
 * other along a slanted normal (a contact), the third held by a soft equality. */
#include <math.h>
#include <string.h>

#include "contact/cp.h"
#include "core/dense.h"
#include "test_util.h"

enum { N = 9, M = 10, NB = 4 };
static const double MASS[3] = {1.0, 2.5, 0.4};

/* The matrix-free storage's A^-1: the masses, from ctx. */
static void lumped_solve(const void* ctx, int n, double* x) {
    const double* mass = ctx;
    for (int i = 0; i < n; ++i) x[i] /= mass[i / 3];
}

typedef struct run {
    double A[N * N], L[N * N], diagA[N], v[N], J[M * N], AJ[M * N], e[M], lambda[M], diag[M];
    int row_seg[M + 1];
    cp_seg seg[M];
    cp_group group;
    cp_block block[NB];
    cp_problem p;
} run;

static void make(run* r, cp_storage storage) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < N; ++i) r->A[i * N + i] = r->diagA[i] = MASS[i / 3];
    memcpy(r->L, r->A, sizeof r->A);
    dense_cholesky(r->L, N);
    static const double v0[N] = {0.3, -0.2, -1.0, -0.4, 0.1, -0.5, 0.2, 0.0, 0.7};
    memcpy(r->v, v0, sizeof r->v);
    /* rows: 0-2 particle 0 on the ground (normal z), 3-5 particle 1 on the ground, 6-8 particle 0
     * against particle 1 along n (from 1 to 0), 9 particle 2's z held softly at 0 velocity */
    double n[3] = {-0.6, 0.0, 0.8}, t1[3] = {0.8, 0.0, 0.6}, t2[3] = {0.0, 1.0, 0.0};
    const double* fr[3] = {n, t1, t2};
    for (int q = 0; q < 3; ++q) {
        int axis = q == 0 ? 2 : q - 1; /* ground frame: z, x, y */
        r->J[q * N + axis] = 1.0;
        r->J[(3 + q) * N + 3 + axis] = 1.0;
        for (int k = 0; k < 3; ++k) r->J[(6 + q) * N + k] = fr[q][k], r->J[(6 + q) * N + 3 + k] = -fr[q][k];
    }
    r->J[9 * N + 8] = 1.0;
    r->e[6] = -0.05; /* the pair slightly overlapping */
    for (int k = 0; k < M; ++k) r->row_seg[k] = k, r->seg[k] = (cp_seg){0, (size_t)(k * N), 0, 0};
    r->row_seg[M] = M;
    r->group = (cp_group){0, N, storage == CP_DIAGONAL ? r->diagA : r->A, r->L, 0, storage, storage == CP_MATRIX_FREE ? lumped_solve : NULL, MASS};
    cp_seg_ranges(r->seg, M, &r->group, r->J);
    r->block[0] = (cp_block){0, CP_CONTACT, 0.4, 0.0};
    r->block[1] = (cp_block){3, CP_CONTACT, 0.8, 0.0};
    r->block[2] = (cp_block){6, CP_CONTACT, 0.3, 0.0};
    r->block[3] = (cp_block){9, CP_EQUALITY, 0.0, 0.05};
    r->p = (cp_problem){N, 1, &r->group, r->v, M, r->row_seg, r->seg, r->J, r->AJ, r->e, r->lambda, NB, r->block, r->diag, NULL};
}

static const char* NAME[4] = {"dense", "banded", "diagonal", "matrix-free"};

int main(void) {
    static run ref, r;
    cp_storage kinds[3] = {CP_DENSE, CP_DIAGONAL, CP_MATRIX_FREE};
    for (int solver = 0; solver < 2; ++solver) {
        for (int k = 0; k < 3; ++k) {
            make(&r, kinds[k]);
            cp_prepare(&r.p);
            cp_result res = solver == 0 ? cp_solve_pgs(&r.p, 500, 1e-13, 0) : cp_solve_pj(&r.p, 5000, 1e-13, 0.5);
            const char* who = solver == 0 ? "pgs" : "pj";
            CHECK(res.iterations > 0 && res.error <= 1e-9, "%s, %s: %d iterations, error %.3e", who, NAME[kinds[k]], res.iterations, res.error);
            if (k == 0) {
                ref = r;
                CHECK(ref.lambda[0] > 0.0 && ref.lambda[3] > 0.0 && ref.lambda[6] > 0.0 && ref.lambda[9] != 0.0,
                      "%s: every block is active (%g %g %g %g)", who, ref.lambda[0], ref.lambda[3], ref.lambda[6], ref.lambda[9]);
                continue;
            }
            for (int i = 0; i < M; ++i)
                CHECK(fabs(r.lambda[i] - ref.lambda[i]) <= 1e-9 * (1.0 + fabs(ref.lambda[i])) && fabs(r.diag[i] - ref.diag[i]) <= 1e-14 * ref.diag[i],
                      "%s, %s: lambda[%d] = %.15g, diag %.15g; dense: %.15g, %.15g", who, NAME[kinds[k]], i, r.lambda[i], r.diag[i], ref.lambda[i],
                      ref.diag[i]);
            for (int i = 0; i < N; ++i)
                CHECK(fabs(r.v[i] - ref.v[i]) <= 1e-9 * (1.0 + fabs(ref.v[i])), "%s, %s: v[%d] = %.15g, dense %.15g", who, NAME[kinds[k]], i, r.v[i], ref.v[i]);
        }
    }
    /* SubADMM's preparation gives the same diagonal for every storage; the solve itself refuses
     * what it cannot build subsystems from */
    for (int k = 0; k < 3; ++k) {
        double segd[M], t[N];
        make(&r, kinds[k]);
        cp_prepare_diag(&r.p, segd, t);
        make(&ref, CP_DENSE);
        cp_prepare(&ref.p);
        for (int i = 0; i < M; ++i)
            CHECK(fabs(r.diag[i] - ref.diag[i]) <= 1e-14 * ref.diag[i], "%s: cp_prepare_diag's diag[%d] %.15g, cp_prepare's %.15g", NAME[kinds[k]], i,
                  r.diag[i], ref.diag[i]);
        make(&r, kinds[k]);
        cp_admm_settings set = {1.0, 0, 0, 1.0, 0, 1.0, 0.0, 1};
        int sub[1] = {0};
        cp_result res = cp_solve_admm(&r.p, 50, 1e-10, sub, 1, &set, NULL);
        if (kinds[k] == CP_DENSE) CHECK(res.iterations > 0, "subadmm on dense storage: %d", res.iterations);
        else CHECK(res.iterations == CP_UNSUPPORTED_STORAGE, "subadmm on %s storage: %d", NAME[kinds[k]], res.iterations);
    }
    TEST_MAIN_END();
}
