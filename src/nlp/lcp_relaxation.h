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

/* The derivatives along a direction (dM, dq) of the LCP data, at the primal-dual point
 * (x, mult_g), of grad_x L with L = f + mult_g' g (f does not depend on M and q) into dgrad (2n)
 * and of g into dg (2n): the right-hand side of kkt_sensitivity.h. With dw = dM z + dq,
 *     dg_i = dw_i,  dg_{n+i} = -z_i dw_i,
 *     dgrad_{z_j} = sum_i (mult_i - mult_{n+i} z_i) dM_ij - mult_{n+j} dw_j,  dgrad_s = 0. */
void rs_lcp_relaxation_param_derivative(const rs_lcp_relaxation *r, const double *dM,
                                        const double *dq, const double *x, const double *mult_g,
                                        double *dgrad, double *dg);

/* A cold starting point: z = 1, s = max(0, z w) + 1; `shift` varies it for a retry. */
void rs_lcp_relaxation_guess(const rs_lcp_relaxation *r, double shift, double *x);

#endif
