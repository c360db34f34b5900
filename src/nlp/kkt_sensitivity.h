/*
 * kkt_sensitivity.h (internal): the derivative of an NLP's primal-dual solution
 * with respect to a parameter, by the implicit function theorem on the KKT
 * system of its barrier problem, factorised with MUMPS (called directly,
 * dmumps_c.h) and back-solved for any number of directions.
 *
 * The NLP is an rs_nlp_problem (min f(x), x_l <= x <= x_u, g_l <= g(x) <= g_u)
 * whose functions also depend on a parameter theta. IPOPT (3.11) solves the
 * barrier problem min f(x) - mu sum log(x - x_l) - mu sum log(x_u - x) s.t.
 * g(x) - s = 0 (inequality rows, s between g_l and g_u with the same barrier),
 * g_E(x) = g_E and drives mu to zero. On its central path at a fixed mu, each
 * bound or constraint side with gap a > 0 and multiplier v >= 0 satisfies a v =
 * mu, so that differentiating the optimality conditions along a direction t of
 * theta gives one linear system,
 *
 *     [ W + Sigma_x    J^T ] [ dx      ]     [ (d grad_x L / d theta) t ]
 *     [ J              -D  ] [ dmult_g ] = - [ (d g / d theta) t        ],
 *
 * W the Hessian of the Lagrangian f + mult_g' g (IPOPT's sign convention), J
 * the constraint Jacobian, Sigma_x = sum over x's bounds of v / a, and D = 0
 * for an equality row, else 1 / (sum over the row's finite sides of v / a) (the
 * slack eliminated: ds = D dmult_g).
 *
 * Which point: IPOPT's final iterate is interior (relaxsim sets bound_relax_factor 0; every gap
 * a and multiplier v is positive), and each pair enters with its own ratio v / a: the matrix of
 * IPOPT's own last Newton step, so that the answer is the derivative of the map from theta to
 * IPOPT's answer (sIPOPT's choice). The sharpness of that map near a contact switch follows
 * IPOPT's final complementarity, which shrinks with tol. A point accepted without IPOPT (a
 * start point that passed the KKT test) has exact zeros: such a pair is put on the central path
 * a v = mu on its own side (a >= v keeps a, v = mu / a; else v kept, a = mu / v; neither below
 * sqrt(mu), so a = v = 0 sits at the kink), with the caller's mu (IPOPT's smallest barrier
 * parameter, tol / 11 by its monotone update, is the natural one).
 *
 * Numerics: K is scaled symmetrically (a large diagonal, an active bound's or an inactive row's,
 * to 1) before MUMPS's LDL' factorisation; each solve is refined (x += K^-1 (b - K x)) until its
 * normwise backward error on the scaled system is at rounding level. That error is returned and
 * checked: above RS_KKT_SENS_MAX_RESIDUAL, or with any non-finite entry, the answer is refused
 * (status inaccurate, or failed). A singular matrix (MUMPS INFOG(1) = -10) is a status, never an
 * inf or NaN. K's condition grows like 1 / mu, so a small backward error bounds the forward
 * error only to cond(K) times it: the answer's accuracy is audited by differences (the tests,
 * and relaxsim grad --fd-nlp), not certified by the residual.
 */
#ifndef RS_KKT_SENSITIVITY_H
#define RS_KKT_SENSITIVITY_H

#include "nlp/nlp_problem.h"
#include "relaxsim/error.h"

typedef struct rs_kkt_sensitivity rs_kkt_sensitivity;

typedef enum rs_kkt_sensitivity_status {
    RS_KKT_SENS_OK = 0,
    RS_KKT_SENS_SINGULAR = 1,  /* MUMPS found the KKT matrix numerically singular */
    RS_KKT_SENS_FAILED = 2,    /* another MUMPS error (info.mumps_error), or a non-finite entry */
    RS_KKT_SENS_INACCURATE = 3 /* the refined solve's backward error stayed above
                                  RS_KKT_SENS_MAX_RESIDUAL */
} rs_kkt_sensitivity_status;

#define RS_KKT_SENS_MAX_RESIDUAL 1e-12
#define RS_KKT_SENS_MAX_RHS 64 /* right-hand sides per solve */

const char *rs_kkt_sensitivity_status_name(rs_kkt_sensitivity_status s);

typedef struct rs_kkt_sensitivity_info {
    rs_kkt_sensitivity_status status;
    int mumps_error; /* MUMPS INFOG(1) of the failing call (0: none) */
    double residual; /* the last solve's normwise backward error on the scaled system,
                        |K y - b|_inf / (max_i (|K| |y|)_i + |b|_inf), the largest over its
                        right-hand sides */
} rs_kkt_sensitivity_info;

/* A sensitivity solver for problems of n variables and m constraints (the KKT
 * structure of p's sparsity, or dense; it must not change for the solver's
 * life). One MUMPS instance. */
rs_error rs_kkt_sensitivity_create(const rs_nlp_problem *p, rs_kkt_sensitivity **out);
void rs_kkt_sensitivity_destroy(rs_kkt_sensitivity *s);

/* Assemble and factorise the KKT matrix of p (callbacks at x; p->ctx as for the
 * solve) at the primal-dual point (x, mult_g, mult_x_l, mult_x_u), for the
 * central path at mu > 0. Returns the status (also in *info). */
rs_kkt_sensitivity_status rs_kkt_sensitivity_factor(rs_kkt_sensitivity *s, const rs_nlp_problem *p,
                                                    const double *x, const double *mult_g,
                                                    const double *mult_x_l, const double *mult_x_u,
                                                    double mu, rs_kkt_sensitivity_info *info);

/* For nrhs directions (column k of each array, column-major): dgrad (n x nrhs)
 * the derivative of grad_x L, dg (m x nrhs) that of g, along the direction;
 * writes dx (n x nrhs) and, if not NULL, dmult_g (m x nrhs). After a successful
 * factor only. */
rs_kkt_sensitivity_status rs_kkt_sensitivity_solve(rs_kkt_sensitivity *s, int nrhs,
                                                   const double *dgrad, const double *dg,
                                                   double *dx, double *dmult_g,
                                                   rs_kkt_sensitivity_info *info);

#endif
