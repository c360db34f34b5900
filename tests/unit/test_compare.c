/*
 * test_compare.c: the time-stepping comparison on the shipped scenarios. Every claim is
 * recomputed here from the per-step records (states, forces, statuses), not read from the
 * run's own statistics; the statistics are then checked against the recomputation.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"
#include "sim/compare.h"
#include "models/registry.h"

static rs_scenario sc;

static void load(const char *name, const char *const *sets, int nsets)
{
    char path[512];
    snprintf(path, sizeof path, "%s/problems/scenarios/%s.ini", RS_SOURCE_DIR, name);
    rs_error_detail d;
    rs_scenario_release(&sc); /* the last test's (a scenario owns its text and scene) */
    const rs_error err = rs_scenario_load(path, sets, nsets, &sc, &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
}

static int release_scenario(void **state)
{
    (void)state;
    rs_scenario_release(&sc);
    return 0;
}

static double col(const rs_step_result *s, int c)
{
    return c < sc.model->nstate ? s->state_next[c] : s->forces[c - sc.model->nstate];
}

static int index_of(const char *name)
{
    for (int c = 0; c < sc.model->nstate + sc.model->nforce; c++)
        if (strcmp(c < sc.model->nstate ? sc.model->state_names[c]
                                        : sc.model->force_names[c - sc.model->nstate], name) == 0)
            return c;
    fail_msg("no column %s", name);
    return -1;
}

/* Largest per-step |NLP - shadow Lemke| of a column, recomputed. */
static double max_shadow_diff(const rs_compare_result *r, int c)
{
    double m = 0.0;
    for (int k = 0; k < r->steps; k++)
        m = fmax(m, fabs(col(&r->step[k].nlp, c) - col(&r->step[k].shadow, c)));
    return m;
}

/* The first step from which every velocity stays at or below `speed` times the step's natural
 * speed; steps if never. */
static int rest_from(const rs_compare_result *r, int lemke, double speed)
{
    int from = r->steps;
    for (int k = r->steps - 1; k >= 0; k--) {
        const rs_step_result *s = lemke ? &r->step[k].lemke : &r->step[k].nlp;
        for (int v = 0; v < sc.model->nvelocity; v++)
            if (fabs(s->state_next[sc.model->velocity_index[v]]) > speed * s->scales.speed)
                return from;
        from = k;
    }
    return from;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The IPOPT-step figures recomputed from the step records: the steps not solved by a start
 * point, their count, mean iterations (own and stacked share) and median time. */
static void check_ipopt_step_figures(const rs_compare_result *r)
{
    int n = 0, by_path[RS_PATH_COUNT] = {0};
    double iters = 0.0, *t = malloc(sizeof(double) * (size_t)r->steps);
    assert_non_null(t);
    for (int k = 0; k < r->steps; k++) {
        const rs_step_result *s = &r->step[k].nlp;
        assert_true(s->path >= 0 && s->path < RS_PATH_COUNT);
        by_path[s->path]++;
        assert_int_equal(s->at_start, !rs_nlp_path_is_ipopt(s->path));
        if (rs_nlp_path_is_ipopt(s->path)) {
            iters += s->iterations + s->stack_iterations;
            t[n++] = 1e6 * s->time_s;
        }
    }
    assert_int_equal(r->nlp.ipopt_steps, n);
    for (int p = 0; p < RS_PATH_COUNT; p++)
        assert_int_equal(r->nlp.path_counts[p], by_path[p]);
    if (n > 0) {
        assert_close(r->nlp.iterations_per_ipopt_step, iters / n, 1e-12, 1e-12);
        /* the median from the 1% bins of step_stats.h: within half a bin of the lower middle
         * time */
        qsort(t, (size_t)n, sizeof *t, cmp_double);
        const double middle = t[(n + 1) / 2 - 1];
        assert_close(r->nlp.us_per_ipopt_step_median, middle, 0.0, 0.00499);
    }
    free(t);
}

/* The post's scenario with the given settings: physics, per-step certificates, the contract. */
static void check_point2d_default(const char *const *sets, int nsets, rs_compare_result *out)
{
    load("point2d_friction", sets, nsets);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    const double mg = 10.0 * 9.81;
    const int xd = index_of("xd_mps"), z = index_of("z_m");
    const int x = index_of("x_m");
    int failed = 0, agree = 0, first_nlp = -1, first_lemke = -1;
    for (int k = 0; k < r.steps; k++) {
        const rs_compare_step *st = &r.step[k];
        failed += !st->nlp.ok;
        agree += st->nlp.modes[0] == st->shadow.modes[0];
        assert_true(st->shadow.ok && st->lemke.ok);
        /* every certified NLP step really satisfies the physics to cert_tol */
        assert_true(st->nlp.primal <= sc.nlp.cert_tol && st->nlp.complementarity <= sc.nlp.cert_tol);
        if (first_nlp < 0 && col(&st->nlp, index_of("fz_N")) > 1e-6 * mg)
            first_nlp = k;
        if (first_lemke < 0 && col(&st->lemke, index_of("fz_N")) > 1e-6 * mg)
            first_lemke = k;
    }
    assert_int_equal(failed, 0);
    assert_int_equal(r.nlp.failed_steps, failed);
    assert_int_equal(agree, r.steps); /* every step (one mismatch would be 8e-4) */
    assert_close(r.mode_agreement, (double)agree / r.steps, 0.0, 0.0);
    assert_true(max_shadow_diff(&r, xd) < 5e-9); /* measured 9.6e-11 m/s */
    assert_true(max_shadow_diff(&r, z) < 2e-11);  /* measured 4.8e-13 m */
    assert_close(r.shadow_max_abs[xd], max_shadow_diff(&r, xd), 0.0, 0.0);
    assert_int_equal(first_nlp, 451);
    assert_int_equal(first_lemke, 451);
    const rs_compare_step *last = &r.step[r.steps - 1];
    assert_close(last->nlp.forces[1], mg, 0.0, 1e-12); /* resting normal force: exact */
    const double t_rest = (rest_from(&r, 0, 1e-6) + 1) * sc.dt;
    assert_close(t_rest, 1.020, 1e-12, 0.0); /* the closed form stops it at 1.019 s */
    assert_close(r.nlp.rest_time_s, t_rest, 1e-12, 0.0);
    assert_close(last->lemke.state_next[x], 0.60918411, 1e-12, 0.0); /* x_k exactly */
    /* the relaxation's bias: measured 5.5e-9 m */
    assert_close(last->nlp.state_next[x], last->lemke.state_next[x], 2e-7, 0.0);
    for (int k = 0; k < r.steps; k++) /* no penetration: measured min 1.5e-16 */
        assert_true(r.step[k].nlp.state_next[z] >= -1e-12);
    assert_true(r.contract_passed);
    check_ipopt_step_figures(&r);
    *out = r;
}

/* The default scenario, and where IPOPT is needed: sliding on after its landing, the body's
 * active set holds from step to step, and every step between the landing and the stop is the
 * previous answer polished for it (start_polished, no IPOPT call); check_point2d_default has
 * checked each against the physics and Lemke's shadow. */
static void test_point2d_default_scenario(void **state)
{
    (void)state;
    rs_compare_result r;
    check_point2d_default(NULL, 0, &r);
    const int landing = r.nlp.first_contact_step, stop = rest_from(&r, 0, 1e-6);
    assert_true(landing > 0 && stop > landing + 100);
    assert_true(rs_nlp_path_is_ipopt(r.step[landing].nlp.path));
    for (int k = landing + 1; k < stop; k++) {
        assert_int_equal(r.step[k].nlp.path, RS_PATH_START_POLISHED);
        assert_true(r.step[k].nlp.polished && r.step[k].nlp.at_start);
    }
    rs_compare_free(&r);
}

/* The NLP on its own: no start check (no step skips IPOPT), no fallback. Every step is IPOPT's
 * own answer, the first from the contact-free prediction (cold), the others warm-started: from
 * the previous solution,
 * or from the contact-free prediction where that passes the step's KKT test. The latter may
 * happen only where the step has no contact force (Lemke's normal impulse is exactly 0); the
 * landing, the one step where the body must be stopped, is IPOPT's from the previous solution
 * and takes iterations. */
static void test_point2d_nlp_stands_on_its_own(void **state)
{
    (void)state;
    const char *sets[] = {"nlp.check_start=no", "nlp.retries=0"};
    rs_compare_result r;
    check_point2d_default(sets, 2, &r);
    assert_int_equal(r.nlp.ipopt_steps, r.steps);
    assert_int_equal(r.step[0].nlp.path, RS_PATH_IPOPT_COLD);
    int from_prediction = 0;
    for (int k = 1; k < r.steps; k++) {
        const rs_step_result *s = &r.step[k].nlp;
        assert_int_equal(s->path, RS_PATH_IPOPT_WARM);
        assert_int_equal(s->attempts, 1);
        if (s->warm_from == RS_PATH_START_CONTACT_FREE) {
            from_prediction++;
            assert_true(r.step[k].shadow.forces[1] == 0.0); /* fz_N */
        }
    }
    assert_true(from_prediction > 0);
    assert_int_equal(from_prediction, r.nlp.warm_from_contact_free_steps);
    const int landing = r.nlp.first_contact_step;
    assert_true(landing > 0);
    assert_int_equal(r.step[landing].nlp.warm_from, RS_PATH_START_PREVIOUS);
    assert_true(r.step[landing].nlp.iterations >= 1);
    rs_compare_free(&r);
}

/* The published formulation, first 40 steps (all in flight with xd = 1): failures are reported
 * as failures, with IPOPT's own statuses, and counted. */
static void test_point2d_blog_failures_are_reported(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=40", "nlp.max_iter=100"};
    load("point2d_friction_blog", sets, 2);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    int failed = 0;
    for (int k = 0; k < r.steps; k++) {
        const rs_compare_step *st = &r.step[k];
        failed += !st->nlp.ok;
        assert_true(st->shadow.ok);
        if (!st->nlp.ok) {
            assert_int_equal(st->verdict, RS_VERDICT_NLP_FAILED);
            assert_true(st->nlp.status != RS_NLP_SOLVED && st->nlp.status != RS_NLP_ACCEPTABLE);
        }
    }
    assert_true(failed > r.steps / 2); /* in flight, xd = 1 makes the direction constraint infeasible */
    assert_int_equal(r.nlp.failed_steps, failed);
    assert_int_equal(r.verdicts[RS_VERDICT_NLP_FAILED], failed);
    assert_int_equal(r.fallback_steps, 0);
    rs_compare_free(&r);
}

/* With on_nlp_failure = lemke the NLP trajectory continues from Lemke's answer, counted. */
static void test_explicit_fallback_is_counted(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=20", "nlp.max_iter=100", "run.on_nlp_failure=lemke"};
    load("point2d_friction_blog", sets, 3);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    int expected = 0;
    for (int k = 0; k < r.steps; k++)
        expected += !r.step[k].nlp.ok && r.step[k].shadow.ok;
    assert_true(expected > 0);
    assert_int_equal(r.fallback_steps, expected);
    for (int k = 0; k < r.steps; k++)
        assert_int_equal(r.step[k].fallback, !r.step[k].nlp.ok);
    rs_compare_free(&r);
}

/* The same rule in an NLP run without the shadow solves (`relaxsim run`, rs_run_next): each
 * failed NLP step goes on from Lemke's answer from the same state, solved for it and counted,
 * as in the comparison (before, an NLP run ignored on_nlp_failure = lemke). The fallbacks'
 * Lemke solves have their own warm start (only the failed steps'), so the two trajectories
 * are held to agree within 1e-9 of each column's unit, not bit for bit. */
static void test_nlp_run_takes_the_fallback_too(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=20", "nlp.max_iter=100", "run.on_nlp_failure=lemke"};
    load("point2d_friction_blog", sets, 3);
    rs_compare_result cmp, run;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &cmp), RS_OK);
    assert_int_equal(rs_compare_run(&sc, RS_RUN_NLP, NULL, NULL, &run), RS_OK);
    int expected = 0;
    for (int k = 0; k < run.steps; k++) {
        const rs_compare_step *st = &run.step[k];
        expected += !st->nlp.ok;
        assert_int_equal(st->fallback, !st->nlp.ok);
        if (st->fallback) /* the fallback's answer: certified, from the step's own state */
            assert_true(st->shadow.ok);
    }
    assert_true(expected > 0);
    assert_int_equal(run.fallback_steps, expected);
    assert_int_equal(run.fallback_steps, cmp.fallback_steps);
    double worst = 0.0;
    for (int c = 0; c < run.ncol; c++)
        worst = fmax(worst, fabs(run.nlp.final[c] - cmp.nlp.final[c]) /
                                fmax(cmp.nlp.unit_max[c], 1e-300));
    print_message("%d fallbacks; the NLP run's final state %.3g units from the compare's\n",
                  run.fallback_steps, worst);
    assert_true(worst <= 1e-9);
    rs_compare_free(&run);
    rs_compare_free(&cmp);
}

static void check_one_d_scenario(const char *name)
{
    load(name, NULL, 0);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    for (int k = 0; k < r.steps; k++) {
        assert_true(r.step[k].nlp.ok && r.step[k].shadow.ok && r.step[k].lemke.ok);
        for (int c = 0; c < r.ncol; c++)
            assert_close(col(&r.step[k].nlp, c), col(&r.step[k].shadow, c), 1e-6, 0.0);
    }
    if (!r.contract_passed)
        for (int i = 0; i < r.nchecks; i++)
            if (!r.checks[i].passed)
                print_error("%s: failed %s (actual %.17g)\n", name, r.checks[i].check->text,
                            r.checks[i].actual);
    assert_true(r.contract_passed);
    rs_compare_free(&r);
}

static void test_one_d_models_agree_per_step(void **state)
{
    (void)state;
    check_one_d_scenario("falling_block");
    check_one_d_scenario("sliding_block_forward");
    check_one_d_scenario("sliding_block_direct");
    check_one_d_scenario("sliding_block_traditional");
}

/* The sliding block stops when and where the discrete analytic answer says:
 * v_k+1 = max(0, v_k - dt (mu m g - u)/m), x_k+1 = x_k + dt v_k+1 (valid for 0 <= u < mu m g). */
static void test_sliding_block_stops_where_analysis_says(void **state)
{
    (void)state;
    static const char *names[] = {"sliding_block_forward", "sliding_block_direct",
                                  "sliding_block_traditional"};
    for (int i = 0; i < 3; i++) {
        load(names[i], NULL, 0);
        rs_compare_result r;
        assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
        const double m = sc.params[0], g = sc.params[1], mu = sc.params[2], u = 1.0, dt = sc.dt;
        double v = 2.0, x = 0.0;
        int stop = -1;
        for (int k = 0; k < r.steps; k++) {
            v = fmax(0.0, v - dt * (mu * m * g - u) / m);
            x += dt * v;
            if (v == 0.0 && stop < 0)
                stop = k;
            const rs_step_result *lem = &r.step[k].lemke, *nlp = &r.step[k].nlp;
            assert_close(lem->state_next[0], x, 1e-12, 1e-12);
            assert_close(nlp->state_next[0], x, 1e-8, 0.0);
        }
        assert_int_equal(stop, 51);
        assert_int_equal(rest_from(&r, 1, 1e-9), 51);
        assert_int_equal(rest_from(&r, 0, 1e-6), 51);
        rs_compare_free(&r);
    }
}

static void test_falling_block_rests_with_weight(void **state)
{
    (void)state;
    load("falling_block", NULL, 0);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    const double mg = sc.params[0] * sc.params[1];
    for (int k = 46; k < r.steps; k++) {
        assert_close(r.step[k].lemke.state_next[0], 0.0, 1e-12, 0.0);
        assert_close(r.step[k].lemke.forces[0], mg, 1e-13, 0.0);
        assert_close(r.step[k].nlp.state_next[0], 0.0, 2e-12, 0.0); /* measured 4e-14 m */
        assert_close(r.step[k].nlp.forces[0], mg, 3e-7, 0.0);        /* measured 8.5e-9 N */
    }
    rs_compare_free(&r);
}

/* Every check on a column carries that column's natural unit where it reads it and the floor no
 * bound on it can go below and hold on every machine (compare.h): recomputed here from the step
 * records' scales. The falling block's columns: x in L (or its rounding), xd in V, fn in F. */
static double unit_in(const rs_step_result *s, int c)
{
    if (c == 2)
        return s->scales.force;
    if (c == 1)
        return s->scales.speed;
    return rs_length_unit(&s->scales, s->state_next[0]);
}

static void test_each_check_states_its_unit_and_floor(void **state)
{
    (void)state;
    static const char *const sets[] = {"run.steps=80"};
    load("falling_block", sets, 1);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    const int last = r.steps - 1;
    int seen = 0;
    for (int i = 0; i < r.nchecks; i++) {
        const rs_check_result *c = &r.checks[i];
        const char *key = c->check->key, *dot = strchr(key, '.');
        if (!dot) { /* counts, times, fractions: no unit */
            assert_true(isnan(c->unit) && isnan(c->floor));
            continue;
        }
        const int col_index = index_of(dot + 1), lemke = strcmp(c->which, "lemke") == 0;
        double unit = 0.0;
        for (int k = strncmp(key, "final_", 6) == 0 ? last : 0; k <= last; k++)
            unit = fmax(unit, unit_in(lemke ? &r.step[k].lemke : &r.step[k].nlp, col_index));
        assert_close(c->unit, unit, 0.0, 1e-15);
        const double floor = lemke ? 64.0 * 1.1102230246251565e-16 * fmax(fabs(c->check->a), unit)
                                   : sc.nlp.cert_tol * unit;
        assert_close(c->floor, floor, 0.0, 1e-15);
        seen++;
    }
    assert_true(seen >= 5); /* the scenario's shadow, final and min checks on both backends */
    rs_compare_free(&r);
}

/* A body's largest speed from a time on (max_speed_nlp., max_speed_lemke.): recomputed from the
 * kept steps' states, each trajectory's; disc d, dropped 0.1 m, lands at step 142 (t = 0.143 s),
 * so its window from 0.2 s holds its rest only; e, dropped 0.2 m, lands at 2 m/s, its window from
 * 0 holds the fall. A name that is no body, and a window that is no time, are refused with the
 * line. */
static void test_speed_over_a_window(void **state)
{
    (void)state;
    static const char scene[] = "halfplane 0 0, 0 1\nbody d disc r=0.1 z=0.2\n"
                                "body e disc r=0.1 x=1 z=0.3\n";
    static const char text[] = "[model]\nname = bodies\nscene = drop.scene\n[run]\nsteps = 300\n"
                               "[expect]\nmax_speed_nlp.d = 1e-8 from 0.2\n"
                               "max_speed_lemke.d = 1e-12 from 0.2\nmax_speed_nlp.e = 3 from 0\n";
    rs_error_detail d;
    rs_scenario_release(&sc);
    assert_int_equal(rs_scenario_load_text("drop.ini", text, scene, NULL, 0, &sc, &d), RS_OK);
    assert_int_equal(sc.ncheck, 3);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    int seen = 0;
    for (int i = 0; i < r.nchecks; i++) {
        const rs_check_result *c = &r.checks[i];
        if (strncmp(c->check->key, "max_speed_", 10) != 0)
            continue;
        const int lemke = strcmp(c->which, "lemke") == 0;
        int xd, zd;
        assert_int_equal(rs_speed_columns(sc.model, strchr(c->check->key, '.') + 1, &xd, &zd), 0);
        double most = 0.0;
        for (int k = 0; k < r.steps; k++)
            if ((k + 1) * sc.dt >= c->check->b - 1e-12) {
                const double *x = lemke ? r.step[k].lemke.state_next : r.step[k].nlp.state_next;
                most = fmax(most, hypot(x[xd], x[zd]));
            }
        assert_close(c->actual, most, 0.0, 0.0);
        assert_true(c->passed == (most <= c->check->a));
        assert_true(c->passed);
        if (c->check->b == 0.0)
            assert_true(most > 1.9); /* e's fall: sqrt(2 g 0.2) = 1.98 m/s */
        seen++;
    }
    assert_int_equal(seen, 3);
    rs_compare_free(&r);
    static const char *const bad[][2] = {
        {"max_speed_nlp.f = 1", "no body 'f' in model bodies"},
        {"max_speed_lemke.d = 1 from soon", "expected 'bound' or 'bound from T'"},
        {"max_speed_nlp.d = -1", "expected 'bound' or 'bound from T'"}};
    for (int i = 0; i < 3; i++) {
        char t[512];
        snprintf(t, sizeof t, "[model]\nname = bodies\nscene = drop.scene\n[expect]\n%s\n", bad[i][0]);
        rs_scenario_release(&sc);
        assert_int_equal(rs_scenario_load_text("drop.ini", t, scene, NULL, 0, &sc, &d),
                         RS_ERR_PARSE);
        if (!strstr(d.message, bad[i][1]) || !strstr(d.message, "drop.ini:5:"))
            print_error("%s: %s\n", bad[i][0], d.message);
        assert_non_null(strstr(d.message, bad[i][1]));
        assert_non_null(strstr(d.message, "drop.ini:5:"));
    }
    rs_scenario_release(&sc);
}

/* A check a run cannot evaluate is listed as skipped, with the command that does, and is not
 * counted as applied: a Lemke run skips a bound on the NLP's trajectory (one it would fail), a
 * comparison's drift bound and a gradient bound (it said nothing of them). */
static void test_checks_a_run_cannot_evaluate_are_skipped(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=60", "expect.max_nlp.x_m=0.5", "expect.drift_max_abs.x_m=0",
                          "expect.grad_lcp_fd_max_rel=0", "expect.max_lemke.x_m=1"};
    rs_compare_result r, base;
    load("falling_block", sets, 1); /* the scenario's own contract */
    assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &base), RS_OK);
    const int declared = base.declared_checks, applied = base.applied_checks;
    const int skipped = base.nskipped;
    rs_compare_free(&base);
    load("falling_block", sets, 5); /* and four more */
    assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.declared_checks, declared + 4);
    assert_int_equal(r.applied_checks, applied + 1); /* max_lemke.x_m */
    assert_int_equal(r.nskipped, skipped + 3);
    const rs_skipped_check *mine = r.skipped + skipped;
    assert_string_equal(mine[0].check->key, "max_nlp.x_m");
    assert_non_null(strstr(mine[0].reason, "NLP trajectory"));
    assert_string_equal(mine[1].check->key, "drift_max_abs.x_m");
    assert_non_null(strstr(mine[1].reason, "compare"));
    assert_string_equal(mine[2].check->key, "grad_lcp_fd_max_rel");
    assert_non_null(strstr(mine[2].reason, "relaxsim grad"));
    assert_true(r.contract_passed);
    rs_compare_free(&r);
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.applied_checks, r.declared_checks - 1); /* all but the gradient bound */
    assert_int_equal(r.nskipped, 1);
    assert_false(r.contract_passed); /* the block starts at x = 1 m, above 0.5 m */
    rs_compare_free(&r);
}

/* Lemma 2.1 of note 000: v+ v- = 0 at every step of the direct formulation, 30,000 random-force
 * steps with Lemke (exact up to rounding), and 300 with the NLP (to its complementarity). */
static void test_lemma_2_1(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=30000"};
    load("sliding_block_direct_random", sets, 1);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r), RS_OK);
    int moved_both_ways[2] = {0, 0};
    for (int k = 0; k < r.steps; k++) {
        const double *s = r.step[k].lemke.state_next;
        assert_true(r.step[k].lemke.ok);
        assert_true(s[1] >= 0.0 && s[2] >= 0.0);
        assert_true(s[1] * s[2] <= 1e-12);
        moved_both_ways[0] |= s[1] > 1e-3;
        moved_both_ways[1] |= s[2] > 1e-3;
    }
    assert_true(moved_both_ways[0] && moved_both_ways[1]); /* the test exercises both directions */
    rs_compare_free(&r);
    const char *short_run[] = {"run.steps=300"};
    load("sliding_block_direct_random", short_run, 1);
    assert_int_equal(rs_compare_run(&sc, RS_RUN_NLP, NULL, NULL, &r), RS_OK);
    for (int k = 0; k < r.steps; k++) {
        const double *s = r.step[k].nlp.state_next;
        assert_true(r.step[k].nlp.ok);
        assert_true(s[1] * s[2] <= 1e-9);
    }
    rs_compare_free(&r);
}

/* Lemke's warm start from the previous step's basis changes the work, not the answer. */
static void test_lemke_warm_start_keeps_the_trajectory(void **state)
{
    (void)state;
    static const char *names[] = {"point2d_friction", "sliding_block_direct_random"};
    for (int i = 0; i < 2; i++) {
        const char *warm[] = {"lemke.warm_start=yes"}, *cold[] = {"lemke.warm_start=no"};
        rs_compare_result a, b;
        load(names[i], warm, 1);
        assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &a), RS_OK);
        load(names[i], cold, 1);
        assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &b), RS_OK);
        long pa = 0, pb = 0;
        for (int k = 0; k < a.steps; k++) {
            assert_true(a.step[k].lemke.ok && b.step[k].lemke.ok);
            for (int c = 0; c < a.ncol; c++)
                assert_close(col(&a.step[k].lemke, c), col(&b.step[k].lemke, c), 1e-9, 1e-9);
            pa += a.step[k].lemke.iterations;
            pb += b.step[k].lemke.iterations;
        }
        assert_true(a.lemke.warm_started_steps > 0);
        assert_int_equal(b.lemke.warm_started_steps, 0);
        assert_true(pa < pb);
        rs_compare_free(&a);
        rs_compare_free(&b);
    }
}

/* Same input, same binary: bitwise the same trajectory. */
static void test_deterministic(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=500"};
    load("point2d_friction", sets, 1);
    rs_compare_result a, b;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &a), RS_OK);
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &b), RS_OK);
    for (int k = 0; k < a.steps; k++) {
        assert_memory_equal(a.step[k].nlp.state_next, b.step[k].nlp.state_next, sizeof a.step[k].nlp.state_next);
        assert_memory_equal(a.step[k].nlp.forces, b.step[k].nlp.forces, sizeof a.step[k].nlp.forces);
        assert_memory_equal(a.step[k].lemke.state_next, b.step[k].lemke.state_next, sizeof a.step[k].lemke.state_next);
    }
    rs_compare_free(&a);
    rs_compare_free(&b);
}

/* Count the steps of r with verdict v. */
static int count_verdict(const rs_compare_result *r, rs_verdict v)
{
    int n = 0;
    for (int k = 0; k < r->steps; k++)
        n += r->step[k].verdict == v;
    return n;
}

/* A light body with high friction landing at 3 m/s sideways, and the same motion at 10,000
 * times the mass: every step solved and certified (residuals recomputed here), every step
 * `agree`, and the two runs see the same dimensionless problems (the same iterations and the
 * same verdicts step by step), because each step is posed and judged in its natural units. */
/* A 554 kg point landing at 4.5 m/s while it slides (robustness sweep point2d, run 11): at step
 * 608 the previous step's sliding basis is nearly a solution of the LCP (its sliding speed is
 * small beside the impulses) but not of the step's physics: with the LCP certificate of an
 * earlier round it was accepted and the step failed; now no step fails (the certificate refuses
 * the basis, and an accepted basis that misses the physics is solved again cold). */
static void test_warm_basis_that_misses_the_physics(void **state)
{
    (void)state;
    const char *sets[] = {"model.m=553.74395891138147",     "run.dt=0.00051392777306130471",
                          "model.mu=1.359752423820034",     "initial.z=1.8926519396082595",
                          "initial.xd=-4.9882094689242029", "initial.zd=-4.5254812173902721",
                          "input.ux=0.927432828182455",     "run.steps=1000"};
    load("point2d_friction", sets, 8);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.lemke.failed_steps, 0);
    assert_int_equal(r.nlp.failed_steps, 0);
    assert_true(r.step[608].shadow.ok && r.step[608].lemke.ok);
    rs_compare_free(&r);
}

/* A push of 1e-6 N held by friction at rest: the shadow solve (Lemke from the NLP's state, warm
 * started) holds it too, step by step; and a force wrong by all of itself is never agreement,
 * however small beside the step's natural force (98.1 N here). */
static void test_small_forces_are_judged_against_themselves(void **state)
{
    (void)state;
    const char *sets[] = {"input.ux=-1e-6"};
    load("point2d_friction", sets, 1);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    const int fx = index_of("fx_N"), xd = index_of("xd_mps");
    const double m = sc.params[0], mg = m * sc.params[1];
    for (int k = 1020; k < r.steps; k++) { /* at rest from step 1019 */
        const rs_compare_step *st = &r.step[k];
        /* from the NLP's state (its velocity within the relaxation's bias of 0): the friction
         * that stops it, -ux - m xd_k / dt, to the rounding of forces of size m g */
        const double xd_k = r.step[k - 1].nlp.state_next[xd];
        assert_close(col(&st->shadow, fx), 1e-6 - m * xd_k / sc.dt, 1e-15 * mg, 0.0);
        assert_close(col(&st->lemke, fx), 1e-6, 1e-15 * mg, 0.0);
        assert_close(col(&st->nlp, fx), 1e-6, 0.0, 1e-2); /* the relaxation's bias: 1.5e-3 */
        assert_int_equal(st->verdict, RS_VERDICT_AGREE);
    }
    /* the same step, its shadow force made 0: not agree, though 1e-6 N is 1e-8 F */
    rs_compare_step st;
    assert_int_equal(rs_compare_step_init(&st, sc.model), RS_OK);
    assert_int_equal(rs_compare_step_copy(&st, &r.step[1030], sc.model), RS_OK);
    assert_model_fits_test_arrays(sc.model);
    double x_before[RS_TEST_MAX_STATE];
    memcpy(x_before, r.step[1029].nlp.state_next, sizeof(double) * (size_t)sc.model->nstate);
    st.shadow.forces[fx - sc.model->nstate] = 0.0;
    assert_int_equal(rs_compare_judge(&sc, &st, sc.model->nstate + sc.model->nforce, x_before),
                     RS_VERDICT_RELAXATION_BIAS);
    assert_int_equal(rs_compare_step_copy(&st, &r.step[1030], sc.model), RS_OK);
    st.shadow.forces[fx - sc.model->nstate] *= 1.005; /* within 1% of itself: agree */
    assert_int_equal(rs_compare_judge(&sc, &st, sc.model->nstate + sc.model->nforce, x_before),
                     RS_VERDICT_AGREE);
    rs_compare_step_free(&st);
    rs_compare_free(&r);
}

static void test_light_and_heavy_bodies_are_judged_alike(void **state)
{
    (void)state;
    rs_compare_result r[2];
    const char *mass[2] = {"model.m=0.05", "model.m=500"};
    for (int i = 0; i < 2; i++) {
        const char *sets[] = {mass[i], "model.mu=1.5", "run.dt=5e-4", "initial.xd=3",
                              "run.steps=2000", "nlp.check_start=no"};
        load("point2d_friction", sets, 6);
        assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r[i]), RS_OK);
        assert_model_fits_test_arrays(sc.model);
        double state_k[RS_TEST_MAX_STATE];
        memcpy(state_k, sc.initial, sizeof(double) * (size_t)sc.model->nstate);
        for (int k = 0; k < r[i].steps; k++) {
            const rs_step_result *s = &r[i].step[k].nlp;
            rs_step_data d = {sc.params, state_k, r[i].step[k].input, sc.dt, sc.variant, &sc.nlp, sc.scene, 0, NULL};
            double primal, compl;
            sc.model->residuals(&d, s->state_next, s->forces, NULL, &primal, &compl);
            assert_true(s->ok && primal <= sc.nlp.cert_tol && compl <= sc.nlp.cert_tol);
            memcpy(state_k, s->state_next, sizeof(double) * (size_t)sc.model->nstate);
        }
        assert_int_equal(count_verdict(&r[i], RS_VERDICT_AGREE), r[i].steps);
    }
    for (int k = 0; k < r[0].steps; k++) {
        assert_int_equal(r[0].step[k].nlp.iterations, r[1].step[k].nlp.iterations);
        assert_int_equal(r[0].step[k].verdict, r[1].step[k].verdict);
    }
    rs_compare_free(&r[0]);
    rs_compare_free(&r[1]);
}

/* Values inside the documented ranges work: a 1 mg body, a body 1e7 m up or moving at 1e9 m/s,
 * a time step of 1e-12 s (the state still moves: 1 m/s for 100 steps is 1e-10 m), and the
 * forward sliding block without gravity: every NLP step solved and every verdict `agree`. */
static void test_extreme_values_in_range_work(void **state)
{
    (void)state;
    static const char *const cases[][2] = {{"model.m=1e-6", NULL},
                                            {"initial.z=1e7", NULL},
                                            {"initial.xd=1e9", NULL},
                                            {"run.dt=1e-12", "nlp.check_start=no"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *sets[] = {"run.steps=100", cases[c][0], cases[c][1]};
        load("point2d_friction", sets, cases[c][1] ? 3 : 2);
        rs_compare_result r;
        assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
        if (r.nlp.failed_steps || count_verdict(&r, RS_VERDICT_AGREE) != r.steps)
            print_error("%s: %d failed steps, %d of %d agree\n", cases[c][0], r.nlp.failed_steps,
                        count_verdict(&r, RS_VERDICT_AGREE), r.steps);
        assert_int_equal(r.nlp.failed_steps, 0);
        assert_int_equal(count_verdict(&r, RS_VERDICT_AGREE), r.steps);
        if (c == 3) /* dt = 1e-12: x moves by dt xd per step, not frozen */
            assert_close(r.step[r.steps - 1].nlp.state_next[0], 100 * 1e-12, 0.0, 1e-9);
        rs_compare_free(&r);
    }
    const char *sets[] = {"model.g=0"};
    load("sliding_block_forward", sets, 1);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.nlp.failed_steps, 0);
    assert_int_equal(count_verdict(&r, RS_VERDICT_AGREE), r.steps);
    rs_compare_free(&r);
}

/* Every documented value solves: a step of 1e-12 s on the ground (its LCP's rows 1e-13 against
 * 1: Lemke ended on a ray after 0 pivots, every step), a heavy body in strong gravity without
 * friction (384 of 1,200 steps failed), each model's parameters at the ends of their ranges. */
static void test_lemke_solves_every_documented_value(void **state)
{
    (void)state;
    static const char *const cases[][5] = {
        {"point2d_friction", "run.dt=1e-12", "initial.z=0", "run.steps=1200", NULL},
        {"point3d_friction", "run.dt=1e-12", "initial.z=0", "run.steps=300", NULL},
        {"point2d_friction", "model.m=1e6", "model.g=1000", "model.mu=0", NULL},
        {"point2d_friction", "model.m=1e-6", "model.g=1000", "model.mu=10", "initial.z=0"},
        {"point2d_friction", "model.m=1e6", "model.g=0", "model.mu=10", "initial.z=0"},
        {"point3d_friction", "model.m=1e6", "model.g=1000", "model.mu=10", "run.steps=300"},
        {"falling_block", "run.dt=1e-12", "initial.x=0", NULL, NULL},
        {"sliding_block_traditional", "run.dt=1e-12", "model.m=1e6", NULL, NULL},
        {"sliding_block_direct", "run.dt=10", "model.mu=10", NULL, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *sets[4];
        int n = 0;
        for (int k = 1; k < 5 && cases[c][k]; k++)
            sets[n++] = cases[c][k];
        load(cases[c][0], sets, n);
        rs_compare_result r;
        assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r), RS_OK);
        if (r.lemke.failed_steps)
            print_error("%s %s %s: %d failed Lemke steps\n", cases[c][0], sets[0], sets[1],
                        r.lemke.failed_steps);
        assert_int_equal(r.lemke.failed_steps, 0);
        rs_compare_free(&r);
    }
}

/* The IPOPT problems a stepper keeps, one per NLP size met, are bounded: three discs dropped from
 * three heights land one by one (the NLP's size grows with each contact), and a stepper that keeps
 * two problems frees the least recently used as a new size comes, never holding more; its answers
 * are the same to the bit as those of a stepper that keeps them all (a problem made again poses
 * the same NLP). */
static void test_solver_cache_is_bounded(void **state)
{
    (void)state;
    static const char scene[] = "halfplane 0 0, 0 1\nbody a disc r=0.1 z=0.11\n"
                                "body b disc r=0.1 x=0.5 z=0.13\nbody c disc r=0.1 x=1 z=0.16\n";
    static const char text[] = "[model]\nname = bodies\nscene = drops.scene\n[run]\nsteps = 200\n";
    rs_error_detail d;
    rs_scenario_release(&sc);
    assert_int_equal(rs_scenario_load_text("drops.ini", text, scene, NULL, 0, &sc, &d), RS_OK);
    rs_stepper *kept[2];
    int most = 0;
    for (int i = 0; i < 2; i++) {
        rs_stepper_config cfg = rs_scenario_stepper_config(&sc);
        cfg.solver_cache = i == 0 ? 2 : 1000;
        assert_int_equal(rs_stepper_create(&cfg, &kept[i]), RS_OK);
    }
    rs_step_result out[2];
    double x[2][18], u[9] = {0}; /* three bodies: 6 state and 3 input components each */
    assert_int_equal(sc.model->nstate, 18);
    assert_int_equal(sc.model->ninput, 9);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rs_step_result_init(&out[i], sc.model), RS_OK);
        memcpy(x[i], sc.initial, sizeof(double) * (size_t)sc.model->nstate);
    }
    for (int k = 0; k < sc.steps; k++)
        for (int i = 0; i < 2; i++) {
            rs_stepper_nlp(kept[i], x[i], u, &out[i]);
            assert_true(out[i].ok);
            memcpy(x[i], out[i].state_next, sizeof(double) * (size_t)sc.model->nstate);
            if (i == 0)
                assert_true(rs_stepper_cached_solvers(kept[0]) <= 2);
            else
                most = rs_stepper_cached_solvers(kept[1]) > most ? rs_stepper_cached_solvers(kept[1])
                                                                 : most;
        }
    assert_true(most >= 3); /* three sizes met at least: the bound of 2 was exercised */
    assert_memory_equal(x[0], x[1], sizeof(double) * (size_t)sc.model->nstate);
    for (int i = 0; i < 2; i++) {
        rs_step_result_free(&out[i]);
        rs_stepper_destroy(kept[i]);
    }
    rs_scenario_release(&sc);
}

/* A non-finite answer is a failed step, never a solution, the trajectory goes on from the last
 * finite state, and the NaN stays visible in every statistic and check that reads it. */
static void test_nan_is_never_an_answer(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=3", "expect.min_nlp.z_m=-1"};
    load("point2d_friction", sets, 2);
    /* the stepper: a state with a NaN fails both backends */
    rs_stepper_config cfg = {sc.model, sc.params, sc.variant,   sc.dt, sc.nlp,
                             sc.lemke, 0,         sc.mode_tols, NULL,  0, 0};
    rs_stepper *stepper;
    assert_int_equal(rs_stepper_create(&cfg, &stepper), RS_OK);
    const double bad_state[4] = {0.0, NAN, 1.0, 0.0}, input[2] = {0.0, 0.0};
    rs_step_result out;
    assert_int_equal(rs_step_result_init(&out, sc.model), RS_OK);
    rs_stepper_nlp(stepper, bad_state, input, &out);
    assert_false(out.ok);
    rs_stepper_lemke(stepper, bad_state, input, &out);
    assert_false(out.ok);
    rs_step_result_free(&out);
    rs_stepper_destroy(stepper);
    /* the comparison: step 1's NLP answer is made non-finite */
    rs_compare_result r;
    rs_compare_session *cs;
    assert_int_equal(rs_compare_begin(&sc, RS_RUN_COMPARE, &r, &cs), RS_OK);
    assert_model_fits_test_arrays(sc.model);
    double held[RS_TEST_MAX_STATE];
    for (int k = 0; k < sc.steps; k++) {
        rs_compare_input(cs, k);
        if (k == 1) {
            memcpy(held, rs_compare_nlp_state(cs), sizeof(double) * (size_t)sc.model->nstate);
            rs_step_result nan_step;
            assert_int_equal(rs_step_result_init(&nan_step, sc.model), RS_OK);
            nan_step.status = RS_NLP_EVAL_ERROR;
            nan_step.path = RS_PATH_IPOPT_WARM;
            for (int i = 0; i < sc.model->nstate; i++)
                nan_step.state_next[i] = NAN;
            rs_compare_advance(cs, k, &nan_step);
            rs_step_result_free(&nan_step);
            for (int i = 0; i < sc.model->nstate; i++) /* the last finite state is kept */
                assert_true(rs_compare_nlp_state(cs)[i] == held[i]);
        } else {
            rs_compare_advance(cs, k, NULL);
        }
    }
    assert_int_equal(rs_compare_end(cs), RS_OK);
    assert_int_equal(r.nlp.failed_steps, 1);
    assert_true(isnan(r.nlp.min[index_of("z_m")])); /* min_nlp never skips a NaN */
    assert_false(r.contract_passed);
    int min_check_failed = 0;
    for (int i = 0; i < r.nchecks; i++)
        min_check_failed |= strcmp(r.checks[i].check->key, "min_nlp.z_m") == 0 && !r.checks[i].passed;
    assert_true(min_check_failed);
    rs_compare_free(&r);
}

/* Every registered model is complete and consistent; one that is not is refused by the stepper
 * instead of being run. Sizes have no capacity: a large fixed-size model runs. */
static void test_models_are_checked(void **state)
{
    (void)state;
    for (int i = 0; i < rs_model_count(); i++) {
        rs_error_detail why;
        const rs_error err = rs_model_check(rs_model_at(i), &why);
        if (err != RS_OK)
            print_error("%s\n", why.message);
        assert_int_equal(err, RS_OK);
    }
    load("point2d_friction", NULL, 0);
    rs_model broken = *sc.model;
    rs_stepper_config cfg = {&broken, sc.params, 0, 1e-3, sc.nlp, sc.lemke, 1, sc.mode_tols,
                             NULL,    0,         0};
    rs_stepper *stepper = NULL;
    broken.lcp_n = 0; /* a fixed size of nothing */
    assert_int_equal(rs_model_check(&broken, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_stepper_create(&cfg, &stepper), RS_ERR_BAD_ARG);
    assert_null(stepper);
    broken = *sc.model;
    broken.sizes_grow = 1; /* growing sizes without lcp_size */
    assert_int_equal(rs_model_check(&broken, NULL), RS_ERR_BAD_ARG);
    broken = *sc.model;
    broken.cache_free = free; /* half a pair */
    assert_int_equal(rs_model_check(&broken, NULL), RS_ERR_BAD_ARG);
    broken = *sc.model;
    broken.nlp_recover = NULL;
    assert_int_equal(rs_stepper_create(&cfg, &stepper), RS_ERR_BAD_ARG);
    broken = *sc.model;
    broken.ncontacts = 1000; /* no capacity: the modes are the model's own size */
    assert_int_equal(rs_stepper_create(&cfg, &stepper), RS_OK);
    rs_stepper_destroy(stepper);
}

/* A contract of the largest size the parser takes (64 checks, two of which apply to both
 * trajectories, plus the implied gates): every check has its result, and the last one failing
 * fails the contract, as it does alone. */
static void test_every_check_has_its_result(void **state)
{
    (void)state;
    static const char *const kinds[] = {"shadow_max_abs", "drift_max_abs", "max_nlp",
                                        "max_lemke", "min_nlp", "min_lemke", "final_diff"};
    static const char *const cols[] = {"x_m",    "y_m",    "z_m",  "xd_mps", "yd_mps",
                                       "zd_mps", "fx_N",   "fy_N", "fz_N"};
    static char text[16384];
    int len = snprintf(text, sizeof text,
                       "[model]\nname = point3d_friction\n[initial]\nz = 0\nxd = 0\nyd = 0\n"
                       "[run]\nsteps = 5\n[expect]\nfirst_contact_step = 0\n"
                       "rest_time_s = 0 .. 1\n");
    int checks = 2;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && checks < 63; k++)
        for (size_t c = 0; c < sizeof cols / sizeof cols[0] && checks < 63; c++, checks++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%s.%s = %s\n", kinds[k],
                            cols[c], strncmp(kinds[k], "min_", 4) == 0 ? "-1e300" : "1e300");
    snprintf(text + len, sizeof text - (size_t)len, "final_lemke.x_m = 42 +- 1e-9\n");
    rs_error_detail d;
    rs_scenario_release(&sc);
    const rs_error err = rs_scenario_load_text("64.ini", text, NULL, NULL, 0, &sc, &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
    assert_int_equal(sc.ncheck, 64);
    static rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.nchecks, 2 + 64 + 2); /* the gates, every check, the two twice */
    assert_int_equal(r.checks_unrecorded, 0);
    assert_false(r.checks[r.nchecks - 1].passed);
    assert_string_equal(r.checks[r.nchecks - 1].check->key, "final_lemke.x_m");
    assert_false(r.contract_passed);
    for (int i = 0; i < r.nchecks - 1; i++) /* the others pass: the last alone fails it */
        assert_true(r.checks[i].passed);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* A run that keeps nothing per step reports what one that keeps every step does: its sink sees
 * every step's record as it is judged, and the statistics gathered on the way are the same. */
typedef struct sink_check {
    const rs_compare_result *kept;
    int seen;
} sink_check;

static void compare_with_kept(void *ctx, int k, const rs_compare_step *st)
{
    sink_check *c = ctx;
    assert_int_equal(k, c->seen);
    const rs_compare_step *was = &c->kept->step[k];
    assert_memory_equal(st->nlp.state_next, was->nlp.state_next, sizeof st->nlp.state_next);
    assert_memory_equal(st->lemke.forces, was->lemke.forces, sizeof st->lemke.forces);
    assert_memory_equal(st->diff, was->diff, sizeof st->diff);
    assert_int_equal(st->verdict, was->verdict);
    c->seen++;
}

static void test_streamed_run_reports_the_same(void **state)
{
    (void)state;
    rs_scenario_release(&sc);
    load("point2d_friction", NULL, 0);
    static rs_compare_result kept, streamed;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &kept), RS_OK);
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    opt.keep_steps = 0;
    sink_check c = {&kept, 0};
    opt.sink = compare_with_kept;
    opt.sink_ctx = &c;
    assert_int_equal(rs_compare_run_with(&sc, RS_RUN_COMPARE, &opt, &streamed), RS_OK);
    assert_null(streamed.step);
    assert_int_equal(c.seen, sc.steps);
    const rs_trajectory_stats *a = &kept.nlp, *b = &streamed.nlp;
    assert_int_equal(a->failed_steps, b->failed_steps);
    assert_int_equal(a->ipopt_steps, b->ipopt_steps);
    assert_int_equal(a->first_contact_step, b->first_contact_step);
    assert_close(a->rest_time_s, b->rest_time_s, 0.0, 0.0);
    assert_memory_equal(a->final, b->final, sizeof a->final);
    assert_memory_equal(a->min, b->min, sizeof a->min);
    assert_memory_equal(a->max, b->max, sizeof a->max);
    assert_memory_equal(kept.shadow_max_abs, streamed.shadow_max_abs, sizeof kept.shadow_max_abs);
    assert_int_equal(kept.contract_passed, streamed.contract_passed);
    /* the rest time recomputed from the kept steps: from the last step that moved */
    int moving = -1;
    for (int k = 0; k < kept.steps; k++) {
        const rs_step_result *s = &kept.step[k].lemke;
        int at_rest = 1;
        for (int v = 0; v < sc.model->nvelocity; v++)
            at_rest &= fabs(s->state_next[sc.model->velocity_index[v]]) <=
                       sc.rest_speed * s->scales.speed;
        if (!at_rest)
            moving = k;
    }
    assert_close(kept.lemke.rest_time_s, (moving + 2) * sc.dt, 1e-15, 0.0);
    rs_compare_free(&kept);
    rs_compare_free(&streamed);
    rs_scenario_release(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_check_has_its_result),
        cmocka_unit_test(test_each_check_states_its_unit_and_floor),
        cmocka_unit_test(test_speed_over_a_window),
        cmocka_unit_test(test_streamed_run_reports_the_same),
        cmocka_unit_test(test_point2d_default_scenario),
        cmocka_unit_test(test_point2d_nlp_stands_on_its_own),
        cmocka_unit_test(test_point2d_blog_failures_are_reported),
        cmocka_unit_test(test_explicit_fallback_is_counted),
        cmocka_unit_test(test_nlp_run_takes_the_fallback_too),
        cmocka_unit_test(test_one_d_models_agree_per_step),
        cmocka_unit_test(test_sliding_block_stops_where_analysis_says),
        cmocka_unit_test(test_falling_block_rests_with_weight),
        cmocka_unit_test(test_checks_a_run_cannot_evaluate_are_skipped),
        cmocka_unit_test(test_lemma_2_1),
        cmocka_unit_test(test_lemke_warm_start_keeps_the_trajectory),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_models_are_checked),
        cmocka_unit_test(test_nan_is_never_an_answer),
        cmocka_unit_test(test_solver_cache_is_bounded),
        cmocka_unit_test(test_warm_basis_that_misses_the_physics),
        cmocka_unit_test(test_small_forces_are_judged_against_themselves),
        cmocka_unit_test(test_light_and_heavy_bodies_are_judged_alike),
        cmocka_unit_test(test_extreme_values_in_range_work),
        cmocka_unit_test(test_lemke_solves_every_documented_value),
    };
    return cmocka_run_group_tests(tests, NULL, release_scenario);
}
