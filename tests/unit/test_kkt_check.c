/*
 * test_kkt_check.c: the KKT check of a candidate point (nlp/kkt_check.h) on problems whose
 * solutions are known in closed form: it must accept the solution, find the multipliers the
 * optimality conditions give, and refuse infeasible points, non-stationary points and points
 * whose only multipliers have the wrong sign. The polish (rs_kkt_polish) of IPOPT's answer to
 * an LCP's relaxation must return the LCP's solution itself, degenerate pairs included.
 */
#include "test_helpers.h"

#include "relaxsim/lcp_generate.h"
#include "nlp/ipopt_solver.h"
#include "nlp/kkt_check.h"
#include "nlp/lcp_relaxation.h"

/*
 * min (x0 - 2)^2 + (x1 + 1)^2  s.t.  x0 + x1 <= 1,  x >= 0.
 * Solution x = (1, 0): grad f = (-2, 2); x0 + x1 <= 1 is active with multiplier 2 (IPOPT sign:
 * + for an upper side) and x1 >= 0 with bound multiplier 4: (-2 + 2, 2 + 2 - 4) = 0.
 */
static void qp_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    x_l[0] = x_l[1] = 0.0;
    x_u[0] = x_u[1] = RS_NLP_INF;
    g_l[0] = -RS_NLP_INF;
    g_u[0] = 1.0;
}
static double qp_f(void *ctx, const double *x)
{
    (void)ctx;
    return (x[0] - 2) * (x[0] - 2) + (x[1] + 1) * (x[1] + 1);
}
static void qp_grad(void *ctx, const double *x, double *g)
{
    (void)ctx;
    g[0] = 2 * (x[0] - 2);
    g[1] = 2 * (x[1] + 1);
}
static void qp_g(void *ctx, const double *x, double *g)
{
    (void)ctx;
    g[0] = x[0] + x[1];
}
static void qp_jac(void *ctx, const double *x, double *J)
{
    (void)ctx;
    (void)x;
    J[0] = J[1] = 1.0;
}
static void qp_hess(void *ctx, const double *x, double of, const double *l, double *H)
{
    (void)ctx;
    (void)x;
    (void)l;
    H[0] = H[3] = 2 * of;
    H[1] = H[2] = 0.0;
}

static const rs_nlp_problem qp = {.n = 2, .m = 1, .bounds = qp_bounds, .eval_f = qp_f,
                                  .eval_grad_f = qp_grad, .eval_g = qp_g, .eval_jac = qp_jac,
                                  .eval_hess = qp_hess};

static void test_qp_solution_and_non_solutions(void **state)
{
    (void)state;
    rs_kkt_check *c;
    assert_int_equal(rs_kkt_check_create(&qp, &c), RS_OK);
    double mg[1], ml[2], mu[2];
    const double solution[2] = {1.0, 0.0};
    assert_true(rs_kkt_check_point(c, solution, 1e-10, 0, mg, ml, mu));
    assert_close(mg[0], 2.0, 1e-12, 0.0);
    assert_close(ml[0], 0.0, 1e-12, 0.0);
    assert_close(ml[1], 4.0, 1e-12, 0.0);
    assert_close(mu[0], 0.0, 0.0, 0.0);
    /* wrong multipliers given: the check falls back to its own and still accepts */
    mg[0] = 5.0;
    assert_true(rs_kkt_check_point(c, solution, 1e-10, 1, mg, ml, mu));
    assert_close(mg[0], 2.0, 1e-12, 0.0);
    const double infeasible[2] = {1.0 + 1e-8, 0.0};  /* x0 + x1 <= 1 violated by 1e-8 */
    const double not_stationary[2] = {0.5, 0.0};     /* feasible, the objective still falls */
    const double wrong_sign[2] = {0.0, 0.0};         /* would need a negative bound multiplier */
    const double off_by_tol[2] = {1.0 - 1e-7, 1e-7}; /* near the solution, not at it */
    assert_false(rs_kkt_check_point(c, infeasible, 1e-10, 0, mg, ml, mu));
    assert_false(rs_kkt_check_point(c, not_stationary, 1e-10, 0, mg, ml, mu));
    assert_false(rs_kkt_check_point(c, wrong_sign, 1e-10, 0, mg, ml, mu));
    assert_false(rs_kkt_check_point(c, off_by_tol, 1e-10, 0, mg, ml, mu));
    assert_true(rs_kkt_check_point(c, off_by_tol, 1e-6, 0, mg, ml, mu)); /* a looser tol */
    const double nan_point[2] = {NAN, 0.0};
    assert_false(rs_kkt_check_point(c, nan_point, 1e-10, 0, mg, ml, mu));
    rs_kkt_check_destroy(c);
}

/* min x s.t. x >= 0 and g(x) <= 1 with a g that is NaN everywhere: x = 0 with bound multiplier 1
 * would be a KKT point if g were ignored; a NaN constraint value must refuse it. */
static void nan_g_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    x_l[0] = 0.0;
    x_u[0] = RS_NLP_INF;
    g_l[0] = -RS_NLP_INF;
    g_u[0] = 1.0;
}
static double nan_g_f(void *ctx, const double *x)
{
    (void)ctx;
    return x[0];
}
static void nan_g_grad(void *ctx, const double *x, double *g)
{
    (void)ctx;
    (void)x;
    g[0] = 1.0;
}
static void nan_g_g(void *ctx, const double *x, double *g)
{
    (void)ctx;
    (void)x;
    g[0] = NAN;
}
static void nan_g_jac(void *ctx, const double *x, double *J)
{
    (void)ctx;
    (void)x;
    J[0] = 0.0;
}
static void nan_g_hess(void *ctx, const double *x, double of, const double *l, double *H)
{
    (void)ctx;
    (void)x;
    (void)of;
    (void)l;
    H[0] = 0.0;
}

/* Non-finite values never pass: a NaN constraint value (fmax dropped it and the point passed),
 * and NaN multipliers given with a solution (they passed and were kept as the warm start); the
 * check then computes its own, finite ones. */
static void test_nan_constraint_and_multipliers(void **state)
{
    (void)state;
    const rs_nlp_problem nan_g = {.n = 1,
                                  .m = 1,
                                  .bounds = nan_g_bounds,
                                  .eval_f = nan_g_f,
                                  .eval_grad_f = nan_g_grad,
                                  .eval_g = nan_g_g,
                                  .eval_jac = nan_g_jac,
                                  .eval_hess = nan_g_hess};
    rs_kkt_check *c;
    double mg[1], ml[2], mu[2];
    assert_int_equal(rs_kkt_check_create(&nan_g, &c), RS_OK);
    const double zero[1] = {0.0};
    assert_false(rs_kkt_check_point(c, zero, 1e-10, 0, mg, ml, mu));
    rs_kkt_check_destroy(c);

    assert_int_equal(rs_kkt_check_create(&qp, &c), RS_OK);
    const double solution[2] = {1.0, 0.0};
    mg[0] = NAN;
    ml[0] = ml[1] = NAN;
    mu[0] = mu[1] = 0.0;
    assert_true(rs_kkt_check_point(c, solution, 1e-10, 1, mg, ml, mu));
    assert_close(mg[0], 2.0, 1e-12, 0.0);
    assert_close(ml[1], 4.0, 1e-12, 0.0);
    rs_kkt_check_destroy(c);
}

/* r and p: the relaxation of lcp (n unknowns) as an NLP, with the default settings. */
static void relaxation_of(const rs_lcp *lcp, int n, rs_lcp_relaxation *r, rs_nlp_problem *p)
{
    r->n = n;
    r->M = lcp->M;
    r->q = lcp->q;
    rs_nlp_settings_default(&r->settings);
    rs_lcp_relaxation_problem(r, p);
}

/* The relaxation of an LCP at its known solution (z*, s = 0) is a KKT point of the relaxed
 * NLP, degenerate pairs included; a point off the solution is not. */
static void test_lcp_relaxation_at_known_solutions(void **state)
{
    (void)state;
    for (int degenerate = 0; degenerate <= 1; degenerate++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            const int n = 6;
            rs_lcp *lcp;
            double z[6], w[6], x[12], mg[12], ml[12], mu[12];
            assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, n, seed, degenerate, &lcp, z, w, NULL),
                             RS_OK);
            rs_lcp_relaxation r;
            rs_nlp_problem p;
            relaxation_of(lcp, n, &r, &p);
            rs_kkt_check *c;
            assert_int_equal(rs_kkt_check_create(&p, &c), RS_OK);
            for (int i = 0; i < n; i++) {
                x[i] = z[i];
                x[n + i] = 0.0;
            }
            assert_true(rs_kkt_check_point(c, x, 1e-10, 0, mg, ml, mu));
            for (int j = 0; j < 2 * n; j++) /* the signs of a minimum */
                assert_true(ml[j] >= 0.0 && mu[j] == 0.0);
            x[0] += 1e-3;
            assert_false(rs_kkt_check_point(c, x, 1e-10, 0, mg, ml, mu));
            rs_kkt_check_destroy(c);
            rs_lcp_destroy(lcp);
        }
}

/* IPOPT's answer to the relaxation of an SPD LCP with degenerate pairs (z*_i = w*_i = 0, the
 * solution unique) is interior: those pairs end near sqrt(IPOPT's final barrier parameter), far
 * above rounding. Polished, the answer is the solution: recomputed from z alone, w = M z + q, the
 * pairs hold to rounding and z is z* to 1e-12; the multipliers the polish writes pass the KKT
 * test as given, at a tolerance of 1e-14. */
static void test_polish_of_ipopt_answers(void **state)
{
    (void)state;
    enum { N = 8 };
    double worst_ipopt = 0.0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rs_lcp *lcp;
        double zs[N], ws[N], x[2 * N], xp[2 * N], mg[2 * N], ml[2 * N], mu[2 * N], w[N];
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, N, seed, 1, &lcp, zs, ws, NULL), RS_OK);
        rs_lcp_relaxation r;
        rs_nlp_problem p;
        relaxation_of(lcp, N, &r, &p);
        rs_ipopt_solver *ipopt;
        rs_kkt_check *c;
        assert_int_equal(rs_ipopt_create(&p, &r.settings, &ipopt), RS_OK);
        assert_int_equal(rs_kkt_check_create(&p, &c), RS_OK);
        rs_lcp_relaxation_guess(&r, 0.0, x);
        assert_true(rs_nlp_status_ok(rs_ipopt_solve(ipopt, x, 0, NULL, NULL)));
        for (int i = 0; i < N; i++)
            worst_ipopt = fmax(worst_ipopt, fabs(x[i] - zs[i]));
        assert_true(rs_kkt_polish(c, x, 1e-4, 1e-10, xp, mg, ml, mu));
        double scale = 1.0;
        for (int i = 0; i < N; i++)
            scale = fmax(scale, fabs(lcp->q[i]));
        for (int i = 0; i < N; i++) {
            double wi = lcp->q[i];
            for (int j = 0; j < N; j++)
                wi += lcp->M[i + (size_t)j * N] * xp[j];
            w[i] = wi;
            assert_true(xp[i] >= 0.0 && xp[N + i] == 0.0); /* z >= 0, every slack at 0 */
            assert_true(w[i] >= -1e-12 * scale);
            assert_true(fabs(xp[i] * w[i]) <= 1e-12 * scale * scale);
            assert_close(xp[i], zs[i], 1e-12, 1e-12);
        }
        assert_true(rs_kkt_check_point(c, xp, 1e-14, 1, mg, ml, mu));
        rs_kkt_check_destroy(c);
        rs_ipopt_destroy(ipopt);
        rs_lcp_destroy(lcp);
    }
    /* the polish has work to do: IPOPT's own answers are off by far more than its result */
    assert_true(worst_ipopt > 1e-8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qp_solution_and_non_solutions),
        cmocka_unit_test(test_nan_constraint_and_multipliers),
        cmocka_unit_test(test_lcp_relaxation_at_known_solutions),
        cmocka_unit_test(test_polish_of_ipopt_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
