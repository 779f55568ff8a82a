/* Acceleration of the ADMM iteration of admm.c, seen as a fixed-point map G on its state s = (z, u)
 * (z per slot, u per row, stored contiguously). Private to admm.c.
 * NESTEROV: Goldstein et al. 2014 ("Fast alternating direction optimization methods", Algorithm 8)
 *   extrapolates s along its last step with the weights of Nesterov's method and restarts the
 *   momentum when the combined residual |G(s) - s|_w does not fall by the factor ETA.
 * ANDERSON: Zhang, Peng, Deng et al. 2019 ("Accelerating ADMM for efficient simulation and
 *   optimization"): type-II Anderson acceleration over the last CP_AA_MEM steps, with their
 *   safeguard: a step whose residual is not below the last accepted one is dropped and the plain
 *   image of the last accepted state taken instead. Memory 2, not 5: with 5 an iteration cost
 *   1.4-1.6x a plain one and the 400-sphere bed needed more iterations (978 against 796).
 * The norm weights w are set by admm.c (ADMM's norm: sqrt(beta) on z, sqrt(sum 1 / beta) on u). */
#ifndef LOAM_CONTACT_ADMM_ACCEL_H
#define LOAM_CONTACT_ADMM_ACCEL_H

#include <stddef.h>

/* CP_ACCEL_AUTO: cp_solve_admm picks (admm.c, accel_kind). */
enum { CP_ACCEL_AUTO = -1, CP_ACCEL_NONE = 0, CP_ACCEL_NESTEROV = 1, CP_ACCEL_ANDERSON = 2, CP_AA_MEM = 2 };

typedef struct cp_accel {
    int kind, len;
    size_t cap;
    double* buf;           /* everything below that is a vector lives here */
    double *w, *s0, *sold; /* weights; the state the iteration started from; Nesterov: last iterate */
    double *g, *f, *dG, *dF; /* Anderson: last accepted G(s), its residual; MEM differences of each */
    double gram[CP_AA_MEM * CP_AA_MEM];
    int n, head, reset;    /* Anderson: differences held (Nesterov: 1 if the state is extrapolated),
                              next slot; the next step is a plain one (unchecked) */
    double t, c;           /* Nesterov's weight, and the residual of the last accepted step */
    int rollbacks;         /* in this solve; at MAX_ROLLBACKS (admm_accel.c) kind becomes NONE */
} cp_accel;

/* Ready for a state of len values (buffers kept between calls); 0: out of memory. */
int cp_accel_begin(cp_accel* acc, int kind, int len);
/* Forget the history (the penalty, and so the map, changed). Keeping Nesterov's momentum across
 * residual balancing's changes instead was measured: 10-15% more iterations on the sphere bed. */
void cp_accel_reset(cp_accel* acc);
/* Before an iteration: remember the state s it starts from. */
void cp_accel_before(cp_accel* acc, const double* s);
/* After it: s holds G(s0); on return, the state the next iteration starts from. */
void cp_accel_after(cp_accel* acc, double* s);
void cp_accel_free(cp_accel* acc);

#endif
