/*
 * test_point3d.c: point3d_friction against closed forms and against point2d_friction.
 *
 * - The discrete scheme on flat ground with no push: a block sliding at v0 along the angle theta
 *   keeps its direction and loses mu g dt of speed per step until the step in which it stops,
 *   so after N steps it has moved dt (v_1 + ... + v_K) along theta, v_k = v0 - k mu g dt, K the
 *   last step with v_k > 0. The exact-cone NLP must reproduce that position to 1e-6 relative and
 *   the direction to 1e-6 rad, at 0, 10, 22.5, 30 and 45 degrees, with no failed step; and the
 *   continuous distance v0^2 / (2 mu g) within the integrator's v0 dt.
 * - The k-direction LCP slides along a polygon's direction: its direction error is at most pi/k
 *   and shrinks as k grows (4, 16, 64).
 * - Motion in the x-z plane (y = yd = 0, no y push) is point2d's: both backends' trajectories
 *   agree with point2d_friction's to 1e-9 (relative to each column's size).
 * - compare's verdicts tell the polygon's bias (approximation_bias) from disagreement.
 */
#include "test_helpers.h"

#include <string.h>

#include "io/scenario.h"
#include "sim/compare.h"
#include "sim/stepper.h"
#include "models/registry.h"

static rs_scenario sc;

static void load(const char *name, const char *const *sets, int nsets)
{
    char path[512];
    snprintf(path, sizeof path, "%s/problems/scenarios/%s.ini", RS_SOURCE_DIR, name);
    rs_error_detail d;
    rs_scenario_release(&sc);
    const rs_error err = rs_scenario_load(path, sets, nsets, &sc, &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
}

/* The planar block with no push, sliding at v0 along theta (degrees), with k directions. */
static void slide(double theta, int k, double v0, rs_compare_result *r, rs_run_mode mode)
{
    const double a = theta * 3.14159265358979323846 / 180.0;
    char xd[64], yd[64], dirs[64];
    snprintf(xd, sizeof xd, "initial.xd=%.17g", v0 * cos(a));
    snprintf(yd, sizeof yd, "initial.yd=%.17g", v0 * sin(a));
    snprintf(dirs, sizeof dirs, "model.directions=%d", k);
    const char *sets[] = {xd, yd, dirs, "input.uy=0", "run.steps=500"};
    load("point3d_planar_block", sets, 5);
    assert_int_equal(rs_compare_run(&sc, mode, NULL, NULL, r), RS_OK);
}

static void test_exact_cone_reproduces_the_discrete_scheme(void **state)
{
    (void)state;
    const double angles[] = {0.0, 10.0, 22.5, 30.0, 45.0}, v0 = 2.0;
    for (int i = 0; i < 5; i++) {
        rs_compare_result r;
        slide(angles[i], 8, v0, &r, RS_RUN_NLP);
        assert_int_equal(r.nlp.failed_steps, 0);
        const double mu = sc.params[2], g = sc.params[1], dt = sc.dt, dv = mu * g * dt;
        double dist = 0.0;
        for (int kk = 1; v0 - kk * dv > 0.0; kk++)
            dist += dt * (v0 - kk * dv);
        const double x = r.nlp.final[0], y = r.nlp.final[1];
        assert_close(hypot(x, y), dist, 0.0, 1e-6);
        assert_close(atan2(y, x), angles[i] * 3.14159265358979323846 / 180.0, 1e-6, 0.0);
        assert_close(hypot(x, y), v0 * v0 / (2.0 * mu * g), v0 * dt, 0.0); /* continuous */
        rs_compare_free(&r);
    }
}

/* The sliding direction of the LCP's answer, at 30 degrees (off every direction of k = 4, 16
 * and 64), against the exact one: within pi/k, and smaller for larger k. */
static void test_polygon_direction_error_shrinks(void **state)
{
    (void)state;
    const int ks[] = {4, 16, 64};
    double err[3];
    for (int i = 0; i < 3; i++) {
        rs_compare_result r;
        slide(30.0, ks[i], 2.0, &r, RS_RUN_LEMKE);
        assert_int_equal(r.lemke.failed_steps, 0);
        err[i] = fabs(atan2(r.lemke.final[1], r.lemke.final[0]) - 30.0 * 3.14159265358979 / 180);
        assert_true(err[i] <= 3.14159265358979 / ks[i] + 1e-12);
        rs_compare_free(&r);
    }
    assert_true(err[1] < err[0] && err[2] < err[1]);
}

/* Column c of step k of a trajectory. */
static double column(const rs_step_result *s, int nstate, int c)
{
    return c < nstate ? s->state_next[c] : s->forces[c - nstate];
}

static void test_plane_motion_is_point2d(void **state)
{
    (void)state;
    load("point2d_friction", NULL, 0);
    rs_compare_result r2;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r2), RS_OK);
    const char *sets[] = {"initial.yd=0", "model.directions=8"};
    load("point3d_friction", sets, 2);
    rs_compare_result r3;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r3), RS_OK);
    assert_int_equal(r2.steps, r3.steps);
    assert_int_equal(r3.nlp.failed_steps + r3.lemke.failed_steps, 0);
    /* point2d (x, z, xd, zd, fx, fz) against point3d (x, y, z, xd, yd, zd, fx, fy, fz) */
    static const int map[6] = {0, 2, 3, 5, 6, 8};
    for (int c = 0; c < 6; c++) {
        double size = 1e-300, worst[2] = {0.0, 0.0};
        for (int k = 0; k < r2.steps; k++)
            for (int b = 0; b < 2; b++) {
                const rs_step_result *s2 = b ? &r2.step[k].lemke : &r2.step[k].nlp;
                const rs_step_result *s3 = b ? &r3.step[k].lemke : &r3.step[k].nlp;
                const double a = column(s2, 4, c), v = column(s3, 6, map[c]);
                size = fmax(size, fabs(a));
                worst[b] = fmax(worst[b], fabs(a - v));
            }
        if (!(worst[0] <= 1e-9 * size && worst[1] <= 1e-9 * size))
            fail_msg("column %d: |point2d - point3d| NLP %.3g, Lemke %.3g, column size %.3g", c,
                     worst[0], worst[1], size);
    }
    for (int k = 0; k < r3.steps; k++) /* and nothing moves along y */
        assert_true(r3.step[k].nlp.state_next[1] == 0.0 && r3.step[k].lemke.state_next[1] == 0.0);
    rs_compare_free(&r2);
    rs_compare_free(&r3);
    rs_scenario_release(&sc);
}

/* compare of the throw: every difference between the exact cone and the 8-gon is within what the
 * polygon explains (approximation_bias) or the agreement tolerance; the LCP's own relaxation
 * solves the same polygon, so there no bias is granted and every step agrees. */
static void test_compare_verdicts(void **state)
{
    (void)state;
    load("point3d_friction", NULL, 0);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.verdicts[RS_VERDICT_AGREE] + r.verdicts[RS_VERDICT_APPROXIMATION_BIAS],
                     r.steps);
    assert_true(r.verdicts[RS_VERDICT_APPROXIMATION_BIAS] > 100); /* the sliding steps */
    rs_compare_free(&r);
    const char *relax[] = {"nlp.form=relaxation"};
    load("point3d_friction", relax, 1);
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.verdicts[RS_VERDICT_AGREE], r.steps);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* A real disagreement is not excused: the NLP's answer of a sliding step doctored by 1% of its
 * friction (through the comparison's step-by-step interface) is relaxation_bias, while the
 * undoctored step before it is approximation_bias. */
static void test_disagreement_is_not_excused(void **state)
{
    (void)state;
    load("point3d_planar_block", NULL, 0);
    rs_compare_result out;
    rs_compare_session *cs;
    assert_int_equal(rs_compare_begin(&sc, RS_RUN_COMPARE, &out, &cs), RS_OK);
    rs_step_result nlp;
    assert_int_equal(rs_step_result_init(&nlp, sc.model), RS_OK);
    for (int k = 0; k < 101; k++) {
        const double *u = rs_compare_input(cs, k);
        rs_stepper_nlp(rs_compare_stepper(cs), rs_compare_nlp_state(cs), u, &nlp);
        if (k == 100) { /* sliding: friction about 4.9 N */
            nlp.forces[0] *= 1.01;
            nlp.forces[1] *= 1.01;
        }
        rs_compare_advance(cs, k, &nlp);
    }
    assert_int_equal(out.step[99].verdict, RS_VERDICT_APPROXIMATION_BIAS);
    assert_int_equal(out.step[100].verdict, RS_VERDICT_RELAXATION_BIAS);
    rs_step_result_free(&nlp);
    rs_compare_abort(cs);
    rs_scenario_release(&sc);
}

/* The certificate judges an answer by the cone it solves: a friction force of size mu fz at 22.5
 * degrees lies on the circle (an exact-cone answer: no violation) but outside the 8-gon, whose
 * inradius is cos(pi/8) mu fz (an LCP answer: violation (1 - cos(pi/8)) mu fz). */
static void test_certificate_per_cone(void **state)
{
    (void)state;
    const rs_model *m = rs_model_find("point3d_friction");
    const double params[4] = {1.0, 10.0, 0.5, 8.0}, x[6] = {0, 0, 0, 1, 0.4142135623730951, 0};
    const double u[3] = {0, 0, 0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    /* a step with fz = m g exactly balancing gravity, and friction R at 22.5 degrees */
    const double dt = 1e-3, R = 0.5 * 10.0, a = 3.14159265358979323846 / 8;
    const double f[3] = {-R * cos(a), -R * sin(a), 10.0};
    double sn[6];
    for (int i = 0; i < 3; i++) {
        const double g = i == 2 ? 10.0 : 0.0;
        sn[3 + i] = x[3 + i] + dt * (f[i] - g); /* m = 1 */
        sn[i] = x[i] + dt * sn[3 + i];
    }
    double primal[2], compl[2];
    for (int lcp = 0; lcp < 2; lcp++) {
        const rs_step_data d = {params, x, u, dt, 0, &nlp, NULL, lcp, NULL};
        m->residuals(&d, sn, f, NULL, &primal[lcp], &compl[lcp]);
    }
    rs_step_scales s;
    const rs_step_data d0 = {params, x, u, dt, 0, &nlp, NULL, 0, NULL};
    m->step_scales(&d0, &s);
    assert_true(primal[0] <= 1e-12);
    assert_close(primal[1], (1.0 - cos(a)) * R / s.force, 1e-12, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_cone_reproduces_the_discrete_scheme),
        cmocka_unit_test(test_polygon_direction_error_shrinks),
        cmocka_unit_test(test_plane_motion_is_point2d),
        cmocka_unit_test(test_compare_verdicts),
        cmocka_unit_test(test_disagreement_is_not_excused),
        cmocka_unit_test(test_certificate_per_cone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
