/*
 * test_lemke_small.c: the small-problem path of Lemke's method (src/lcp/lemke_small.c), white
 * box: what it answers and what it leaves to the general solve.
 *
 * Its answers are judged against the general solve run on the same problem with refine = 2 (which
 * never takes the small path): the same status, the same number of pivots (the same path), z
 * within 1e-11 max(1, ||z_ref||_inf) (measured: 2e-13 at most over these 12,800 problems), and
 * the certificate recomputed from z passing at 1e-9. The degenerate problems make its ratio tests
 * tie: 208 lexicographic tie-breaks, and taking the last tied row in their place changes the
 * path of 13 of them, so the tie rule is judged too.
 */
#include "test_helpers.h"

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

/* The small path on (M, q, d); then the general solve (refine = 2) as the reference. */
static void check_against_general(int n, const double *M, const double *q, const double *d,
                                  const char *what)
{
    double z[RS_LEMKE_SMALL_MAX], w[RS_LEMKE_SMALL_MAX];
    double zr[RS_LEMKE_SMALL_MAX], wr[RS_LEMKE_SMALL_MAX];
    rs_lemke_info info, ref;
    const rs_lemke_settings s = defaults();
    const int answered = rs_lemke_small_solve(n, M, q, d, &s, z, w, &info);
    rs_lemke_settings general = s;
    general.refine = 2;
    assert_int_equal(rs_lemke_solve_alloc(n, M, q, d, &general, zr, wr, &ref), RS_OK);
    if (answered != 1 || info.pivots != ref.pivots)
        print_error("%s: small path %d, %d pivots; general solve %s, %d pivots\n", what, answered,
                    answered == 1 ? info.pivots : -1, rs_lemke_status_name(ref.status),
                    ref.pivots);
    assert_int_equal(answered, 1);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(ref.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.pivots, ref.pivots);
    assert_int_equal(info.refined, 0);
    double scale = 1.0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fabs(zr[i]));
    for (int i = 0; i < n; i++)
        assert_close(z[i], zr[i], 1e-11 * scale, 0.0);
    rs_lcp_certificate c;
    double w2[RS_LEMKE_SMALL_MAX];
    assert_int_equal(rs_lcp_certificate_compute(n, M, q, z, CERT_TOL, w2, &c), RS_OK);
    assert_true(c.passed);
    assert_true(info.cert.passed);
    assert_close(info.cert.rel_natural_residual, c.rel_natural_residual, 0.0, 0.0);
    for (int i = 0; i < n; i++)
        assert_close(w[i], w2[i], 0.0, 0.0); /* w is exactly M z + q */
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
                                                     NULL, NULL),
                                     RS_OK);
                    char what[96];
                    snprintf(what, sizeof what, "%s n %d seed %llu degenerate %d",
                             rs_lcp_class_name((rs_lcp_class)c), n, (unsigned long long)seed,
                             degenerate);
                    check_against_general(n, lcp->M, lcp->q, NULL, what);
                    rs_lcp_destroy(lcp);
                }
}

/* A covering vector of the caller's: the first leaving row and the z0 column are its. */
static void test_small_path_with_a_covering_vector(void **state)
{
    (void)state;
    for (int n = 2; n <= RS_LEMKE_SMALL_MAX; n += 3)
        for (uint64_t seed = 1; seed <= 10; seed++) {
            rs_lcp *lcp;
            assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_PMATRIX, n, seed, 0, &lcp, NULL, NULL),
                             RS_OK);
            double d[RS_LEMKE_SMALL_MAX];
            for (int i = 0; i < n; i++)
                d[i] = 1.0 + 0.37 * i;
            check_against_general(n, lcp->M, lcp->q, d, "covering vector");
            rs_lcp_destroy(lcp);
        }
}

/* What the small path does not answer, and the general solve does: a ray, a path longer than
 * the cycle watch starts at, the pivot limit, a scale that would lose an entry. */
static void test_small_path_leaves_the_rest_to_the_general_solve(void **state)
{
    (void)state;
    rs_lemke_settings s = defaults();
    double z[RS_LEMKE_SMALL_MAX], w[RS_LEMKE_SMALL_MAX];
    rs_lemke_info info;

    const double Mray[9] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, qray[3] = {-1e-4, -1, 1};
    assert_int_equal(rs_lemke_small_solve(3, Mray, qray, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(3, Mray, qray, NULL, NULL, z, w, &info), RS_OK);
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
    assert_int_equal(rs_lemke_solve_alloc(N, M, q, NULL, NULL, z, w, &info), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_int_equal(info.pivots, (1 << N) - 1);

    s.max_pivots = 5; /* the limit counts every pivot after z0 entered */
    assert_int_equal(rs_lemke_small_solve(N, M, q, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(N, M, q, NULL, &s, z, w, &info), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_MAX_PIVOTS);
    s = defaults();

    const double Mlost[4] = {1, 0, 0, 1}, qlost[2] = {1e300, -1e-300};
    assert_int_equal(rs_lemke_small_solve(2, Mlost, qlost, NULL, &s, z, w, &info), 0);
    assert_int_equal(rs_lemke_solve_alloc(2, Mlost, qlost, NULL, NULL, z, w, &info), RS_OK);
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
            const rs_lemke_info before = info;
            assert_int_equal(rs_lemke_small_solve(2, M, q, NULL, &s, z, w, &info), -1);
            assert_true(z[0] == 7 && z[1] == 7 && w[0] == 7 && w[1] == 7);
            assert_memory_equal(&info, &before, sizeof info);
            assert_int_equal(rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info),
                             RS_ERR_NONFINITE);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_path_follows_the_general_path),
        cmocka_unit_test(test_small_path_with_a_covering_vector),
        cmocka_unit_test(test_small_path_leaves_the_rest_to_the_general_solve),
        cmocka_unit_test(test_small_path_refuses_non_finite_data_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
