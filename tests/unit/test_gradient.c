/*
 * test_gradient.c: trajectory gradients (sim/gradient.h) against closed forms and against each
 * other.
 *
 * The sliding block (note 000 section 2) while it slides forward obeys, with a = (u - mu m g)/m,
 *     v_k = v_0 + k dt a,   x_N = x_0 + dt (v_1 + ... + v_N) = x_0 + N dt v_0 + dt^2 a N (N + 1) /
 * 2, so dx_N/dmu = -g dt^2 N (N + 1) / 2, dx_N/du = dt^2 N (N + 1) / (2 m), dx_N/dv_0 = N dt,
 * dx_N/dm = -u dt^2 N (N + 1) / (2 m^2), dx_N/ddt = N v_0 + dt a N (N + 1): the LCP gradient must
 * match each to 1e-9 relative (it is exact up to rounding), for all three formulations; a block
 * stuck throughout has dx_N/dmu = 0 exactly. point2d's default scenario: the LCP gradient agrees
 * with the central difference to 1e-6, and the NLP gradient's distance to it shrinks with IPOPT's
 * tol (the relaxation's bias). A block that comes to rest exactly at a step has its difference
 * straddle the switch: non_smooth, at that step.
 */
#include "test_helpers.h"

#include <string.h>

#include "io/scenario.h"
#include "sim/gradient.h"

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

/* cfg with the given keys (comma-separated) and outputs (comma-separated). */
static void configure(rs_grad_config *cfg, const char *keys, const char *outputs)
{
    rs_grad_config_default(cfg);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", keys);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
        assert_int_equal(rs_grad_parse_key(&sc, t, &cfg->keys[cfg->nkeys++], NULL), RS_OK);
    snprintf(buf, sizeof buf, "%s", outputs);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
        assert_int_equal(rs_grad_parse_output(&sc, t, &cfg->outputs[cfg->noutputs++], NULL),
                         RS_OK);
}

static void run(const rs_grad_config *cfg, rs_grad_result *r)
{
    assert_int_equal(rs_grad_check_scenario(&sc, cfg, NULL), RS_OK);
    assert_int_equal(rs_grad_run(&sc, cfg, NULL, NULL, r), RS_OK);
}

static void test_sliding_block_matches_the_recursion(void **state)
{
    (void)state;
    static const char *const models[][2] = {{"sliding_block_forward", "xd"},
                                            {"sliding_block_direct", "xdp"},
                                            {"sliding_block_traditional", "xd"}};
    for (int i = 0; i < 3; i++) {
        const char *sets[] = {"run.steps=40"}; /* v_40 = 2 - 0.03905 * 40 > 0: sliding */
        load(models[i][0], sets, 1);
        char keys[64];
        snprintf(keys, sizeof keys, "mu,u,%s,m,dt", models[i][1]);
        rs_grad_config cfg;
        configure(&cfg, keys, "x");
        rs_grad_result r;
        run(&cfg, &r);
        const double N = 40, dt = sc.dt, m = sc.params[0], g = sc.params[1], mu = sc.params[2];
        const double u = sc.input.constant[0], v0 = sc.initial[1], a = (u - mu * m * g) / m;
        const double expected[5] = {-g * dt * dt * N * (N + 1) / 2, dt * dt * N * (N + 1) / (2 * m),
                                    N * dt, -u * dt * dt * N * (N + 1) / (2 * m * m),
                                    N * v0 + dt * a * N * (N + 1)};
        for (int j = 0; j < 5; j++) {
            assert_close(r.entries[j].lcp, expected[j], 0.0, 1e-9);
            assert_close(r.entries[j].fd, expected[j], 0.0, 1e-6);
            assert_true(r.entries[j].verdict == RS_GRAD_AGREE ||
                        r.entries[j].verdict == RS_GRAD_RELAXATION_BIAS);
            /* the relaxation's bias: measured at most 5.8e-9 relative */
            assert_close(r.entries[j].nlp, expected[j], 0.0, 2e-7);
        }
        assert_int_equal(r.lcp_failed_steps + r.nlp_failed_steps, 0);
        rs_grad_free(&r);
    }
}

static void test_stuck_block_has_zero_mu_gradient(void **state)
{
    (void)state;
    static const char *const models[][2] = {{"sliding_block_forward", "initial.xd=0"},
                                            {"sliding_block_direct", "initial.xdp=0"},
                                            {"sliding_block_traditional", "initial.xd=0"}};
    for (int i = 0; i < 3; i++) {
        const char *sets[] = {"run.steps=50", models[i][1]}; /* u = 1 N < mu m g = 4.9 N */
        load(models[i][0], sets, 2);
        rs_grad_config cfg;
        configure(&cfg, "mu", "x,f");
        rs_grad_result r;
        run(&cfg, &r);
        assert_true(r.entries[0].lcp == 0.0);            /* x: exactly, not to a tolerance */
        assert_close(r.entries[1].lcp, 0.0, 1e-12, 0.0); /* f = -u whatever mu */
        assert_close(r.entries[0].nlp, 0.0, 1e-9, 0.0);
        assert_int_equal(r.verdicts[RS_GRAD_DISAGREE] + r.verdicts[RS_GRAD_FAILED], 0);
        rs_grad_free(&r);
    }
}

/* The point2d scenario: LCP and differences agree to 1e-6; the NLP's distance from them is the
 * relaxation's, and shrinks from tol 1e-8 to 1e-11 by at least 10x. Reduced: the run ends at step
 * 460, through the landing (step 451) and the start of the slide. */
static void test_point2d_three_methods(void **state)
{
    (void)state;
    double nlp_rel[2] = {0, 0};
    const int reduced = rs_test_reduced();
    const char *tols[2][2] = {{"nlp.tol=1e-8", "run.steps=460"},
                              {"nlp.tol=1e-11", "run.steps=460"}};
    for (int t = 0; t < 2; t++) {
        load("point2d_friction", tols[t], reduced ? 2 : 1);
        rs_grad_config cfg;
        configure(&cfg, "mu,xd,z,m", "x");
        rs_grad_result r;
        run(&cfg, &r);
        for (int j = 0; j < 4; j++) {
            const rs_grad_entry *e = &r.entries[j];
            assert_true(e->rel_lcp <= 1e-6);
            assert_int_equal(e->switch_step, -1);
            assert_true(e->verdict == RS_GRAD_AGREE || e->verdict == RS_GRAD_RELAXATION_BIAS);
            nlp_rel[t] = fmax(nlp_rel[t], e->rel_nlp);
        }
        if (!reduced) /* d x / d mu at the end, m */
            assert_close(r.entries[0].lcp, -4.0981589, 0.0, 1e-7);
        assert_true(r.max_sens_residual <= 1e-12);
        assert_int_equal(r.lcp_failed_steps + r.nlp_failed_steps, 0);
        rs_grad_free(&r);
    }
    if (!reduced) { /* the bias builds up over the slide after the landing */
        assert_true(nlp_rel[0] > 1e-6);              /* visible at tol 1e-8 */
        assert_true(nlp_rel[1] < nlp_rel[0] / 10.0); /* and shrinking with tol */
    }

    /* the NLP gradient is the derivative of the NLP's own trajectory: against its central
     * difference (h = 1e-4 |v|, IPOPT at tol 1e-12: good to about 1e-6) */
    const char *tight[] = {"nlp.tol=1e-12", "run.steps=460"};
    load("point2d_friction", tight, reduced ? 2 : 1);
    rs_grad_config cfg;
    configure(&cfg, "mu,xd,z", "x,xd@451");
    cfg.fd_nlp = 1;
    rs_grad_result r;
    run(&cfg, &r);
    for (int i = 0; i < 6; i++)
        assert_close(r.entries[i].nlp, r.entries[i].fd_nlp, 1e-9, 1e-5);
    rs_grad_free(&r);
}

/* v_0 = 20 dt (mu g - u/m): the block stops exactly at step 20 (index 19), where v' = 0 and the
 * unused friction is 0 (a floating index). Perturbing mu either way moves the stop to one side:
 * the difference straddles the switch and says so. */
static void test_switch_is_non_smooth(void **state)
{
    (void)state;
    char v0[64];
    snprintf(v0, sizeof v0, "initial.xd=%.17g", 20 * 0.01 * (0.5 * 9.81 - 1.0));
    const char *sets[] = {"run.steps=30", v0, "expect.grad_lcp_fd_max_rel=1",
                          "expect.grad_nlp_fd_max_rel=1"};
    load("sliding_block_forward", sets, 4);
    rs_grad_config cfg;
    configure(&cfg, "mu", "x");
    rs_grad_result r;
    run(&cfg, &r);
    assert_int_equal(r.entries[0].verdict, RS_GRAD_NON_SMOOTH);
    assert_int_equal(r.entries[0].switch_step, 19);
    assert_true(r.floating_steps >= 1);
    /* the only pair is non-smooth: nothing was measured against the differences, and a bound on
     * the largest difference cannot pass on an empty set (it read 0 and passed) */
    assert_true(isnan(r.lcp_fd_max_rel) && isnan(r.nlp_fd_max_rel));
    assert_false(r.contract_passed);
    rs_grad_free(&r);
}

/* The sliding block with IPOPT stopped after one iteration: every NLP tangent fails (the pair
 * is `failed`, which grad_failed_max counts), but the LCP's tangent and the difference were both
 * computed, and the LCP's measure holds their difference (the NLP's failure hid it: it read 0);
 * the NLP's has nothing measured (NaN). And a landing block whose only pairs straddle the switch
 * has nothing measured either: NaN, which fails grad_lcp_fd_max_rel (it read 0 and passed). */
static void test_nlp_failure_leaves_the_lcp_measured(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=30", "nlp.max_iter=1", "nlp.check_start=no"};
    load("sliding_block_forward", sets, 3);
    rs_grad_config cfg;
    configure(&cfg, "mu", "x");
    rs_grad_result r;
    run(&cfg, &r);
    assert_int_equal(r.entries[0].verdict, RS_GRAD_FAILED);
    assert_true(isnan(r.entries[0].nlp) && isfinite(r.entries[0].lcp));
    assert_true(r.lcp_fd_max_rel == r.entries[0].rel_lcp && r.lcp_fd_max_rel < 1e-7);
    assert_true(isnan(r.nlp_fd_max_rel));
    rs_grad_free(&r);

    const char *landing[] = {"initial.x=0.97119", "expect.grad_failed_max=3",
                             "expect.grad_lcp_fd_max_rel=1"};
    load("falling_block", landing, 3);
    configure(&cfg, "x", "xd@44,fn@44");
    run(&cfg, &r);
    assert_true(r.entries[0].switch_step >= 0 && r.entries[1].switch_step >= 0);
    assert_true(isnan(r.lcp_fd_max_rel));
    assert_false(r.contract_passed);
    rs_grad_free(&r);
}

/* disc_polygons, its contact set held fixed per step: a disc at rest in the valley (two walls
 * at 45 degrees) sits with its centre r sqrt(2) above the corner, so d z_final / d r = sqrt(2),
 * and the LCP gradient, the NLP gradient and the (forward: r = 0 is the end of its range)
 * difference all say so; d x_final / d z0 = 0 (it ends in the corner whatever its height). */
static void test_disc_in_valley(void **state)
{
    (void)state;
    const char *sets[] = {"model.r=0.05"};
    load("polygon_valley", sets, 1);
    rs_grad_config cfg;
    configure(&cfg, "r,z", "z,x");
    rs_grad_result r;
    run(&cfg, &r);
    assert_close(r.entries[0].lcp, sqrt(2.0), 0.0, 1e-9);
    assert_close(r.entries[0].fd, sqrt(2.0), 0.0, 1e-6);
    assert_close(r.entries[0].nlp, sqrt(2.0), 0.0, 1e-6);
    assert_int_equal(r.entries[0].fd_sided, 0); /* r = 0.05: central */
    assert_close(r.entries[3].lcp, 0.0, 1e-12, 0.0);
    assert_int_equal(r.lcp_failed_steps + r.nlp_failed_steps, 0);
    assert_int_equal(r.verdicts[RS_GRAD_DISAGREE] + r.verdicts[RS_GRAD_FAILED], 0);
    rs_grad_free(&r);
}

/* Two everyday parameters are keys: a piece of a piecewise input (u@P) and a pair's friction line
 * (model.friction.A.B). The sliding block pushed by u_0 = 1 N until t = 0.2 s (steps 0 .. 19)
 * and u_1 = 3 N after, sliding throughout: u_j moves v_k by dt/m for k > j, so
 * dx_N/du_P = dt^2/m sum over the piece's steps j of (N - j): 810 dt^2 for piece 0 and 465 dt^2
 * for piece 1 at N = 50. The seam scene's box slides frictionless on the ground by its own line
 * (friction box static 0); set to mu = 0.2 it decelerates by mu g: dxd_N/dmu = -g N dt,
 * dx_N/dmu = -g dt^2 N (N + 1) / 2. The LCP gradient is exact to rounding (1e-9 relative). */
static void test_input_pieces_and_pair_friction_are_keys(void **state)
{
    (void)state;
    const char *pieces[] = {"input.type=piecewise", "input.times=0, 0.2", "input.u=1, 3",
                            "run.steps=50"};
    load("sliding_block_traditional", pieces, 4);
    rs_grad_config cfg;
    configure(&cfg, "u@0,input.u@1", "x,xd@19");
    assert_string_equal(cfg.keys[1].name, "input.u@1");
    rs_grad_result r;
    run(&cfg, &r);
    const double dt = sc.dt, m = sc.params[0];
    const double expected[4] = {810 * dt * dt / m, 20 * dt / m, 465 * dt * dt / m, 0.0};
    /* (entries: output-major, x then xd@19, each over the keys) */
    const double got[4] = {r.entries[0].lcp, r.entries[2].lcp, r.entries[1].lcp,
                           r.entries[3].lcp};
    for (int e = 0; e < 4; e++)
        assert_close(got[e], expected[e], 1e-15, 1e-9);
    assert_close(r.entries[0].fd, expected[0], 0.0, 1e-6);
    assert_close(r.entries[1].fd, expected[2], 0.0, 1e-6);
    assert_int_equal(r.lcp_failed_steps + r.nlp_failed_steps, 0);
    rs_grad_free(&r);
    rs_grad_key k;
    assert_int_equal(rs_grad_parse_key(&sc, "u", &k, NULL), RS_ERR_PARSE);   /* which piece? */
    assert_int_equal(rs_grad_parse_key(&sc, "u@2", &k, NULL), RS_ERR_PARSE); /* 2 pieces */
    assert_int_equal(rs_grad_parse_key(&sc, "mu@0", &k, NULL), RS_ERR_PARSE);
    load("sliding_block_traditional", NULL, 0);
    assert_int_equal(rs_grad_parse_key(&sc, "u@0", &k, NULL), RS_ERR_PARSE); /* constant */
    /* a pair's friction line */
    char path[512];
    snprintf(path, sizeof path, "%s/problems/scenarios/bodies_seam.ini", RS_SOURCE_DIR);
    const char *pair[] = {"model.friction.box.static=0.2", "run.steps=100"};
    rs_error_detail d;
    rs_scenario_release(&sc);
    assert_int_equal(rs_scenario_load(path, pair, 2, &sc, &d), RS_OK);
    configure(&cfg, "model.friction.box.static", "box.xd,box.x");
    run(&cfg, &r);
    const double g = 9.81, N = 100;
    assert_close(r.entries[0].value, 1.1 - 0.2 * g * N * sc.dt, 1e-12, 0.0);
    assert_close(r.entries[0].lcp, -g * N * sc.dt, 0.0, 1e-9);
    assert_close(r.entries[1].lcp, -g * sc.dt * sc.dt * N * (N + 1) / 2, 0.0, 1e-9);
    assert_close(r.entries[0].fd, -g * N * sc.dt, 0.0, 1e-6);
    assert_int_equal(r.lcp_failed_steps + r.nlp_failed_steps, 0);
    rs_grad_free(&r);
    rs_scenario_release(&sc);
}

static void test_keys_and_outputs_are_checked(void **state)
{
    (void)state;
    load("point2d_friction", NULL, 0);
    rs_grad_key k;
    rs_grad_output o;
    assert_int_equal(rs_grad_parse_key(&sc, "model.mu", &k, NULL), RS_OK);
    assert_string_equal(k.name, "model.mu");
    assert_int_equal(rs_grad_parse_key(&sc, "ux", &k, NULL), RS_OK);
    assert_int_equal(k.kind, RS_GRAD_KEY_INPUT);
    assert_int_equal(rs_grad_parse_key(&sc, "dt", &k, NULL), RS_OK);
    assert_int_equal(rs_grad_parse_key(&sc, "tol", &k, NULL), RS_ERR_PARSE);
    assert_int_equal(rs_grad_parse_key(&sc, "initial.mu", &k, NULL), RS_ERR_PARSE);
    assert_int_equal(rs_grad_parse_key(&sc, "mod.mu", &k, NULL), RS_ERR_PARSE);
    assert_int_equal(rs_grad_parse_key(&sc, ".mu", &k, NULL), RS_ERR_PARSE);
    assert_int_equal(rs_grad_parse_output(&sc, "fz_N@599", &o, NULL), RS_OK);
    assert_int_equal(o.step, 600);
    /* steps 0 .. 1199 */
    assert_int_equal(rs_grad_parse_output(&sc, "x@1200", &o, NULL), RS_ERR_PARSE);
    assert_int_equal(rs_grad_parse_output(&sc, "q", &o, NULL), RS_ERR_PARSE);
    /* inputs in multiples of the weight move with m and g: refused with a reason */
    const char *weight[] = {"input.unit=weight"};
    load("point2d_friction", weight, 1);
    rs_grad_config cfg;
    rs_grad_config_default(&cfg);
    assert_int_equal(rs_grad_check_scenario(&sc, &cfg, NULL), RS_ERR_BAD_ARG);
    rs_scenario_release(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_block_matches_the_recursion),
        cmocka_unit_test(test_stuck_block_has_zero_mu_gradient),
        cmocka_unit_test(test_point2d_three_methods),
        cmocka_unit_test(test_switch_is_non_smooth),
        cmocka_unit_test(test_nlp_failure_leaves_the_lcp_measured),
        cmocka_unit_test(test_disc_in_valley),
        cmocka_unit_test(test_keys_and_outputs_are_checked),
        cmocka_unit_test(test_input_pieces_and_pair_friction_are_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
