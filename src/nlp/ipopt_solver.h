/*
 * ipopt_solver.h (internal): an rs_nlp_problem, or a stack of them, solved by IPOPT 3.11 (MUMPS).
 *
 * A solver is built once per run (the IpoptProblem is reused for every step). It may hold one
 * problem or nblocks problems of the same size (n, m) solved as ONE block-diagonal NLP:
 *
 *     min  sum_b f_b(x_b)   s.t.  bounds and g_b(x_b) of every block b,
 *
 * with block b's variables at x[b n .. b n + n) and its constraints at rows [b m, b m + m). IPOPT
 * sees the sparsity: each block's dense Jacobian (m x n) and the lower triangle of its Hessian,
 * nothing between blocks. This is how K runs in lock-step pay IPOPT's fixed cost per solve once.
 *
 * The solver keeps the multipliers of its last solve in arrays the caller may read and overwrite
 * (rs_ipopt_multipliers): a warm solve starts from whatever they hold. IPOPT and MUMPS are not
 * thread-safe: use one solver per process at a time.
 */
#ifndef RS_IPOPT_SOLVER_H
#define RS_IPOPT_SOLVER_H

#include "relaxsim/nlp.h"
#include "nlp/nlp_problem.h"

typedef struct rs_ipopt_solver rs_ipopt_solver;

/* A solver for problem p (copied; p->ctx must outlive the solver). */
rs_error rs_ipopt_create(const rs_nlp_problem *p, const rs_nlp_settings *settings,
                         rs_ipopt_solver **out);

/* A solver for the block-diagonal stack of blocks[0..nblocks) (all with the same n and m; each
 * ctx must outlive the solver). nblocks >= 1. */
rs_error rs_ipopt_create_blocks(const rs_nlp_problem *blocks, int nblocks,
                                const rs_nlp_settings *settings, rs_ipopt_solver **out);

/*
 * Solve from the starting point x (nblocks n entries; overwritten by IPOPT's final point, also
 * on failure). warm: 1 to start from the multipliers now in the solver's arrays with the
 * settings' mu_init (warm_start_init_point), 0 for a cold start (IPOPT computes its own
 * multipliers, mu_init 0.1). Returns the mapped status; *ipopt_status and *iterations (optional)
 * report IPOPT's own. The multiplier arrays hold IPOPT's final multipliers afterwards.
 */
rs_nlp_status rs_ipopt_solve(rs_ipopt_solver *solver, double *x, int warm, int *ipopt_status,
                             int *iterations);

/* rs_ipopt_solve with the barrier set by the caller: IPOPT starts at barrier parameter mu_init
 * and drives it down to mu_target (0: the NLP itself; > 0: the interior point of the barrier
 * problem at mu_target, one stage of a homotopy). */
rs_nlp_status rs_ipopt_solve_barrier(rs_ipopt_solver *solver, double *x, int warm, double mu_init,
                                     double mu_target, int *ipopt_status, int *iterations);

/* The iteration limit of the solves that follow (1 .. 100000; the settings' max_iter at first). */
void rs_ipopt_set_max_iter(rs_ipopt_solver *solver, int max_iter);

/* The multiplier arrays (IPOPT's sign convention: grad f + J^T mult_g - mult_x_l + mult_x_u = 0
 * at a solution, mult_x_l, mult_x_u >= 0): mult_g has nblocks m entries, the others nblocks n. */
void rs_ipopt_multipliers(rs_ipopt_solver *solver, double **mult_g, double **mult_x_l,
                          double **mult_x_u);

void rs_ipopt_destroy(rs_ipopt_solver *solver);

#endif
