/*
 * test_helpers.h: what every unit test shares.
 *
 * assert_close(actual, expected, atol, rtol) checks |actual - expected| <= atol + rtol |expected|
 * in double precision and prints both values with %.17g on failure (cmocka 1.1.5's
 * assert_float_equal casts to float, so it is never used here).
 */
#ifndef RS_TEST_HELPERS_H
#define RS_TEST_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

static inline void assert_close_impl(double actual, double expected, double atol, double rtol,
                                     const char *actual_text, const char *file, int line)
{
    const double bound = atol + rtol * fabs(expected);
    if (!(fabs(actual - expected) <= bound)) {
        print_error("%s = %.17g, expected %.17g (|diff| = %.3g > atol %.3g + rtol %.3g * |expected|)\n",
                    actual_text, actual, expected, fabs(actual - expected), atol, rtol);
        _fail(file, line);
    }
}

#define assert_close(actual, expected, atol, rtol)                                                \
    assert_close_impl((actual), (expected), (atol), (rtol), #actual, __FILE__, __LINE__)

/* Directory of the Siconos LCP collection, set by CMake. */
#ifndef RS_LCP_DATA_DIR
#define RS_LCP_DATA_DIR "../shared/lcp-data/siconos"
#endif

#endif
