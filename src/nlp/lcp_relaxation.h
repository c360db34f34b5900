/*
 * lcp_relaxation.h (internal): any LCP(M, q) as a relaxed-complementarity NLP.
 *
 *   variables   x = (z, s), z in R^n, s in R^n
 *   min         sum_i penalty(s_i)
 *   s.t.        w = M z + q >= 0                  (n constraints, rows 0..n-1)
 *               c_i = s_i - z_i w_i >= 0          (n constraints, rows n..2n-1)
 *               z >= 0, s >= 0
 *
 * M and q are read through the struct at every evaluation, so one solver serves every step of a
 * run: the caller points M and q at the current step's data.
 */
#ifndef RS_LCP_RELAXATION_H
#define RS_LCP_RELAXATION_H

#include "relaxsim/nlp.h"
#include "nlp/nlp_problem.h"

typedef struct rs_lcp_relaxation {
    int n;
    const double *M; /* n x n column-major */
    const double *q; /* n */
    rs_nlp_settings settings;
} rs_lcp_relaxation;

/* Describe the relaxation as an NLP of 2n variables and 2n constraints (p->ctx = r). */
void rs_lcp_relaxation_problem(rs_lcp_relaxation *r, rs_nlp_problem *p);

/* Ruiz equilibration: positive diagonal D (rows) and C (columns) with D M C of rows and columns
 * of inf-norm near 1 into Ms (n x n, column-major) and D q into qs. LCP(M, q) and LCP(Ms, qs)
 * have the same solutions up to z = C z'. */
void rs_lcp_equilibrate(int n, const double *M, const double *q, double *Ms, double *qs,
                        double *D, double *C);

/* A cold starting point: z = 1, s = max(0, z w) + 1; `shift` varies it for a retry. */
void rs_lcp_relaxation_guess(const rs_lcp_relaxation *r, double shift, double *x);

#endif
