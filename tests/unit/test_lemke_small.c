/*
 * test_lemke_small.c: the small-problem path of Lemke's method (src/lcp/lemke_small.c), white
 * box: what it answers and what it leaves to the general solve.
 *
 * Its answers are judged against the general solve run on the same problem with refine = 2 (which
 * never takes the small path): the same status, the same number of pivots (the same path), z
 * within 1e-11 max(1, ||z_ref||_inf) (measured: 2e-13 at most over these 12,800 problems), and
 * the certificate recomputed from z passing at 1e-9. The degenerate problems make its ratio tests
 * tie: 208 lexicographic tie-breaks, and taking the last tied row in their place changes the
 * path of 13 of them, so the tie rule is judged too. With tie_tol = 0 (exact ties only) or a
 * covering vector spread over six orders of magnitude, rounding may take another path: there it
 * must answer at least 99% (measured 99.9% and 99.6%), every answer certified, and for the
 * classes with one solution z within 1e-7 of the general solve's (measured 4e-9; the previous
 * solve, unrefined as this path is, was 5.5e-9 off on the same problems).
 */
#include "test_helpers.h"

#include <fenv.h>
#include <string.h>

#include "relaxsim/relaxsim.h"
#include "lcp/lemke_internal.h"

#define CERT_TOL 1e-9

static rs_lemke_settings defaults(void)
{
    rs_lemke_settings s;
    rs_lemke_settings_default(&s);
    return s;
}

/* The small path on (M, q, d) with settings s; the general solve (refine = 2) as the reference.
 * same_path: the same pivots and z within 1e-11; else only z within 1e-7 where unique (an
 * SPD or P-matrix class). Returns whether the small path answered (it must when same_path). */
static int check_against(int n, const double *M, const double *q, const double *d,
                         rs_lemke_settings s, int same_path, int unique, const char *what)
{
    double z[RS_LEMKE_SMALL_MAX], w[RS_LEMKE_SMALL_MAX];
    double zr[RS_LEMKE_SMALL_MAX], wr[RS_LEMKE_SMALL_MAX];
    rs_lemke_info info = {.size = sizeof info}, ref = {.size = sizeof ref};
    const int answered = rs_lemke_small_solve(n, M, q, d, &s, z, w, &info);
    rs_lemke_settings general = s;
    general.refine = 2;
    assert_int_equal(rs_lemke_solve_alloc(n, M, q, d, &general, zr, wr, &ref, NULL), RS_OK);
    assert_int_equal(ref.status, RS_LEMKE_SOLVED);
    if (same_path && (answered != 1 || info.pivots != ref.pivots))
        print_error("%s: small path %d, %d pivots; general solve %s, %d pivots\n", what, answered,
                    answered == 1 ? info.pivots : -1, rs_lemke_status_name(ref.status),
                    ref.pivots);
    if (same_path)
        assert_int_equal(answered, 1);
    if (answered != 1)
        return 0;
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    if (same_path)
        assert_int_equal(info.pivots, ref.pivots);
    assert_int_equal(info.refined, 0);
    double scale = 1.0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fabs(zr[i]));
    if (same_path || unique)
        for (int i = 0; i < n; i++)
            assert_close(z[i], zr[i], (same_path ? 1e-11 : 1e-7) * scale, 0.0);
    rs_lcp_certificate c = {.size = sizeof c};
    double w2[RS_LEMKE_SMALL_MAX];
    assert_int_equal(rs_lcp_certificate_compute(n, M, q, z, CERT_TOL, w2, &c, NULL), RS_OK);
    assert_true(c.passed);
    assert_true(info.cert.passed);
    assert_close(info.cert.rel_natural_residual, c.rel_natural_residual, 0.0, 0.0);
    for (int i = 0; i < n; i++)
        assert_close(w[i], w2[i], 0.0, 0.0); /* w is exactly M z + q */
    return 1;
}

static void test_small_path_follows_the_general_path(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++)
        for (int n = 1; n <= RS_LEMKE_SMALL_MAX; n++)
            for (uint64_t seed = 1; seed <= 200; seed++)
                for (int degenerate = 0; degenerate <= 1; degenerate++) {
                    rs_lcp *lcp;
                    assert_int_equal(rs_lcp_generate((rs_lcp_class)c, n, seed, degenerate, &lcp,
                                                     NULL, NULL, NULL),
                                     RS_OK);
                    char what[96];
                    snprintf(what, sizeof what, "%s n %d seed %llu degenerate %d",
                             rs_lcp_class_name((rs_lcp_class)c), n, (unsigned long long)seed,
                             degenerate);
                    check_against(n, lcp->M, lcp->q, NULL, defaults(), 1, 0, what);
                    rs_lcp_destroy(lcp);
                }
}

/* Exact ties only (tie_tol = 0), and a covering vector from 1e-4 to 1e2: rounding may take
 * another path; the answers must still be right. */
static void test_small_path_where_rounding_may_choose(void **state)
{
    (void)state;
    for (int variant = 0; variant < 2; variant++) {
        int answered = 0, problems = 0;
        for (int c = 0; c < 4; c++)
            for (int n = 1; n <= RS_LEMKE_SMALL_MAX; n++)
                for (uint64_t seed = 1; seed <= 200; seed++)
                    for (int degenerate = 0; degenerate <= 1; degenerate++) {
                        rs_lcp *lcp;
                        assert_int_equal(rs_lcp_generate((rs_lcp_class)c, n, seed, degenerate,
                                                         &lcp, NULL, NULL, NULL),
                                         RS_OK);
                        rs_lemke_settings s = defaults();
                        double d[RS_LEMKE_SMALL_MAX];
                        for (int i = 0; i < n; i++)
                            d[i] = pow(10.0, (double)(((int)seed + 3 * i) % 7 - 4));
                        if (variant == 0)
                            s.tie_tol = 0.0;
                        answered += check_against(n, lcp->M, lcp->q, variant ? d : NULL, s, 0,
                                                  c == RS_LCP_CLASS_SPD ||
                                                      c == RS_LCP_CLASS_PMATRIX,
                                                  "rounding");
                        problems++;
                        rs_lcp_destroy(lcp);
                    }
        if (!(answered >= 0.99 * problems))
            print_error("variant %d: the small path answered %d of %d\n", variant, answered,
                        problems);
        assert_true(answered >= 0.99 * problems);
    }
}

/* No division by zero and no invalid operation: a caller may trap floating-point exceptions
 * (feenableexcept), and a zero entry of a column or an infinity in M must not stop it. */
static void test_small_path_raises_no_floating_point_exception(void **state)
{
    (void)state;
    const rs_lemke_settings s = defaults();
    double z[RS_LEMKE_SMALL_MAX], w[RS_LEMKE_SMALL_MAX];
    rs_lemke_info info = {.size = sizeof info};
    feclearexcept(FE_ALL_EXCEPT);
    for (int c = 0; c < 4; c++)
        for (int n = 1; n <= RS_LEMKE_SMALL_MAX; n++)
            for (uint64_t seed = 1; seed <= 20; seed++) {
                rs_lcp *lcp;
                assert_int_equal(rs_lcp_generate((rs_lcp_class)c, n, seed, 1, &lcp, NULL, NULL, NULL),
                                 RS_OK);
                assert_int_equal(rs_lemke_small_solve(n, lcp->M, lcp->q, NULL, &s, z, w, &info),
                                 1);
                rs_lcp_destroy(lcp);
            }
    const double sparse[4] = {12, 1, 4, 4}, q[2] = {-7, -8}; /* a column with a zero entry */
    assert_int_equal(rs_lemke_small_solve(2, sparse, q, NULL, &s, z, w, &info), 1);
    const double bad[4] = {2, 1, 1, INFINITY}, nan_q[2] = {-1, NAN};
    assert_int_equal(rs_lemke_small_solve(2, bad, q, NULL, &s, z, w, &info), -1);
    assert_int_equal(rs_lemke_small_solve(2, sparse, nan_q, NULL, &s, z, w, &info), -1);
    assert_false(fetestexcept(FE_DIVBYZERO | FE_INVALID));
}

/* A covering vector of the caller's: the first leaving row and the z0 column are its. */
static void test_small_path_with_a_covering_vector(void **state)
{
    (void)state;
    for (int n = 2; n <= RS_LEMKE_SMALL_MAX; n += 3)
        for (uint64_t seed = 1; seed <= 10; seed++) {
            rs_lcp *lcp;
            assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_PMATRIX, n, seed, 0, &lcp, NULL, NULL, NULL),
                             RS_OK);
            double d[RS_LEMKE_SMALL_MAX];
            for (int i = 0; i < n; i++)
                d[i] = 1.0 + 0.37 * i;
            check_against(n, lcp->M, lcp->q, d, defaults(), 1, 0, "covering vector");
            rs_lcp_destroy(lcp);
        }
}

/* The covering vector e given as an array runs the instances for a caller's d, and as NULL the
 * instances that hold d's unit scale 1/2 as a constant: the same numbers, so the same answer to
 * the bit (z, w, status, pivots, every certificate field), over every class, size and seed. */
static void test_small_path_e_given_or_null_is_one_solve(void **state)
{
    (void)state;
    const rs_lemke_settings s = defaults();
    const double e[RS_LEMKE_SMALL_MAX] = {1, 1, 1, 1, 1, 1, 1, 1};
    const rs_lcp_class classes[] = {RS_LCP_CLASS_SPD, RS_LCP_CLASS_PMATRIX, RS_LCP_CLASS_PSD,
                                    RS_LCP_CLASS_FRICTION};
    int answered = 0, problems = 0;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        for (int n = 1; n <= RS_LEMKE_SMALL_MAX; n++)
            for (uint64_t seed = 1; seed <= 25; seed++)
                for (int degenerate = 0; degenerate <= 1; degenerate++) {
                    rs_lcp *lcp;
                    assert_int_equal(
                        rs_lcp_generate(classes[c], n, seed, degenerate, &lcp, NULL, NULL, NULL), RS_OK);
                    double z[RS_LEMKE_SMALL_MAX], w[RS_LEMKE_SMALL_MAX];
                    double ze[RS_LEMKE_SMALL_MAX], we[RS_LEMKE_SMALL_MAX];
                    rs_lemke_info info = {.size = sizeof info}, info_e = {.size = sizeof info_e};
                    memset(&info, 0, sizeof info);
                    memset(&info_e, 0, sizeof info_e);
                    const int a = rs_lemke_small_solve(n, lcp->M, lcp->q, NULL, &s, z, w, &info);
                    const int b = rs_lemke_small_solve(n, lcp->M, lcp->q, e, &s, ze, we, &info_e);
                    assert_int_equal(a, b);
                    if (a == 1) {
                        assert_memory_equal(z, ze, sizeof(double) * (size_t)n);
                        assert_memory_equal(w, we, sizeof(double) * (size_t)n);
                        assert_memory_equal(&info, &info_e, sizeof info);
                        answered++;
                    }
                    problems++;
                    rs_lcp_destroy(lcp);
                }
    /* each problem is answered on this path (measured: 1,600 of 1,600), and at least 99% must
     * be for the comparison to say something */
    assert_int_equal(problems, 1600);
    assert_true(answered >= 99 * problems / 100);
}

/* What the small path does not answer, and the general solve does: a ray, a path longer than
 * the cycle watch starts at, the pivot limit, a scale that would lose an entry. */
static void test_small_path_leaves_the_rest_to_the_general_solve(void **state)
{
    (void)state;
    rs_lemke_settings s = defaults();
    double z[RS_LEMKE_SMALL_MAX], w[RS_LEMKE_SMALL_MAX];
    rs_lemke_info info = {.size = sizeof info};

    const double Mray[9] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, qray[3] = {-1e-4, -1, 1};
    assert_int_equal(rs_lemke_small_solve(3, Mray, qray, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(3, Mray, qray, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);

    /* Murty's problem at n = 6 takes 2^6 - 1 = 63 pivots, past LEMKE_WATCH_AFTER(6) = 40 */
    enum { N = 6 };
    double M[N * N] = {0}, q[N];
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < j; i++)
            M[i + j * N] = 2.0;
        M[j + j * N] = 1.0;
        q[j] = -(ldexp(1.0, N + 1) - ldexp(1.0, j + 1));
    }
    assert_int_equal(rs_lemke_small_solve(N, M, q, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(N, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.pivots, (1 << N) - 1);

    s.max_pivots = 5; /* the limit counts every pivot after z0 entered */
    assert_int_equal(rs_lemke_small_solve(N, M, q, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(N, M, q, NULL, &s, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_MAX_PIVOTS);
    s = defaults();

    /* the pivot limit at its edge: Murty's n = 3 takes 7 pivots */
    double M3[9] = {1, 0, 0, 2, 1, 0, 2, 2, 1}, q3[3] = {-14, -12, -8};
    s.max_pivots = 7;
    assert_int_equal(rs_lemke_small_solve(3, M3, q3, NULL, &s, z, w, &info), 1);
    assert_int_equal(info.pivots, 7);
    s.max_pivots = 6;
    assert_int_equal(rs_lemke_small_solve(3, M3, q3, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(3, M3, q3, NULL, &s, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_MAX_PIVOTS);
    s = defaults();

    /* An infeasible LCP (row 2 = -(row 0 + row 1), so w_0 + w_1 + w_2 = q_0 + q_1 + q_2 < 0)
     * where an entry that is 0 comes out near the pivot tolerance (an outside review's case: this
     * path's rounding gave 2.2e-11 against 1e-11, pivoted on it, and the certificate passed z of
     * 8.8e12 along a ray). Near the tolerance the general solve decides: a ray. */
    const double Mray4[16] = {1, 0, -1, 1, 0, 1, -1, 0, -1, -1, 2, -1, 1, 0, -1, 1};
    const double qray4[4] = {1e-9, -1, 1e-11, 1e9};
    const double dray4[4] = {0.00016247322485106092, 0.00018533788222081614,
                             0.16197156070106866, 122.82617423217923};
    assert_int_equal(rs_lemke_small_solve(4, Mray4, qray4, dray4, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(4, Mray4, qray4, dray4, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);

    const double Mlost[4] = {1, 0, 0, 1}, qlost[2] = {1e300, -1e-300};
    assert_int_equal(rs_lemke_small_solve(2, Mlost, qlost, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(2, Mlost, qlost, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_true(z[0] == 0.0 && z[1] == 1e-300);
}

/* A NaN or an infinity in M or q: -1, and nothing written. */
static void test_small_path_refuses_non_finite_data_untouched(void **state)
{
    (void)state;
    const rs_lemke_settings s = defaults();
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
        for (int where = 0; where < 2; where++) {
            double M[4] = {2, 1, 1, 2}, q[2] = {-1, -1};
            if (where == 0)
                M[3] = bad[b];
            else
                q[1] = bad[b];
            double z[2] = {7, 7}, w[2] = {7, 7};
            rs_lemke_info info;
            memset(&info, 0x5a, sizeof info);
            info.size = sizeof info;
            const rs_lemke_info before = info;
            assert_int_equal(rs_lemke_small_solve(2, M, q, NULL, &s, z, w, &info), -1);
            assert_true(z[0] == 7 && z[1] == 7 && w[0] == 7 && w[1] == 7);
            assert_memory_equal(&info, &before, sizeof info);
            assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info, NULL),
                             RS_ERR_NONFINITE);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_path_follows_the_general_path),
        cmocka_unit_test(test_small_path_with_a_covering_vector),
        cmocka_unit_test(test_small_path_e_given_or_null_is_one_solve),
        cmocka_unit_test(test_small_path_where_rounding_may_choose),
        cmocka_unit_test(test_small_path_raises_no_floating_point_exception),
        cmocka_unit_test(test_small_path_leaves_the_rest_to_the_general_solve),
        cmocka_unit_test(test_small_path_refuses_non_finite_data_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
