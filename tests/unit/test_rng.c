/*
 * test_rng.c: the portable generator behind every seeded problem, against the reference values
 * of its two published algorithms (splitmix64 and xoshiro256**, Blackman & Vigna).
 */
#include <math.h>

#include "test_helpers.h"

#include "core/rng.h"

static void test_splitmix64_seeding(void **state)
{
    (void)state;
    rs_rng r;
    rs_rng_seed(&r, 0);
    /* splitmix64 from x = 0: first output 0xE220A8397B1DCDAF. */
    assert_int_equal(r.s[0], 0xE220A8397B1DCDAFULL);
}

static void test_xoshiro256starstar_reference(void **state)
{
    (void)state;
    rs_rng r = {{1, 2, 3, 4}};
    assert_int_equal(rs_rng_next(&r), 11520ULL);
    assert_int_equal(rs_rng_next(&r), 0ULL);
    assert_int_equal(rs_rng_next(&r), 1509978240ULL);
    assert_int_equal(rs_rng_next(&r), 1215971899390074240ULL);
}

static void test_ranges(void **state)
{
    (void)state;
    rs_rng r;
    rs_rng_seed(&r, 99);
    int seen[5] = {0};
    for (int k = 0; k < 10000; k++) {
        const double u = rs_rng_uniform(&r);
        assert_true(u >= 0.0 && u < 1.0);
        const double v = rs_rng_range(&r, -2.0, 3.0);
        assert_true(v >= -2.0 && v < 3.0);
        const uint64_t b = rs_rng_below(&r, 5);
        assert_true(b < 5);
        seen[b]++;
    }
    for (int i = 0; i < 5; i++) /* each residue about 2000 times: 5 sigma is about 200 */
        assert_true(seen[i] > 1700 && seen[i] < 2300);
}

/* Standard normal deviates: over 2e5 draws the sample mean and variance lie within 6 standard
 * errors of 0 and 1 (1/sqrt(N) and sqrt(2/N)), and the share beyond 1.96 within 6 standard errors
 * of 5% (a Box-Muller with a wrong constant or a missing square root fails all three). */
static void test_normal(void **state)
{
    (void)state;
    rs_rng r;
    rs_rng_seed(&r, 5);
    const int n = 200000;
    double sum = 0.0, sum2 = 0.0;
    int tail = 0;
    for (int i = 0; i < n; i++) {
        const double x = rs_rng_normal(&r);
        assert_true(isfinite(x));
        sum += x;
        sum2 += x * x;
        tail += fabs(x) > 1.959963984540054;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    assert_true(fabs(mean) <= 6.0 / sqrt(n));
    assert_true(fabs(var - 1.0) <= 6.0 * sqrt(2.0 / n));
    assert_true(fabs((double)tail / n - 0.05) <= 6.0 * sqrt(0.05 * 0.95 / n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_seeding),
        cmocka_unit_test(test_xoshiro256starstar_reference),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
