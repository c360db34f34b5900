/*
 * test_scenario.c: scenario files: the shipped ones load, every bad-input path fails with a
 * message naming file, line and field, --set overrides, and the input schedules.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "io/ini_entries.h"
#include "io/scenario.h"

#define TMP RS_TEST_TMPDIR "/"

static const char base[] = "[model]\n"
                           "name = point2d_friction\n"
                           "mu = 0.1\n"
                           "[initial]\n"
                           "z = 1\n"
                           "[run]\n"; /* extras start at line 7, in [run] */

static rs_scenario sc; /* large: not on the stack */

/* rs_scenario_load into sc, the last load's text and scene released first. */
static rs_error load_fresh(const char *path, const char *const *sets, int nsets, rs_scenario *out,
                           rs_error_detail *d)
{
    rs_scenario_release(out);
    return rs_scenario_load(path, sets, nsets, out, d);
}

static int release_scenario(void **state)
{
    (void)state;
    rs_scenario_release(&sc);
    return 0;
}

/* base + extra must fail with a message containing needle. */
static void expect_error(const char *extra, const char *needle)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", base, extra);
    write_file(TMP "bad.ini", text);
    rs_error_detail d;
    const rs_error err = load_fresh(TMP "bad.ini", NULL, 0, &sc, &d);
    if (err == RS_OK || !strstr(d.message, needle))
        print_error("extra '%s': got '%s', expected '%s'\n", extra, d.message, needle);
    assert_int_not_equal(err, RS_OK);
    assert_non_null(strstr(d.message, needle));
}

/* Load a whole file `name` holding text: it must fail with code, with `needle` in the message. */
static void expect_file_error(const char *name, const char *text, rs_error code,
                              const char *needle)
{
    char path[512];
    snprintf(path, sizeof path, TMP "%s", name);
    write_file(path, text);
    rs_error_detail d;
    const rs_error err = load_fresh(path, NULL, 0, &sc, &d);
    if (err != code || !strstr(d.message, needle))
        print_error("%s: got '%s', expected '%s'\n", name, d.message, needle);
    assert_int_equal(err, code);
    assert_non_null(strstr(d.message, needle));
}

static void test_shipped_scenarios_load(void **state)
{
    (void)state;
    static const char *files[] = {"falling_block", "sliding_block_forward", "sliding_block_direct",
                                  "sliding_block_traditional", "sliding_block_direct_random",
                                  "point2d_friction", "point2d_friction_blog",
                                  "polygon_corner_egan", "polygon_corner_stewart_trinkle"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/problems/scenarios/%s.ini", RS_SOURCE_DIR, files[i]);
        rs_error_detail d;
        const rs_error err = load_fresh(path, NULL, 0, &sc, &d);
        if (err != RS_OK)
            print_error("%s\n", d.message);
        assert_int_equal(err, RS_OK);
        assert_true(sc.ncheck > 0); /* every shipped scenario carries a contract */
        rs_scenario_release(&sc);
    }
}

static void test_values_and_defaults(void **state)
{
    (void)state;
    write_file(TMP "ok.ini", "[model]\nname = point2d_friction\nmu = 0.1\n[initial]\nz = 1\n"
                             "[run]\nsteps = 10\ndt = 1e-3\n");
    rs_error_detail d;
    assert_int_equal(load_fresh(TMP "ok.ini", NULL, 0, &sc, &d), RS_OK);
    assert_string_equal(sc.model->name, "point2d_friction");
    assert_close(sc.params[2], 0.1, 0.0, 0.0);  /* mu */
    assert_close(sc.params[0], 10.0, 0.0, 0.0); /* m: the model's default */
    assert_close(sc.initial[1], 1.0, 0.0, 0.0);
    assert_int_equal(sc.steps, 10);
    assert_close(sc.dt, 1e-3, 0.0, 0.0);
}

static void test_unknown_key_names_line(void **state)
{
    (void)state;
    expect_error("frobnicate = 3\n", "bad.ini:7: run.frobnicate: unknown key");
    expect_error("[initial]\nq = 1\n", "bad.ini:8: initial.q: unknown state component");
    expect_error("[expect]\nshadow_max_abs.y_m = 1\n", "bad.ini:8: expect.shadow_max_abs.y_m: no column 'y_m'");
    expect_error("[expect]\nwhatever = 1\n", "bad.ini:8: expect.whatever: unknown check");
}

static void test_unknown_section(void **state)
{
    (void)state;
    expect_error("[physics]\nx = 1\n", "bad.ini:7: [physics]: unknown section");
    /* one without keys too (a misspelt empty [expcet] was taken silently) */
    expect_error("[expcet]\n", "bad.ini:7: [expcet]: unknown section (expected model,");
    expect_error("  [run] ; a comment\n[nlp]\n[ lemke]\n", "bad.ini:9: [ lemke]: unknown section");
}

static void test_nan_and_inf(void **state)
{
    (void)state;
    expect_error("[nlp]\ntol = nan\n", "bad.ini:8: nlp.tol: must be finite, got 'nan'");
    expect_error("[initial]\nxd = inf\n", "initial.xd: must be finite");
    expect_error("[initial]\nx = 1.5.2\n", "initial.x: expected a number, got '1.5.2'");
    /* a number that underflows is not 0 (1e-400 was taken as mu = 0) */
    expect_error("[nlp]\ntol = 1e-400\n", "nlp.tol: '1e-400' is below 2.22507e-308");
    expect_error("[initial]\nx = -1e-320\n", "initial.x: '-1e-320' is below");
}

static void test_time_step_and_steps(void **state)
{
    (void)state;
    expect_error("dt = -1\n", "bad.ini:7: run.dt: the time step must be in [1e-12, 10] s, got -1");
    expect_error("dt = 0\n", "run.dt: the time step must be in [1e-12, 10] s");
    expect_error("steps = 0\n", "bad.ini:7: run.steps: 0 is out of range [1,");
    expect_error("steps = 1.5\n", "run.steps: expected an integer");
}

static void test_negative_friction_and_mass(void **state)
{
    (void)state;
    expect_file_error("mu.ini", "[model]\nname = point2d_friction\nmu = -0.1\n", RS_ERR_PARSE,
                      "mu.ini:3: model.mu: -0.1 is out of range [0, 10]");
    expect_file_error("m.ini", "[model]\nname = falling_block\nm = 0\n", RS_ERR_PARSE,
                      "m.ini:3: model.m: 0 is out of range");
    /* a count within its range but not whole (it was blamed on "initial state and input",
     * with no line) */
    expect_file_error("dirs.ini", "[model]\nname = point3d_friction\ndirections = 7\n",
                      RS_ERR_PARSE, "dirs.ini:3: model.directions: 7 is not an even whole number");
    expect_file_error("dirs.ini", "[model]\nname = point3d_friction\ndirections = 6.5\n",
                      RS_ERR_PARSE, "dirs.ini:3: model.directions: 6.5 is not an even whole");
    expect_file_error("corners.ini",
                      "[model]\nname = disc_polygons\nscene = " RS_SOURCE_DIR
                      "/problems/scenarios/valley.scene\ncorners = 0.5\n",
                      RS_ERR_PARSE, "corners.ini:4: model.corners: 0.5 is not a whole number");
}

static void test_unknown_or_missing_model(void **state)
{
    (void)state;
    rs_error_detail d;
    write_file(TMP "um.ini", "[model]\nname = rocket\n");
    assert_int_not_equal(load_fresh(TMP "um.ini", NULL, 0, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "um.ini:2: model.name: unknown model 'rocket' (models: falling_block"));
    write_file(TMP "nm.ini", "[run]\nsteps = 3\n");
    assert_int_not_equal(load_fresh(TMP "nm.ini", NULL, 0, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "nm.ini: model.name: missing"));
    assert_int_equal(load_fresh(TMP "none.ini", NULL, 0, &sc, &d), RS_ERR_IO);
    assert_non_null(strstr(d.message, "none.ini: cannot open"));
}

static void test_syntax_and_duplicates(void **state)
{
    (void)state;
    expect_error("this line has no equals sign\n", "bad.ini:7: syntax error");
    expect_error("dt = 1e-3\ndt = 1e-2\n", "bad.ini:8: run.dt: duplicate key (first given at line 7)");
}

static void test_choices(void **state)
{
    (void)state;
    expect_error("[nlp]\npenalty = l3\n", "nlp.penalty: 'l3' is not one of: l1, l2");
    expect_error("backend = ipopt\n", "run.backend: 'ipopt' is not one of: nlp, lemke");
    expect_error("[nlp]\nwarm_start = maybe\n", "nlp.warm_start: 'maybe' is not one of: no, yes");
    write_file(TMP "v.ini", "[model]\nname = point2d_friction\nvariant = paper\n");
    rs_error_detail d;
    assert_int_not_equal(load_fresh(TMP "v.ini", NULL, 0, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "v.ini:3: model.variant: 'paper' is not one of: corrected, blog"));
}

static void test_expect_syntax(void **state)
{
    (void)state;
    expect_error("[expect]\nfinal_nlp.x_m = 0.6\n", "expected 'value +- tolerance'");
    expect_error("[expect]\nrest_time_s = 2 .. 1\n", "expected 'lo .. hi' with finite lo <= hi");
    expect_error("[expect]\nmode_agreement_min = 1.5\n", "1.5 is out of range [0, 1]");
    write_file(TMP "pct.ini", "[model]\nname = point2d_friction\n[expect]\nfinal_nlp.fz_N = 98.1 +- 0.1%\n");
    rs_error_detail d;
    assert_int_equal(load_fresh(TMP "pct.ini", NULL, 0, &sc, &d), RS_OK);
    assert_int_equal(sc.ncheck, 1);
    assert_close(sc.checks[0].a, 98.1, 0.0, 0.0);
    assert_close(sc.checks[0].b, 0.0981, 1e-15, 0.0);
}

static void test_model_domain(void **state)
{
    (void)state;
    rs_error_detail d;
    write_file(TMP "fw.ini", "[model]\nname = sliding_block_forward\n[input]\nu = -1\n");
    assert_int_not_equal(load_fresh(TMP "fw.ini", NULL, 0, &sc, &d), RS_OK);
    /* the line of the value the model's message names (it said "initial state and input") */
    assert_non_null(strstr(d.message, "fw.ini:4: input.u: sliding_block_forward needs u >= 0"));
    /* and the --set that gave it */
    write_file(TMP "fw.ini", "[model]\nname = sliding_block_forward\n[input]\nu = 1\n");
    const char *sets[] = {"input.u=-2"};
    assert_int_not_equal(load_fresh(TMP "fw.ini", sets, 1, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "--set input.u: sliding_block_forward needs u >= 0"));
    /* a message that names two keys: the one it names first, the offending one (it named the
     * last key it mentioned, on another line) */
    write_file(TMP "sbd.ini", "[model]\nname = sliding_block_direct\n[initial]\nxdm = -1\n"
                              "xdp = 1\n");
    assert_int_not_equal(load_fresh(TMP "sbd.ini", NULL, 0, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "sbd.ini:4: initial.xdm: xdm = -1: sliding_block_direct"));
}

static void test_set_overrides(void **state)
{
    (void)state;
    write_file(TMP "ok.ini", "[model]\nname = point2d_friction\n[run]\nsteps = 10\n");
    rs_error_detail d;
    const char *sets[] = {"model.mu=0.3", "run.steps=5", "initial.xd=2"};
    assert_int_equal(load_fresh(TMP "ok.ini", sets, 3, &sc, &d), RS_OK);
    assert_close(sc.params[2], 0.3, 0.0, 0.0);
    assert_int_equal(sc.steps, 5);
    assert_close(sc.initial[2], 2.0, 0.0, 0.0);
    const char *bad1[] = {"model.mu=-1"};
    assert_int_not_equal(load_fresh(TMP "ok.ini", bad1, 1, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "--set model.mu: -1 is out of range"));
    const char *bad2[] = {"mu=0.3"};
    assert_int_not_equal(load_fresh(TMP "ok.ini", bad2, 1, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "--set mu=0.3: expected section.key=value"));
    const char *bad3[] = {"run.dt=nan"};
    assert_int_not_equal(load_fresh(TMP "ok.ini", bad3, 1, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "--set run.dt: must be finite"));
    /* blanks around the dot and the = as the file allows them ("mu " was an unknown key) */
    const char *spaced[] = {" model.mu = 0.25", "run . steps\t=7 "};
    assert_int_equal(load_fresh(TMP "ok.ini", spaced, 2, &sc, &d), RS_OK);
    assert_close(sc.params[2], 0.25, 0.0, 0.0);
    assert_int_equal(sc.steps, 7);
    const char *bad4[] = {"model. =0.3"};
    assert_int_not_equal(load_fresh(TMP "ok.ini", bad4, 1, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "--set model. =0.3: expected section.key=value"));
}

static void test_input_schedules(void **state)
{
    (void)state;
    rs_error_detail d;
    double u[2];
    write_file(TMP "pw.ini", "[model]\nname = point2d_friction\n[input]\ntype = piecewise\n"
                             "times = 0, 0.5\nux = 1, -2\n[run]\ndt = 0.1\n");
    assert_int_equal(load_fresh(TMP "pw.ini", NULL, 0, &sc, &d), RS_OK);
    rs_scenario_input(&sc, 4, u);
    assert_close(u[0], 1.0, 0.0, 0.0);
    assert_close(u[1], 0.0, 0.0, 0.0);
    rs_scenario_input(&sc, 5, u); /* t = 0.5: the second piece */
    assert_close(u[0], -2.0, 0.0, 0.0);
    write_file(TMP "pw2.ini", "[model]\nname = point2d_friction\n[input]\ntype = piecewise\n"
                              "times = 0, 0.5\nux = 1\n");
    assert_int_not_equal(load_fresh(TMP "pw2.ini", NULL, 0, &sc, &d), RS_OK);
    assert_non_null(strstr(d.message, "pw2.ini:6: input.ux: 1 values for 2 times"));
    write_file(TMP "rnd.ini", "[model]\nname = point2d_friction\n[input]\ntype = random\n"
                              "seed = 5\nhold_steps = 3\nux_min = -2\nux_max = 2\n");
    assert_int_equal(load_fresh(TMP "rnd.ini", NULL, 0, &sc, &d), RS_OK);
    double a[2], b[2], c[2];
    rs_scenario_input(&sc, 3, a);
    rs_scenario_input(&sc, 5, b); /* same hold block as step 3 */
    rs_scenario_input(&sc, 6, c);
    assert_close(a[0], b[0], 0.0, 0.0);
    assert_true(a[0] != c[0]);
    assert_true(a[0] >= -2.0 && a[0] < 2.0);
    assert_close(a[1], 0.0, 0.0, 0.0); /* uz: lo = hi = 0 */
}

/* [input] as a whole: a key of another type than the one given, an empty list item, a value
 * beyond 1e12 N once in weights, and every such message at the line of the key it is about;
 * also a NUL byte, an indented continuation line and a misspelt section, each named as what it
 * is (they read as "line too long", "duplicate key" and "model.name: missing"). */
static void test_input_keys_and_file_shape(void **state)
{
    (void)state;
    /* [input] keys from line 4 */
    static const char head[] = "[model]\nname = point2d_friction\n[input]\n";
    static const struct {
        const char *keys, *needle;
    } bad[] = {
        {"ux = 1\nux_min = -1\n",
         "t.ini:5: input.ux_min: only for type = random (this input is of type constant)"},
        {"type = random\nseed = 1\nux = 3\n",
         "t.ini:6: input.ux: only for type = constant or piecewise"},
        {"times = 0, 1\n", "t.ini:4: input.times: only for type = piecewise"},
        {"type = piecewise\ntimes = 0,, 1\nux = 1, 2\n",
         "t.ini:5: input.times: expected a comma-separated list of finite numbers with no empty "
         "item"},
        {"type = piecewise\ntimes = 0, 1,\n", "no empty item"},
        {"type = piecewise\nux = 1, 2\n", "t.ini:4: input.type: piecewise input needs"},
        {"type = piecewise\ntimes = 0, 1\nux = 1, 2, 3\n", "t.ini:6: input.ux: 3 values for 2"},
        {"type = random\nux_min = 2\nux_max = 1\n",
         "t.ini:6: input.ux_max: input ux: _min is above _max"},
        {"unit = weight\nux = 1e11\n", "t.ini:4: input.unit: input ux: 1e+11 weights are"},
    };
    char text[512];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(text, sizeof text, "%s%s", head, bad[k].keys);
        expect_file_error("t.ini", text, RS_ERR_PARSE, bad[k].needle);
    }
    static const char nul[] = "[model]\nname = point2d_friction\n[run]\nste\0ps = 3\n";
    FILE *f = fopen(TMP "nul.ini", "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(nul, 1, sizeof nul - 1, f), sizeof nul - 1);
    fclose(f);
    rs_error_detail d;
    assert_int_equal(load_fresh(TMP "nul.ini", NULL, 0, &sc, &d), RS_ERR_PARSE);
    assert_non_null(strstr(d.message, "nul.ini:4: a NUL byte"));
    expect_file_error("cont.ini", "[model]\nname = point2d_friction\nmu = 0.2\n  0.3\n",
                      RS_ERR_PARSE, "cont.ini:4: an indented line continues the value of line 3");
    expect_file_error("case.ini", "[MODEL]\nname = point2d_friction\n", RS_ERR_PARSE,
                      "case.ini:1: [MODEL]: unknown section");
}

/* No line is cut: a 205-character comment ending in 'mu = 5' is refused with its line, never
 * read as mu = 5; '#' after a blank is a comment as ';' is; numbers are decimal and counts do
 * not overflow; a directory is named as such; a body below the ground and a time step below
 * 1e-12 s are refused. */
static void test_input_is_read_whole_and_strictly(void **state)
{
    (void)state;
    char line[400];
    memset(line, 'x', sizeof line);
    memcpy(line, "; ", 2);
    memcpy(line + 205 - 7, "mu = 5\n", 8);
    char text[1024];
    snprintf(text, sizeof text, "[model]\nname = point2d_friction\n%s[run]\nsteps = 3\n", line);
    expect_file_error("long.ini", text, RS_ERR_PARSE, "long.ini:3: line longer than");
    rs_error_detail d;
    /* inline comments with '#' and ';' */
    write_file(TMP "hash.ini", "[model]\nname = point2d_friction  # the post's model\n"
                               "mu = 0.3 # friction\n[run]\nsteps = 7 ; short\n");
    assert_int_equal(load_fresh(TMP "hash.ini", NULL, 0, &sc, &d), RS_OK);
    assert_close(sc.params[2], 0.3, 0.0, 0.0);
    assert_int_equal(sc.steps, 7);
    expect_error("steps = 0x10\n", "run.steps: expected an integer, got '0x10'");
    expect_error("dt = 0x1p-10\n", "run.dt: expected a number, got '0x1p-10'");
    expect_error("steps = 4294967298\n", "run.steps: 4294967298 is out of range");
    expect_error("dt = 4.9e-324\n", "run.dt: '4.9e-324' is below 2.22507e-308"); /* subnormal */
    expect_error("dt = 1e-300\n", "run.dt: the time step must be in [1e-12, 10] s");
    /* a run keeps nothing per step: 1e8 steps are taken, one more is not */
    expect_error("steps = 100000001\n", "run.steps: 100000001 is out of range [1, 100000000]");
    assert_int_equal(load_fresh(RS_SOURCE_DIR "/problems", NULL, 0, &sc, &d), RS_ERR_IO);
    assert_non_null(strstr(d.message, "problems: is a directory, not a file"));
    expect_file_error("below.ini", "[model]\nname = point2d_friction\n[initial]\nz = -1\n",
                      RS_ERR_PARSE, "below.ini:4: initial.z: z < 0: the body starts "
                                    "below the ground");
    expect_file_error("below.ini", "[model]\nname = falling_block\n[initial]\nx = -0.5\n",
                      RS_ERR_PARSE, "x < 0: the block starts below the surface");
}

/* final_diff checks (atol [+ rtol%]) and inputs in units of the weight. */
static void test_final_diff_and_weight_units(void **state)
{
    (void)state;
    write_file(TMP "fd.ini", "[model]\nname = point2d_friction\nm = 2\ng = 10\n[input]\n"
                             "unit = weight\nux = 0.5\nuz = -1\n[expect]\n"
                             "final_diff.x_m = 1e-6 + 1e-4%\nfinal_diff.z_m = 1e-7\n");
    rs_error_detail d;
    assert_int_equal(load_fresh(TMP "fd.ini", NULL, 0, &sc, &d), RS_OK);
    assert_int_equal(sc.ncheck, 2);
    assert_close(sc.checks[0].a, 1e-6, 0.0, 0.0);
    assert_close(sc.checks[0].b, 1e-6, 0.0, 1e-15);
    assert_close(sc.checks[1].b, 0.0, 0.0, 0.0);
    assert_model_fits_test_arrays(sc.model);
    double u[RS_TEST_MAX_INPUT];
    rs_scenario_input(&sc, 0, u);
    assert_close(u[0], 10.0, 0.0, 1e-15);  /* 0.5 m g, m g = 20 N */
    assert_close(u[1], -20.0, 0.0, 1e-15);
    expect_file_error("fd2.ini", "[model]\nname = point2d_friction\n[expect]\n"
                      "final_diff.x_m = 1e-6 + 2\n", RS_ERR_PARSE,
                      "fd2.ini:4: expect.final_diff.x_m: expected 'atol' or 'atol + rtol%'");
    expect_file_error("fd3.ini", "[model]\nname = point2d_friction\n[input]\nunit = pound\n",
                      RS_ERR_PARSE, "fd3.ini:4: input.unit:");
}

/* Numbers are written in the shortest form that reads back exactly. */
static void test_numbers_are_written_shortest(void **state)
{
    (void)state;
    char buf[40];
    assert_string_equal(rs_format_real(0.05, buf, sizeof buf), "0.05");
    assert_string_equal(rs_format_real(0.1 + 0.2, buf, sizeof buf), "0.30000000000000004");
    assert_string_equal(rs_format_real(NAN, buf, sizeof buf), "nan");
    assert_string_equal(rs_format_real(-INFINITY, buf, sizeof buf), "-inf");
    const double values[] = {1e-320, 9.81, 1.0 / 3.0, -2.5e300, 43281.79986920713};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        assert_true(strtod(rs_format_real(values[i], buf, sizeof buf), NULL) == values[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_scenarios_load),
        cmocka_unit_test(test_values_and_defaults),
        cmocka_unit_test(test_unknown_key_names_line),
        cmocka_unit_test(test_unknown_section),
        cmocka_unit_test(test_nan_and_inf),
        cmocka_unit_test(test_time_step_and_steps),
        cmocka_unit_test(test_negative_friction_and_mass),
        cmocka_unit_test(test_unknown_or_missing_model),
        cmocka_unit_test(test_syntax_and_duplicates),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_expect_syntax),
        cmocka_unit_test(test_model_domain),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_input_schedules),
        cmocka_unit_test(test_input_is_read_whole_and_strictly),
        cmocka_unit_test(test_input_keys_and_file_shape),
        cmocka_unit_test(test_numbers_are_written_shortest),
        cmocka_unit_test(test_final_diff_and_weight_units),
    };
    return cmocka_run_group_tests(tests, NULL, release_scenario);
}
