/*
 * ipopt_solver.h (internal): an rs_nlp_problem solved by IPOPT 3.11 (MUMPS). One solver is
 * created per run and reused for every step (the IpoptProblem is built once). It keeps the
 * multipliers of its last successful solve for a primal-dual warm start of the next one.
 * IPOPT and MUMPS are not thread-safe: use one solver per process at a time.
 */
#ifndef RS_IPOPT_SOLVER_H
#define RS_IPOPT_SOLVER_H

#include "relaxsim/nlp.h"
#include "nlp/nlp_problem.h"

typedef struct rs_ipopt_solver rs_ipopt_solver;

/* Create a solver for problem p (copied; p->ctx must outlive the solver). */
rs_error rs_ipopt_create(const rs_nlp_problem *p, const rs_nlp_settings *settings,
                         rs_ipopt_solver **out);

/*
 * Solve from the starting point x (n-vector, overwritten by IPOPT's final point, also on
 * failure). warm: 1 to start from the multipliers of the last successful solve (ignored when
 * there is none). Returns the mapped status; *ipopt_status and *iterations report IPOPT's own.
 */
rs_nlp_status rs_ipopt_solve(rs_ipopt_solver *solver, double *x, int warm, int *ipopt_status,
                             int *iterations);

/* Max violation of the bounds and constraints at x (uses the solver's buffers). */
double rs_ipopt_primal_infeasibility(rs_ipopt_solver *solver, const double *x);

void rs_ipopt_destroy(rs_ipopt_solver *solver);

#endif
