/*
 * test_study.c: the learning studies on reduced sizes, with their stated expectations.
 *
 * noisy-sticking (note 001 section 3.1.3), 20,000 samples per sigma and case at sigma = 1e-4,
 * 0.1 and 1: with u = v = 0 the fraction of sticking steps has 0.25 inside its simultaneous 95%
 * interval at every sigma (it is exactly the chance that f1, f2 >= 0); with v = 0.03 m/s its
 * interval lies below the note's 0.1% (it sticks in none of the samples here); with
 * noise as large as G's own entries (sigma = 1) Lemke meets LCPs it cannot solve, and none at
 * sigma = 1e-4. A wrong sticking test (v' instead of |v'|) or a biased noise would move case A
 * off 25% by far more than the interval's half-width, 0.9%. The intervals' quantile is checked
 * against the normal quantiles computed elsewhere (Python's statistics.NormalDist().inv_cdf).
 * unknown-friction, known-friction and decomposed-velocities: below.
 */
#include "test_helpers.h"

#include <math.h>
#include <string.h>

#include "io/scenario.h"
#include "sim/dataset.h"
#include "study/known_friction.h"
#include "study/noisy_sticking.h"
#include "study/unknown_friction.h"

static void test_noisy_sticking(void **state)
{
    (void)state;
    rs_stick_config cfg;
    rs_stick_config_default(&cfg);
    cfg.samples = 20000;
    cfg.nsigma = 4;
    cfg.sigma[0] = 1e-4;
    cfg.sigma[1] = 0.1;
    cfg.sigma[2] = 1.0;
    cfg.sigma[3] = 1e-6; /* the study's smallest noise: every LCP solvable, and certified */
    rs_stick_result r;
    assert_int_equal(rs_stick_run(&cfg, &r), RS_OK);
    /* every LCP with small noise is solved and its answer certified: a certificate whose unit
     * of w shrank to the pushed rows refused 645 of 100,000 at sigma = 1e-6 */
    assert_int_equal(r.a[3].unsolved + r.b[3].unsolved, 0);
    for (int i = 0; i < 3; i++) {
        if (!(r.a[i].lo <= 0.25 && 0.25 <= r.a[i].hi))
            fail_msg("sigma %g: case A sticks %.4f, interval [%.4f, %.4f]", cfg.sigma[i],
                     r.a[i].fraction, r.a[i].lo, r.a[i].hi);
        assert_true(r.a[i].hi - r.a[i].lo < 0.02);
        /* case B: the note's "about 0.1%" is not reproduced (measured 0 of 20,000 at each of
         * these sigmas, the interval's top 0.038%): the whole interval lies below 0.1% */
        assert_true(r.b[i].hi < 0.001);
        assert_int_equal(r.a[i].solved + r.a[i].unsolved, cfg.samples);
    }
    assert_int_equal(r.a[0].unsolved + r.b[0].unsolved, 0);
    assert_true(r.a[2].unsolved > 0 && r.b[2].unsolved > 0);
    /* simultaneous intervals over 3 fractions per sigma: Phi^-1(1 - 0.05 / (2 * 3 * 4)) */
    assert_true(fabs(r.z - 2.8652602385321333) < 1e-9);
    assert_true(fabs(rs_stick_simultaneous_z(7) - 3.038074304924211) < 1e-9);
    assert_true(fabs(rs_stick_simultaneous_z(1) - 2.393980) < 1e-6);
    cfg.samples = 10; /* below the smallest sample */
    assert_int_equal(rs_stick_run(&cfg, &r), RS_ERR_BAD_SETTING);
}

/* unknown-friction (note 001 section 3.2): from twice the true mu the LCP gradient's
 * Gauss-Newton fit converges (1e-6); for the block pushed from rest by 3 N (true mu 0.2), a start
 * at mu = 0.4 sticks throughout: the LCP's gradient is exactly zero there and its fit cannot
 * move, while the relaxed NLP's fit and the golden-section search converge. */
static void test_unknown_friction(void **state)
{
    (void)state;
    char path[512];
    rs_error_detail why;
    snprintf(path, sizeof path, "%s/problems/scenarios/sliding_block_traditional.ini",
             RS_SOURCE_DIR);
    static rs_fit_result r;
    const double twice[1] = {1.0};
    assert_int_equal(rs_fit_run(path, NULL, 0, twice, 1, NULL, &r, &why), RS_OK);
    assert_true(r.mu_true == 0.5);
    assert_true(r.out[0][RS_FIT_LCP].converged);
    assert_true(r.out[0][RS_FIT_NLP].rel_error < 1e-6);
    assert_true(r.out[0][RS_FIT_GOLDEN].converged);
    const char *pushed[] = {"initial.xd=0", "input.u=3", "model.mu=0.2"};
    const double stuck[1] = {0.4};
    assert_int_equal(rs_fit_run(path, pushed, 3, stuck, 1, NULL, &r, &why), RS_OK);
    assert_false(r.out[0][RS_FIT_LCP].converged);
    assert_string_equal(r.out[0][RS_FIT_LCP].stop, "zero gradient");
    assert_true(r.out[0][RS_FIT_NLP].rel_error < 1e-6);
    assert_true(r.out[0][RS_FIT_GOLDEN].converged);
}

/* Predictions of coefficients theta on a dataset's rows (sliding_block_direct: columns x, v+,
 * v-, u, z1, z2, w1, w2, x', v+', v-'): the largest |xhat - (v+', v-')|, computed here from the
 * note's model, independently of the study's code. */
static double max_prediction_error(const rs_dataset *d, int variant, const double theta[2][9])
{
    const double mu_mg = 0.5 * 1.0 * 9.81;
    double worst = 0.0;
    for (int k = 0; k < d->rows; k++) {
        const double *r = d->clean + (size_t)k * d->ncol;
        const double xd = r[1] - r[2], u = r[3];
        const double l1 = variant ? r[6] : mu_mg - r[7], l2 = variant ? r[7] : mu_mg - r[6];
        const double phi[9] = {1, xd, u, l1, xd * l1, u * l1, l2, xd * l2, u * l2};
        for (int i = 0; i < 2; i++) {
            double xh = 0.0;
            for (int j = 0; j < 9; j++)
                xh += theta[i][j] * phi[j];
            worst = fmax(worst, fabs(xh - r[9 + i]));
        }
    }
    return worst;
}

/* known-friction (note 000 section 3.1) on 80 training steps: on noise-free data the fitted
 * coefficients are the true ones (written out here: c = dt/m = 0.01, mu m g = 4.905 N) within
 * 1e-6, and predict 200 steps of another push sequence within 1e-8 m/s, wherever the truth
 * minimises the note's cost: every weighting in the slack variant, the prediction error alone in
 * the direct one. In the direct variant with a2 > 0 the data's fictitious forces make the cost
 * prefer a wrong model: its cost at the fit is below the truth's and its coefficients are off by
 * more than 0.1. With noise 1e-4 the prediction-error fit is off, by less than 1e-2. The
 * decomposed-velocities expectations hold on the same fits: noise-free, affine and clamped
 * predict every sticking step and no false one; with noise the clamp invents no sticking step.
 * A scenario without random pushes (held-out data would be the training data) is refused. */
static void test_known_friction(void **state)
{
    (void)state;
    char path[512];
    rs_error_detail why;
    snprintf(path, sizeof path, "%s/problems/scenarios/sliding_block_direct_random.ini",
             RS_SOURCE_DIR);
    rs_kf_config cfg;
    rs_kf_config_default(&cfg);
    cfg.train_steps = 80;
    cfg.test_steps = 80;
    cfg.nnoise = 2;
    cfg.noise[0] = 0.0;
    cfg.noise[1] = 1e-4;
    static rs_kf_result r;
    assert_int_equal(rs_kf_run(path, &cfg, &r, &why), RS_OK);
    const double c = 0.01, b = -0.01 * 4.905;
    const double truth[2][2][9] = {{{0, 1, c, 0, 0, 0, -c, 0, 0}, {0, -1, -c, -c, 0, 0, 0, 0, 0}},
                                   {{b, 1, c, c, 0, 0, 0, 0, 0}, {b, -1, -c, 0, 0, 0, c, 0, 0}}};
    static rs_scenario sc;
    rs_error_detail detail;
    assert_int_equal(rs_scenario_load(path, NULL, 0, &sc, &detail), RS_OK);
    sc.steps = 200;
    sc.input.seed += 77; /* pushes neither set of the study saw */
    rs_dataset other;
    assert_int_equal(rs_dataset_record(&sc, 0.0, 0, &other), RS_OK);
    assert_int_equal(other.rows, 200);
    assert_true(r.train_stuck > 5 && r.test_stuck > 5);
    for (int v = 0; v < 2; v++)
        for (int w = 0; w < cfg.nweight; w++) {
            const rs_kf_fit *x = &r.fit[v][0][w];
            assert_true(rs_nlp_status_ok(x->status));
            double dtheta = 0.0;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 9; j++)
                    dtheta = fmax(dtheta, fabs(x->theta[i][j] - truth[v][i][j]));
            const int truth_minimises =
                v == 1 || (cfg.alpha[w][1] == 0.0 && cfg.alpha[w][2] == 0.0);
            if (truth_minimises) {
                if (!(dtheta <= 1e-6))
                    fail_msg("%s, weighting %d: coefficients off by %g", rs_kf_variant_name(v), w,
                             dtheta);
                assert_true(max_prediction_error(&other, v, x->theta) <= 1e-8);
            } else {
                assert_true(x->cost < x->cost_truth);
                assert_true(dtheta > 0.1);
            }
        }
    for (int v = 0; v < 2; v++) {
        const rs_kf_fit *exact = &r.fit[v][0][0], *noisy = &r.fit[v][1][0];
        const double e = max_prediction_error(&other, v, noisy->theta);
        assert_true(e > 1e-9 && e < 1e-2);
        assert_int_equal(exact->stick_affine, r.test_stuck);
        assert_int_equal(exact->stick_clamped, r.test_stuck);
        assert_int_equal(exact->false_stick_affine + exact->false_stick_clamped, 0);
        assert_int_equal(noisy->false_stick_clamped, 0);
    }
    rs_dataset_free(&other);
    rs_scenario_release(&sc);
    snprintf(path, sizeof path, "%s/problems/scenarios/sliding_block_direct.ini", RS_SOURCE_DIR);
    assert_int_equal(rs_kf_run(path, &cfg, &r, &why), RS_ERR_BAD_ARG);
    assert_non_null(strstr(why.message, "type = random"));
    cfg.train_steps = 5; /* below the smallest data set */
    assert_int_equal(rs_kf_run(path, &cfg, &r, &why), RS_ERR_BAD_SETTING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_sticking),
        cmocka_unit_test(test_unknown_friction),
        cmocka_unit_test(test_known_friction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
