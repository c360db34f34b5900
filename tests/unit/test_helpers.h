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
#include <stdlib.h>
#include <cmocka.h>

/* The hand-written models' largest sizes (problems/<model>.c), for tests that hold a step of one
 * of them in fixed arrays (the bodies model, whose sizes are its scene's, is tested apart). */
#define RS_TEST_MAX_PARAMS 8
#define RS_TEST_MAX_STATE 8
#define RS_TEST_MAX_INPUT 4
#define RS_TEST_MAX_FORCE 4
#define RS_TEST_MAX_LCP 66
#define RS_TEST_MAX_NLP 96

/* Fails the test, naming the size, when a model's step does not fit those arrays (a model that
 * grew, or a new one): every test that holds a step in them checks its model first. */
#define assert_model_fits_test_arrays(m)                                                       \
    do {                                                                                       \
        if ((m)->nparams > RS_TEST_MAX_PARAMS || (m)->nstate > RS_TEST_MAX_STATE ||            \
            (m)->ninput > RS_TEST_MAX_INPUT || (m)->nforce > RS_TEST_MAX_FORCE ||              \
            (m)->lcp_n > RS_TEST_MAX_LCP || (m)->nlp_n > RS_TEST_MAX_NLP ||                    \
            (m)->nlp_m > RS_TEST_MAX_NLP)                                                      \
            fail_msg("model %s: %d params, %d states, %d inputs, %d forces, LCP %d, NLP %d x %d "  \
                     "beyond the test arrays (test_helpers.h RS_TEST_MAX_*)",                  \
                     (m)->name, (m)->nparams, (m)->nstate, (m)->ninput, (m)->nforce,           \
                     (m)->lcp_n, (m)->nlp_n, (m)->nlp_m);                                      \
    } while (0)

/* RS_TEST_REDUCED=1 (scripts/test.sh's sanitizer stage): the slow tests (ctest label "slow") run
 * the same code paths on shorter runs and check what those runs can show; the full runs and
 * their figures are checked once, in the optimised build. */
static inline int rs_test_reduced(void)
{
    const char *e = getenv("RS_TEST_REDUCED");
    return e && e[0] == '1' && e[1] == '\0';
}

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

/* Read a whole (small) file into buf, NUL-terminated; returns its length, 0 if it is missing. */
static inline size_t slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    const size_t len = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[len] = '\0';
    if (f)
        fclose(f);
    return len;
}

/* Write text to a new file (the test fails if it cannot be created). */
static inline void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Directory of the Siconos LCP collection (tests/data/siconos in the repository), set by CMake. */
#ifndef RS_LCP_DATA_DIR
#define RS_LCP_DATA_DIR RS_SOURCE_DIR "/tests/data/siconos"
#endif

#endif
