/*
 * nlp_problem.h (internal): a generic smooth NLP,
 *
 *     min f(x)  s.t.  x_l <= x <= x_u,  g_l <= g(x) <= g_u,
 *
 * with exact first and second derivatives. Derivatives are evaluated DENSE for the small
 * problems: the Jacobian is m x n column-major, J[i + j m] = dg_i/dx_j; the Hessian of the
 * Lagrangian  obj_factor * f + sum_i lambda_i g_i  is n x n column-major, and only its lower
 * triangle (row >= column) is read. A large sparse problem gives its nonzeros as triplets
 * instead (structure, below): nothing of size n x m is then formed. Bounds are constant for the life of a solver (IPOPT's C
 * interface takes them at creation); everything that changes from step to step (the state, the
 * input) reaches the callbacks through ctx. Callbacks write every entry of their output;
 * non-finite outputs are caught by the adapter and reported as an evaluation error.
 */
#ifndef RS_NLP_PROBLEM_H
#define RS_NLP_PROBLEM_H

typedef struct rs_nlp_problem {
    int n;      /* variables, >= 1 */
    int m;      /* constraints, >= 0 */
    int natural_units; /* 1: posed in natural units (variables and constraints of size 1 at a
                          typical solution): IPOPT's own gradient scaling and MUMPS's scaling
                          are turned off, they only cost time then */
    int dense_columns; /* 1: a few variables appear in almost every row (a fit's coefficients
                          beside its per-sample slacks): MUMPS orders the KKT system by QAMD,
                          which finds such quasi-dense rows, instead of AMD (natural_units' choice,
                          which suits the steps' systems; on the known-friction fits it made
                          fronts that took twice the time) */
    void *ctx;  /* passed to every callback */
    void (*bounds)(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u);
    double (*eval_f)(void *ctx, const double *x);
    void (*eval_grad_f)(void *ctx, const double *x, double *grad);
    void (*eval_g)(void *ctx, const double *x, double *g);
    void (*eval_jac)(void *ctx, const double *x, double *J);
    void (*eval_hess)(void *ctx, const double *x, double obj_factor, const double *lambda,
                      double *H);
    /* Optional: the entries of the Jacobian (m x n, column-major) and of the Hessian's lower
     * triangle (n x n, column-major) that can be nonzero, marked 1 (every other entry is 0 for
     * every x, lambda, obj_factor). With it IPOPT is given that sparse structure, and the values
     * are gathered from the dense callbacks; without it, the structure is dense. */
    void (*sparsity)(void *ctx, unsigned char *jac_mask, unsigned char *hess_mask);
    /* Optional, for a large sparse problem, in place of eval_jac, eval_hess and sparsity: the
     * nnz_jac nonzeros of the Jacobian and the nnz_hess of the Hessian's lower triangle as
     * (row, column) pairs, each pair once (structure writes them), and their values in the
     * same order (jac_values, hess_values). The structure may change from one evaluation
     * context to the next as long as the counts and the bounds do not (IPOPT's C interface
     * asks for it at every solve). */
    int nnz_jac, nnz_hess;
    void (*structure)(void *ctx, int *jac_row, int *jac_col, int *hess_row, int *hess_col);
    void (*jac_values)(void *ctx, const double *x, double *values);
    void (*hess_values)(void *ctx, const double *x, double obj_factor, const double *lambda,
                        double *values);
} rs_nlp_problem;

/* Infinite bounds: IPOPT treats |bound| >= 1e19 as none. */
#define RS_NLP_INF 1e20

#endif
