/*
 * test_lcp_derivative.c: derivatives of an LCP's solution (relaxsim/lcp_derivative.h) against
 * central finite differences of Lemke re-solves. Tolerance: |exact - fd| <= 1e-6 max(1, |exact|)
 * with step h = 1e-7 (away from index changes: the generated solutions' nonzero z_i and w_i are
 * far larger than h times the derivative). Also: a floating index, whose two one-sided
 * derivatives each match the one-sided difference on their side, and a redundant pair of
 * contacts, whose singular M_CC gives the minimum-norm answer with the status "singular".
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"

#define FD_TOL 1e-6
#define H 1e-7

/* z of LCP(M, q) by Lemke (certified), into z. */
static void solve(int n, const double *M, const double *q, double *z)
{
    double *w = malloc(sizeof(double) * (size_t)n);
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_alloc(n, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    free(w);
}

/* (z(M + h dM, q + h dq) - z(M - h dM, q - h dq)) / 2h */
static void central_difference(int n, const double *M, const double *q, const double *dM,
                               const double *dq, double *fd)
{
    const size_t nn = (size_t)n * (size_t)n;
    double *Mp = malloc(sizeof(double) * (2 * nn + 4 * (size_t)n));
    double *Mm = Mp + nn, *qp = Mm + nn, *qm = qp + n, *zp = qm + n, *zm = zp + n;
    for (size_t k = 0; k < nn; k++) {
        Mp[k] = M[k] + (dM ? H * dM[k] : 0.0);
        Mm[k] = M[k] - (dM ? H * dM[k] : 0.0);
    }
    for (int i = 0; i < n; i++) {
        qp[i] = q[i] + (dq ? H * dq[i] : 0.0);
        qm[i] = q[i] - (dq ? H * dq[i] : 0.0);
    }
    solve(n, Mp, qp, zp);
    solve(n, Mm, qm, zm);
    for (int i = 0; i < n; i++)
        fd[i] = (zp[i] - zm[i]) / (2.0 * H);
    free(Mp);
}

static void expect_close(double exact, double fd, const char *what, int i, int j)
{
    if (!(fabs(exact - fd) <= FD_TOL * fmax(1.0, fabs(exact)))) {
        print_error("%s(%d,%d): exact %.17g, finite difference %.17g\n", what, i, j, exact, fd);
        fail();
    }
}

/* Generated problems with a unique solution (SPD and P-matrix classes): dz/dq column by column,
 * and a random direction (dM, dq), against central differences. */
static void generated_against_differences(void **state)
{
    (void)state;
    const rs_lcp_class classes[] = {RS_LCP_CLASS_SPD, RS_LCP_CLASS_PMATRIX};
    for (int c = 0; c < 2; c++)
        for (int n = 3; n <= 12; n += 3)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                rs_lcp *p = NULL;
                double z[12], w[12];
                assert_int_equal(rs_lcp_generate(classes[c], n, seed, 0, &p, z, w, NULL), RS_OK);
                rs_lcp_derivative_info info = {.size = sizeof info};
                double J[144], fd[12], dz[12];
                assert_int_equal(rs_lcp_jacobian_q(n, p->M, p->q, z, NULL, J, &info, NULL), RS_OK);
                assert_int_equal(info.status, RS_LCP_DERIVATIVE_OK);
                assert_int_equal(info.nfloating, 0);
                assert_int_equal(info.nclamping + info.nseparating, n);
                for (int j = 0; j < n; j++) {
                    double e[12] = {0};
                    e[j] = 1.0;
                    central_difference(n, p->M, p->q, NULL, e, fd);
                    for (int i = 0; i < n; i++)
                        expect_close(J[i + j * n], fd[i], "dz/dq", i, j);
                }
                double dM[144], dq[12];
                for (int k = 0; k < n * n; k++)
                    dM[k] = sin(1.3 * k + (double)seed);
                for (int i = 0; i < n; i++)
                    dq[i] = cos(0.7 * i + (double)seed);
                assert_int_equal(rs_lcp_directional_derivative(n, p->M, p->q, z, dM, dq, NULL, NULL,
                                                               dz, &info, NULL),
                                 RS_OK);
                assert_int_equal(info.status, RS_LCP_DERIVATIVE_OK);
                central_difference(n, p->M, p->q, dM, dq, fd);
                for (int i = 0; i < n; i++)
                    expect_close(dz[i], fd[i], "dz along (dM, dq)", i, -1);
                rs_lcp_destroy(p);
            }
}

/* A floating index: M = [[2, 1], [1, 2]], q = (-2, -1): z = (1, 0), w = (0, 0). Along dq = (0, -1)
 * the second contact closes: by hand, the derivative LCP over F = {2} has S = 2 - 1/2 = 3/2 and
 * r~ = -1, so dz_2 = 2/3 and dz_1 = -dz_2 / 2 = -1/3. Along dq = (0, 1) it opens: dz = (0, 0).
 * Each matches the one-sided difference on its side; the tie-breaks give one piece each. */
static void floating_one_sided(void **state)
{
    (void)state;
    const double M[4] = {2, 1, 1, 2}, q[2] = {-2, -1}, z[2] = {1, 0};
    const double down[2] = {0, -1}, up[2] = {0, 1};
    rs_lcp_derivative_info info = {.size = sizeof info};
    rs_lcp_index_class cls[2];
    double dz[2];
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, down, NULL, cls, dz, &info, NULL),
                     RS_OK);
    assert_int_equal(cls[0], RS_LCP_CLAMPING);
    assert_int_equal(cls[1], RS_LCP_FLOATING);
    assert_int_equal(info.status, RS_LCP_DERIVATIVE_OK);
    assert_int_equal(info.floating_used, RS_LCP_FLOATING_EXACT);
    assert_close(dz[0], -1.0 / 3.0, 1e-14, 0);
    assert_close(dz[1], 2.0 / 3.0, 1e-14, 0);
    for (int side = 0; side < 2; side++) { /* (z(q + h d) - z(q)) / h on each side */
        const double *d = side ? up : down;
        double qh[2] = {q[0] + H * d[0], q[1] + H * d[1]}, zh[2], dzs[2];
        solve(2, M, qh, zh);
        assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, d, NULL, NULL, dzs, &info, NULL),
                         RS_OK);
        for (int i = 0; i < 2; i++)
            expect_close(dzs[i], (zh[i] - z[i]) / H, side ? "right, opening" : "right, closing", i,
                         side);
    }
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, up, NULL, NULL, dz, &info, NULL),
                     RS_OK);
    assert_close(dz[0], 0.0, 0, 0);
    assert_close(dz[1], 0.0, 0, 0);
    /* tie-breaks: clamping follows the closing piece, separating the opening one */
    rs_lcp_derivative_settings s;
    rs_lcp_derivative_settings_default(&s);
    s.floating = RS_LCP_FLOATING_CLAMPING;
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, down, &s, NULL, dz, &info, NULL),
                     RS_OK);
    assert_int_equal(info.floating_used, RS_LCP_FLOATING_CLAMPING);
    assert_close(dz[1], 2.0 / 3.0, 1e-14, 0);
    s.floating = RS_LCP_FLOATING_SEPARATING;
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, down, &s, NULL, dz, &info, NULL),
                     RS_OK);
    assert_close(dz[0], 0.0, 1e-15, 0); /* z_1 = 1 stays: w_1 = 0 needs dz_1 = -r_1 / 2 = 0 */
    assert_close(dz[1], 0.0, 0, 0);
}

/* Two identical contacts (a redundant pair): M = [[1, 1], [1, 1]], q = (-1, -1), and the solution
 * z = (1/2, 1/2) with both clamping. M_CC is singular (rank 1): for dq = (-1, -1) the minimum-norm
 * dz solving M_CC dz = (1, 1) is (1/2, 1/2), with the status "singular", no inf or NaN. */
static void redundant_pair_is_singular(void **state)
{
    (void)state;
    const double M[4] = {1, 1, 1, 1}, q[2] = {-1, -1}, z[2] = {0.5, 0.5}, dq[2] = {-1, -1};
    rs_lcp_derivative_info info = {.size = sizeof info};
    double dz[2], J[4];
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, dq, NULL, NULL, dz, &info, NULL),
                     RS_OK);
    assert_int_equal(info.status, RS_LCP_DERIVATIVE_SINGULAR);
    assert_int_equal(info.rank, 1);
    assert_true(isinf(info.condition));
    assert_close(dz[0], 0.5, 1e-14, 0);
    assert_close(dz[1], 0.5, 1e-14, 0);
    assert_int_equal(rs_lcp_jacobian_q(2, M, q, z, NULL, J, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LCP_DERIVATIVE_SINGULAR);
    for (int k = 0; k < 4; k++) /* -pinv([[1, 1], [1, 1]]) = -(1/4) [[1, 1], [1, 1]] */
        assert_close(J[k], -0.25, 1e-14, 0);
    assert_string_equal(rs_lcp_derivative_status_name(info.status), "singular");
    /* along dq = (1, 0) the clamping equations M_CC dz = (-1, 0) have no solution (the pair must
     * split: one contact opens): the least-squares answer -pinv (1, 0) = (-1/4, -1/4) misses by
     * |(M dz + dq)| = 1/2 in each row, and says so */
    const double dq1[2] = {1, 0};
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, dq1, NULL, NULL, dz, &info, NULL),
                     RS_OK);
    assert_int_equal(info.status, RS_LCP_DERIVATIVE_INCONSISTENT);
    assert_close(info.residual, 0.5, 1e-14, 0); /* |0.5| against the largest term, |r_1| = 1 */
    assert_close(dz[0], -0.25, 1e-14, 0);
    assert_close(dz[1], -0.25, 1e-14, 0);
}

/* Scale: the index sets and derivatives do not depend on the problem's units. M = I, q = s (-1, 1),
 * z = s (1, 0) for s = 1e-10, 1 and 1e10: clamping and separating at every scale, and along
 * dq = s (1, 1) the derivative dz = (-1, 0). With M scaled by 1e150 the clamping block is still
 * of full rank (the factorisation is scaled). */
static void scale_free(void **state)
{
    (void)state;
    const double scales[3] = {1e-10, 1.0, 1e10};
    for (int k = 0; k < 3; k++) {
        const double s = scales[k], M[4] = {1, 0, 0, 1}, q[2] = {-s, s}, z[2] = {s, 0};
        const double dq[2] = {s, s};
        rs_lcp_derivative_info info = {.size = sizeof info};
        double dz[2];
        assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, dq, NULL, NULL, dz, &info, NULL),
                         RS_OK);
        assert_int_equal(info.nclamping, 1);
        assert_int_equal(info.nseparating, 1);
        assert_close(dz[0], -s, 1e-14 * s, 0);
        assert_close(dz[1], 0.0, 0, 0);
        /* the redundant pair in these units: still inconsistent along (1, 0) */
        const double Mr[4] = {1, 1, 1, 1}, qr[2] = {-s, -s}, zr[2] = {s / 2, s / 2};
        const double d1[2] = {s, 0};
        assert_int_equal(
            rs_lcp_directional_derivative(2, Mr, qr, zr, NULL, d1, NULL, NULL, dz, &info, NULL), RS_OK);
        assert_int_equal(info.status, RS_LCP_DERIVATIVE_INCONSISTENT);
    }
    const double big = 1e150, M[4] = {big, 0, 0, big}, q[2] = {-big, big}, z[2] = {1, 0};
    rs_lcp_derivative_info info = {.size = sizeof info};
    double J[4];
    assert_int_equal(rs_lcp_jacobian_q(2, M, q, z, NULL, J, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LCP_DERIVATIVE_OK);
    assert_int_equal(info.rank, 1);
    assert_close(J[0], -1.0 / big, 1e-14 / big, 0);
}

/* Bad input: a point that is not a solution, non-finite data, bad settings. */
static void bad_input(void **state)
{
    (void)state;
    const double M[4] = {1, 0, 0, 1}, q[2] = {-1, 1}, z_bad[2] = {2, 0}, z[2] = {1, 0};
    rs_lcp_derivative_info info = {.size = sizeof info};
    double dz[2] = {7, 7};
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z_bad, NULL, q, NULL, NULL, dz, &info, NULL),
                     RS_OK);
    assert_int_equal(info.status, RS_LCP_DERIVATIVE_NOT_SOLUTION);
    assert_close(dz[0], 0.0, 0, 0);
    const double qn[2] = {NAN, 1};
    assert_int_equal(rs_lcp_directional_derivative(2, M, qn, z, NULL, NULL, NULL, NULL, dz, &info, NULL),
                     RS_ERR_BAD_ARG);
    rs_lcp_derivative_settings s;
    rs_lcp_derivative_settings_default(&s);
    s.index_tol = -1;
    assert_int_equal(rs_lcp_directional_derivative(2, M, q, z, NULL, NULL, &s, NULL, dz, &info, NULL),
                     RS_ERR_BAD_SETTING);
    assert_int_equal(rs_lcp_jacobian_q(0, M, q, z, NULL, dz, &info, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lcp_jacobian_q(2, M, q, NULL, NULL, dz, &info, NULL), RS_ERR_NULL_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated_against_differences),
        cmocka_unit_test(floating_one_sided),
        cmocka_unit_test(redundant_pair_is_singular),
        cmocka_unit_test(scale_free),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
