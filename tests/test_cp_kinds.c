/* The constraint kinds (contact/kinds.h) through every solver: on one free body whose rows are
 * independent (A = m I, each row one unknown), a sliding contact, a soft equality and an active
 * unilateral row have closed-form impulses, which PGS, PJ, SubADMM, full ADMM and the nonsmooth
 * Newton must all reach, with cp_error (the kinds' error measure) near zero there and not before;
 * the kinds' projections against their definitions; and a problem with a reserved kind (SAP's cone,
 * the wrench polytope) is refused by every solver. */
#include <math.h>
#include <string.h>

#include "contact/cp.h"
#include "core/dense.h"
#include "test_util.h"

enum { N = 6, M = 5 };
static const double MASS = 2.0, MU = 0.5, C = 0.1;
static const double VFREE[N] = {1.0, 0.5, -2.0, 0.3, -0.4, 0.0};

typedef struct fixture {
    double A[N * N], L[N * N], v[N], J[M * N], AJ[M * N], e[M], lambda[M], diag[M];
    int row_seg[M + 1];
    cp_seg seg[M];
    cp_group group;
    cp_block block[3];
    cp_problem p;
} fixture;

/* Rows: 0-2 a contact (normal z, tangents x and y), 3 a soft equality on unknown 3, 4 a unilateral
 * row on unknown 4; `kind` replaces the contact's kind (a reserved one for the refusal). */
static void make(fixture* f, cp_kind kind) {
    memset(f, 0, sizeof *f);
    for (int i = 0; i < N; ++i) f->A[i * N + i] = MASS;
    memcpy(f->L, f->A, sizeof f->A);
    dense_cholesky(f->L, N);
    memcpy(f->v, VFREE, sizeof f->v);
    static const int dof[M] = {2, 0, 1, 3, 4};
    for (int r = 0; r < M; ++r) {
        f->J[r * N + dof[r]] = 1.0;
        f->row_seg[r] = r;
        f->seg[r] = (cp_seg){0, (size_t)(r * N), 0, 0};
    }
    f->row_seg[M] = M;
    f->group = (cp_group){0, N, f->A, f->L, 0, CP_DENSE, NULL, NULL};
    cp_seg_ranges(f->seg, M, &f->group, f->J);
    f->block[0] = (cp_block){0, kind, MU, 0.0};
    f->block[1] = (cp_block){3, CP_EQUALITY, 0.0, C};
    f->block[2] = (cp_block){4, CP_UNILATERAL, 0.0, 0.0};
    f->p = (cp_problem){N, 1, &f->group, f->v, M, f->row_seg, f->seg, f->J, f->AJ, f->e, f->lambda, 3, f->block, f->diag, NULL};
}

/* The closed form: the normal stops the approach (m v_z), the friction slides at its cap opposite
 * to the slip (the cap, mu m 2 = 2, is below m |v_t| = 2.24), the soft row gives -w0 / (1/m + c),
 * the limit stops unknown 4. */
static void expected(double* l) {
    double ln = -MASS * VFREE[2], vt = hypot(VFREE[0], VFREE[1]);
    l[0] = ln, l[1] = -MU * ln * VFREE[0] / vt, l[2] = -MU * ln * VFREE[1] / vt;
    l[3] = -VFREE[3] / (1.0 / MASS + C);
    l[4] = -MASS * VFREE[4];
}

static void check_solution(const fixture* f, cp_result res, const char* who, double tol) {
    double l[M];
    expected(l);
    CHECK(res.iterations > 0, "%s: iterations %d", who, res.iterations);
    for (int r = 0; r < M; ++r) CHECK(fabs(f->lambda[r] - l[r]) <= tol, "%s: lambda[%d] = %.12g, expected %.12g", who, r, f->lambda[r], l[r]);
    CHECK(res.error <= tol, "%s: error %.3e", who, res.error);
    CHECK(fabs(cp_error(&f->p) - res.error) <= 1e-15, "%s: cp_error %.3e, reported %.3e", who, cp_error(&f->p), res.error);
    /* v = v_free + A^-1 J^T lambda */
    static const int dof[M] = {2, 0, 1, 3, 4};
    for (int r = 0; r < M; ++r)
        CHECK(fabs(f->v[dof[r]] - (VFREE[dof[r]] + f->lambda[r] / MASS)) <= tol, "%s: v[%d] = %.12g", who, dof[r], f->v[dof[r]]);
}

int main(void) {
    static fixture f;
    cp_admm_settings set = {1.0, 0, 0, 1.0, 0, 1.0, 0.0, 1};
    int sub[1] = {0};

    /* the error measure: zero at the solution, not at zero impulses */
    make(&f, CP_CONTACT);
    cp_prepare(&f.p);
    CHECK(cp_error(&f.p) > 0.1, "cp_error at zero impulses: %.3e", cp_error(&f.p));

    make(&f, CP_CONTACT);
    cp_prepare(&f.p);
    check_solution(&f, cp_solve_pgs(&f.p, 50, 1e-14, 0), "pgs", 1e-12);
    make(&f, CP_CONTACT);
    cp_prepare(&f.p);
    check_solution(&f, cp_solve_pgs(&f.p, 50, 1e-14, 1), "pgs_cg", 1e-12);
    make(&f, CP_CONTACT);
    cp_prepare(&f.p);
    check_solution(&f, cp_solve_pj(&f.p, 50, 1e-14, 1.0), "pj", 1e-12);
    make(&f, CP_CONTACT);
    cp_prepare(&f.p);
    check_solution(&f, cp_solve_nnewton(&f.p, 50, 1e-13), "nnewton", 1e-9);
    make(&f, CP_CONTACT);
    check_solution(&f, cp_solve_admm(&f.p, 2000, 1e-13, sub, 1, &set, NULL), "subadmm", 1e-9);

    /* the kinds' projections against their definitions */
    cp_block eq = {0, CP_EQUALITY, 0.0, 0.0}, soft = {0, CP_EQUALITY, 0.0, 0.25}, uni = {0, CP_UNILATERAL, 0.0, 0.0},
             con = {0, CP_CONTACT, 0.5, 0.0};
    double D[3] = {0.5, 0.7, 0.7}, x[3] = {-1.5, 3.0, -4.0}, l[3];
    cp_kind_project(&eq, D, x, l);
    CHECK(l[0] == x[0], "a hard equality's impulse is free: %g", l[0]);
    cp_kind_project(&soft, D, x, l);
    CHECK(fabs(l[0] - x[0] * 0.5 / 0.75) <= 1e-15, "soft equality: %g", l[0]);
    cp_kind_project(&uni, D, x, l);
    CHECK(l[0] == 0.0, "unilateral: %g", l[0]);
    x[0] = 2.0;
    cp_kind_project(&con, D, x, l);
    CHECK(l[0] == 2.0 && fabs(hypot(l[1], l[2]) - 1.0) <= 1e-15 && fabs(l[1] * x[2] - l[2] * x[1]) <= 1e-15,
          "contact: (%g, %g, %g) is not on the disk of radius 1 along the tangent", l[0], l[1], l[2]);
    double d3[3] = {0.5, 0.2, 0.9}, Dc[3];
    cp_kind_diag(&con, d3, Dc);
    CHECK(Dc[0] == 0.5 && Dc[1] == 0.9 && Dc[2] == 0.9, "contact metric: one scalar for both tangents, the larger");
    CHECK(cp_kind_rows(CP_CONTACT) == 3 && cp_kind_rows(CP_EQUALITY) == 1 && cp_kind_rows(CP_UNILATERAL) == 1, "rows per kind");

    /* the reserved kinds: every solver refuses them */
    for (int kind = CP_SAP_CONE; kind <= CP_WRENCH_POLYTOPE; ++kind) {
        CHECK(!cp_kind_supported((cp_kind)kind), "%s is reserved", cp_kind_name((cp_kind)kind));
        make(&f, (cp_kind)kind);
        CHECK(cp_kinds_check(f.block, 3) == 0, "cp_kinds_check finds block 0");
        cp_result r[5];
        r[0] = cp_solve_pgs(&f.p, 5, 0.0, 0), r[1] = cp_solve_pgs(&f.p, 5, 0.0, 1), r[2] = cp_solve_pj(&f.p, 5, 0.0, 1.0);
        r[3] = cp_solve_nnewton(&f.p, 5, 0.0), r[4] = cp_solve_admm(&f.p, 5, 0.0, sub, 1, &set, NULL);
        for (int s = 0; s < 5; ++s) CHECK(r[s].iterations == CP_UNSUPPORTED_KIND, "%s: solver %d gave %d", cp_kind_name((cp_kind)kind), s, r[s].iterations);
        for (int i = 0; i < N; ++i) CHECK(f.v[i] == VFREE[i], "a refused problem's velocities are left alone");
    }
    CHECK(strcmp(cp_kind_name(CP_SAP_CONE), "sap_cone") == 0 && strcmp(cp_kind_name(CP_WRENCH_POLYTOPE), "wrench_polytope") == 0, "names");
    TEST_MAIN_END();
}
