/*
 * test_study.c: the learning studies on reduced sizes, with their stated expectations.
 *
 * noisy-sticking (note 001 section 3.1.3), 20,000 samples per sigma and case at sigma = 1e-4,
 * 0.1 and 1: with u = v = 0 the fraction of sticking steps has 0.25 inside its 95% interval at
 * every sigma (it is exactly the chance that f1, f2 >= 0); with v = 0.03 m/s it is under 1%; with
 * noise as large as G's own entries (sigma = 1) Lemke meets LCPs it cannot solve, and none at
 * sigma = 1e-4. A wrong sticking test (v' instead of |v'|) or a biased noise would move case A
 * off 25% by far more than the interval's half-width, 0.6%.
 */
#include "test_helpers.h"

#include "study/noisy_sticking.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_sticking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
