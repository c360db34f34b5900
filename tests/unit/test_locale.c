/*
 * test_locale.c: every number relaxsim reads or writes is in the C locale, whatever the caller's:
 * a program that sets a locale with a decimal comma (de_DE.UTF-8) still writes "1.5" and reads it
 * back, in .dat files, scenarios, sweeps, scenes, CSV rows and capsules, and the caller's locale
 * is left as it was.
 */
#include "test_helpers.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "io/ini_entries.h"
#include "io/output.h"
#include "io/scenario.h"
#include "io/sweep.h"
#include "relaxsim/relaxsim.h"

#define TMP RS_TEST_TMPDIR "/locale_"

static int comma_locale(void **state)
{
    (void)state;
    if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "de_DE.utf8")) {
        print_error("the locale de_DE.UTF-8 is missing: scripts/setup.sh --test-tools makes it "
                    "(localedef -i de_DE -f UTF-8 de_DE.UTF-8)\n");
        return -1;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%g", 1.5);
    return strcmp(buf, "1,5") == 0 ? 0 : -1; /* the caller's printf does write a comma */
}

static int c_locale(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    return 0;
}

static void assert_caller_locale_kept(void)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%g", 2.5);
    assert_string_equal(buf, "2,5");
}

static void test_lcp_files(void **state)
{
    (void)state;
    const double M[4] = {1.5, 0.25, -0.125, 2.0}, q[2] = {-1.5, 0.5};
    rs_lcp lcp = {.n = 2, .M = (double *)M, .q = (double *)q};
    assert_int_equal(rs_lcp_write_file(TMP "a.dat", &lcp, RS_LCP_STORAGE_DENSE, 0, NULL, NULL),
                     RS_OK);
    static char text[4096];
    slurp(TMP "a.dat", text, sizeof text);
    assert_non_null(strstr(text, "1.5"));
    assert_null(strstr(text, "1,5"));
    rs_lcp *back;
    rs_error_detail d;
    assert_int_equal(rs_lcp_read_file(TMP "a.dat", &back, &d), RS_OK);
    assert_memory_equal(back->M, M, sizeof M);
    assert_memory_equal(back->q, q, sizeof q);
    rs_lcp_destroy(back);
    assert_caller_locale_kept();
}

static void test_numbers_read_and_written(void **state)
{
    (void)state;
    double v = 0.0;
    assert_int_equal(rs_parse_real("1.5", &v), 1);
    assert_true(v == 1.5);
    char buf[40];
    assert_string_equal(rs_format_real(0.1, buf, sizeof buf), "0.1");
    write_file(TMP "s.ini", "[model]\nname = falling_block\nm = 1.5\n[initial]\nx = 0.25\n"
                            "[run]\nsteps = 3\ndt = 0.5e-3\n");
    rs_scenario sc;
    rs_error_detail d;
    assert_int_equal(rs_scenario_load(TMP "s.ini", NULL, 0, &sc, &d), RS_OK);
    assert_true(sc.params[0] == 1.5 && sc.initial[0] == 0.25 && sc.dt == 0.5e-3);
    /* a trajectory row */
    rs_compare_step st;
    assert_int_equal(rs_compare_step_init(&st, sc.model), RS_OK);
    st.nlp.state_next[0] = 0.75;
    FILE *f = fopen(TMP "row.csv", "w");
    assert_non_null(f);
    rs_trajectory_csv_row(f, &sc, RS_BACKEND_NLP, 0, &st);
    fclose(f);
    static char text[4096];
    slurp(TMP "row.csv", text, sizeof text);
    assert_non_null(strstr(text, "0,0.0005,0,0.75,")); /* step, t_s, the input, x */
    rs_compare_step_free(&st);
    rs_scenario_release(&sc);
    /* a sweep's values */
    write_file(TMP "w.ini", "[sweep]\nscenario = locale_s.ini\n[vary]\nmodel.m = 0.5, 2.5\n");
    rs_sweep sw;
    assert_int_equal(rs_sweep_load(TMP "w.ini", &sw, &d), RS_OK);
    assert_true(sw.keys[0].values[0] == 0.5 && sw.keys[0].values[1] == 2.5);
    rs_sweep_free(&sw);
    assert_caller_locale_kept();
}

/* A message's numbers too: a state the simulation API refuses is named with "-0.5", never
 * "-0,5" (its messages were in the caller's locale) */
static void test_messages(void **state)
{
    (void)state;
    rs_sim_scenario *sc = NULL;
    rs_error_detail d;
    assert_int_equal(rs_sim_scenario_load(RS_SOURCE_DIR "/problems/scenarios/point2d_friction.ini",
                                          NULL, 0, &sc, &d),
                     RS_OK);
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, NULL, &sim, &d), RS_OK);
    const double below[4] = {0.0, -0.5, 0.0, 0.0};
    assert_int_equal(rs_sim_check_state(sim, below, &d), RS_ERR_BAD_ARG);
    assert_non_null(strstr(d.message, "-0.5"));
    assert_null(strstr(d.message, "-0,5"));
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
    assert_caller_locale_kept();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lcp_files),
        cmocka_unit_test(test_numbers_read_and_written),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests(tests, comma_locale, c_locale);
}
