/*
 * test_stack.c: stacked solves (sim/stack.h). K point2d runs advanced in lock-step with one
 * block-diagonal NLP per step must give each run what it gets alone: the same contract verdicts,
 * per-step states and forces within stated tolerances, every NLP step certified by the model's
 * physical residuals recomputed here. The tests also check that the stack was really used
 * (stacked steps counted from the step records) and that a block that fails in the stack is
 * split out, re-solved alone and counted.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "sim/stack.h"

#define RUNS 6
static rs_scenario scs[RUNS];

/* Run r of a small sweep of the generic point2d scenario: mu x sideways speed. */
static void load_run(int r, const char *extra)
{
    static const char *const mu[] = {"model.mu=0.05", "model.mu=0.2", "model.mu=0.4"};
    static const char *const xd[] = {"initial.xd=0.5", "initial.xd=2"};
    const char *sets[4] = {mu[r % 3], xd[r / 3], "run.steps=600", extra};
    char path[512];
    snprintf(path, sizeof path, "%s/problems/sweeps/point2d_friction_generic.ini", RS_SOURCE_DIR);
    rs_error_detail d;
    const rs_error err = rs_scenario_load(path, sets, extra ? 4 : 3, &scs[r], &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
}

static double column(const rs_scenario *sc, const rs_step_result *s, int c)
{
    return c < sc->model->nstate ? s->state_next[c] : s->forces[c - sc->model->nstate];
}

/* Recompute the physical residuals of every NLP step of a run from its records. */
static void assert_certified(const rs_scenario *sc, const rs_compare_result *r)
{
    double state[RS_MODEL_MAX_STATE];
    memcpy(state, sc->initial, sizeof state);
    for (int k = 0; k < r->steps; k++) {
        const rs_step_result *s = &r->step[k].nlp;
        assert_true(s->ok);
        rs_step_data d = {sc->params, state, r->step[k].input, sc->dt, sc->variant, &sc->nlp};
        double primal, compl;
        sc->model->residuals(&d, s->state_next, s->forces, &primal, &compl);
        assert_true(primal <= sc->nlp.cert_tol && compl <= sc->nlp.cert_tol);
        memcpy(state, s->state_next, sizeof state);
    }
}

/* Stacked against alone, run by run and step by step. Tolerances: states 1e-7 (m, m/s), forces
 * 1e-4 N (the weight is 98.1 N); the IPOPT tolerance is 1e-10 but the two solves stop at
 * different iterates, and a sliding step's force is conditioned by dt = 1e-3. */
static void compare_stacked_with_alone(const char *extra, int *stacked, int *split)
{
    const rs_scenario *group[RUNS];
    rs_compare_result alone[RUNS], stack[RUNS];
    for (int r = 0; r < RUNS; r++) {
        load_run(r, extra);
        group[r] = &scs[r];
        assert_int_equal(rs_compare_run(&scs[r], RS_RUN_COMPARE, NULL, NULL, &alone[r]), RS_OK);
    }
    assert_int_equal(rs_compare_run_stacked(group, RUNS, RS_RUN_COMPARE, stack), RS_OK);
    *stacked = *split = 0;
    for (int r = 0; r < RUNS; r++) {
        const rs_compare_result *a = &alone[r], *b = &stack[r];
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
            run_stacked += y->stacked;
            run_split += y->split;
        }
        assert_int_equal(b->nlp.stacked_steps, run_stacked);
        assert_int_equal(b->nlp.split_steps, run_split);
        assert_certified(&scs[r], b);
        *stacked += run_stacked;
        *split += run_split;
        rs_compare_free(&alone[r]);
        rs_compare_free(&stack[r]);
    }
}

static void test_stacked_ipopt_every_step(void **state)
{
    (void)state;
    int stacked, split;
    compare_stacked_with_alone("nlp.check_start=no", &stacked, &split);
    /* Every step after the first (cold, alone) goes into the stack: no step of this sweep
     * fails, so every run can be warm-started. Some stacked solves do fail (the blocks share
     * IPOPT's line search: with resting and sliding runs together, the restoration phase can
     * fail at once), so the split-out path runs here too, and its steps are certified above. */
    print_message("stacked steps %d of %d, split out %d\n", stacked, RUNS * 600, split);
    assert_int_equal(stacked, RUNS * 599);
    assert_true(split > 0);
}

static void test_stacked_with_start_checks(void **state)
{
    (void)state;
    int stacked, split;
    compare_stacked_with_alone(NULL, &stacked, &split);
    print_message("stacked steps %d of %d, split out %d\n", stacked, RUNS * 600, split);
    assert_true(stacked > 0);
}

static void test_incompatible_runs_are_refused(void **state)
{
    (void)state;
    load_run(0, NULL);
    load_run(1, "run.steps=500");
    assert_false(rs_stack_compatible(&scs[0], &scs[1]));
    load_run(2, "nlp.tol=1e-9");
    assert_false(rs_stack_compatible(&scs[0], &scs[2]));
    load_run(3, "nlp.warm_start=no");
    assert_false(rs_stack_compatible(&scs[0], &scs[3]));
    load_run(4, "run.dt=2e-3"); /* dt, parameters and initial state may differ */
    assert_true(rs_stack_compatible(&scs[0], &scs[4]));
    const rs_scenario *group[2] = {&scs[0], &scs[1]};
    rs_compare_result out[2];
    assert_int_equal(rs_compare_run_stacked(group, 2, RS_RUN_COMPARE, out), RS_ERR_BAD_ARG);
    assert_int_equal(rs_compare_run_stacked(group, 0, RS_RUN_COMPARE, out), RS_ERR_DIMENSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stacked_ipopt_every_step),
        cmocka_unit_test(test_stacked_with_start_checks),
        cmocka_unit_test(test_incompatible_runs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
