/*
 * test_lcp_generate.c: the generators' promises: the known z* solves LCP(M, q) (certificate at
 * 1e-12 relative), the same seed gives bitwise the same problem, and M has its class's property.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"

static const rs_lcp_class all_classes[] = {RS_LCP_CLASS_SPD, RS_LCP_CLASS_PMATRIX,
                                           RS_LCP_CLASS_PSD, RS_LCP_CLASS_FRICTION};

static double entry(const rs_lcp *l, int i, int j) { return l->M[i + (size_t)j * l->n]; }

static void test_known_solution_is_certified(void **state)
{
    (void)state;
    static const int sizes[] = {1, 2, 3, 7, 10, 50, 200};
    for (size_t c = 0; c < 4; c++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int degenerate = 0; degenerate <= 1; degenerate++) {
                const int n = sizes[k];
                rs_lcp *lcp;
                double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
                double *w2 = malloc(sizeof(double) * n);
                assert_int_equal(rs_lcp_generate(all_classes[c], n, 11, degenerate, &lcp, z, w, NULL), RS_OK);
                rs_lcp_certificate cert = {.size = sizeof cert};
                assert_int_equal(rs_lcp_certificate_compute(n, lcp->M, lcp->q, z, 1e-12, w2, &cert, NULL), RS_OK);
                assert_true(cert.passed);
                for (int i = 0; i < n; i++)
                    assert_close(w[i], w2[i], 0.0, 0.0);
                rs_lcp_destroy(lcp);
                free(z);
                free(w);
                free(w2);
            }
}

static void test_same_seed_same_bits(void **state)
{
    (void)state;
    for (size_t c = 0; c < 4; c++) {
        rs_lcp *a, *b, *other;
        assert_int_equal(rs_lcp_generate(all_classes[c], 30, 42, 0, &a, NULL, NULL, NULL), RS_OK);
        assert_int_equal(rs_lcp_generate(all_classes[c], 30, 42, 0, &b, NULL, NULL, NULL), RS_OK);
        assert_int_equal(rs_lcp_generate(all_classes[c], 30, 43, 0, &other, NULL, NULL, NULL), RS_OK);
        assert_memory_equal(a->M, b->M, sizeof(double) * 900);
        assert_memory_equal(a->q, b->q, sizeof(double) * 30);
        assert_memory_not_equal(a->q, other->q, sizeof(double) * 30);
        rs_lcp_destroy(a);
        rs_lcp_destroy(b);
        rs_lcp_destroy(other);
    }
}

/* Determinant of the principal submatrix on index set `mask` (n <= 10) by Gaussian elimination. */
static double principal_minor(const rs_lcp *l, unsigned mask)
{
    int idx[10], m = 0;
    for (int i = 0; i < l->n; i++)
        if (mask & (1u << i))
            idx[m++] = i;
    double A[100];
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++)
            A[i + j * m] = entry(l, idx[i], idx[j]);
    double det = 1.0;
    for (int k = 0; k < m; k++) {
        int p = k;
        for (int i = k + 1; i < m; i++)
            if (fabs(A[i + k * m]) > fabs(A[p + k * m]))
                p = i;
        if (A[p + k * m] == 0.0)
            return 0.0;
        if (p != k) {
            for (int j = 0; j < m; j++) {
                const double t = A[k + j * m];
                A[k + j * m] = A[p + j * m];
                A[p + j * m] = t;
            }
            det = -det;
        }
        det *= A[k + k * m];
        for (int i = k + 1; i < m; i++) {
            const double f = A[i + k * m] / A[k + k * m];
            for (int j = k; j < m; j++)
                A[i + j * m] -= f * A[k + j * m];
        }
    }
    return det;
}

static void test_class_properties(void **state)
{
    (void)state;
    enum { n = 8 };
    for (uint64_t seed = 1; seed <= 5; seed++) {
        rs_lcp *spd, *pm, *psd;
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, n, seed, 0, &spd, NULL, NULL, NULL), RS_OK);
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_PMATRIX, n, seed, 0, &pm, NULL, NULL, NULL), RS_OK);
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_PSD, n, seed, 0, &psd, NULL, NULL, NULL), RS_OK);
        int pm_symmetric = 1;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                assert_close(entry(spd, i, j), entry(spd, j, i), 0.0, 0.0);
                pm_symmetric &= entry(pm, i, j) == entry(pm, j, i);
            }
        assert_false(pm_symmetric);
        /* Every principal minor positive: SPD and P-matrix. */
        for (unsigned mask = 1; mask < (1u << n); mask++) {
            assert_true(principal_minor(spd, mask) > 0.0);
            assert_true(principal_minor(pm, mask) > 0.0);
        }
        /* PSD: z'Mz >= 0 for random z, and M singular (rank ceil(n/2) + skew part). */
        uint64_t x = seed * 7919;
        for (int trial = 0; trial < 100; trial++) {
            double z[n], quad = 0.0;
            for (int i = 0; i < n; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                z[i] = (double)(x >> 11) * 0x1.0p-53 - 0.5;
            }
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    quad += z[i] * entry(psd, i, j) * z[j];
            assert_true(quad >= -1e-12);
        }
        rs_lcp_destroy(spd);
        rs_lcp_destroy(pm);
        rs_lcp_destroy(psd);
    }
}

/* Friction: per 3-D contact (lambda, beta1..4, gamma): gamma row = [mu, -1 -1 -1 -1, 0] with
 * q = 0; beta rows have +1 in the gamma column; the impulse block is symmetric PSD. */
static void test_friction_structure(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        const int n = 12 + 4 + 1; /* two 3-D contacts, one planar, one frictionless */
        rs_lcp *l;
        assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_FRICTION, n, seed, 0, &l, NULL, NULL, NULL), RS_OK);
        const int gammas[3] = {5, 11, 15};
        for (int g = 0; g < 3; g++) {
            const int row = gammas[g], first = g < 2 ? 6 * g : 12, nd = g < 2 ? 4 : 2;
            assert_close(l->q[row], 0.0, 0.0, 0.0);
            assert_close(entry(l, row, row), 0.0, 0.0, 0.0);
            const double mu = entry(l, row, first);
            assert_true(mu >= 0.1 && mu <= 1.0);
            for (int j = 1; j <= nd; j++) {
                assert_close(entry(l, row, first + j), -1.0, 0.0, 0.0);
                assert_close(entry(l, first + j, row), 1.0, 0.0, 0.0);
            }
        }
        /* impulse rows: every index that is not a gamma */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                const int ig = i == 5 || i == 11 || i == 15, jg = j == 5 || j == 11 || j == 15;
                if (!ig && !jg)
                    assert_close(entry(l, i, j), entry(l, j, i), 1e-15, 1e-13);
            }
        assert_true(entry(l, 16, 16) > 0.0); /* the frictionless contact's normal */
        rs_lcp_destroy(l);
    }
}

static void test_generator_arguments(void **state)
{
    (void)state;
    rs_lcp *l = (rs_lcp *)&l;
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, 0, 1, 0, &l, NULL, NULL, NULL), RS_ERR_DIMENSION);
    assert_null(l);
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, -4, 1, 0, &l, NULL, NULL, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lcp_generate((rs_lcp_class)9, 4, 1, 0, &l, NULL, NULL, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, 4, 1, 2, &l, NULL, NULL, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_SPD, 4, 1, 0, NULL, NULL, NULL, NULL), RS_ERR_NULL_ARG);
    rs_lcp_class c;
    assert_int_equal(rs_lcp_class_parse("friction", &c, NULL), RS_OK);
    assert_int_equal(c, RS_LCP_CLASS_FRICTION);
    assert_int_equal(rs_lcp_class_parse("Friction", &c, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_lcp_class_parse(NULL, &c, NULL), RS_ERR_NULL_ARG);
    assert_string_equal(rs_lcp_class_name(RS_LCP_CLASS_PSD), "psd");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_solution_is_certified),
        cmocka_unit_test(test_same_seed_same_bits),
        cmocka_unit_test(test_class_properties),
        cmocka_unit_test(test_friction_structure),
        cmocka_unit_test(test_generator_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
