/*
 * test_siconos_data.c: the 20 problems of the Siconos LCP collection (tests/data/siconos),
 * with the outcomes its README states. Solved means the certificate recomputed here passes at
 * 1e-9 relative; the two problems without a Lemke solution must be reported as not solved.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "relaxsim/relaxsim.h"

typedef struct expected_outcome {
    const char *name;
    rs_lemke_status status;
    int pivots; /* -1: not stated */
} expected_outcome;

static const expected_outcome outcomes[] = {
    {"lcp_CPS_1", RS_LEMKE_SOLVED, -1},
    {"lcp_CPS_2", RS_LEMKE_SOLVED, -1},
    {"lcp_CPS_3", RS_LEMKE_RAY_TERMINATION, -1},
    {"lcp_CPS_4", RS_LEMKE_SOLVED, -1},
    {"lcp_CPS_4bis", RS_LEMKE_SOLVED, -1},
    {"lcp_CPS_5", RS_LEMKE_SOLVED, -1},
    {"lcp_Pang_isolated_sol", RS_LEMKE_SOLVED, -1},
    {"lcp_Pang_isolated_sol_perturbed", RS_LEMKE_RAY_TERMINATION, -1},
    {"lcp_deudeu", RS_LEMKE_SOLVED, -1},
    {"lcp_deudeu_block", RS_LEMKE_SOLVED, -1},
    {"lcp_enum_fails", RS_LEMKE_SOLVED, -1},
    {"lcp_exp_murty", RS_LEMKE_SOLVED, -1},
    {"lcp_exp_murty2", RS_LEMKE_SOLVED, 63},
    {"lcp_inf_sol_perturbed", RS_LEMKE_SOLVED, -1},
    {"lcp_mmc", RS_LEMKE_SOLVED, -1},
    {"lcp_ortiz", RS_LEMKE_SOLVED, -1},
    {"lcp_ortiz_block", RS_LEMKE_SOLVED, -1},
    {"lcp_tobenna", RS_LEMKE_SOLVED, -1},
    {"lcp_trivial", RS_LEMKE_SOLVED, -1},
    {"lcp_trivial_block", RS_LEMKE_SOLVED, -1},
};

static rs_lcp *load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.dat", RS_LCP_DATA_DIR, name);
    rs_lcp *lcp = NULL;
    rs_error_detail detail;
    const rs_error err = rs_lcp_read_file(path, &lcp, &detail);
    if (err != RS_OK)
        print_error("%s\n", detail.message);
    assert_int_equal(err, RS_OK);
    return lcp;
}

static int setup_data_dir(void **state)
{
    (void)state;
    struct stat st;
    if (stat(RS_LCP_DATA_DIR, &st) != 0) {
        print_error("LCP collection not found at %s (tests/data/siconos of the repository)\n",
                    RS_LCP_DATA_DIR);
        return -1;
    }
    return 0;
}

static void test_every_file_has_its_outcome(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof outcomes / sizeof outcomes[0]; k++) {
        rs_lcp *lcp = load(outcomes[k].name);
        const int n = lcp->n;
        double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
        rs_lemke_info info = {.size = sizeof info};
        assert_int_equal(rs_lemke_solve_alloc(n, lcp->M, lcp->q, NULL, NULL, z, w, &info, NULL), RS_OK);
        rs_lcp_certificate cert = {.size = sizeof cert};
        assert_int_equal(rs_lcp_certificate_compute(n, lcp->M, lcp->q, z, 1e-9, NULL, &cert, NULL), RS_OK);
        if (info.status != outcomes[k].status)
            print_error("%s: status %s, expected %s\n", outcomes[k].name,
                        rs_lemke_status_name(info.status), rs_lemke_status_name(outcomes[k].status));
        assert_int_equal(info.status, outcomes[k].status);
        /* never a wrong "solved": solved iff the independent certificate passes */
        assert_int_equal(cert.passed, info.status == RS_LEMKE_SOLVED);
        if (outcomes[k].pivots >= 0)
            assert_int_equal(info.pivots, outcomes[k].pivots);
        free(z);
        free(w);
        rs_lcp_destroy(lcp);
    }
}

static void test_murty2_solution(void **state)
{
    (void)state;
    rs_lcp *lcp = load("lcp_exp_murty2");
    double z[6], w[6];
    rs_lemke_info info = {.size = sizeof info};
    assert_int_equal(rs_lemke_solve_alloc(6, lcp->M, lcp->q, NULL, NULL, z, w, &info, NULL), RS_OK);
    assert_true(info.cert.natural_residual < 1e-9);
    for (int i = 0; i < 5; i++)
        assert_close(z[i], 0.0, 0.0, 0.0);
    assert_close(z[5], 64.0, 1e-12, 0.0);
    rs_lcp_destroy(lcp);
}

static void test_block_files_match_dense_twins(void **state)
{
    (void)state;
    static const char *twins[] = {"lcp_deudeu", "lcp_ortiz", "lcp_trivial"};
    for (size_t k = 0; k < 3; k++) {
        char block_name[64];
        snprintf(block_name, sizeof block_name, "%s_block", twins[k]);
        rs_lcp *dense = load(twins[k]), *block = load(block_name);
        const int n = dense->n;
        assert_int_equal(block->n, n);
        for (size_t i = 0; i < (size_t)n * n; i++)
            assert_close(block->M[i], dense->M[i], 1e-15, 1e-15);
        for (int i = 0; i < n; i++)
            assert_close(block->q[i], dense->q[i], 0.0, 0.0);
        double *zd = malloc(sizeof(double) * n), *zb = malloc(sizeof(double) * n);
        double *w = malloc(sizeof(double) * n);
        rs_lemke_info a = {.size = sizeof a}, b = {.size = sizeof b};
        assert_int_equal(rs_lemke_solve_alloc(n, dense->M, dense->q, NULL, NULL, zd, w, &a, NULL), RS_OK);
        assert_int_equal(rs_lemke_solve_alloc(n, block->M, block->q, NULL, NULL, zb, w, &b, NULL), RS_OK);
        assert_int_equal(a.status, RS_LEMKE_SOLVED);
        assert_int_equal(b.status, a.status);
        for (int i = 0; i < n; i++)
            assert_close(zb[i], zd[i], 1e-12, 1e-12);
        free(zd);
        free(zb);
        free(w);
        rs_lcp_destroy(dense);
        rs_lcp_destroy(block);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file_has_its_outcome),
        cmocka_unit_test(test_murty2_solution),
        cmocka_unit_test(test_block_files_match_dense_twins),
    };
    return cmocka_run_group_tests(tests, setup_data_dir, NULL);
}
