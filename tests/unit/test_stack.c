/*
 * test_stack.c: stacked solves (sim/stack.h). K point2d runs advanced in lock-step with one
 * block-diagonal NLP per step must give each run what it gets alone: the same contract verdicts,
 * per-step states and forces within stated tolerances, every NLP step certified by the model's
 * physical residuals recomputed here. The tests also check that the stack was really used
 * (stacked steps counted from the step records), that a failed warm start is retried cold in
 * the stack, and that a block that fails all its stacked attempts is split out, re-solved alone
 * and counted.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"
#include "sim/stack.h"

#define RUNS 6
static rs_scenario scs[RUNS];

/* Run r of a small sweep of the generic point2d scenario: mu x sideways speed; extras (NULL or
 * NULL-terminated, at most 4) are further section.key=value settings. */
static void load_run(int r, const char *const *extras)
{
    static const char *const mu[] = {"model.mu=0.05", "model.mu=0.2", "model.mu=0.4"};
    static const char *const xd[] = {"initial.xd=0.5", "initial.xd=2"};
    const char *sets[7] = {mu[r % 3], xd[r / 3], "run.steps=600"};
    int nsets = 3;
    for (int i = 0; extras && extras[i]; i++)
        sets[nsets++] = extras[i];
    char path[512];
    snprintf(path, sizeof path, "%s/problems/sweeps/point2d_friction_generic.ini", RS_SOURCE_DIR);
    rs_error_detail d;
    rs_scenario_release(&scs[r]); /* the last load's (a scenario owns its text) */
    const rs_error err = rs_scenario_load(path, sets, nsets, &scs[r], &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
}

static int release_scenarios(void **state)
{
    (void)state;
    for (int r = 0; r < RUNS; r++)
        rs_scenario_release(&scs[r]);
    return 0;
}

/* load_run with one extra setting (or none). */
static void load_run_with(int r, const char *extra)
{
    const char *const extras[] = {extra, NULL};
    load_run(r, extras);
}

static double column(const rs_scenario *sc, const rs_step_result *s, int c)
{
    return c < sc->model->nstate ? s->state_next[c] : s->forces[c - sc->model->nstate];
}

/* Recompute the physical residuals of every NLP step of a run from its records. */
static void assert_certified(const rs_scenario *sc, const rs_compare_result *r)
{
    assert_model_fits_test_arrays(sc->model);
    double state[RS_TEST_MAX_STATE];
    memcpy(state, sc->initial, sizeof(double) * (size_t)sc->model->nstate);
    for (int k = 0; k < r->steps; k++) {
        const rs_step_result *s = &r->step[k].nlp;
        assert_true(s->ok);
        rs_step_data d = {sc->params, state, r->step[k].input, sc->dt, sc->variant, &sc->nlp, sc->scene, 0, NULL};
        double primal, compl;
        sc->model->residuals(&d, s->state_next, s->forces, NULL, &primal, &compl);
        assert_true(primal <= sc->nlp.cert_tol && compl <= sc->nlp.cert_tol);
        memcpy(state, s->state_next, sizeof(double) * (size_t)sc->model->nstate);
    }
}

/* How the stacked steps of a sweep were solved, counted from the step records. */
typedef struct stack_counts {
    int stacked; /* steps that went through a stacked solve */
    int retried; /* of those, solved by a later stacked attempt (a cold retry in the stack) */
    int split;   /* of those, split out and solved alone */
} stack_counts;

/* Stacked against alone, run by run and step by step. Tolerances: states 1e-7 (m, m/s), forces
 * 1e-4 N (the weight is 98.1 N); the IPOPT tolerance is 1e-10 but the two solves stop at
 * different iterates, and a sliding step's force is conditioned by dt = 1e-3. */
static stack_counts compare_stacked_with_alone(const char *const *extras, int warm_max_iter)
{
    rs_stack_options opts;
    rs_stack_options_default(&opts);
    if (warm_max_iter > 0)
        opts.warm_max_iter = warm_max_iter;
    const rs_scenario *group[RUNS];
    rs_compare_result alone[RUNS], stack[RUNS];
    for (int r = 0; r < RUNS; r++) {
        load_run(r, extras);
        group[r] = &scs[r];
        assert_int_equal(rs_compare_run(&scs[r], RS_RUN_COMPARE, NULL, NULL, &alone[r]), RS_OK);
    }
    assert_int_equal(rs_compare_run_stacked(group, RUNS, RS_RUN_COMPARE, &opts, NULL, stack), RS_OK);
    stack_counts n = {0, 0, 0};
    for (int r = 0; r < RUNS; r++) {
        const rs_compare_result *a = &alone[r], *b = &stack[r];
        for (int i = 0; i < b->nchecks; i++)
            if (!b->checks[i].passed || !a->checks[i].passed)
                print_error("run %d: %s (%s): alone %s %.17g, stacked %s %.17g\n", r,
                            b->checks[i].check->text, b->checks[i].which,
                            a->checks[i].passed ? "ok" : "FAILED", a->checks[i].actual,
                            b->checks[i].passed ? "ok" : "FAILED", b->checks[i].actual);
        assert_int_equal(a->contract_passed, b->contract_passed);
        assert_true(b->contract_passed); /* every run of this sweep meets its contract */
        assert_int_equal(a->nchecks, b->nchecks);
        for (int i = 0; i < a->nchecks; i++)
            assert_int_equal(a->checks[i].passed, b->checks[i].passed);
        int run_stacked = 0, run_split = 0;
        for (int k = 0; k < a->steps; k++) {
            const rs_step_result *x = &a->step[k].nlp, *y = &b->step[k].nlp;
            for (int c = 0; c < a->ncol; c++)
                assert_close(column(&scs[r], y, c), column(&scs[r], x, c),
                             c < scs[r].model->nstate ? 1e-7 : 1e-4, 0.0);
            assert_int_equal(a->step[k].verdict, b->step[k].verdict);
            assert_int_equal(x->stacked, 0);
            assert_true(y->stacked || !y->split); /* only a stacked step can be split out */
            run_stacked += y->stacked;
            run_split += y->split;
            n.retried += y->stacked && !y->split && y->attempts > 1;
        }
        assert_int_equal(b->nlp.stacked_steps, run_stacked);
        assert_int_equal(b->nlp.split_steps, run_split);
        /* each run is charged its own share of the stacked iterations, not the stack's total:
         * the mean recomputed from the step records, own iterations plus the share */
        double iters = 0.0;
        for (int k = 0; k < b->steps; k++) {
            const rs_step_result *y = &b->step[k].nlp;
            assert_true(y->stacked || y->stack_iterations == 0.0);
            assert_true(y->stack_iterations >= 0.0);
            iters += y->iterations + y->stack_iterations;
        }
        assert_close(b->nlp.iterations_mean, iters / b->steps, 1e-12, 1e-12);
        assert_certified(&scs[r], b);
        n.stacked += run_stacked;
        n.split += run_split;
        rs_compare_free(&alone[r]);
        rs_compare_free(&stack[r]);
    }
    print_message("stacked steps %d of %d, solved by a stacked retry %d, split out %d\n",
                  n.stacked, RUNS * 600, n.retried, n.split);
    return n;
}

static void test_stacked_ipopt_every_step(void **state)
{
    (void)state;
    const char *const extras[] = {"nlp.check_start=no", NULL};
    const stack_counts n = compare_stacked_with_alone(extras, 0);
    /* Every step goes into a stack: the first cold (no previous solution), the others warm. */
    assert_int_equal(n.stacked, RUNS * 600);
}

static void test_failed_warm_stack_is_retried_cold_in_the_stack(void **state)
{
    (void)state;
    /* Stacked warm solves stopped after 3 iterations: at the landing (about 25 iterations
     * warm) the stacked warm solve fails for the runs that land, and their cold retry is one
     * stacked solve too. */
    const char *const extras[] = {"nlp.check_start=no", NULL};
    const stack_counts n = compare_stacked_with_alone(extras, 3);
    assert_int_equal(n.stacked, RUNS * 600);
    assert_true(n.retried >= RUNS);
}

static void test_failed_stack_is_split_out(void **state)
{
    (void)state;
    /* No fallback paths, and stacked warm solves stopped after 3 iterations: a run whose block
     * fails in the stacked warm solve (the landing) has no stacked cold retry. It is split out,
     * re-solved alone (its warm start alone converges within max_iter) and counted, and
     * certified and compared with the unstacked runs above. */
    const char *const extras[] = {"nlp.check_start=no", "nlp.retries=0", NULL};
    const stack_counts n = compare_stacked_with_alone(extras, 3);
    assert_int_equal(n.stacked, RUNS * 600);
    assert_true(n.split > 0);
}

static void test_stacked_with_start_checks(void **state)
{
    (void)state;
    const stack_counts n = compare_stacked_with_alone(NULL, 0);
    assert_true(n.stacked > 0); /* the landing and the sliding: warm starts in the stack */
}

static void test_incompatible_runs_are_refused(void **state)
{
    (void)state;
    load_run(0, NULL);
    load_run_with(1, "run.steps=500");
    assert_false(rs_stack_compatible(&scs[0], &scs[1]));
    load_run_with(2, "nlp.tol=1e-9");
    assert_false(rs_stack_compatible(&scs[0], &scs[2]));
    load_run_with(3, "nlp.warm_start=no");
    assert_false(rs_stack_compatible(&scs[0], &scs[3]));
    assert_true(rs_stack_compatible(&scs[3], &scs[3])); /* warm starts off: a stack of its own */
    /* settings that change the problem or its judgement never mix */
    static const char *const apart[] = {"nlp.eps=1e-7", "nlp.penalty=l2", "nlp.penalty_weight=10",
                                        "nlp.cert_tol=1e-7", "nlp.mu_init=1e-9", "nlp.retries=1",
                                        "nlp.check_start=no"};
    for (size_t i = 0; i < sizeof apart / sizeof apart[0]; i++) {
        load_run_with(5, apart[i]);
        if (rs_stack_compatible(&scs[0], &scs[5]))
            print_error("%s was stacked with the defaults\n", apart[i]);
        assert_false(rs_stack_compatible(&scs[0], &scs[5]));
    }
    load_run_with(4, "run.dt=2e-3"); /* dt, parameters and initial state may differ */
    assert_true(rs_stack_compatible(&scs[0], &scs[4]));
    const rs_scenario *group[2] = {&scs[0], &scs[1]};
    rs_compare_result out[2];
    assert_int_equal(rs_compare_run_stacked(group, 2, RS_RUN_COMPARE, NULL, NULL, out), RS_ERR_BAD_ARG);
    assert_int_equal(rs_compare_run_stacked(group, 0, RS_RUN_COMPARE, NULL, NULL, out), RS_ERR_DIMENSION);
}

/* A Lemke-only run through the stack (nothing to stack: each run steps alone): the same
 * trajectories, bit for bit, as the runs alone. (With one stepper per trajectory a Lemke run has
 * no NLP stepper; the stack sized its NLP arrays from it, and crashed.) */
static void test_stacked_lemke_run_is_each_run_alone(void **state)
{
    (void)state;
    const rs_scenario *group[2];
    rs_compare_result alone[2], stack[2];
    for (int r = 0; r < 2; r++) {
        load_run(r, NULL);
        group[r] = &scs[r];
        assert_int_equal(rs_compare_run(&scs[r], RS_RUN_LEMKE, NULL, NULL, &alone[r]), RS_OK);
    }
    assert_int_equal(rs_compare_run_stacked(group, 2, RS_RUN_LEMKE, NULL, NULL, stack), RS_OK);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(stack[r].lemke.failed_steps, 0);
        for (int k = 0; k < stack[r].steps; k++)
            for (int c = 0; c < stack[r].ncol; c++)
                assert_true(column(&scs[r], &stack[r].step[k].lemke, c) ==
                            column(&scs[r], &alone[r].step[k].lemke, c));
        rs_compare_free(&alone[r]);
        rs_compare_free(&stack[r]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stacked_ipopt_every_step),
        cmocka_unit_test(test_failed_warm_stack_is_retried_cold_in_the_stack),
        cmocka_unit_test(test_failed_stack_is_split_out),
        cmocka_unit_test(test_stacked_with_start_checks),
        cmocka_unit_test(test_incompatible_runs_are_refused),
        cmocka_unit_test(test_stacked_lemke_run_is_each_run_alone),
    };
    return cmocka_run_group_tests(tests, NULL, release_scenarios);
}
