/*
 * test_study.c: the learning studies on reduced sizes, with their stated expectations.
 *
 * noisy-sticking (note 001 section 3.1.3), 20,000 samples per sigma and case at sigma = 1e-4,
 * 0.1 and 1: with u = v = 0 the fraction of sticking steps has 0.25 inside its 95% interval at
 * every sigma (it is exactly the chance that f1, f2 >= 0); with v = 0.03 m/s it is under 1%; with
 * noise as large as G's own entries (sigma = 1) Lemke meets LCPs it cannot solve, and none at
 * sigma = 1e-4. A wrong sticking test (v' instead of |v'|) or a biased noise would move case A
 * off 25% by far more than the interval's half-width, 0.6%.
 * unknown-friction: below.
 */
#include "test_helpers.h"

#include "study/noisy_sticking.h"
#include "study/unknown_friction.h"

static void test_noisy_sticking(void **state)
{
    (void)state;
    rs_stick_config cfg;
    rs_stick_config_default(&cfg);
    cfg.samples = 20000;
    cfg.nsigma = 3;
    cfg.sigma[0] = 1e-4;
    cfg.sigma[1] = 0.1;
    cfg.sigma[2] = 1.0;
    rs_stick_result r;
    assert_int_equal(rs_stick_run(&cfg, &r), RS_OK);
    for (int i = 0; i < 3; i++) {
        if (!(r.a[i].lo <= 0.25 && 0.25 <= r.a[i].hi))
            fail_msg("sigma %g: case A sticks %.4f, interval [%.4f, %.4f]", cfg.sigma[i],
                     r.a[i].fraction, r.a[i].lo, r.a[i].hi);
        assert_true(r.a[i].hi - r.a[i].lo < 0.015);
        assert_true(r.b[i].fraction < 0.01);
        assert_int_equal(r.a[i].solved + r.a[i].unsolved, cfg.samples);
    }
    assert_int_equal(r.a[0].unsolved + r.b[0].unsolved, 0);
    assert_true(r.a[2].unsolved > 0 && r.b[2].unsolved > 0);
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
    char path[512], why[600];
    snprintf(path, sizeof path, "%s/problems/scenarios/sliding_block_traditional.ini",
             RS_SOURCE_DIR);
    static rs_fit_result r;
    const double twice[1] = {1.0};
    assert_int_equal(rs_fit_run(path, NULL, 0, twice, 1, &r, why, sizeof why), RS_OK);
    assert_true(r.mu_true == 0.5);
    assert_true(r.out[0][RS_FIT_LCP].converged);
    assert_true(r.out[0][RS_FIT_NLP].rel_error < 1e-6);
    assert_true(r.out[0][RS_FIT_GOLDEN].converged);
    const char *pushed[] = {"initial.xd=0", "input.u=3", "model.mu=0.2"};
    const double stuck[1] = {0.4};
    assert_int_equal(rs_fit_run(path, pushed, 3, stuck, 1, &r, why, sizeof why), RS_OK);
    assert_false(r.out[0][RS_FIT_LCP].converged);
    assert_string_equal(r.out[0][RS_FIT_LCP].stop, "zero gradient");
    assert_true(r.out[0][RS_FIT_NLP].rel_error < 1e-6);
    assert_true(r.out[0][RS_FIT_GOLDEN].converged);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_sticking),
        cmocka_unit_test(test_unknown_friction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
