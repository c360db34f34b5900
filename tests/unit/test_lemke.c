/*
 * test_lemke.c: Lemke's method, judged by certificates recomputed from the returned z.
 *
 * Tolerances: a solve must pass the certificate at 1e-9 (relative to the problem's scales); for
 * classes with a unique solution (SPD, P-matrix) z must also match the generator's z* within
 * 1e-7 * max(1, ||z*||_inf). Sizes up to 8 take the small-problem path first (lemke_small.c,
 * judged against the general solve in test_lemke_small.c), larger sizes the general kernel; the
 * tests below cover both.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"

#define CERT_TOL 1e-9

/* Solve, then recompute the certificate independently of the solver's info. */
static rs_lemke_info solve_checked(int n, const double *M, const double *q, const double *d,
                                   const rs_lemke_settings *s, double *z, double *w)
{
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_alloc(n, M, q, d, s, z, w, &info, NULL), RS_OK);
    rs_lcp_certificate c = {.size = sizeof c};
    double *w2 = malloc(sizeof(double) * (size_t)n);
    assert_non_null(w2);
    assert_int_equal(rs_lcp_certificate_compute(n, M, q, z, CERT_TOL, w2, &c, NULL), RS_OK);
    for (int i = 0; i < n; i++)
        assert_close(w[i], w2[i], 0.0, 0.0); /* the returned w is exactly M z + q */
    free(w2);
    if (info.status == RS_LEMKE_SOLVED)
        assert_true(c.passed);
    assert_int_equal(info.cert.passed, c.passed);
    return info;
}

static void check_generated(rs_lcp_class cls, int n, uint64_t seed, int degenerate)
{
    rs_lcp *lcp;
    double *zs = malloc(sizeof(double) * (size_t)n), *z = malloc(sizeof(double) * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)n);
    assert_non_null(zs);
    assert_non_null(z);
    assert_non_null(w);
    assert_int_equal(rs_lcp_generate(cls, n, seed, degenerate, &lcp, zs, NULL, NULL), RS_OK);
    const rs_lemke_info info = solve_checked(n, lcp->M, lcp->q, NULL, NULL, z, w);
    if (info.status != RS_LEMKE_SOLVED)
        print_error("class %s n %d seed %llu degenerate %d: status %s after %d pivots\n",
                    rs_lcp_class_name(cls), n, (unsigned long long)seed, degenerate,
                    rs_lemke_status_name(info.status), info.pivots);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_true(info.cert.rel_natural_residual <= CERT_TOL);
    if (cls == RS_LCP_CLASS_SPD || cls == RS_LCP_CLASS_PMATRIX) {
        double scale = 1.0;
        for (int i = 0; i < n; i++)
            scale = fmax(scale, fabs(zs[i]));
        for (int i = 0; i < n; i++)
            assert_close(z[i], zs[i], 1e-7 * scale, 0.0);
    }
    rs_lcp_destroy(lcp);
    free(zs);
    free(z);
    free(w);
}

static void check_class(rs_lcp_class cls)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 10, 50, 200};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            for (int degenerate = 0; degenerate <= 1; degenerate++)
                check_generated(cls, sizes[k], seed, degenerate);
}

static void test_generated_spd(void **state) { (void)state; check_class(RS_LCP_CLASS_SPD); }
static void test_generated_pmatrix(void **state) { (void)state; check_class(RS_LCP_CLASS_PMATRIX); }
static void test_generated_psd(void **state) { (void)state; check_class(RS_LCP_CLASS_PSD); }
static void test_generated_friction(void **state) { (void)state; check_class(RS_LCP_CLASS_FRICTION); }

static void test_friction_many_seeds_at_48(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 140; seed++)
        check_generated(RS_LCP_CLASS_FRICTION, 48, seed, (int)(seed & 1));
}

/* Murty's example: M upper triangular, 1 on the diagonal, 2 above; q_i = -(2^(n+1) - 2^i),
 * i = 1..n. Lemke with covering vector e takes 2^n - 1 pivots; the solution is z = 2^n e_n. */
static void test_murty_exponential(void **state)
{
    (void)state;
    for (int n = 1; n <= 12; n++) {
        double *M = calloc((size_t)n * n, sizeof(double)), *q = malloc(sizeof(double) * n);
        double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < j; i++)
                M[i + (size_t)j * n] = 2.0;
            M[j + (size_t)j * n] = 1.0;
            q[j] = -(ldexp(1.0, n + 1) - ldexp(1.0, j + 1));
        }
        rs_lemke_settings s;
        rs_lemke_settings_default(&s);
        s.max_pivots = 1 << 14;
        const rs_lemke_info info = solve_checked(n, M, q, NULL, &s, z, w);
        assert_int_equal(info.status, RS_LEMKE_SOLVED);
        assert_int_equal(info.pivots, (1 << n) - 1);
        for (int i = 0; i < n - 1; i++)
            assert_close(z[i], 0.0, 0.0, 0.0);
        assert_close(z[n - 1], ldexp(1.0, n), 0.0, 1e-15);
        free(M);
        free(q);
        free(z);
        free(w);
    }
}

/* Murty's example of size n (2^n - 1 pivots) stopped after `limit` pivots. */
static void check_pivot_limit(int n, int limit)
{
    double M[8 * 8] = {0}, q[8], z[8], w[8];
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < j; i++)
            M[i + j * n] = 2.0;
        M[j + j * n] = 1.0;
        q[j] = -(ldexp(1.0, n + 1) - ldexp(1.0, j + 1));
    }
    rs_lemke_settings s;
    rs_lemke_settings_default(&s);
    s.max_pivots = limit;
    const rs_lemke_info info = solve_checked(n, M, q, NULL, &s, z, w);
    assert_int_equal(info.status, RS_LEMKE_MAX_PIVOTS);
    assert_int_equal(info.pivots, limit);
    assert_false(info.cert.passed);
}

/* At n = 3 through the kernel compiled for a constant n, at n = 8 through the general one. */
static void test_pivot_limit(void **state)
{
    (void)state;
    check_pivot_limit(3, 3);
    check_pivot_limit(8, 10);
}

static void test_q_nonnegative_is_zero_pivots(void **state)
{
    (void)state;
    const double M[4] = {1, 2, 3, 4}, q[2] = {0.0, 5.0};
    double z[2] = {7, 7}, w[2];
    const rs_lemke_info info = solve_checked(2, M, q, NULL, NULL, z, w);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.pivots, 0);
    assert_close(z[0], 0.0, 0.0, 0.0);
    assert_close(z[1], 0.0, 0.0, 0.0);
    assert_close(w[1], 5.0, 0.0, 0.0);
}

/* Degenerate ties: every ratio is tied at the first pivot. */
static void test_degenerate_ties(void **state)
{
    (void)state;
    /* M = I, q = -e: z = e. */
    enum { n = 6 };
    double I[n * n] = {0}, q[n], z[n], w[n];
    for (int i = 0; i < n; i++) {
        I[i + i * n] = 1.0;
        q[i] = -1.0;
    }
    rs_lemke_info info = solve_checked(n, I, q, NULL, NULL, z, w);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    for (int i = 0; i < n; i++)
        assert_close(z[i], 1.0, 1e-15, 0.0);
    /* Cyclic M = [[1,2,0],[0,1,2],[2,0,1]], q = -e: z = e/3, every w_i = 0 (fully degenerate). */
    const double C[9] = {1, 0, 2, 2, 1, 0, 0, 2, 1}, qc[3] = {-1, -1, -1};
    double zc[3], wc[3];
    info = solve_checked(3, C, qc, NULL, NULL, zc, wc);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    for (int i = 0; i < 3; i++)
        assert_close(zc[i], 1.0 / 3.0, 1e-15, 0.0);
    /* All-ones plus identity with ties and a zero entry in q: z = (1/4)(1,1,1,0)? check cert. */
    const double J[16] = {2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2};
    const double qj[4] = {-1, -1, -1, 0};
    double zj[4], wj[4];
    info = solve_checked(4, J, qj, NULL, NULL, zj, wj);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_close(zj[0], 0.25, 1e-15, 0.0);
    assert_close(zj[3], 0.0, 0.0, 0.0);
    assert_close(wj[3], 0.75, 1e-15, 0.0);
}

/* A covering vector d other than e: the same (unique) solution, for every kernel instance. */
static void test_covering_vector(void **state)
{
    (void)state;
    static const int sizes[] = {1, 2, 3, 4, 5, 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int n = sizes[k];
        rs_lcp *lcp;
        double zs[20], z[20], w[20], d[20];
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, n, 7, 0, &lcp, zs, NULL, NULL), RS_OK);
        for (int i = 0; i < n; i++)
            d[i] = 0.5 + 0.1 * i;
        const rs_lemke_info info = solve_checked(n, lcp->M, lcp->q, d, NULL, z, w);
        assert_int_equal(info.status, RS_LEMKE_SOLVED);
        for (int i = 0; i < n; i++)
            assert_close(z[i], zs[i], 1e-9, 0.0);
        rs_lcp_destroy(lcp);
    }
}

static void test_refinement_settings(void **state)
{
    (void)state;
    rs_lcp *lcp;
    enum { n = 50 };
    double z[n], w[n];
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_PMATRIX, n, 3, 0, &lcp, NULL, NULL, NULL), RS_OK);
    rs_lemke_settings s;
    rs_lemke_settings_default(&s);
    for (int refine = 0; refine <= 2; refine++) {
        s.refine = refine;
        const rs_lemke_info info = solve_checked(n, lcp->M, lcp->q, NULL, &s, z, w);
        assert_int_equal(info.status, RS_LEMKE_SOLVED);
        if (refine == 0)
            assert_int_equal(info.refined, 0);
        if (refine == 1) /* the pivoted answer passes here: no re-solve needed */
            assert_int_equal(info.refined, 0);
        assert_true(info.cert.rel_natural_residual <= 1e-12);
    }
    rs_lcp_destroy(lcp);
}

/* Warm start: the right basis gives the answer with 0 pivots; any wrong guess falls back to the
 * cold solve and still solves; the guess is required. */
/* A warm start at size n (<= 30) from the cold solution's basis (no pivot, the same z) and from
 * the opposite guess (the cold solve itself), on the first generated P-matrix LCP that needs
 * pivots. Sizes 2 to 4 run the guess compiled for a constant n, 30 the general code. */
static void check_warm_start(int n)
{
    rs_lcp *lcp = NULL;
    double zc[30], wc[30], z[30], w[30];
    rs_lemke_info cold = {.size = sizeof cold};
    for (uint64_t seed = 17; seed < 40 && cold.pivots == 0; seed++) {
        rs_lcp_destroy(lcp);
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_PMATRIX, n, seed, 0, &lcp, NULL, NULL, NULL), RS_OK);
        cold = solve_checked(n, lcp->M, lcp->q, NULL, NULL, zc, wc);
        assert_int_equal(cold.status, RS_LEMKE_SOLVED);
    }
    assert_true(cold.pivots > 0);
    unsigned char right[30], wrong[30];
    for (int i = 0; i < n; i++) {
        right[i] = zc[i] > wc[i];
        wrong[i] = (unsigned char)!right[i];
    }
    const size_t bytes = rs_lemke_workspace_size(n);
    void *work = malloc(bytes);
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_warm(n, lcp->M, lcp->q, NULL, NULL, right, work, bytes, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.warm_started, 1);
    assert_int_equal(info.pivots, 0);
    for (int i = 0; i < n; i++)
        assert_close(z[i], zc[i], 1e-12, 1e-12);
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(n, lcp->M, lcp->q, z, CERT_TOL, NULL, &c, NULL), RS_OK);
    assert_true(c.passed);
    assert_int_equal(rs_lemke_solve_warm(n, lcp->M, lcp->q, NULL, NULL, wrong, work, bytes, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.warm_started, 0);
    assert_int_equal(info.pivots, cold.pivots); /* the fallback is the cold solve itself */
    for (int i = 0; i < n; i++)
        assert_close(z[i], zc[i], 1e-12, 1e-12);
    assert_int_equal(rs_lemke_solve_warm(n, lcp->M, lcp->q, NULL, NULL, NULL, work, bytes, z, w, &info, NULL),
                     RS_ERR_NULL_ARG);
    free(work);
    rs_lcp_destroy(lcp);
}

static void test_warm_start_from_a_basis(void **state)
{
    (void)state;
    static const int sizes[] = {2, 3, 4, 30};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        check_warm_start(sizes[k]);
    /* an infeasible LCP with a guess: the fallback reports ray termination as the cold solve does */
    const double Mi[9] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, qi[3] = {-1e-4, -1, 1};
    const unsigned char g3[3] = {1, 0, 1};
    double z3[3], w3[3];
    const size_t bytes = rs_lemke_workspace_size(3);
    void *work = malloc(bytes);
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_warm(3, Mi, qi, NULL, NULL, g3, work, bytes, z3, w3, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);
    free(work);
}

/* The step LCP of point2d at rest pushed by 1e-6 N (a capsule of compare, step 1020): the
 * previous step's basis gives the friction impulse z_3 = -1e-6 N of a 98.1 N normal one, which
 * passes the relative certificate. A warm basis is taken only when it is feasible to rounding:
 * here the cold solve runs, and its friction holds the push. */
static void test_warm_basis_feasible_to_rounding_only(void **state)
{
    (void)state;
    const double M[16] = {1e-4, 0, 0, 0,   0, 1e-4, -1e-4, 1,   0, -1e-4, 1e-4, 1,
                          0.10000000000000001, -1, -1, 0}; /* column-major */
    const double q[4] = {-0.0098099999998528514, -9.9849277909261434e-11,
                         9.9849277909261434e-11, 0};
    const unsigned char previous[4] = {1, 0, 1, 0};
    const size_t bytes = rs_lemke_workspace_size(4);
    void *work = malloc(bytes);
    double z[4], w[4], zc[4], wc[4];
    rs_lemke_info info = {.size = sizeof info}, cold = {.size = sizeof cold};
    assert_int_equal(rs_lemke_solve_warm(4, M, q, NULL, NULL, previous, work, bytes, z, w, &info, NULL),
                     RS_OK);
    assert_int_equal(rs_lemke_solve(4, M, q, NULL, NULL, work, bytes, zc, wc, &cold, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.warm_started, 0); /* the guess was refused */
    assert_memory_equal(z, zc, sizeof z);
    for (int i = 0; i < 4; i++)
        assert_true(z[i] >= 0.0 && w[i] >= -1e-15 && fabs(z[i] * w[i]) <= 1e-18);
    /* the friction impulse holds the push: z_2 - z_3 = -q_2 / 1e-4, to the rounding of a solve
     * whose largest unknown is the normal impulse z_1 */
    assert_close(z[1] - z[2], -q[1] / 1e-4, 1e-15 * z[0], 0.0);
    free(work);
}

/* Rows and columns of very different sizes: M = [[1e-13, 0], [0.1, 0]] (rows), q = (-9.81e-12,
 * 0), solved by z = (98.1, 0) (Siconos's Lemke finds it). The one blocking entry of the problem
 * as given falls below the pivot tolerance and the path ends on a ray at once; the problem
 * balanced (S M S, S q) is solved, and its answer passes the certificate of the problem as
 * given. The step LCP of point2d sliding on the ground with dt = 1e-12 s likewise. */
static void test_unbalanced_problem_is_solved(void **state)
{
    (void)state;
    const double M[4] = {1e-13, 0.1, 0, 0}, q[2] = {-9.81e-12, 0};
    double z[4], w[4];
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.equilibrated, 1);
    assert_true(info.cert.passed);
    assert_close(z[0], 98.1, 0.0, 1e-15);
    assert_close(z[1], 0.0, 0.0, 0.0);
    const double M4[16] = {1e-13, 0, 0, 0.1, 0, 1e-13, -1e-13, -1, /* column-major */
                           0, -1e-13, 1e-13, -1, 0, 1, 1, 0};
    const double q4[4] = {-9.8099999999999996e-12, 1, -1, 0};
    assert_int_equal(rs_lemke_solve_alloc(4, M4, q4, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    /* normal impulse m g (in its force units), friction mu m g against the motion, slip 1 m/s */
    assert_close(z[0], 98.1, 0.0, 1e-15);
    assert_close(z[1], 0.0, 0.0, 0.0);
    assert_close(z[2], 9.81, 0.0, 1e-15);
    assert_close(z[3], 1.0 - 9.81e-13, 0.0, 1e-15);
    /* an infeasible problem stays a ray, balanced or not */
    const double Mi[4] = {1e-13, 0.1, -1, 0}, qi[2] = {-1, -1};
    assert_int_equal(rs_lemke_solve_alloc(2, Mi, qi, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);
}

/* A q whose entries span 1e12 is solved: the generated P-matrix LCP (n = 4, seed 3) with
 * q_i += (1e12 - 1) w*_i on its two separating rows has the same solution z*, but at unit
 * scale the rows to push sit near 1e-12, where the ratio test's ties (floor 1) cannot tell their
 * ratios apart: the problem as given, balanced and with another covering vector all took a
 * wrong pivot and failed the certificate (breakdown; the single-unit certificate had passed the
 * first as solved, w_4 = -0.22 of its row). Its rows scaled with q solve it exactly
 * (equilibrated = 2), as an outside review found. */
static void test_wide_q_is_solved_with_rows_scaled(void **state)
{
    (void)state;
    const double M[16] = {0x1.75eef17ed9b1fp+3, 0x1.5a3d442b1db65p+0, 0x1.6bd242252f141p-4,
                          0x1.c9ae00da9ef4p-3,  0x1.50ecde5406063p+2, 0x1.2bbffcae411e2p+1,
                          0x1.590b89914f646p-2, -0x1.2e08ff2b239bp-1, 0x1.6278c2e48ebc8p+1,
                          -0x1.d5aa174fd521p-3, 0x1.c613250639ee5p-1, -0x1.61bbe7ca4a3a5p-5,
                          -0x1.0c3925cf15b22p+0, 0x1.333e0e4f4ed8p+0, 0x1.87767b9136e85p-6,
                          0x1.481340f921e35p+0};
    const double q[4] = {-0x1.8d25179664fdcp+3, 0x1.25c7a58bcec21p+38, -0x1.8d49649ab6bebp-1,
                         0x1.0000d0fc77a6dp+40};
    const double solution[4] = {0x1.c0421f989e432p-1, 0, 0x1.93128d7e2bbc1p-1, 0};
    double z[4], w[4];
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_alloc(4, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.equilibrated, 2);
    assert_true(info.cert.rel_natural_residual < 1e-15); /* measured 7.2e-17 */
    for (int i = 0; i < 4; i++)
        assert_close(z[i], solution[i], 1e-15, 0.0); /* measured: exact */
}

/* The same over a family: generated SPD and P-matrix LCPs (unique solutions; n = 3, 4, 6, 8,
 * 10 seeds each) with q_i += (f - 1) w*_i on their separating rows, f = 1e8, 1e12 and 1e16, are
 * solved to their known z*. At the start of this release, with one unit of w for every row, 4 to
 * 580 of 780 such LCPs per factor from 1e11 on were wrong answers reported as solved, and
 * breakdowns once the certificate refused them. */
static void test_wide_q_family_is_solved(void **state)
{
    (void)state;
    static const int sizes[] = {3, 4, 6, 8};
    static const double factors[] = {1e8, 1e12, 1e16};
    for (int c = 0; c < 2; c++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
            for (unsigned seed = 0; seed < 10; seed++)
                for (size_t f = 0; f < sizeof factors / sizeof *factors; f++) {
                    const int n = sizes[k];
                    rs_lcp *lcp = NULL;
                    double zstar[8], wstar[8], z[8], w[8];
                    const rs_lcp_class cls = c ? RS_LCP_CLASS_PMATRIX : RS_LCP_CLASS_SPD;
                    assert_int_equal(rs_lcp_generate(cls, n, seed, 0, &lcp, zstar, NULL, NULL), RS_OK);
                    rs_lcp_certificate star = {.size = sizeof star}; /* (for w* = M z* + q) */
                    assert_int_equal(rs_lcp_certificate_compute(n, lcp->M, lcp->q, zstar,
                                                                RS_LCP_CERT_TOL_DEFAULT, wstar,
                                                                &star, NULL),
                                     RS_OK);
                    for (int i = 0; i < n; i++)
                        if (zstar[i] == 0.0 && wstar[i] > 1e-6)
                            lcp->q[i] += (factors[f] - 1.0) * wstar[i];
                    rs_lemke_info info = {.size = sizeof info};
                    assert_int_equal(rs_lemke_solve_alloc(n, lcp->M, lcp->q, NULL, NULL, z, w, &info, NULL),
                                     RS_OK);
                    assert_int_equal(info.status, RS_LEMKE_SOLVED);
                    double err = 0.0, size = 0.0;
                    for (int i = 0; i < n; i++) {
                        err = fmax(err, fabs(z[i] - zstar[i]));
                        size = fmax(size, fabs(zstar[i]));
                    }
                    assert_true(err <= 1e-12 * size); /* measured: at most a few ulp */
                    rs_lcp_destroy(lcp);
                }
}

/* Lemke's answer to the step LCP in tests/data/NAME (size n), judged here by its certificate
 * recomputed from (M, q, z) alone, and z >= 0; returns its info, and z in z_out unless NULL. */
static rs_lemke_info solve_data_step(const char *name, int n, double *z_out)
{
    char path[512];
    snprintf(path, sizeof path, RS_SOURCE_DIR "/tests/data/%s", name);
    rs_lcp *lcp;
    rs_error_detail detail;
    assert_int_equal(rs_lcp_read_file(path, &lcp, &detail), RS_OK);
    assert_int_equal(lcp->n, n);
    double *z = malloc(sizeof(double) * 3 * (size_t)n), *w = z + n, *w2 = w + n;
    assert_non_null(z);
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_alloc(n, lcp->M, lcp->q, NULL, NULL, z, w, &info, NULL), RS_OK);
    rs_lcp_certificate cert = {.size = sizeof cert};
    assert_int_equal(
        rs_lcp_certificate_compute(n, lcp->M, lcp->q, z, RS_LCP_CERT_TOL_DEFAULT, w2, &cert, NULL), RS_OK);
    assert_true(cert.passed);
    for (int i = 0; i < n; i++)
        assert_true(z[i] >= 0.0);
    if (z_out)
        memcpy(z_out, z, sizeof(double) * (size_t)n);
    free(z);
    rs_lcp_destroy(lcp);
    return info;
}

/* A step LCP of a 64-box pile (tests/data/pile64_step60.dat: the bodies model, Stewart-Trinkle,
 * n = 168, written from step 60 of the 64-box pile of tests/bench/pile_bench.c): its
 * faces on faces make the contact rows dependent, and the path of the covering vector e meets a
 * tie that rounding resolves onto a ray (84 pivots; the problem balanced fails too). Another
 * covering vector's path solves it; Siconos's lexicographic Lemke reports success there with a
 * violation of 4e-6 and complementarity of 4e-5. The answer's certificate is recomputed here. */
static void test_degenerate_contact_lcp_needs_another_covering_vector(void **state)
{
    (void)state;
    const rs_lemke_info info = solve_data_step("pile64_step60.dat", 168, NULL);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.covering_changed, 1);
    assert_int_equal(info.equilibrated, 0);
}

/* A path that cycles is caught and the next attempt runs: step 155 of the 64-box pile above
 * (tests/data/pile64_step155.dat, n = 680). With the lexicographic rule's tie tolerance the path
 * of e repeats a basis and ran to the pivot limit, 78,000 pivots, leaving nothing for the other
 * attempts: the step failed. The repeated basis now ends that path (a breakdown), and another
 * covering vector solves the step: 3,528 pivots in all. */
static void test_cycling_path_is_caught(void **state)
{
    (void)state;
    const rs_lemke_info info = solve_data_step("pile64_step155.dat", 680, NULL);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.covering_changed, 1);
    assert_true(info.pivots < 5000); /* measured 3,528 */
}

/* The step LCPs of a 1e6 kg disc resting on a 1 kg box on the ground (mu = 0.5, dt = 1e-2 s:
 * tests/data/heavy_disc_step168.dat and _step380.dat, n = 12, written by `relaxsim compare
 * --capsule` from the scene of test_bodies' test_heavy_disc_on_a_light_box run for 500 steps).
 * Rows of three contacts, 4 each (normal, two tangents, the friction slack): the disc on the box,
 * then the box's two corners on the ground. The disc's weight passes through the box, so the
 * box's rows are sums of about 2e5 m/s that cancel to g dt = 0.1 m/s. Closed form at rest: the
 * disc's contact carries its weight, m g = 9.81e6 N, the ground both weights. */
static void expect_heavy_disc_loads(const double *z)
{
    const double g = 9.81, m_disc = 1e6, m_box = 1.0;
    assert_true(fabs(z[0] - m_disc * g) <= 1e-9 * m_disc * g);
    assert_true(fabs(z[4] + z[8] - (m_disc + m_box) * g) <= 1e-9 * (m_disc + m_box) * g);
}

/* Each path ends on a basis whose basic values, re-solved, missed a cone row of the box (step
 * 168: by 4e-4 N, 1.7e-10 of its normal force; step 380: by 3.5e-5 N, its velocity rows by
 * 5.7e-7 m/s): both were breakdowns. Refined (lemke_refine's iterative refinement), each basis
 * solves its step. */
static void test_heavy_load_basis_is_refined(void **state)
{
    (void)state;
    const char *steps[] = {"heavy_disc_step168.dat", "heavy_disc_step380.dat"};
    for (int k = 0; k < 2; k++) {
        double z[12];
        const rs_lemke_info info = solve_data_step(steps[k], 12, z);
        assert_int_equal(info.status, RS_LEMKE_SOLVED);
        assert_int_equal(info.refined, 1);
        expect_heavy_disc_loads(z);
    }
}

/* A 1e6 kg box resting on a 1 kg box on the ground (mu = 0.5, dt = 1e-2 s), the step LCP of
 * its step 3 (tests/data/box_on_box_step3.dat, n = 16, written by `relaxsim compare` with the
 * scene of test_bodies' test_heavy_body_on_a_light_one): rows of four contacts, the top box's two
 * corners on the box, then the box's two on the ground. The paths of e, of the problem balanced
 * and of the first other covering vector end on a vertex that rounding puts outside the
 * certificate (a breakdown after 51 pivots); a later covering vector's path solves it. Closed
 * form at rest: the interface carries the top box's weight, the ground both weights, and the
 * answer's rows hold in the problem's own unit (lemke_rows_in_own_unit). */
static void test_box_on_a_light_box_needs_a_later_covering_vector(void **state)
{
    (void)state;
    double z[16];
    const rs_lemke_info info = solve_data_step("box_on_box_step3.dat", 16, z);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.covering_changed, 1);
    const double g = 9.81, m_top = 1e6, m_low = 1.0;
    /* each contact's 4 rows: normal, two tangents, the friction slack */
    assert_true(fabs(z[0] + z[4] - m_top * g) <= 1e-9 * m_top * g);
    assert_true(fabs(z[8] + z[12] - (m_top + m_low) * g) <= 1e-9 * (m_top + m_low) * g);
}

/* A friction problem (n = 48, seed 1001) whose pivoting ends on a ray with z0 already at 0: the
 * z it ends with passes its certificate, and the status says solved. */
static void test_certified_end_of_a_ray_is_solved(void **state)
{
    (void)state;
    rs_lcp *l;
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_FRICTION, 48, 1001, 0, &l, NULL, NULL, NULL), RS_OK);
    const size_t bytes = rs_lemke_workspace_size(48);
    void *work = malloc(bytes);
    double z[48], w[48];
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve(48, l->M, l->q, NULL, NULL, work, bytes, z, w, &info, NULL), RS_OK);
    rs_lcp_certificate cert = {.size = sizeof cert};
    rs_lcp_certificate_compute(48, l->M, l->q, z, RS_LCP_CERT_TOL_DEFAULT, NULL, &cert, NULL);
    assert_true(cert.passed);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    free(work);
    rs_lcp_destroy(l);
}

/* No solution: w_1 = -z_2 - z_3 - 1e-4 < 0 for every z >= 0. */
static void test_infeasible_is_ray_termination(void **state)
{
    (void)state;
    const double M[9] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, q[3] = {-1e-4, -1, 1};
    double z[3], w[3];
    const rs_lemke_info info = solve_checked(3, M, q, NULL, NULL, z, w);
    assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);
    assert_false(info.cert.passed);
}

/* Unit scaling that would push an entry below the normal range keeps the problem as given: M = I,
 * q = (1e300, -1e-300) is solved by z = (0, 1e-300) exactly, in one pivot (scaled to unit size,
 * 1e-300 / 2^997 would be lost). */
static void test_scaling_that_would_lose_an_entry_is_skipped(void **state)
{
    (void)state;
    const double M[4] = {1, 0, 0, 1}, q[2] = {1e300, -1e-300};
    double z[2], w[2];
    const rs_lemke_info info = solve_checked(2, M, q, NULL, NULL, z, w);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.pivots, 1);
    assert_true(z[0] == 0.0 && z[1] == 1e-300);
}

/* A zero pattern that no diagonal scaling balances, entries 2^-932 to 2^407 apart: the
 * certificate's equilibration drives its factors apart until they stop at the normal range's
 * ends (before, D overflowed to inf and C to 0, the certificate came out NaN and the exact answer
 * z = (0, 2^-406 / 1.5) was a breakdown). */
static void test_unbalanceable_matrix_is_certified(void **state)
{
    (void)state;
    const double M[4] = {0, 0x1p-544, 0x1p-932, 0x1.8p406}, q[2] = {1, -1};
    double z[2], w[2];
    const rs_lemke_info info = solve_checked(2, M, q, NULL, NULL, z, w);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_true(info.cert.finite && info.cert.passed);
    assert_close(z[1], 0x1p-406 / 1.5, 0.0, 1e-15 * 0x1p-406);
    assert_true(z[0] == 0.0);
}

/* rs_lemke_solve_alloc keeps the workspace on the stack up to n = 15 and allocates above: on
 * either side of that edge it gives what rs_lemke_solve gives on a workspace of exactly the
 * size rs_lemke_workspace_size asks, bit for bit. */
static void test_alloc_matches_exact_workspace_at_the_stack_edge(void **state)
{
    (void)state;
    assert_true(rs_lemke_workspace_size(15) <= 8192 && rs_lemke_workspace_size(16) > 8192);
    for (int n = 15; n <= 16; n++) {
        rs_lcp *lcp;
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_FRICTION, n, 77, 0, &lcp, NULL, NULL, NULL), RS_OK);
        const size_t bytes = rs_lemke_workspace_size(n);
        void *work = malloc(bytes);
        double *z = malloc(sizeof(double) * 4 * (size_t)n), *w = z + n, *z2 = w + n, *w2 = z2 + n;
        assert_true(work && z);
        rs_lemke_info a = {.size = sizeof a}, b = {.size = sizeof b};
        assert_int_equal(rs_lemke_solve_alloc(n, lcp->M, lcp->q, NULL, NULL, z, w, &a, NULL), RS_OK);
        assert_int_equal(rs_lemke_solve(n, lcp->M, lcp->q, NULL, NULL, work, bytes, z2, w2, &b, NULL),
                         RS_OK);
        assert_int_equal(a.status, RS_LEMKE_SOLVED);
        assert_int_equal(a.pivots, b.pivots);
        assert_memory_equal(z, z2, sizeof(double) * (size_t)n);
        assert_memory_equal(w, w2, sizeof(double) * (size_t)n);
        free(work);
        free(z);
        rs_lcp_destroy(lcp);
    }
}

/*
 * Scale invariance: LCP(a M, b q) is solved by z b / a. With a, b powers of two Lemke works on
 * the same unit-scale problem, so z must come out bitwise scaled; with other factors (1e-12 to
 * 1e12) within 1e-12 of ||z||. Before the unit scaling, the tie tolerance's absolute floor chose
 * wrong pivots at q ~ 1e-10 and the floored certificate passed the wrong z.
 */
static void test_scale_invariance(void **state)
{
    (void)state;
    static const double factors[] = {0x1p-40, 0x1p40, 1e-12, 1e-6, 1e6, 1e12};
    const size_t nf = sizeof factors / sizeof factors[0];
    for (int n = 2; n <= 6; n++)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            rs_lcp *lcp;
            double zs[6], z[6], w[6], Ms[36], qs[6], zk[6], wk[6];
            assert_int_equal(
                rs_lcp_generate(RS_LCP_CLASS_PMATRIX, n, seed, (int)(seed % 2), &lcp, zs, NULL, NULL),
                RS_OK);
            assert_int_equal(solve_checked(n, lcp->M, lcp->q, NULL, NULL, z, w).status,
                             RS_LEMKE_SOLVED);
            double z_inf = 0.0;
            for (int i = 0; i < n; i++)
                z_inf = fmax(z_inf, fabs(z[i]));
            for (size_t ia = 0; ia < nf; ia++)
                for (size_t ib = 0; ib < nf; ib++) {
                    const double a = factors[ia], b = factors[ib];
                    for (int i = 0; i < n * n; i++)
                        Ms[i] = a * lcp->M[i];
                    for (int i = 0; i < n; i++)
                        qs[i] = b * lcp->q[i];
                    const rs_lemke_info info = solve_checked(n, Ms, qs, NULL, NULL, zk, wk);
                    assert_int_equal(info.status, RS_LEMKE_SOLVED);
                    const int exact = ia < 2 && ib < 2;
                    for (int i = 0; i < n; i++) {
                        const double back = zk[i] * a / b; /* powers of two: exact */
                        if (exact)
                            assert_true(back == z[i]);
                        else
                            assert_close(back, z[i], 1e-12 * z_inf, 0.0);
                    }
                }
            rs_lcp_destroy(lcp);
        }
}

/* An infeasible LCP at every scale: M = S [[2, -1, -1], [-1, 1, 0], [-1, 0, 1]] is positive
 * semidefinite with M e = 0, so e'w = e'q = -6 S < 0 for every z. Before the unit scaling, S =
 * 1e6 pivoted on a rounding residue (breakdown, z ~ 1e16) and S = 1e12 came out "solved". */
static void test_infeasible_at_every_scale_is_ray_termination(void **state)
{
    (void)state;
    static const double M0[9] = {2, -1, -1, -1, 1, 0, -1, 0, 1};
    static const double scales[] = {1e-12, 1e-6, 1.0, 1e3, 1e6, 1e9, 1e12};
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        double M[9], q[3], z[3], w[3];
        for (int i = 0; i < 9; i++)
            M[i] = scales[k] * M0[i];
        for (int i = 0; i < 3; i++)
            q[i] = -2.0 * scales[k];
        const rs_lemke_info info = solve_checked(3, M, q, NULL, NULL, z, w);
        assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);
        assert_false(info.cert.passed);
    }
}

static void test_bad_arguments_touch_nothing(void **state)
{
    (void)state;
    const double M[4] = {2, 1, 1, 2}, q[2] = {-1, -1};
    const double Mnan[4] = {2, NAN, 1, 2}, qinf[2] = {-1, INFINITY};
    const double dzero[2] = {1, 0}, dneg[2] = {1, -1}, dnan[2] = {1, NAN};
    double z[2] = {42, 42}, w[2] = {42, 42};
    rs_lemke_info info;
    memset(&info, 0x7b, sizeof info);
    info.size = sizeof info;
    const rs_lemke_info before = info;
    const size_t bytes = rs_lemke_workspace_size(2);
    double *work = malloc(bytes);
    assert_non_null(work);
    assert_int_equal(rs_lemke_solve(2, NULL, q, NULL, NULL, work, bytes, z, w, &info, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lemke_solve(2, M, NULL, NULL, NULL, work, bytes, z, w, &info, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, NULL, bytes, z, w, &info, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, work, bytes, NULL, w, &info, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, work, bytes, z, NULL, &info, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, work, bytes, z, w, NULL, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lemke_solve(0, M, q, NULL, NULL, work, bytes, z, w, &info, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lemke_solve(-1, M, q, NULL, NULL, work, bytes, z, w, &info, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lemke_solve(2, Mnan, q, NULL, NULL, work, bytes, z, w, &info, NULL), RS_ERR_NONFINITE);
    assert_int_equal(rs_lemke_solve(2, M, qinf, NULL, NULL, work, bytes, z, w, &info, NULL), RS_ERR_NONFINITE);
    assert_int_equal(rs_lemke_solve(2, M, q, dzero, NULL, work, bytes, z, w, &info, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_lemke_solve(2, M, q, dneg, NULL, work, bytes, z, w, &info, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_lemke_solve(2, M, q, dnan, NULL, work, bytes, z, w, &info, NULL), RS_ERR_NONFINITE);
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, work, bytes - 1, z, w, &info, NULL), RS_ERR_WORKSPACE);
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, (char *)work + 1, bytes, z, w, &info, NULL),
                     RS_ERR_WORKSPACE);
    rs_lemke_settings s;
    rs_lemke_settings_default(&s);
    s.cert_tol = NAN;
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, &s, work, bytes, z, w, &info, NULL), RS_ERR_BAD_SETTING);
    assert_int_equal(rs_lemke_solve_alloc(0, M, q, NULL, NULL, z, w, &info, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lemke_solve_alloc(2, NULL, q, NULL, NULL, z, w, &info, NULL), RS_ERR_NULL_ARG);
    assert_close(z[0], 42.0, 0.0, 0.0);
    assert_close(z[1], 42.0, 0.0, 0.0);
    assert_close(w[0], 42.0, 0.0, 0.0);
    assert_memory_equal(&info, &before, sizeof info);
    assert_int_equal(rs_lemke_workspace_size(0), 0);
    assert_int_equal(rs_lemke_workspace_size(-5), 0);
    assert_int_equal(rs_lemke_workspace_size(1000000), 0);
    free(work);
}

/* Every public function of the LCP, NLP and derivative headers that refuses says why through
 * its detail, and a struct whose size field is not this library's is refused (RS_ERR_BAD_SETTING,
 * naming it and both sizes) before anything is written. */
static void test_refusals_say_why_and_sizes_are_checked(void **state)
{
    (void)state;
    const double M[4] = {2, 1, 1, 2}, q[2] = {-1, -1}, zs[2] = {1.0 / 3, 1.0 / 3};
    double z[2], w[2], dz[2];
    rs_error_detail d;
    const size_t bytes = rs_lemke_workspace_size(2);
    double *work = malloc(bytes);
    assert_non_null(work);
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve(2, NULL, q, NULL, NULL, work, bytes, z, w, &info, &d),
                     RS_ERR_NULL_ARG);
    assert_non_null(strstr(d.message, "M is NULL"));
    assert_int_equal(rs_lemke_solve(2, M, q, NULL, NULL, work, bytes - 1, z, w, &info, &d),
                     RS_ERR_WORKSPACE);
    assert_non_null(strstr(d.message, "rs_lemke_workspace_size"));
    info.size = 3;
    assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "info->size = 3"));
    assert_non_null(strstr(d.message, "rs_lemke_info"));
    info.size = sizeof info;
    rs_lemke_settings s;
    rs_lemke_settings_default(&s);
    s.size = 1;
    assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, &s, z, w, &info, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_lemke_settings_default"));
    const char *field = NULL;
    assert_int_equal(rs_lemke_settings_validate(&s, &field), RS_ERR_BAD_SETTING);
    assert_string_equal(field, "size");
    rs_lemke_settings_default(&s);
    s.pivot_tol = -1;
    assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, &s, z, w, &info, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "settings->pivot_tol"));
    rs_lcp_certificate cert = {.size = 0};
    assert_int_equal(rs_lcp_certificate_compute(2, M, q, zs, 1e-9, NULL, &cert, &d),
                     RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_lcp_certificate"));
    cert.size = sizeof cert;
    assert_int_equal(rs_lcp_certificate_compute(2, M, q, zs, -1.0, NULL, &cert, &d),
                     RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "tol = -1"));
    rs_lcp_index_class cls[2];
    assert_int_equal(rs_lcp_classify(0, zs, zs, 0.0, cls, &d), RS_ERR_DIMENSION);
    assert_non_null(strstr(d.message, "n = 0"));
    rs_lcp_derivative_info di = {.size = sizeof di - 1};
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, zs, NULL, q, NULL, NULL, dz, &di, &d),
                     RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_lcp_derivative_info"));
    di.size = sizeof di;
    rs_lcp_derivative_settings ds;
    rs_lcp_derivative_settings_default(&ds);
    ds.rank_tol = 2.0;
    assert_int_equal(rs_lcp_jacobian_q(2, M, q, zs, &ds, work, &di, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "settings->rank_tol"));
    rs_lcp *lcp = NULL;
    assert_int_equal(rs_lcp_create(0, &lcp, &d), RS_ERR_DIMENSION);
    assert_non_null(strstr(d.message, "n = 0"));
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, 4, 1, 2, &lcp, NULL, NULL, &d),
                     RS_ERR_BAD_ARG);
    assert_non_null(strstr(d.message, "degenerate = 2"));
    rs_lcp_class c;
    assert_int_equal(rs_lcp_class_parse("spdd", &c, &d), RS_ERR_BAD_ARG);
    assert_non_null(strstr(d.message, "'spdd'"));
    rs_nlp_settings ns;
    rs_nlp_settings_default(&ns);
    rs_nlp_info ni = {.size = sizeof ni};
    cert.size = sizeof cert;
    ns.size = 0;
    assert_int_equal(rs_lcp_solve_relaxed(2, M, q, &ns, 1e-6, z, w, &cert, &ni, &d),
                     RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_nlp_settings_default"));
    ni.size = 0;
    assert_int_equal(rs_lcp_solve_relaxed(2, M, q, NULL, 1e-6, z, w, &cert, &ni, &d),
                     RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_nlp_info"));
    /* and with every size right, the same calls solve */
    ni.size = sizeof ni;
    assert_int_equal(rs_lcp_solve_relaxed(2, M, q, NULL, 1e-6, z, w, &cert, &ni, &d), RS_OK);
    assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info, &d), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_true(info.cert.size == sizeof info.cert);
    free(work);
}

static void test_settings_validation_names_field(void **state)
{
    (void)state;
    rs_lemke_settings s;
    const char *field = "unset";
    rs_lemke_settings_default(&s);
    assert_int_equal(rs_lemke_settings_validate(&s, &field), RS_OK);
    assert_null(field);
    static const char *const fields[] = {"max_pivots", "pivot_tol", "tie_tol", "cert_tol", "refine"};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        rs_lemke_settings_default(&s);
        switch (k) {
        case 0: s.max_pivots = -1; break;
        case 1: s.pivot_tol = 0.0; break;
        case 2: s.tie_tol = INFINITY; break;
        case 3: s.cert_tol = 1.0; break;
        default: s.refine = 3; break;
        }
        assert_int_equal(rs_lemke_settings_validate(&s, &field), RS_ERR_BAD_SETTING);
        assert_string_equal(field, fields[k]);
    }
    assert_int_equal(rs_lemke_settings_validate(NULL, &field), RS_ERR_NULL_ARG);
    rs_lemke_settings_default(NULL); /* no-op, no crash */
    assert_string_equal(rs_lemke_status_name(RS_LEMKE_RAY_TERMINATION), "ray_termination");
    assert_string_equal(rs_lemke_status_name(RS_LEMKE_MAX_PIVOTS), "max_pivots");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_spd),
        cmocka_unit_test(test_generated_pmatrix),
        cmocka_unit_test(test_generated_psd),
        cmocka_unit_test(test_generated_friction),
        cmocka_unit_test(test_friction_many_seeds_at_48),
        cmocka_unit_test(test_murty_exponential),
        cmocka_unit_test(test_pivot_limit),
        cmocka_unit_test(test_q_nonnegative_is_zero_pivots),
        cmocka_unit_test(test_degenerate_ties),
        cmocka_unit_test(test_covering_vector),
        cmocka_unit_test(test_refinement_settings),
        cmocka_unit_test(test_warm_start_from_a_basis),
        cmocka_unit_test(test_warm_basis_feasible_to_rounding_only),
        cmocka_unit_test(test_unbalanced_problem_is_solved),
        cmocka_unit_test(test_wide_q_is_solved_with_rows_scaled),
        cmocka_unit_test(test_wide_q_family_is_solved),
        cmocka_unit_test(test_degenerate_contact_lcp_needs_another_covering_vector),
        cmocka_unit_test(test_cycling_path_is_caught),
        cmocka_unit_test(test_heavy_load_basis_is_refined),
        cmocka_unit_test(test_box_on_a_light_box_needs_a_later_covering_vector),
        cmocka_unit_test(test_infeasible_is_ray_termination),
        cmocka_unit_test(test_infeasible_at_every_scale_is_ray_termination),
        cmocka_unit_test(test_scale_invariance),
        cmocka_unit_test(test_scaling_that_would_lose_an_entry_is_skipped),
        cmocka_unit_test(test_unbalanceable_matrix_is_certified),
        cmocka_unit_test(test_alloc_matches_exact_workspace_at_the_stack_edge),
        cmocka_unit_test(test_certified_end_of_a_ray_is_solved),
        cmocka_unit_test(test_bad_arguments_touch_nothing),
        cmocka_unit_test(test_settings_validation_names_field),
        cmocka_unit_test(test_refusals_say_why_and_sizes_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
