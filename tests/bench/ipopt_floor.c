/*
 * ipopt_floor.c: what one IPOPT solve costs however small the problem (a benchmark, not a test).
 *
 * IPOPT 3.11's C interface builds its whole algorithm (options, strategy objects, the MUMPS
 * instance and its analysis) on every IpoptSolve, so a solve has a fixed cost that no posing of
 * the NLP removes. This program measures it on the smallest problem that exercises every part
 * of a relaxsim step solve (bounds, a constraint, a Hessian):
 *
 *     min (x0 - a)^2 + (x1 - 2)^2   s.t.  -10 <= x0, x1 <= 10,  -100 <= x0 + x1 <= 100,
 *
 * through relaxsim's IPOPT adapter (src/nlp/ipopt_solver.c, the options of every step solve),
 * warm-started from x = (1, 2) with zero multipliers: with a = 1 the start is the solution and
 * IPOPT accepts it at its first test (0 iterations); with a = 3/2 one Newton step solves the
 * quadratic (1 iteration). Built with the relaxsim command's removal of the solvers' per-step
 * overheads (src/cli/solver_overheads.c). Each solve is checked: IPOPT's status, the iteration
 * count and the answer x = (a, 2) within 1e-8; any miss exits 1.
 *
 *   ipopt_floor [SOLVES]      (default 2000 of each kind) prints the two medians in microseconds
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "nlp/ipopt_solver.h"

typedef struct {
    double a; /* the minimiser's x0 */
} floor_ctx;

static void bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    x_l[0] = x_l[1] = -10.0;
    x_u[0] = x_u[1] = 10.0;
    g_l[0] = -100.0;
    g_u[0] = 100.0;
}

static double eval_f(void *ctx, const double *x)
{
    const double a = ((const floor_ctx *)ctx)->a;
    return (x[0] - a) * (x[0] - a) + (x[1] - 2.0) * (x[1] - 2.0);
}

static void eval_grad_f(void *ctx, const double *x, double *grad)
{
    const double a = ((const floor_ctx *)ctx)->a;
    grad[0] = 2.0 * (x[0] - a);
    grad[1] = 2.0 * (x[1] - 2.0);
}

static void eval_g(void *ctx, const double *x, double *g)
{
    (void)ctx;
    g[0] = x[0] + x[1];
}

static void eval_jac(void *ctx, const double *x, double *J)
{
    (void)ctx;
    (void)x;
    J[0] = J[1] = 1.0;
}

/* Lower triangle, column-major: H = 2 obj_factor I (the constraint is linear). */
static void eval_hess(void *ctx, const double *x, double obj_factor, const double *lambda,
                      double *H)
{
    (void)ctx;
    (void)x;
    (void)lambda;
    H[0] = H[3] = 2.0 * obj_factor;
    H[1] = H[2] = 0.0;
}

/* Median time of `solves` warm solves from (1, 2) towards x0 = a, each expected to take exactly
 * `expect_iterations`; -1 on any miss (reported on stderr). */
static double median_solve_us(rs_ipopt_solver *solver, floor_ctx *ctx, double a,
                              int expect_iterations, double *times, int solves)
{
    double *mult_g, *mult_x_l, *mult_x_u;
    rs_ipopt_multipliers(solver, &mult_g, &mult_x_l, &mult_x_u);
    ctx->a = a;
    for (int i = 0; i < solves; i++) {
        double x[2] = {1.0, 2.0};
        mult_g[0] = 0.0;
        mult_x_l[0] = mult_x_l[1] = mult_x_u[0] = mult_x_u[1] = 0.0;
        int iterations = -1;
        const double t0 = rs_wall_seconds();
        const rs_nlp_status st = rs_ipopt_solve(solver, x, 1, NULL, &iterations);
        times[i] = 1e6 * (rs_wall_seconds() - t0);
        if (st != RS_NLP_SOLVED || iterations != expect_iterations ||
            !(fabs(x[0] - a) <= 1e-8 && fabs(x[1] - 2.0) <= 1e-8)) {
            fprintf(stderr,
                    "ipopt_floor: a = %g: status %d, %d iterations (expected %d), x = (%.17g, "
                    "%.17g)\n",
                    a, (int)st, iterations, expect_iterations, x[0], x[1]);
            return -1.0;
        }
    }
    return bench_median(times, solves);
}

int main(int argc, char **argv)
{
    const int solves = argc > 1 ? atoi(argv[1]) : 2000;
    if (solves < 1 || solves > 1000000) {
        fprintf(stderr, "usage: ipopt_floor [SOLVES]   (1 .. 1000000)\n");
        return 2;
    }
    floor_ctx ctx = {1.0};
    const rs_nlp_problem p = {.n = 2,
                              .m = 1,
                              .natural_units = 1,
                              .ctx = &ctx,
                              .bounds = bounds,
                              .eval_f = eval_f,
                              .eval_grad_f = eval_grad_f,
                              .eval_g = eval_g,
                              .eval_jac = eval_jac,
                              .eval_hess = eval_hess};
    rs_ipopt_solver *solver = NULL;
    double *times = malloc(sizeof(double) * (size_t)solves);
    if (!times || rs_ipopt_create(&p, NULL, &solver) != RS_OK) {
        fprintf(stderr, "ipopt_floor: cannot create the solver\n");
        free(times);
        return 1;
    }
    const double t0 = median_solve_us(solver, &ctx, 1.0, 0, times, solves);
    const double t1 = t0 < 0.0 ? -1.0 : median_solve_us(solver, &ctx, 1.5, 1, times, solves);
    rs_ipopt_destroy(solver);
    free(times);
    if (t1 < 0.0)
        return 1;
    printf("%.1f %.1f\n", t0, t1);
    return 0;
}
