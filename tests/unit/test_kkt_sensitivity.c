/*
 * test_kkt_sensitivity.c: NLP sensitivities by the KKT system and MUMPS
 * (nlp/kkt_sensitivity.h) on the relaxation of LCPs, against
 *   - central differences of IPOPT re-solves of the perturbed relaxation (h =
 * 1e-4, IPOPT tol 1e-12: the difference is good to about tol / h + h^2 = 1e-8;
 * accepted within 1e-6 of the largest entry);
 *   - the LCP's own derivative (lcp_derivative.h) at strictly complementary
 * solutions: the relaxed problem's solution approaches the LCP's as mu -> 0, so
 * must its derivative (1e-6);
 *   - at a floating index, the derivative lies between the LCP's two one-sided
 * derivatives (the barrier smooths the kink, it does not invent a slope); and a
 * singular KKT matrix reported as a status.
 */
#include "test_helpers.h"

#include <string.h>

#include "core/rng.h"
#include "nlp/ipopt_solver.h"
#include "nlp/kkt_sensitivity.h"
#include "nlp/lcp_relaxation.h"
#include "relaxsim/lcp.h"
#include "relaxsim/lcp_derivative.h"

#define N 4
#define TOL 1e-12
#define BARRIER_TOL 1e-9

typedef struct relaxed {
    double M[N * N], q[N];
    rs_lcp_relaxation r;
    rs_nlp_problem p;
    rs_ipopt_solver *ipopt;
} relaxed;

static void relaxed_init_tol(relaxed *s, double tol)
{
    s->r.n = N;
    s->r.M = s->M;
    s->r.q = s->q;
    rs_nlp_settings_default(&s->r.settings);
    s->r.settings.tol = tol;
    rs_lcp_relaxation_problem(&s->r, &s->p);
    assert_int_equal(rs_ipopt_create(&s->p, &s->r.settings, &s->ipopt), RS_OK);
}

static void relaxed_init(relaxed *s)
{
    relaxed_init_tol(s, TOL);
}

/* Solve the relaxation of (M, q) cold, or its barrier problem at barrier > 0; x
 * (2N) and the multipliers (copied out). */
static void relaxed_solve_at(relaxed *s, double barrier, double *x, double *mg, double *ml,
                             double *mu)
{
    rs_lcp_relaxation_guess(&s->r, 0.0, x);
    int ipopt_status, iterations;
    const rs_nlp_status st =
        barrier > 0.0
            ? rs_ipopt_solve_barrier(s->ipopt, x, 0, 0.1, barrier, &ipopt_status, &iterations)
            : rs_ipopt_solve(s->ipopt, x, 0, &ipopt_status, &iterations);
    /* at mu_target > 0, IPOPT 3.11 ends with Search_Direction_Becomes_Too_Small
     * (3) once the barrier problem is solved to rounding: accepted there (the
     * differences check the point) */
    const int barrier_done = barrier > 0.0 && ipopt_status == 3;
    if (st != RS_NLP_SOLVED && !barrier_done)
        print_error("IPOPT status %d\n", ipopt_status);
    assert_true(st == RS_NLP_SOLVED || barrier_done);
    double *g, *l, *u;
    rs_ipopt_multipliers(s->ipopt, &g, &l, &u);
    memcpy(mg, g, sizeof(double) * 2 * N);
    memcpy(ml, l, sizeof(double) * 2 * N);
    memcpy(mu, u, sizeof(double) * 2 * N);
}

/* The relaxation (barrier 0) or its barrier problem re-solved at (M0, q0) + h (dM, dq) into
 * xs[0] and at (M0, q0) - h (dM, dq) into xs[1]: a central difference's two sides. */
static void re_solve_both_sides(relaxed *s, double barrier, const double *M0, const double *q0,
                                const double *dM, const double *dq, double h, double xs[2][2 * N])
{
    double mg[2 * N], ml[2 * N], mu[2 * N];
    for (int side = 0; side < 2; side++) {
        const double t = side ? -h : h;
        for (int k = 0; k < N * N; k++)
            s->M[k] = M0[k] + t * dM[k];
        for (int i = 0; i < N; i++)
            s->q[i] = q0[i] + t * dq[i];
        relaxed_solve_at(s, barrier, xs[side], mg, ml, mu);
    }
}

/* A positive definite M = A A' + I and a q giving two clamping and two
 * separating indices, each far from its switch. */
static void draw_lcp(rs_rng *rng, double *M, double *q, double *dM, double *dq)
{
    double A[N * N];
    for (int k = 0; k < N * N; k++)
        A[k] = rs_rng_range(rng, -1.0, 1.0);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double v = i == j ? 1.0 : 0.0;
            for (int k = 0; k < N; k++)
                v += A[i + k * N] * A[j + k * N];
            M[i + j * N] = v;
        }
    for (int i = 0; i < N; i++)
        q[i] = i < 2 ? -rs_rng_range(rng, 1.0, 2.0) : rs_rng_range(rng, 5.0, 6.0);
    for (int k = 0; k < N * N; k++)
        dM[k] = rs_rng_range(rng, -1.0, 1.0);
    for (int i = 0; i < N; i++)
        dq[i] = rs_rng_range(rng, -1.0, 1.0);
}

/* The relaxation's sensitivity dx (2N) along (dM, dq) at its solution (barrier
 * 0: the central path at IPOPT's last mu, tol / 11) or at the barrier
 * problem's. */
static void sensitivity_at(relaxed *s, double barrier, const double *dM, const double *dq,
                           double *x, double *dx)
{
    double mg[2 * N], ml[2 * N], mu[2 * N], dgrad[2 * N], dg[2 * N];
    relaxed_solve_at(s, barrier, x, mg, ml, mu);
    rs_kkt_sensitivity *k;
    assert_int_equal(rs_kkt_sensitivity_create(&s->p, &k), RS_OK);
    rs_kkt_sensitivity_info info;
    const double path_mu = barrier > 0.0 ? barrier : TOL / 11.0;
    assert_int_equal(rs_kkt_sensitivity_factor(k, &s->p, x, mg, ml, mu, path_mu, &info),
                     RS_KKT_SENS_OK);
    rs_lcp_relaxation_param_derivative(&s->r, dM, dq, x, mg, dgrad, dg);
    assert_int_equal(rs_kkt_sensitivity_solve(k, 1, dgrad, dg, dx, NULL, &info), RS_KKT_SENS_OK);
    assert_true(info.residual <= 1e-12);
    rs_kkt_sensitivity_destroy(k);
}

static void sensitivity(relaxed *s, const double *dM, const double *dq, double *x, double *dx)
{
    sensitivity_at(s, 0.0, dM, dq, x, dx);
}

static double max_abs(const double *a, int n)
{
    double v = 0.0;
    for (int i = 0; i < n; i++)
        v = fmax(v, fabs(a[i]));
    return v;
}

static void test_relaxation_against_differences_and_lcp(void **state)
{
    (void)state;
    rs_rng rng;
    rs_rng_seed(&rng, 7);
    relaxed s;
    relaxed_init(&s);
    for (int draw = 0; draw < 10; draw++) {
        double M0[N * N], q0[N], dM[N * N], dq[N], x[2 * N], dx[2 * N];
        draw_lcp(&rng, M0, q0, dM, dq);
        memcpy(s.M, M0, sizeof M0);
        memcpy(s.q, q0, sizeof q0);
        sensitivity(&s, dM, dq, x, dx);

        /* central difference of IPOPT re-solves */
        const double h = 1e-4;
        double xs[2][2 * N];
        re_solve_both_sides(&s, 0.0, M0, q0, dM, dq, h, xs);
        const double scale = max_abs(dx, N);
        for (int i = 0; i < N; i++)
            assert_close(dx[i], (xs[0][i] - xs[1][i]) / (2 * h), 1e-6 * scale, 0.0);

        /* the LCP's derivative at Lemke's solution */
        double z[N], w[N], dz[N];
        rs_lemke_info li = {.size = sizeof li};
        assert_int_equal(rs_lemke_solve_alloc(N, M0, q0, NULL, NULL, z, w, &li, NULL), RS_OK);
        assert_int_equal(li.status, RS_LEMKE_SOLVED);
        rs_lcp_derivative_info di = {.size = sizeof di};
        assert_int_equal(rs_lcp_directional_derivative(N, M0, q0, z, dM, dq, NULL, NULL, dz, &di, NULL),
                         RS_OK);
        assert_int_equal(di.status, RS_LCP_DERIVATIVE_OK);
        assert_int_equal(di.nfloating, 0);
        for (int i = 0; i < N; i++)
            assert_close(dx[i], dz[i], 1e-6 * scale, 0.0);
    }
    rs_ipopt_destroy(s.ipopt);
}

/* M = I, q = (0, -1, 2, -3): index 0 floating (z0 = w0 = 0). Along dq = (-1, 0,
 * 0, 0), z0 grows at rate 1 to the right and stays 0 to the left: one-sided
 * derivatives 1 and 0, both from the LCP derivative (EXACT rule). The relaxed
 * derivative must lie between them (not at either end: the barrier smooths the
 * kink), and the indices away from it have the LCP's derivative 0. */
static void test_floating_index_between_one_sided(void **state)
{
    (void)state;
    relaxed s;
    relaxed_init(&s);
    double dM[N * N] = {0}, dq[N] = {-1.0, 0.0, 0.0, 0.0}, x[2 * N], dx[2 * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s.M[i + j * N] = i == j ? 1.0 : 0.0;
    const double q[N] = {0.0, -1.0, 2.0, -3.0};
    memcpy(s.q, q, sizeof q);
    sensitivity(&s, dM, dq, x, dx);

    const double z[N] = {0.0, 1.0, 0.0, 3.0};
    double right[N], left[N], minus_dq[N];
    for (int i = 0; i < N; i++)
        minus_dq[i] = -dq[i];
    rs_lcp_derivative_info di = {.size = sizeof di};
    assert_int_equal(rs_lcp_directional_derivative(N, s.M, q, z, NULL, dq, NULL, NULL, right, &di, NULL),
                     RS_OK);
    assert_int_equal(di.nfloating, 1);
    assert_int_equal(
        rs_lcp_directional_derivative(N, s.M, q, z, NULL, minus_dq, NULL, NULL, left, &di, NULL), RS_OK);
    assert_close(right[0], 1.0, 1e-12, 0.0);
    assert_close(-left[0], 0.0, 1e-12, 0.0); /* the left derivative along d: minus
                                                the right derivative along -d */
    assert_true(dx[0] > 1e-3 && dx[0] < 1.0 - 1e-3);
    for (int i = 1; i < N; i++)
        assert_close(dx[i], 0.0, 1e-8, 0.0);
    rs_ipopt_destroy(s.ipopt);
}

/* On the central path at a fixed mu = 1e-2 (IPOPT's barrier problem solved to
 * tol, mu_target), every term of the system matters (no constraint pins the
 * primal): the derivative against central differences of barrier re-solves, for
 * the variables z and s and for random LCPs and the floating one. A term
 * dropped from the right-hand side or from Sigma shows at 1e-3 or more. */
static void test_barrier_problem_against_differences(void **state)
{
    (void)state;
    rs_rng rng;
    rs_rng_seed(&rng, 11);
    relaxed s;
    relaxed_init_tol(&s, BARRIER_TOL);
    const double barrier = 1e-2, h = 1e-5;
    for (int draw = 0; draw < 6; draw++) {
        double M0[N * N], q0[N], dM[N * N], dq[N], x[2 * N], dx[2 * N];
        draw_lcp(&rng, M0, q0, dM, dq);
        if (draw == 0) /* the floating case of the test above */
            for (int i = 0; i < N; i++) {
                for (int j = 0; j < N; j++)
                    M0[i + j * N] = i == j ? 1.0 : 0.0;
                q0[i] = (double[]){0.0, -1.0, 2.0, -3.0}[i];
            }
        memcpy(s.M, M0, sizeof M0);
        memcpy(s.q, q0, sizeof q0);
        sensitivity_at(&s, barrier, dM, dq, x, dx);
        double xs[2][2 * N];
        re_solve_both_sides(&s, barrier, M0, q0, dM, dq, h, xs);
        const double scale = max_abs(dx, 2 * N);
        for (int i = 0; i < 2 * N; i++)
            assert_close(dx[i], (xs[0][i] - xs[1][i]) / (2 * h), 1e-6 * scale, 0.0);
    }
    rs_ipopt_destroy(s.ipopt);
}

/* min 0 s.t. 0 x0 = 0 with x0 >= -inf: W = 0, J = 0, an equality row: K = 0,
 * singular. */
static void sing_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    x_l[0] = -RS_NLP_INF;
    x_u[0] = RS_NLP_INF;
    g_l[0] = g_u[0] = 0.0;
}
static double sing_f(void *ctx, const double *x)
{
    (void)ctx;
    (void)x;
    return 0.0;
}
static void sing_zero(void *ctx, const double *x, double *out)
{
    (void)ctx;
    (void)x;
    out[0] = 0.0;
}
static void sing_hess(void *ctx, const double *x, double obj_factor, const double *lambda,
                      double *H)
{
    (void)ctx;
    (void)x;
    (void)obj_factor;
    (void)lambda;
    H[0] = 0.0;
}

static void test_singular_is_a_status(void **state)
{
    (void)state;
    rs_nlp_problem p = {.n = 1,
                        .m = 1,
                        .bounds = sing_bounds,
                        .eval_f = sing_f,
                        .eval_grad_f = sing_zero,
                        .eval_g = sing_zero,
                        .eval_jac = sing_zero,
                        .eval_hess = sing_hess};
    rs_kkt_sensitivity *k;
    assert_int_equal(rs_kkt_sensitivity_create(&p, &k), RS_OK);
    const double x[1] = {0.0}, mg[1] = {0.0}, ml[1] = {0.0}, mu[1] = {0.0};
    rs_kkt_sensitivity_info info;
    assert_int_equal(rs_kkt_sensitivity_factor(k, &p, x, mg, ml, mu, 1e-9, &info),
                     RS_KKT_SENS_SINGULAR);
    assert_int_equal(info.status, RS_KKT_SENS_SINGULAR);
    double dx[1];
    const double rhs[1] = {1.0};
    assert_int_equal(rs_kkt_sensitivity_solve(k, 1, rhs, rhs, dx, NULL, &info),
                     RS_KKT_SENS_FAILED); /* no solve after a failed factorisation */
    rs_kkt_sensitivity_destroy(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relaxation_against_differences_and_lcp),
        cmocka_unit_test(test_floating_index_between_one_sided),
        cmocka_unit_test(test_barrier_problem_against_differences),
        cmocka_unit_test(test_singular_is_a_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
