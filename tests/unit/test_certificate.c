/* test_certificate.c: the LCP certificate and the index-set classification. */
#include "test_helpers.h"

#include <math.h>
#include <string.h>

#include "relaxsim/relaxsim.h"

/* M = [[2, 1], [1, 2]] (column-major, symmetric), q = (-5, -6): z = (4/3, 7/3), w = 0. */
static const double M2[4] = {2.0, 1.0, 1.0, 2.0};
static const double q2[2] = {-5.0, -6.0};

/* z fails its certificate (tol 1e-9) with rel_min_w = -1: a row left at -1 times its own unit. */
static void assert_refused_at_minus_one(int n, const double *M, const double *q, const double *z)
{
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(n, M, q, z, 1e-9, NULL, &c, NULL), RS_OK);
    assert_close(c.rel_min_w, -1.0, 0.0, 1e-15);
    assert_false(c.passed);
}

static void test_exact_solution_passes(void **state)
{
    (void)state;
    const double z[2] = {4.0 / 3.0, 7.0 / 3.0};
    double w[2];
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 1e-12, w, &c, NULL), RS_OK);
    assert_close(w[0], 0.0, 1e-14, 0.0);
    assert_close(w[1], 0.0, 1e-14, 0.0);
    assert_true(c.passed);
    assert_true(c.finite);
    assert_close(c.natural_residual, 0.0, 1e-14, 0.0);
}

static void test_measures_of_a_wrong_point(void **state)
{
    (void)state;
    /* z = (1, -0.5): w = M z + q = (2 - 0.5 - 5, 1 - 1 - 6) = (-3.5, -6). */
    const double z[2] = {1.0, -0.5};
    double w[2];
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 1e-9, w, &c, NULL), RS_OK);
    assert_close(w[0], -3.5, 0.0, 1e-15);
    assert_close(w[1], -6.0, 0.0, 1e-15);
    assert_close(c.min_z, -0.5, 0.0, 0.0);
    assert_close(c.min_w, -6.0, 0.0, 0.0);
    assert_close(c.max_complementarity, 3.5, 0.0, 1e-15); /* |1 * -3.5| vs |-0.5 * -6| = 3 */
    assert_close(c.natural_residual, 6.0, 0.0, 0.0);      /* |min(-0.5, -6)| */
    /* in the equilibrated units (D = 1/2, C = 1: D M C = [[1, 1/2], [1/2, 1]], D q = (-2.5, -3),
     * D w = (-1.75, -3)): z relative to Z = max(||z||, the size that moves the rows z must push,
     * max |D_i q_i| / ||D M C||) = max(1, 3) = 3, each D_i w_i to its row's unit
     * max(|D_i q_i|, min(||D M C|| Z, ||D q||)) = 3 */
    assert_close(c.rel_min_z, -0.5 / 3.0, 0.0, 1e-15);
    assert_close(c.rel_min_w, -1.0, 0.0, 1e-15);                      /* -3 / 3 */
    assert_close(c.rel_natural_residual, 1.0, 0.0, 1e-15);            /* |min(-1/6, -1)| */
    assert_close(c.rel_max_complementarity, 3.5 / 18.0, 0.0, 1e-15); /* 1/3 * 1.75 / 3 */
    assert_false(c.passed);
}

/* The relative measures do not change when the LCP is rescaled: (a M, b q) with z b / a. */
static void test_scale_invariance(void **state)
{
    (void)state;
    static const double factors[] = {1e-12, 1e-3, 1.0, 1e3, 1e12};
    const double z0[2] = {1.0, -0.5};
    rs_lcp_certificate base = {.size = sizeof base};
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z0, 1e-9, NULL, &base, NULL), RS_OK);
    for (size_t ia = 0; ia < 5; ia++)
        for (size_t ib = 0; ib < 5; ib++) {
            const double a = factors[ia], b = factors[ib];
            double M[4], q[2], z[2];
            for (int i = 0; i < 4; i++)
                M[i] = a * M2[i];
            for (int i = 0; i < 2; i++) {
                q[i] = b * q2[i];
                z[i] = z0[i] * b / a;
            }
            rs_lcp_certificate c = {.size = sizeof c};
            assert_int_equal(rs_lcp_certificate_compute(2, M, q, z, 1e-9, NULL, &c, NULL), RS_OK);
            assert_close(c.rel_min_z, base.rel_min_z, 0.0, 1e-12);
            assert_close(c.rel_min_w, base.rel_min_w, 0.0, 1e-12);
            assert_close(c.rel_natural_residual, base.rel_natural_residual, 0.0, 1e-12);
            assert_close(c.rel_max_complementarity, base.rel_max_complementarity, 0.0, 1e-12);
            assert_int_equal(c.passed, base.passed);
        }
}

/* A small LCP is not passed by a floor: z = 0 for q = 1e-12 (-5, -6) leaves w = q < 0, which
 * the former scale max(1, ||q||) took for a residual of 6e-12, below any tolerance. */
static void test_small_problem_is_judged_at_its_own_scale(void **state)
{
    (void)state;
    const double q[2] = {1e-12 * q2[0], 1e-12 * q2[1]}, z[2] = {0.0, 0.0};
    assert_refused_at_minus_one(2, M2, q, z);
}

/* Rows in different units are each judged in their own: in M = [[1e300, 1e-300], [1e-300,
 * 1e-300]], q = (-1e300, -1), z = (1, 0) leaves w = (0, -1 + 1e-300), a residual of the size of
 * the second row itself, which the former scale ||q|| = 1e300 took for nothing. */
static void test_rows_in_their_own_units(void **state)
{
    (void)state;
    const double M[4] = {1e300, 1e-300, 1e-300, 1e-300}, q[2] = {-1e300, -1.0}, z[2] = {1.0, 0.0};
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(2, M, q, z, 1e-9, NULL, &c, NULL), RS_OK);
    assert_close(c.rel_min_w, -1.0, 0.0, 1e-15);
    assert_false(c.passed);
    /* and the second row scaled by 1e-5 changes no relative measure */
    const double Ms[4] = {1e300, 1e-305, 1e-300, 1e-305};
    const double qs[2] = {-1e300, -1e-5};
    rs_lcp_certificate d = {.size = sizeof d};
    assert_int_equal(rs_lcp_certificate_compute(2, Ms, qs, z, 1e-9, NULL, &d, NULL), RS_OK);
    assert_close(d.rel_min_w, c.rel_min_w, 0.0, 1e-15);
    assert_close(d.rel_natural_residual, c.rel_natural_residual, 0.0, 1e-15);
}

/* A row whose data dwarfs the others' in the equilibrated units hides no other row's violation.
 * An outside review's example: the fourth row and column of M near 1e-152, q_4 = 0.38. The
 * equilibration scales that row by about 1e75, and while one unit ||D q|| served every row,
 * z = 0 passed with w_2 = q_2 = -0.98 (rel_min_w -2e-151). Each row is now measured in its own
 * unit, and with row 2 in units 1, 1e6 and 1e12 times smaller (the same solution z):
 *  - z = 0 fails, with rel_min_w = -1;
 *  - at 1 and 1e6 Lemke's answer is that solution and passes (rel_natural_residual measured
 *    8.7e-17 and 5.5e-13);
 *  - at 1e12 every attempt ends on z = (1.098, 0, 0, 0), z_1 w_1 = 1.9, which the single unit
 *    passed as solved (rel_natural_residual 9e-155): it is refused (1.2e-4), and Lemke reports
 *    the ray termination it ended on. */
static void test_a_row_of_extreme_data_hides_no_violation(void **state)
{
    (void)state;
    double M[16] = {0x1.584d5da38d4f4p+0,  0x1.ca0cdfe5af41p-1,  0x1.20e7335648b19p+0,
                    -0x1.916b733e2674p-504, -0x1.b23e4d2162358p-2, 0x0p+0,
                    -0x1.61a3300fe7388p-2, 0x0p+0,               -0x1.18b6f590a86e8p-3,
                    0x1.cbd8ba07e4b08p-3,  0x1.b8b7a921c1668p-2, 0x1.21aef3f8704c5p-504,
                    0x1.6e46a9b4b19d9p-506, 0x1.388f61d7f8bafp-505, 0x1.ac5cbe919984fp-502,
                    0x0p+0};
    double q[4] = {0x1.25c62c41bd308p-2, -0x1.f6d75b734a3bp-1, 0x1.8df6ded3661cp-6,
                   0x1.88abbda235998p-2};
    const double z0[4] = {0, 0, 0, 0};
    const double bound[2] = {1e-15, 1e-11}; /* on rel_natural_residual */
    double solution[4];
    for (int unit = 0; unit < 3; unit++) {
        assert_refused_at_minus_one(4, M, q, z0); /* w_2 = q_2 in its own row's unit */
        double z[4], w[4];
        rs_lemke_info info = {.size = sizeof info};
        assert_int_equal(rs_lemke_solve_alloc(4, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
        if (unit == 0)
            memcpy(solution, z, sizeof z);
        if (unit < 2) {
            double error = 0.0;
            for (int j = 0; j < 4; j++)
                error = fmax(error, fabs(z[j] - solution[j]));
            assert_true(error <= 1e-9 * 3.8); /* measured 1.3e-10 at 1e6; 3.8 = ||z|| */
            assert_int_equal(info.status, RS_LEMKE_SOLVED);
            assert_true(info.cert.rel_natural_residual < bound[unit]);
        } else {
            /* the ray's end point, judged from (M, q, z) as returned, not by its digits: z on
             * its first component alone, which violates its own complementarity (z_1 w_1 = 1.9
             * measured: far from any rounding) */
            double w1 = q[0];
            for (int j = 0; j < 4; j++)
                w1 += M[4 * j] * z[j];
            assert_true(z[0] > 0.0 && z[1] == 0.0 && z[2] == 0.0 && z[3] == 0.0);
            assert_true(z[0] * w1 > 1.0);
            assert_int_equal(info.status, RS_LEMKE_RAY_TERMINATION);
            assert_false(info.cert.passed);
            assert_true(info.cert.rel_natural_residual > 1e-5); /* measured 1.2e-4 */
        }
        for (int j = 0; j < 4; j++) /* row 2 in units 1e6 times smaller */
            M[1 + 4 * j] *= 1e6;
        q[1] *= 1e6;
    }
}

/* A large z does not buy a row its pass: with M = [[1, 0], [0, 0]] and q = (-1, -1) no z solves
 * (w_2 = -1 whatever z), and z = (1, 1e12) is refused: what z moves a row by counts in that
 * row's unit only up to ||D q||, or this z would pass with rel_min_w = -1e-12. */
static void test_a_large_z_buys_no_pass(void **state)
{
    (void)state;
    const double M[4] = {1.0, 0.0, 0.0, 0.0}, q[2] = {-1.0, -1.0}, z[2] = {1.0, 1e12};
    assert_refused_at_minus_one(2, M, q, z);
}

/* A degenerate problem's approximate answer is judged at the problem's own scale, not at its own
 * size: the generated friction LCP (n = 8, seed 4, degenerate) has q = 2 e_7 and z = 0 among its
 * solutions, with seven rows of q = 0. IPOPT's answer (`relaxsim lcp solve --solver ipopt`, its
 * 17 digits) carries z and w up to 4e-6 there; it passes at tol 1e-6 with rel_natural_residual
 * 4.0e-7, because z's unit is the size that moves the rows (here ||D q|| / ||D M C||, q >= 0), and
 * a row's unit counts what z in that unit moves it by. Measured against z's own size 4e-6 instead,
 * the rows of q = 0 would refuse it (8e-6). Ten times that z fails (4.0e-6). */
static void test_an_approximate_degenerate_answer_passes_at_the_problems_scale(void **state)
{
    (void)state;
    rs_lcp *lcp = NULL;
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_FRICTION, 8, 4, 1, &lcp, NULL, NULL, NULL), RS_OK);
    const double z_ipopt[8] = {2.0620884266358657e-07, 2.5008906160180904e-08,
                               1.9468485730342961e-08, 2.1513728018820922e-08,
                               1.826414516945639e-08,  4.1228380950646332e-06,
                               1.2686903314634057e-15, 2.473141491181436e-07};
    for (int scale = 1; scale <= 10; scale *= 10) {
        double z[8];
        for (int i = 0; i < 8; i++)
            z[i] = z_ipopt[i] * scale;
        rs_lcp_certificate c = {.size = sizeof c};
        assert_int_equal(rs_lcp_certificate_compute(8, lcp->M, lcp->q, z, 1e-6, NULL, &c, NULL), RS_OK);
        assert_close(c.rel_natural_residual, 3.98449e-7 * scale, 0.0, 1e-5);
        assert_int_equal(c.passed, scale == 1);
    }
    rs_lcp_destroy(lcp);
}

/* Subnormal data is judged, not turned into NaN: with q_2 = -1e-310 the unit of z is subnormal,
 * and its inverse, 1 / 1e-310, overflows; z * inf made z_1 = 0 a NaN, and Lemke reported the
 * exact answer as a breakdown (an outside review's example, also with q all subnormal). */
static void test_subnormal_data_is_judged(void **state)
{
    (void)state;
    const double I[4] = {1, 0, 0, 1}, M[4] = {2, 1, 1, 2};
    const double q[2] = {1, -1e-310}, q_sub[2] = {1e-310, -1e-310};
    const double z[2] = {0, 1e-310}, zm[2] = {0, 5e-311};
    const struct { const double *M, *q, *z; } cases[3] = {{I, q, z}, {M, q, zm}, {I, q_sub, z}};
    for (int k = 0; k < 3; k++) {
        rs_lcp_certificate c = {.size = sizeof c};
        assert_int_equal(rs_lcp_certificate_compute(2, cases[k].M, cases[k].q, cases[k].z, 1e-9,
                                                    NULL, &c, NULL),
                         RS_OK);
        assert_true(c.passed);
        assert_true(c.rel_natural_residual == 0.0 && c.rel_min_z == 0.0);
        double zl[2], wl[2];
        rs_lemke_info info = {.size = sizeof info};
        assert_int_equal(rs_lemke_solve_alloc(2, cases[k].M, cases[k].q, NULL, NULL, zl, wl, &info, NULL),
                         RS_OK);
        assert_int_equal(info.status, RS_LEMKE_SOLVED);
        assert_true(zl[0] == 0.0 && zl[1] == cases[k].z[1]);
    }
}

/* point2d's step LCP: columns (normal impulse, friction impulses, sliding speed gamma), rows
 * (normal velocity, tangential velocities, friction cone): a = dt / m. */
static void point2d_lcp(double a, double mu, double vz, double v, double *M, double *q)
{
    const double m[16] = {a, 0, 0, mu, 0, a, -a, -1, 0, -a, a, -1, 0, 1, 1, 0};
    memcpy(M, m, sizeof m);
    q[0] = vz;
    q[1] = v;
    q[2] = -v;
    q[3] = 0.0;
}

/* point2d's LCP (M, z) with forces in kN: impulses z_0..2 / 1000 (M's columns 0..2 * 1000), the
 * cone row / 1000. */
static void in_kilonewtons(const double *M, const double *z, double *Mk, double *zk)
{
    memcpy(Mk, M, 16 * sizeof *M);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            Mk[i + 4 * j] *= 1e3;
    for (int j = 0; j < 4; j++)
        Mk[3 + 4 * j] *= 1e-3;
    for (int j = 0; j < 4; j++)
        zk[j] = j < 3 ? z[j] * 1e-3 : z[j];
}

/* The units of a contact LCP do not matter: a 1e6 kg body sliding at 1 cm/s (rows in m/s and N,
 * impulses of 1e7 N s beside a speed of 7e-3 m/s) is certified from Lemke's answer, with its
 * friction impulse one ulp off (the whole-problem scale ||q|| = 0.01 m/s failed it: 5e-8), and
 * with forces in kN instead (its force row and impulse columns rescaled); a 1 g body sliding at
 * 10 m/s whose friction impulse is off by 2e-4 of itself is refused in either unit. */
static void test_units_do_not_matter(void **state)
{
    (void)state;
    double M[16], q[4], z[4], w[4];
    rs_lemke_info info = {.size = sizeof info};
    rs_lcp_certificate c = {.size = sizeof c}, k = {.size = sizeof k};
    point2d_lcp(1e-9, 0.3, -9.81e-3, 0.01, M, q);
    assert_int_equal(rs_lemke_solve_alloc(4, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    assert_true(z[0] > 1e6 && z[3] > 1e-3 && z[3] < 1e-1);
    z[2] = nextafter(z[2], 0.0);
    assert_int_equal(rs_lcp_certificate_compute(4, M, q, z, 1e-9, NULL, &c, NULL), RS_OK);
    assert_true(c.passed);
    double Mk[16], zk[4];
    in_kilonewtons(M, z, Mk, zk);
    assert_int_equal(rs_lcp_certificate_compute(4, Mk, q, zk, 1e-9, NULL, &k, NULL), RS_OK);
    assert_true(k.passed);
    /* the light body: the friction impulse lowered by 1e-6 N s (2e-4 of it), gamma raised */
    point2d_lcp(1.0, 0.5, -9.81e-3, 10.0, M, q);
    assert_int_equal(rs_lemke_solve_alloc(4, M, q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_int_equal(info.status, RS_LEMKE_SOLVED);
    const int beta = z[1] > z[2] ? 1 : 2;
    z[beta] -= 1e-6;
    z[3] += 1e-6;
    assert_int_equal(rs_lcp_certificate_compute(4, M, q, z, 1e-9, NULL, &c, NULL), RS_OK);
    assert_false(c.passed);
    in_kilonewtons(M, z, Mk, zk);
    assert_int_equal(rs_lcp_certificate_compute(4, Mk, q, zk, 1e-9, NULL, &k, NULL), RS_OK);
    assert_false(k.passed);
    assert_true(k.rel_max_complementarity > c.rel_max_complementarity / 16 &&
                k.rel_max_complementarity < c.rel_max_complementarity * 16);
}

/* M or q not finite: refused (the certificate reads all of M). */
static void test_nonfinite_data_refused(void **state)
{
    (void)state;
    const double M[4] = {1, 0, NAN, 1}, q[2] = {-1, 1}, z[2] = {1, 0};
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(2, M, q, z, 1e-9, NULL, &c, NULL), RS_ERR_NONFINITE);
}

/* q = 0: z = 0 is a solution (every measure 0), and so is any z with M z = 0 exactly. */
static void test_zero_q(void **state)
{
    (void)state;
    const double M[9] = {2, -1, -1, -1, 1, 0, -1, 0, 1}, q[3] = {0, 0, 0};
    const double zero[3] = {0, 0, 0}, e[3] = {1, 1, 1};
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(3, M, q, zero, 1e-9, NULL, &c, NULL), RS_OK);
    assert_true(c.passed);
    assert_true(c.rel_natural_residual == 0.0 && c.rel_min_w == 0.0);
    assert_int_equal(rs_lcp_certificate_compute(3, M, q, e, 1e-9, NULL, &c, NULL), RS_OK);
    assert_true(c.passed);
}

/* A solution z = 0 computed with rounding (1e-15, or -1e-15) is certified: z is measured against
 * the problem's own scale of z, which does not vanish with z; at every scale of the problem. */
static void test_rounded_zero_solution_passes(void **state)
{
    (void)state;
    static const double scales[] = {1e-12, 1.0, 1e12};
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        const double M[1] = {scales[k]}, q[1] = {scales[k]};
        const double noise[3] = {1e-15, -1e-15, 0.0};
        for (int i = 0; i < 3; i++) {
            rs_lcp_certificate c = {.size = sizeof c};
            assert_int_equal(rs_lcp_certificate_compute(1, M, q, &noise[i], 1e-9, NULL, &c, NULL),
                             RS_OK);
            assert_true(c.passed);
            assert_close(c.rel_min_z, noise[i], 1e-30, 1e-12); /* z unit: q / M = 1 */
        }
        const double wrong = -1e-6; /* and a negative z beyond rounding still fails */
        rs_lcp_certificate c = {.size = sizeof c};
        assert_int_equal(rs_lcp_certificate_compute(1, M, q, &wrong, 1e-9, NULL, &c, NULL), RS_OK);
        assert_false(c.passed);
    }
}

static void test_without_w_buffer_gives_same_certificate(void **state)
{
    (void)state;
    const double z[2] = {0.25, 3.0};
    rs_lcp_certificate a = {.size = sizeof a}, b = {.size = sizeof b};
    double w[2];
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 1e-9, w, &a, NULL), RS_OK);
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 1e-9, NULL, &b, NULL), RS_OK);
    assert_close(b.min_w, a.min_w, 0.0, 1e-15);
    assert_close(b.natural_residual, a.natural_residual, 0.0, 1e-15);
    assert_close(b.max_complementarity, a.max_complementarity, 0.0, 1e-15);
    assert_int_equal(a.passed, b.passed);
    /* n > 64: w in an allocated buffer; the generator's solution passes both ways */
    rs_lcp *lcp;
    double zs[100], wbuf[100];
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, 100, 7, 0, &lcp, zs, NULL, NULL), RS_OK);
    assert_int_equal(rs_lcp_certificate_compute(100, lcp->M, lcp->q, zs, 1e-9, wbuf, &a, NULL), RS_OK);
    assert_int_equal(rs_lcp_certificate_compute(100, lcp->M, lcp->q, zs, 1e-9, NULL, &b, NULL), RS_OK);
    assert_true(a.passed && b.passed);
    assert_true(a.rel_natural_residual == b.rel_natural_residual);
    rs_lcp_destroy(lcp);
}

static void test_nonfinite_candidate_fails(void **state)
{
    (void)state;
    const double z[2] = {NAN, 1.0};
    rs_lcp_certificate c = {.size = sizeof c};
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 1e-9, NULL, &c, NULL), RS_OK);
    assert_false(c.finite);
    assert_false(c.passed);
    assert_true(isnan(c.natural_residual));
}

static void test_certificate_bad_arguments(void **state)
{
    (void)state;
    const double z[2] = {0, 0};
    rs_lcp_certificate c = {.size = sizeof c};
    memset(&c, 0x5a, sizeof c);
    const rs_lcp_certificate before = c;
    assert_int_equal(rs_lcp_certificate_compute(2, NULL, q2, z, 1e-9, NULL, &c, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_certificate_compute(2, M2, NULL, z, 1e-9, NULL, &c, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, NULL, 1e-9, NULL, &c, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 1e-9, NULL, NULL, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_certificate_compute(0, M2, q2, z, 1e-9, NULL, &c, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lcp_certificate_compute(-3, M2, q2, z, 1e-9, NULL, &c, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, 0.0, NULL, &c, NULL), RS_ERR_BAD_SETTING);
    assert_int_equal(rs_lcp_certificate_compute(2, M2, q2, z, NAN, NULL, &c, NULL), RS_ERR_BAD_SETTING);
    assert_memory_equal(&c, &before, sizeof c);
}

static void test_classification(void **state)
{
    (void)state;
    const double z[5] = {1.0, 0.0, 0.0, 1e-12, 2.0};
    const double w[5] = {0.0, 3.0, 1e-13, 0.0, 1.0};
    rs_lcp_index_class cls[5];
    assert_int_equal(rs_lcp_classify(5, z, w, 1e-10, cls, NULL), RS_OK);
    assert_int_equal(cls[0], RS_LCP_CLAMPING);
    assert_int_equal(cls[1], RS_LCP_SEPARATING);
    assert_int_equal(cls[2], RS_LCP_FLOATING);
    assert_int_equal(cls[3], RS_LCP_FLOATING);
    assert_int_equal(cls[4], RS_LCP_NOT_COMPLEMENTARY);
    const double zn[1] = {-1.0}, wn[1] = {0.0}, znan[1] = {NAN};
    assert_int_equal(rs_lcp_classify(1, zn, wn, 1e-10, cls, NULL), RS_OK);
    assert_int_equal(cls[0], RS_LCP_NOT_COMPLEMENTARY);
    assert_int_equal(rs_lcp_classify(1, znan, wn, 1e-10, cls, NULL), RS_OK);
    assert_int_equal(cls[0], RS_LCP_NOT_COMPLEMENTARY);
    assert_string_equal(rs_lcp_index_class_name(RS_LCP_CLAMPING), "clamping");
    assert_string_equal(rs_lcp_index_class_name(RS_LCP_FLOATING), "floating");
    assert_int_equal(rs_lcp_classify(1, NULL, wn, 0.0, cls, NULL), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_classify(0, zn, wn, 0.0, cls, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lcp_classify(1, zn, wn, -1.0, cls, NULL), RS_ERR_BAD_SETTING);
}

static void test_error_strings_never_null(void **state)
{
    (void)state;
    for (int e = RS_OK; e <= RS_ERR_BAD_ARG + 5; e++) {
        const char *s = rs_error_string((rs_error)e);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
    }
    assert_string_equal(rs_version(), RS_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_solution_passes),
        cmocka_unit_test(test_measures_of_a_wrong_point),
        cmocka_unit_test(test_without_w_buffer_gives_same_certificate),
        cmocka_unit_test(test_scale_invariance),
        cmocka_unit_test(test_small_problem_is_judged_at_its_own_scale),
        cmocka_unit_test(test_rows_in_their_own_units),
        cmocka_unit_test(test_a_row_of_extreme_data_hides_no_violation),
        cmocka_unit_test(test_a_large_z_buys_no_pass),
        cmocka_unit_test(test_subnormal_data_is_judged),
        cmocka_unit_test(test_an_approximate_degenerate_answer_passes_at_the_problems_scale),
        cmocka_unit_test(test_units_do_not_matter),
        cmocka_unit_test(test_nonfinite_data_refused),
        cmocka_unit_test(test_zero_q),
        cmocka_unit_test(test_rounded_zero_solution_passes),
        cmocka_unit_test(test_nonfinite_candidate_fails),
        cmocka_unit_test(test_certificate_bad_arguments),
        cmocka_unit_test(test_classification),
        cmocka_unit_test(test_error_strings_never_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
