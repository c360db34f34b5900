/*
 * test_sim_api.c: the public simulation API (relaxsim/sim.h), through the shared library's
 * exported symbols only (no private header). Each claim is recomputed from what the API returns:
 * the point2d scenario's closed form (it stops at x = 0.60918411 m and rests with fz = m g), a
 * simulation's trajectory against the comparison's, a restored snapshot's steps against the
 * first run of them, the callback's verdicts against the totals, a controller's pushes against
 * the friction they meet.
 */
#include "test_helpers.h"

#include <pthread.h>
#include <string.h>

#include "relaxsim/relaxsim.h"

#define SCEN RS_SOURCE_DIR "/problems/scenarios/"

static rs_sim_scenario *load(const char *name, const char *const *sets, int nsets)
{
    rs_sim_scenario *sc = NULL;
    rs_error_detail d;
    const rs_error err = rs_sim_scenario_load(name, sets, nsets, &sc, &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
    assert_non_null(sc);
    return sc;
}

/* A simulation of sc on the NLP (lemke = 0) or Lemke (1), the other settings their defaults. */
static rs_sim *create_sim(const rs_sim_scenario *sc, int lemke)
{
    rs_sim_settings set;
    rs_sim_settings_default(&set);
    set.backend = lemke ? RS_SIM_LEMKE : RS_SIM_NLP;
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, &set, &sim, NULL), RS_OK);
    return sim;
}

static int column(const rs_sim_scenario *sc, rs_sim_column_kind kind, const char *name)
{
    for (int i = 0; rs_sim_scenario_column(sc, kind, i); i++)
        if (strcmp(rs_sim_scenario_column(sc, kind, i), name) == 0)
            return i;
    fail_msg("no column %s", name);
    return -1;
}

/* Per-contact output: the five-box stack (bodies_stack.ini, 1 kg boxes, 0.4 m wide, on the
 * ground), both backends, after 50 steps at rest. Each interface's two corner contacts carry the
 * weight above it, (5 - k) m g for the ground's (k = 0) and the k-th box's top face, along the
 * vertical normal, with no friction at rest; every body's contact forces sum to rs_sim_forces'
 * (fx, fz, tau about its centre) to rounding; before a step and after a state is set there are
 * none, and a model without per-contact output says so. */
static void test_contacts_of_the_last_step(void **state)
{
    (void)state;
    const char *sets[] = {"run.steps=50"};
    rs_sim_scenario *sc = load(SCEN "bodies_stack.ini", sets, 1);
    rs_sim_scenario_info info = {.size = sizeof info};
    assert_int_equal(rs_sim_scenario_get_info(sc, &info, NULL), RS_OK);
    const int nb = info.nstate / 6;
    assert_int_equal(nb, 5);
    double x[30], f[15];
    rs_sim_contact c[32];
    c[0].size = sizeof c[0];
    rs_error_detail d;
    for (int backend = 0; backend < 2; backend++) {
        rs_sim *sim = create_sim(sc, backend);
        int n = -1;
        assert_int_equal(rs_sim_contacts(sim, c, 32, &n, &d), RS_OK);
        assert_int_equal(n, 0); /* no step yet */
        const rs_error run = rs_sim_run(sim, 50, NULL, NULL, NULL, 1, NULL, NULL, &d);
        if (run != RS_OK)
            print_error("%s\n", d.message);
        assert_int_equal(run, RS_OK);
        assert_int_equal(rs_sim_failed_steps(sim), 0);
        assert_int_equal(rs_sim_contacts(sim, NULL, 0, &n, &d), RS_OK);
        assert_int_equal(n, 10); /* two corners per interface */
        assert_int_equal(rs_sim_contacts(sim, c, 32, &n, &d), RS_OK);
        assert_int_equal(rs_sim_state(sim, x, NULL), RS_OK);
        assert_int_equal(rs_sim_forces(sim, f, NULL), RS_OK);
        const double g = 9.81, m = 1.0, F = m * g;
        double sum[15] = {0}, tangent[5] = {0};
        for (int i = 0; i < n; i++) {
            assert_true(c[i].size == sizeof c[i]);
            assert_close(fabs(c[i].normal[1]), 1.0, 1e-12, 0.0);
            /* the normal points from b into a: up, a rests on b */
            const int below = c[i].normal[1] > 0 ? c[i].b : c[i].a;
            const int k = below < 0 ? 0 : below + 1; /* boxes below the interface */
            if (below < 0)
                assert_string_equal(c[i].b_name, "static");
            assert_close(2 * c[i].normal_force, (nb - k) * F, 1e-9 * F, 0.0);
            /* an interface's two corners share its friction in a statically indeterminate way:
             * only their sum is 0 (below); each is within the certificate's tolerance of 0 */
            assert_close(c[i].tangent_force, 0.0, 1e-6 * F, 0.0);
            tangent[k] += c[i].tangent_force * (c[i].normal[1] > 0 ? 1.0 : -1.0);
            /* the force on a (and its opposite on b) at the point, about each centre */
            const double t[2] = {c[i].normal[1], -c[i].normal[0]};
            const double fx = c[i].normal_force * c[i].normal[0] + c[i].tangent_force * t[0];
            const double fz = c[i].normal_force * c[i].normal[1] + c[i].tangent_force * t[1];
            for (int side = 0; side < 2; side++) {
                const int b = side ? c[i].b : c[i].a, sgn = side ? -1 : 1;
                if (b < 0)
                    continue;
                const double rx = c[i].point[0] - x[6 * b], rz = c[i].point[1] - x[6 * b + 1];
                sum[3 * b] += sgn * fx;
                sum[3 * b + 1] += sgn * fz;
                sum[3 * b + 2] += sgn * (rx * fz - rz * fx);
            }
        }
        for (int j = 0; j < 15; j++)
            assert_close(sum[j], f[j], 1e-9 * F, 0.0);
        for (int k = 0; k < nb; k++)
            assert_close(tangent[k], 0.0, 1e-9 * F, 0.0);
        assert_int_equal(rs_sim_set_state(sim, x, NULL), RS_OK);
        assert_int_equal(rs_sim_contacts(sim, c, 32, &n, &d), RS_OK);
        assert_int_equal(n, 0);
        c[0].size = 3; /* an unknown size */
        assert_int_equal(rs_sim_contacts(sim, c, 32, &n, &d), RS_ERR_BAD_SETTING);
        c[0].size = sizeof c[0];
        rs_sim_destroy(sim);
    }
    rs_sim_scenario_free(sc);
    sc = load(SCEN "point2d_friction.ini", NULL, 0);
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, NULL, &sim, NULL), RS_OK);
    int n = 0;
    assert_int_equal(rs_sim_contacts(sim, c, 32, &n, &d), RS_ERR_BAD_ARG);
    assert_non_null(strstr(d.message, "no per-contact output"));
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
}

/* The scenario's sizes, names and values as its file states them. */
static void test_scenario_info(void **state)
{
    (void)state;
    const char *sets[] = {"model.mu=0.2", "run.steps=300"};
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", sets, 2);
    rs_sim_scenario_info info = {.size = sizeof info};
    assert_int_equal(rs_sim_scenario_get_info(sc, &info, NULL), RS_OK);
    assert_string_equal(info.model, "point2d_friction");
    assert_string_equal(info.variant, "corrected");
    assert_int_equal(info.nstate, 4);
    assert_int_equal(info.ninput, 2);
    assert_int_equal(info.nforce, 2);
    assert_int_equal(info.steps, 300);
    assert_close(info.dt, 1e-3, 0, 0);
    assert_string_equal(rs_sim_scenario_column(sc, RS_SIM_STATE, 0), "x_m");
    assert_string_equal(rs_sim_scenario_column(sc, RS_SIM_FORCE, 1), "fz_N");
    assert_null(rs_sim_scenario_column(sc, RS_SIM_STATE, 4));
    assert_null(rs_sim_scenario_column(sc, RS_SIM_STATE, -1));
    assert_null(rs_sim_scenario_column(sc, (rs_sim_column_kind)7, 0));
    double x0[4];
    assert_int_equal(rs_sim_scenario_initial(sc, x0, NULL), RS_OK);
    assert_close(x0[1], 1.0, 0, 0); /* z = 1 */
    assert_close(x0[2], 1.0, 0, 0); /* xd = 1 */
    int found = 0;
    for (int i = 0; i < info.nparams; i++) {
        rs_sim_param p = {.size = sizeof p};
        assert_int_equal(rs_sim_scenario_param(sc, i, &p, NULL), RS_OK);
        assert_true(p.lo <= p.value && p.value <= p.hi);
        if (strcmp(p.name, "mu") == 0) {
            assert_close(p.value, 0.2, 0, 0); /* the override's */
            found = 1;
        }
    }
    assert_true(found);
    rs_sim_param p = {.size = sizeof p};
    assert_int_equal(rs_sim_scenario_param(sc, info.nparams, &p, NULL), RS_ERR_DIMENSION);
    rs_sim_scenario_free(sc);
}

/* Lemke through the API reaches the closed form; the NLP's trajectory is the comparison's. */
static void test_step_to_the_closed_form(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    rs_sim_scenario_info info = {.size = sizeof info};
    rs_sim_scenario_get_info(sc, &info, NULL);
    const int n = info.steps, ix = column(sc, RS_SIM_STATE, "x_m");
    const int ifz = column(sc, RS_SIM_FORCE, "fz_N");
    double *states = malloc(sizeof(double) * (size_t)n * 4 * 2);
    double *forces = malloc(sizeof(double) * (size_t)n * 2 * 2);
    rs_sim_settings set;
    rs_sim_settings_default(&set);
    assert_int_equal(set.backend, RS_SIM_NLP);
    for (int b = 0; b < 2; b++) {
        set.backend = b ? RS_SIM_LEMKE : RS_SIM_NLP;
        rs_sim *sim = NULL;
        assert_int_equal(rs_sim_create(sc, &set, &sim, NULL), RS_OK);
        int done = 0;
        rs_sim_step_info last = {.size = sizeof last};
        assert_int_equal(rs_sim_run(sim, n, NULL, states + (size_t)b * n * 4,
                                    forces + (size_t)b * n * 2, 1, &done, &last, NULL),
                         RS_OK);
        assert_int_equal(done, n);
        assert_int_equal(rs_sim_failed_steps(sim), 0);
        assert_int_equal(rs_sim_step_count(sim), n);
        assert_close(rs_sim_time(sim), n * info.dt, 1e-15, 0);
        assert_true(last.ok);
        assert_int_equal(last.step, n - 1);
        assert_string_equal(last.status_name, "solved");
        if (b)
            assert_string_equal(last.path, "lemke");
        else /* at rest: the previous step's point passes the KKT test, or IPOPT from it */
            assert_true(strcmp(last.path, "start_previous") == 0 ||
                        strcmp(last.path, "ipopt_warm") == 0);
        double x[4], f[2];
        rs_sim_state(sim, x, NULL);
        rs_sim_forces(sim, f, NULL);
        /* the last row of the arrays is the state and forces the simulation holds */
        assert_memory_equal(x, states + ((size_t)b * n + (size_t)n - 1) * 4, sizeof x);
        assert_memory_equal(f, forces + ((size_t)b * n + (size_t)n - 1) * 2, sizeof f);
        /* the closed form (the scenario's header): stops at 0.60918411 m, rests with m g */
        assert_close(x[ix], 0.60918411, b ? 1e-14 : 2e-7, 0); /* the contract's: measured 5e-9 */
        assert_close(f[ifz], 98.1, 1e-10, 0);
        rs_sim_destroy(sim);
    }
    /* the comparison's trajectories end where the simulations did */
    rs_sim_comparison *cmp = NULL;
    assert_int_equal(rs_sim_compare(sc, NULL, NULL, &cmp, NULL), RS_OK);
    double fin[6];
    assert_int_equal(rs_sim_comparison_final(cmp, RS_SIM_NLP, fin, NULL), RS_OK);
    for (int c = 0; c < 4; c++) /* the same solves: bit for bit */
        assert_close(fin[c], states[((size_t)n - 1) * 4 + c], 0, 0);
    assert_int_equal(rs_sim_comparison_final(cmp, RS_SIM_LEMKE, fin, NULL), RS_OK);
    for (int c = 0; c < 4; c++) /* the comparison's Lemke shares its warm basis with the shadow
                                   solves: the last bits may differ (measured 3e-19) */
        assert_close(fin[c], states[((size_t)2 * n - 1) * 4 + c], 1e-16, 1e-15);
    rs_sim_comparison_free(cmp);
    free(states);
    free(forces);
    rs_sim_scenario_free(sc);
}

/* A snapshot taken mid-run gives the same next steps, bit for bit, on either backend (one from
 * another scenario is refused: test_lifetimes). */
static void test_save_and_restore(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    for (int b = 0; b < 2; b++) {
        rs_sim_settings set = {.size = sizeof set, .backend = b ? RS_SIM_LEMKE : RS_SIM_NLP};
        rs_sim *sim = NULL;
        assert_int_equal(rs_sim_create(sc, &set, &sim, NULL), RS_OK);
        rs_sim_run(sim, 440, NULL, NULL, NULL, 1, NULL, NULL, NULL); /* just before the impact */
        rs_sim_snapshot *snap = NULL;
        assert_int_equal(rs_sim_save(sim, &snap, NULL), RS_OK);
        double first[40 * 4], again[40 * 4];
        rs_sim_run(sim, 40, NULL, first, NULL, 1, NULL, NULL, NULL);
        assert_int_equal(rs_sim_restore(sim, snap, NULL), RS_OK);
        assert_int_equal(rs_sim_step_count(sim), 440);
        rs_sim_run(sim, 40, NULL, again, NULL, 1, NULL, NULL, NULL);
        assert_memory_equal(first, again, sizeof first);
        rs_sim_snapshot_free(snap);
        rs_sim_destroy(sim);
    }
    rs_sim_scenario_free(sc);
}

/* The caller's inputs: a box at rest on the ground pushed by a controller that ramps its push
 * with time; Lemke's friction holds it (fx = -ux) while |ux| < mu m g and it moves once the push
 * passes mu m g (the scenario bodies_box_rest: 2 kg, mu 0.5, mu m g = 9.81 N). */
static void test_caller_inputs(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "bodies_box_rest.ini", NULL, 0);
    rs_sim_scenario_info info = {.size = sizeof info};
    rs_sim_scenario_get_info(sc, &info, NULL);
    assert_int_equal(info.nstate, 6);
    assert_int_equal(info.ninput, 3);
    const int iux = column(sc, RS_SIM_INPUT, "box.ux_N"), ifx = column(sc, RS_SIM_FORCE, "box.fx_N");
    const int ixd = column(sc, RS_SIM_STATE, "box.xd_mps");
    rs_sim_param mu = {.size = sizeof mu};
    for (int i = 0; i < info.nparams; i++)
        if (rs_sim_scenario_param(sc, i, &mu, NULL) == RS_OK && strcmp(mu.name, "mu") == 0)
            break;
    const double limit = mu.value * 2.0 * 9.81;
    rs_sim_settings set = {.size = sizeof set, .backend = RS_SIM_LEMKE};
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, &set, &sim, NULL), RS_OK);
    int moved_at = -1;
    for (int k = 0; k < 400; k++) {
        double u[3] = {0, 0, 0}, x[6], f[3];
        u[iux] = 0.05 * k; /* N */
        rs_sim_step_info si = {.size = sizeof si};
        assert_int_equal(rs_sim_step(sim, u, &si, NULL), RS_OK);
        assert_true(si.ok);
        rs_sim_state(sim, x, NULL);
        rs_sim_forces(sim, f, NULL);
        if (u[iux] < limit * (1 - 1e-9)) { /* held: measured 9e-15 N, 4e-18 m/s */
            assert_close(f[ifx], -u[iux], 1e-12, 0);
            assert_close(x[ixd], 0.0, 1e-15, 0);
        } else if (u[iux] > limit * (1 + 1e-9) && moved_at < 0) {
            assert_close(f[ifx], -limit, 1e-9, 1e-12); /* sliding: at the cone's edge */
            assert_true(x[ixd] > 0);
            moved_at = k;
        }
    }
    assert_true(moved_at > 0);
    /* a push that is not a number is an error, not a step */
    const double bad[3] = {NAN, 0, 0};
    assert_int_equal(rs_sim_step(sim, bad, NULL, NULL), RS_ERR_NONFINITE);
    const double nan_state[6] = {0, NAN, 0, 0, 0, 0};
    assert_int_equal(rs_sim_set_state(sim, nan_state, NULL), RS_ERR_NONFINITE);
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
}

/* States and inputs outside a model's domain are refused as the command refuses them in a file,
 * with the model's reason: point2d set 1000 m below the ground (it was accepted, and the NLP's
 * "solved" step threw the body out at 1e6 m/s), a push backwards on sliding_block_forward (it
 * models forward motion only). Every state a run reaches is accepted back (a round trip of each
 * state of both backends' trajectories, penetrations of the NLP's tolerance included). */
static void test_states_and_inputs_outside_the_domain(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    const int iz = column(sc, RS_SIM_STATE, "z_m");
    double before_landing[4]; /* the NLP's state at step 445, for the starved run below */
    for (int b = 0; b < 2; b++) {
        rs_sim *sim = create_sim(sc, b);
        double x[4], x0[4];
        for (int k = 0; k < 520; k++) { /* lands at step 451 and slides */
            assert_int_equal(rs_sim_step(sim, NULL, NULL, NULL), RS_OK);
            rs_sim_state(sim, x, NULL);
            assert_int_equal(rs_sim_check_state(sim, x, NULL), RS_OK);
            if (k % 50 == 0 || (k > 450 && k < 460)) /* (set_state forgets the warm start) */
                assert_int_equal(rs_sim_set_state(sim, x, NULL), RS_OK);
            if (b == 0 && k == 445)
                memcpy(before_landing, x, sizeof x);
        }
        rs_sim_state(sim, x0, NULL);
        memcpy(x, x0, sizeof x);
        x[iz] = -1000.0;
        rs_error_detail d;
        assert_int_equal(rs_sim_check_state(sim, x, &d), RS_ERR_BAD_ARG);
        assert_non_null(strstr(d.message, "state: z = -1000 m: below the ground"));
        assert_int_equal(rs_sim_set_state(sim, x, NULL), RS_ERR_BAD_ARG);
        rs_sim_state(sim, x, NULL);
        assert_memory_equal(x, x0, sizeof x); /* the state stays */
        x[iz] = NAN;
        assert_int_equal(rs_sim_check_state(sim, x, &d), RS_ERR_NONFINITE);
        assert_non_null(strstr(d.message, "state: z_m = nan is not finite"));
        /* beyond a scenario's range (a push of -1e300 N was "solved", z came out 1.5e277 m) */
        const double huge[2] = {0.0, -1e300};
        assert_int_equal(rs_sim_check_input(sim, huge, &d), RS_ERR_BAD_ARG);
        assert_non_null(strstr(d.message, "input: uz_N = -1e+300 is beyond 1e+12"));
        assert_int_equal(rs_sim_step(sim, huge, NULL, NULL), RS_ERR_BAD_ARG);
        rs_sim_destroy(sim);
    }
    rs_sim_scenario_free(sc);

    /* a state a failed step left outside the domain (IPOPT stopped after two iterations: the
     * body ends below the ground by more than a step's length) is the step's failure, not the
     * next input's: a step with the scenario's input given by the caller is taken (it was
     * refused, "input: z = ... below the ground") */
    const char *starved[] = {"nlp.max_iter=2", "nlp.check_start=no"};
    sc = load(SCEN "point2d_friction.ini", starved, 2);
    rs_sim *nlp = NULL;
    assert_int_equal(rs_sim_create(sc, NULL, &nlp, NULL), RS_OK);
    assert_int_equal(rs_sim_set_state(nlp, before_landing, NULL), RS_OK); /* (the flight is long) */
    double x[4], u[2];
    int outside = 0;
    for (int k = 0; k < 300 && !outside; k++) {
        assert_int_equal(rs_sim_scenario_input(sc, k, u, NULL), RS_OK);
        assert_int_equal(rs_sim_step(nlp, u, NULL, NULL), RS_OK);
        rs_sim_state(nlp, x, NULL);
        outside = rs_sim_check_state(nlp, x, NULL) == RS_ERR_BAD_ARG;
    }
    assert_true(outside); /* the case arises */
    assert_true(rs_sim_failed_steps(nlp) > 0);
    assert_int_equal(rs_sim_scenario_input(sc, rs_sim_step_count(nlp), u, NULL), RS_OK);
    assert_int_equal(rs_sim_step(nlp, u, NULL, NULL), RS_OK);
    /* rs_sim_run checks every row's range before the first step */
    const double rows[6] = {0, 0, 0, 0, 1e13, 0};
    int done = -1;
    const int before = rs_sim_step_count(nlp);
    assert_int_equal(rs_sim_run(nlp, 3, rows, NULL, NULL, 0, &done, NULL, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(done, 0);
    assert_int_equal(rs_sim_step_count(nlp), before);
    rs_sim_destroy(nlp);
    rs_sim_scenario_free(sc);

    sc = load(SCEN "sliding_block_forward.ini", NULL, 0);
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, NULL, &sim, NULL), RS_OK);
    const double back = -1.0, ahead = 1.0;
    rs_error_detail d;
    assert_int_equal(rs_sim_check_input(sim, &back, &d), RS_ERR_BAD_ARG);
    assert_non_null(strstr(d.message, "input: sliding_block_forward needs u >= 0"));
    assert_int_equal(rs_sim_step(sim, &back, NULL, NULL), RS_ERR_BAD_ARG);
    assert_int_equal(rs_sim_step_count(sim), 0); /* no step taken */
    assert_int_equal(rs_sim_step(sim, &ahead, NULL, NULL), RS_OK);
    assert_int_equal(rs_sim_step_count(sim), 1);
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
}

typedef struct tally {
    int steps, last, verdicts[RS_SIM_VERDICT_COUNT];
    double max_x_diff;
} tally;

static int on_step(void *ctx, const rs_sim_compare_step *st)
{
    tally *t = ctx;
    assert_int_equal(st->step, t->last + 1); /* every step, in order */
    t->last = st->step;
    t->steps++;
    t->verdicts[st->verdict]++;
    /* the difference reported is |NLP - shadow| of the states given */
    assert_close(st->difference[0], fabs(st->nlp_state[0] - st->shadow_state[0]), 0, 0);
    if (st->difference[0] > t->max_x_diff)
        t->max_x_diff = st->difference[0];
    assert_string_equal(st->shadow.path, "lemke");
    return 0;
}

/* A comparison with a callback: the callback sees every step; the totals and the contract are the
 * callback's; each check's actual value is the one the final state gives. */
static void test_compare_with_callback(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    tally t = {.last = -1};
    rs_sim_comparison *cmp = NULL;
    rs_error_detail d;
    assert_int_equal(rs_sim_compare(sc, on_step, &t, &cmp, &d), RS_OK);
    rs_sim_compare_info info = {.size = sizeof info};
    assert_int_equal(rs_sim_comparison_get_info(cmp, &info, NULL), RS_OK);
    assert_int_equal(t.steps, 1200);
    assert_int_equal(info.steps, 1200);
    int sum = 0;
    for (int v = 0; v < RS_SIM_VERDICT_COUNT; v++) {
        assert_int_equal(info.verdicts[v], t.verdicts[v]);
        sum += info.verdicts[v];
    }
    assert_int_equal(sum, 1200);
    assert_int_equal(info.nlp_failed_steps, 0);
    assert_true(info.contract_passed);
    assert_int_equal(info.nchecks, 13); /* point2d_friction.ini's 11 checks, two on both */
    double fin[6];
    rs_sim_comparison_final(cmp, RS_SIM_NLP, fin, NULL);
    int seen = 0;
    for (int i = 0; i < info.nchecks; i++) {
        rs_sim_check c = {.size = sizeof c};
        assert_int_equal(rs_sim_comparison_check(cmp, i, &c, NULL), RS_OK);
        assert_true(c.passed);
        if (strncmp(c.text, "final_nlp.x_m", 13) == 0) {
            assert_close(c.actual, fin[0], 0, 0);
            seen = 1;
        }
        if (strncmp(c.text, "shadow_max_abs.xd_mps", 21) == 0)
            assert_string_equal(c.trajectory, "shadow");
    }
    assert_true(seen);
    rs_sim_check c = {.size = sizeof c};
    assert_int_equal(rs_sim_comparison_check(cmp, info.nchecks, &c, NULL), RS_ERR_DIMENSION);
    assert_string_equal(rs_sim_verdict_name(RS_SIM_AGREE), "agree");
    assert_string_equal(rs_sim_verdict_name(99), "unknown");
    rs_sim_comparison_free(cmp);
    rs_sim_scenario_free(sc);
}

/* A bodies scenario from text, its scene as text too; errors name the file, line and key. */
static void test_from_text_and_bad_input(void **state)
{
    (void)state;
    const char *scene = "halfplane 0 0, 0 1\nbody b box w=0.2 h=0.1 m=1 z=0.05 xd=1\n";
    const char *text = "[model]\nname = bodies\nscene = inline.scene\nmu = 0.5\n"
                       "[run]\nsteps = 100\ndt = 1e-3\n";
    rs_sim_scenario *sc = NULL;
    rs_error_detail d;
    assert_int_equal(rs_sim_scenario_load_text("inline.ini", text, scene, NULL, 0, &sc, &d), RS_OK);
    rs_sim *sim = NULL;
    rs_sim_settings set = {.size = sizeof set, .backend = RS_SIM_NLP};
    assert_int_equal(rs_sim_create(sc, &set, &sim, &d), RS_OK);
    double x[6];
    assert_int_equal(rs_sim_run(sim, 100, NULL, NULL, NULL, 1, NULL, NULL, NULL), RS_OK);
    rs_sim_state(sim, x, NULL);
    /* sliding at 1 m/s, decelerating at mu g = 4.905 m/s^2 for 0.1 s (semi-implicit Euler);
     * measured 4.5e-9 */
    assert_close(x[3], 1.0 - 0.5 * 9.81 * 0.1, 1e-7, 0);
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);

    const char *unknown[] = {"initial.nobody.x=1"};
    assert_int_equal(rs_sim_scenario_load_text("inline.ini", text, scene, unknown, 1, &sc, &d),
                     RS_ERR_PARSE);
    assert_null(sc);
    assert_non_null(strstr(d.message, "nobody"));
    assert_int_equal(rs_sim_scenario_load(SCEN "no_such_file.ini", NULL, 0, &sc, &d), RS_ERR_IO);
    assert_non_null(strstr(d.message, "no_such_file.ini"));
    const char *bad = "[model]\nname = point2d_friction\nmu = -1\n";
    assert_int_equal(rs_sim_scenario_load_text("bad.ini", bad, NULL, NULL, 0, &sc, &d),
                     RS_ERR_PARSE);
    assert_non_null(strstr(d.message, "bad.ini:3"));
    assert_int_equal(rs_sim_scenario_load(NULL, NULL, 0, &sc, &d), RS_ERR_NULL_ARG);
    rs_sim_scenario *ok = load(SCEN "falling_block.ini", NULL, 0);
    rs_sim_settings weird = {.size = sizeof weird, .backend = (rs_sim_backend)5};
    assert_int_equal(rs_sim_create(ok, &weird, &sim, &d), RS_ERR_BAD_SETTING);
    assert_null(sim);
    rs_sim_scenario_free(ok);
    rs_sim_destroy(NULL);
    rs_sim_scenario_free(NULL);
    rs_sim_comparison_free(NULL);
    rs_sim_snapshot_free(NULL);
}

static int stop_after_five(void *ctx, const rs_sim_compare_step *st)
{
    (void)st;
    return ++*(int *)ctx >= 6; /* steps 0 .. 5, then stop */
}

/* A callback stops a comparison: RS_ERR_STOPPED, no comparison, no step after the one it said. */
static void test_compare_can_be_stopped(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    int calls = 0;
    rs_sim_comparison *cmp = (rs_sim_comparison *)&calls; /* overwritten with NULL */
    rs_error_detail d;
    assert_int_equal(rs_sim_compare(sc, stop_after_five, &calls, &cmp, &d), RS_ERR_STOPPED);
    assert_null(cmp);
    assert_int_equal(calls, 6);
    assert_non_null(strstr(d.message, "step 5 of 1200"));
    rs_sim_scenario_free(sc);
}

/* The caller may free a scenario before what was made from it: they keep it alive (the ASan and
 * valgrind stages see every read). A snapshot of another scenario handle is refused, also one
 * that was loaded from the same file. */
static void test_lifetimes(void **state)
{
    (void)state;
    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    rs_sim_settings set = {.size = sizeof set, .backend = RS_SIM_LEMKE};
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, &set, &sim, NULL), RS_OK);
    rs_sim_run(sim, 100, NULL, NULL, NULL, 1, NULL, NULL, NULL);
    rs_sim_snapshot *snap = NULL;
    assert_int_equal(rs_sim_save(sim, &snap, NULL), RS_OK);
    const char *sets[] = {"run.steps=20"};
    rs_sim_scenario *short_sc = load(SCEN "point2d_friction.ini", sets, 1);
    rs_sim_comparison *cmp = NULL;
    assert_int_equal(rs_sim_compare(short_sc, NULL, NULL, &cmp, NULL), RS_OK);
    rs_sim_scenario_free(sc); /* before the simulation, the snapshot and the comparison */
    rs_sim_scenario_free(short_sc);
    double x[4];
    rs_sim_run(sim, 10, NULL, NULL, NULL, 1, NULL, NULL, NULL);
    assert_int_equal(rs_sim_restore(sim, snap, NULL), RS_OK);
    assert_int_equal(rs_sim_step_count(sim), 100);
    rs_sim_state(sim, x, NULL);
    assert_close(x[1], 1.0 - 0.5 * 9.81 * 1e-6 * 100 * 101, 1e-12, 0); /* z_k, free fall */
    rs_sim_check c = {.size = sizeof c};
    assert_int_equal(rs_sim_comparison_check(cmp, 0, &c, NULL), RS_OK);
    assert_non_null(strstr(c.text, "nlp_failed_steps_max")); /* the scenario's text, alive */
    rs_sim_comparison_free(cmp);
    rs_sim_scenario *other = load(SCEN "point2d_friction.ini", NULL, 0);
    rs_sim *sim2 = NULL;
    assert_int_equal(rs_sim_create(other, &set, &sim2, NULL), RS_OK);
    assert_int_equal(rs_sim_restore(sim2, snap, NULL), RS_ERR_BAD_ARG);
    rs_sim_destroy(sim2);
    rs_sim_scenario_free(other);
    rs_sim_snapshot_free(snap);
    rs_sim_destroy(sim);
}

/* Arguments refused before anything runs: overrides with a NULL entry or a negative count, a
 * text scenario's override naming a scene file, a NaN in a later row of rs_sim_run's inputs (no
 * step taken), n = 0 (a record that says so). */
static void test_argument_checks(void **state)
{
    (void)state;
    rs_sim_scenario *sc = NULL;
    rs_error_detail d;
    const char *with_null[] = {"model.mu=0.2", NULL};
    assert_int_equal(rs_sim_scenario_load(SCEN "point2d_friction.ini", with_null, 2, &sc, &d),
                     RS_ERR_NULL_ARG);
    assert_null(sc);
    assert_non_null(strstr(d.message, "override 1"));
    assert_int_equal(rs_sim_scenario_load(SCEN "point2d_friction.ini", NULL, -1, &sc, &d),
                     RS_ERR_DIMENSION);
    const char *text = "[model]\nname = bodies\nscene = s.scene\n";
    const char *scene = "halfplane 0 0, 0 1\nbody b disc r=0.1 z=0.1\n";
    /* the scenario's [run] backend is a simulation's when no settings are given (it was always
     * the NLP's) */
    const char *lemke[] = {"run.backend=lemke"};
    assert_int_equal(rs_sim_scenario_load(SCEN "point2d_friction.ini", lemke, 1, &sc, &d), RS_OK);
    assert_string_equal(rs_sim_scenario_backend(sc), "lemke");
    assert_null(rs_sim_scenario_backend(NULL));
    rs_sim *by_scenario = NULL;
    assert_int_equal(rs_sim_create(sc, NULL, &by_scenario, &d), RS_OK);
    rs_sim_step_info si0 = {.size = sizeof si0};
    assert_int_equal(rs_sim_step(by_scenario, NULL, &si0, NULL), RS_OK);
    assert_string_equal(si0.path, "lemke");
    rs_sim_destroy(by_scenario);
    rs_sim_scenario_free(sc);
    sc = NULL;
    /* the scene text is the scene, with or without a [model] scene line to name it (it needed
     * a made-up one); a model that takes no scene refuses one (it was ignored) */
    assert_int_equal(rs_sim_scenario_load_text("t.ini", "[model]\nname = bodies\n", scene, NULL,
                                               0, &sc, &d),
                     RS_OK);
    rs_sim_scenario_info si = {.size = sizeof si};
    assert_int_equal(rs_sim_scenario_get_info(sc, &si, NULL), RS_OK);
    assert_int_equal(si.nstate, 6); /* the scene's one body: x, z, theta and their rates */
    rs_sim_scenario_free(sc);
    sc = NULL;
    assert_int_equal(rs_sim_scenario_load_text("t.ini", "[model]\nname = disc_polygons\n",
                                               "halfplane 0 0, 0 1\n", NULL, 0, &sc, &d),
                     RS_OK);
    rs_sim_scenario_free(sc);
    sc = NULL;
    assert_int_equal(rs_sim_scenario_load_text("t.ini", "[model]\nname = point2d_friction\n",
                                               "halfplane 0 0, 0 1\n", NULL, 0, &sc, &d),
                     RS_ERR_PARSE);
    assert_non_null(strstr(d.message, "model point2d_friction takes no scene"));
    /* however it is spaced (the parser drops blanks around the dot: "model .scene" opened the
     * file and echoed its first word) */
    const char *file[] = {" model.scene = /etc/hostname", "model .scene=/etc/hostname",
                          "model. scene=/etc/hostname", "model\t.\tscene =/etc/hostname"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(rs_sim_scenario_load_text("t.ini", text, scene, &file[k], 1, &sc, &d),
                         RS_ERR_PARSE);
        assert_non_null(strstr(d.message, "no file is opened"));
        assert_null(strstr(d.message, "hostname"));
    }
    sc = load(SCEN "point2d_friction.ini", NULL, 0);
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(NULL, NULL, &sim, &d), RS_ERR_NULL_ARG);
    assert_non_null(strstr(d.message, "no scenario"));
    assert_int_equal(rs_sim_create(sc, NULL, &sim, &d), RS_OK);
    double inputs[4 * 2] = {0, 0, 0, 0, 0, 0, NAN, 0};
    int done = 7;
    rs_sim_step_info info = {.size = sizeof info};
    assert_int_equal(rs_sim_run(sim, 4, inputs, NULL, NULL, 0, &done, &info, NULL),
                     RS_ERR_NONFINITE);
    assert_int_equal(done, 0);
    assert_int_equal(rs_sim_step_count(sim), 0);
    assert_int_equal(rs_sim_run(sim, 0, NULL, NULL, NULL, 0, &done, &info, NULL), RS_OK);
    assert_int_equal(info.step, -1);
    assert_string_equal(info.status_name, "none");
    assert_int_equal(rs_sim_run(sim, -1, NULL, NULL, NULL, 0, &done, &info, NULL),
                     RS_ERR_DIMENSION);
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
}

typedef struct thread_run {
    const rs_sim_scenario *sc;
    double final[4];
    int failed;
} thread_run;

static void *run_nlp(void *arg)
{
    thread_run *t = arg;
    rs_sim *sim = NULL;
    rs_sim_settings set = {.size = sizeof set, .backend = RS_SIM_NLP};
    if (rs_sim_create(t->sc, &set, &sim, NULL) != RS_OK) {
        t->failed = -1;
        return NULL;
    }
    rs_sim_run(sim, 600, NULL, NULL, NULL, 0, NULL, NULL, NULL);
    rs_sim_state(sim, t->final, NULL);
    t->failed = rs_sim_failed_steps(sim);
    rs_sim_destroy(sim);
    return NULL;
}

/* Simulations in different threads: NLP steps (IPOPT over sequential MUMPS, which is not
 * thread-safe) go one at a time through the library's lock, and each thread's trajectory is the
 * one it has alone, bit for bit. Two scenario handles and one shared (read only). */
static void test_threads(void **state)
{
    (void)state;
    rs_sim_scenario *a = load(SCEN "point2d_friction.ini", NULL, 0);
    const char *sets[] = {"model.mu=0.3", "initial.xd=2"};
    rs_sim_scenario *b = load(SCEN "point2d_friction.ini", sets, 2);
    thread_run alone[2] = {{a, {0}, 0}, {b, {0}, 0}};
    run_nlp(&alone[0]);
    run_nlp(&alone[1]);
    thread_run together[4] = {{a, {0}, 0}, {b, {0}, 0}, {a, {0}, 0}, {b, {0}, 0}};
    pthread_t tid[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&tid[i], NULL, run_nlp, &together[i]), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(together[i].failed, 0);
        assert_memory_equal(together[i].final, alone[i % 2].final, sizeof alone[0].final);
    }
    rs_sim_scenario_free(a);
    rs_sim_scenario_free(b);
}

/* The model list: every model, its parameters within their ranges, the bodies model marked. */
static void test_models(void **state)
{
    (void)state;
    const int n = rs_sim_model_count();
    assert_true(n >= 8);
    int bodies = 0;
    for (int i = 0; i < n; i++) {
        rs_sim_model_info m = {.size = sizeof m};
        assert_int_equal(rs_sim_model_get_info(i, &m, NULL), RS_OK);
        assert_non_null(m.name);
        assert_true(m.nvariants >= 1);
        assert_non_null(rs_sim_model_variant(i, 0));
        assert_null(rs_sim_model_variant(i, m.nvariants));
        for (int j = 0; j < m.nparams; j++) {
            rs_sim_param p = {.size = sizeof p};
            assert_int_equal(rs_sim_model_param(i, j, &p, NULL), RS_OK);
            assert_true(p.lo <= p.value && p.value <= p.hi);
        }
        assert_non_null(rs_sim_model_column(i, RS_SIM_STATE, m.nstate - 1));
        assert_null(rs_sim_model_column(i, RS_SIM_STATE, m.nstate));
        assert_null(rs_sim_model_column(i, RS_SIM_FORCE, -1));
        if (strcmp(m.name, "bodies") == 0) {
            bodies = 1;
            assert_true(m.from_scene && m.needs_scene && m.own_nlp && m.lcp_per_step);
            assert_string_equal(rs_sim_model_column(i, RS_SIM_STATE, 2), "BODY.theta_rad");
        }
        if (strcmp(m.name, "point2d_friction") == 0) { /* its defaults, relaxsim models */
            double x0[4];
            assert_int_equal(m.nstate, 4);
            assert_int_equal(rs_sim_model_initial(i, x0, NULL), RS_OK);
            assert_close(x0[1], 1.0, 0, 0);
            assert_int_equal(m.lcp_n, 4);
            assert_false(m.lcp_per_step);
        }
    }
    assert_true(bodies);
    rs_sim_model_info m = {.size = sizeof m};
    assert_int_equal(rs_sim_model_get_info(n, &m, NULL), RS_ERR_DIMENSION);
}

/* Every settings and info struct carries its size: one the library does not know (a caller
 * built against another layout, or a struct never filled by rs_sim_settings_default) is refused
 * with RS_ERR_BAD_SETTING, naming the struct and both sizes, and nothing is written into it or
 * taken (the settings were one int: a caller of another layout was read past its end). */
static void test_struct_sizes_are_checked(void **state)
{
    (void)state;
    assert_int_equal(rs_sim_struct_size("rs_sim_settings"), sizeof(rs_sim_settings));
    assert_int_equal(rs_sim_struct_size("rs_sim_scenario_info"), sizeof(rs_sim_scenario_info));
    assert_int_equal(rs_sim_struct_size("rs_sim_param"), sizeof(rs_sim_param));
    assert_int_equal(rs_sim_struct_size("rs_sim_contact"), sizeof(rs_sim_contact));
    assert_int_equal(rs_sim_struct_size("rs_sim_step_info"), sizeof(rs_sim_step_info));
    assert_int_equal(rs_sim_struct_size("rs_sim_compare_step"), sizeof(rs_sim_compare_step));
    assert_int_equal(rs_sim_struct_size("rs_sim_compare_info"), sizeof(rs_sim_compare_info));
    assert_int_equal(rs_sim_struct_size("rs_sim_check"), sizeof(rs_sim_check));
    assert_int_equal(rs_sim_struct_size("rs_sim_model_info"), sizeof(rs_sim_model_info));
    assert_int_equal(rs_sim_struct_size("rs_error_detail"), sizeof(rs_error_detail));
    assert_int_equal(rs_sim_struct_size("rs_lemke_info"), sizeof(rs_lemke_info));
    assert_int_equal(rs_sim_struct_size("rs_lcp_certificate"), sizeof(rs_lcp_certificate));
    assert_int_equal(rs_sim_struct_size("rs_no_such_struct"), 0);
    assert_int_equal(rs_sim_struct_size(NULL), 0);

    rs_sim_settings filled;
    memset(&filled, 0xab, sizeof filled);
    rs_sim_settings_default(&filled);
    assert_int_equal(filled.size, sizeof filled);
    assert_int_equal(filled.backend, RS_SIM_NLP);

    rs_sim_scenario *sc = load(SCEN "point2d_friction.ini", NULL, 0);
    rs_error_detail d;
    rs_sim *sim = (rs_sim *)&d; /* overwritten with NULL */
    const size_t wrong[] = {0, sizeof(rs_sim_settings) - 1, sizeof(rs_sim_settings) + 8};
    for (int i = 0; i < 3; i++) {
        rs_sim_settings s = {.size = wrong[i], .backend = RS_SIM_LEMKE};
        assert_int_equal(rs_sim_create(sc, &s, &sim, &d), RS_ERR_BAD_SETTING);
        assert_null(sim);
        assert_non_null(strstr(d.message, "settings->size = "));
        assert_non_null(strstr(d.message, "rs_sim_settings is"));
        assert_non_null(strstr(d.message, "rs_sim_settings_default"));
    }
    rs_sim_settings good;
    rs_sim_settings_default(&good);
    assert_int_equal(rs_sim_create(sc, &good, &sim, &d), RS_OK);
    assert_string_equal(d.message, ""); /* emptied on success */

    /* an info struct of another size: refused, untouched, no step taken */
    rs_sim_step_info si, untouched;
    memset(&si, 0x5a, sizeof si);
    si.size = sizeof si - 8;
    memcpy(&untouched, &si, sizeof si);
    assert_int_equal(rs_sim_step(sim, NULL, &si, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "info->size = "));
    assert_non_null(strstr(d.message, "rs_sim_step_info"));
    assert_memory_equal(&si, &untouched, sizeof si);
    assert_int_equal(rs_sim_step_count(sim), 0);
    int done = 7;
    assert_int_equal(rs_sim_run(sim, 3, NULL, NULL, NULL, 0, &done, &si, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_step_info"));
    assert_int_equal(done, 0);
    assert_int_equal(rs_sim_step_count(sim), 0);
    si.size = sizeof si;
    assert_int_equal(rs_sim_step(sim, NULL, &si, &d), RS_OK);
    assert_int_equal(si.size, sizeof si);
    assert_int_equal(rs_sim_step_count(sim), 1);

    rs_sim_scenario_info scinfo = {.size = 0};
    assert_int_equal(rs_sim_scenario_get_info(sc, &scinfo, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_scenario_info"));
    assert_null(scinfo.model);
    rs_sim_param p = {.size = 1};
    assert_int_equal(rs_sim_scenario_param(sc, 0, &p, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_param"));
    assert_int_equal(rs_sim_model_param(0, 0, &p, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_param"));
    rs_sim_model_info mi = {.size = sizeof mi + 1};
    assert_int_equal(rs_sim_model_get_info(0, &mi, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_model_info"));
    assert_null(mi.name);

    const char *sets[] = {"run.steps=3"};
    rs_sim_scenario *three = load(SCEN "point2d_friction.ini", sets, 1);
    rs_sim_comparison *cmp = NULL;
    assert_int_equal(rs_sim_compare(three, NULL, NULL, &cmp, &d), RS_OK);
    rs_sim_compare_info ci = {.size = 4};
    assert_int_equal(rs_sim_comparison_get_info(cmp, &ci, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_compare_info"));
    assert_int_equal(ci.steps, 0);
    rs_sim_check c = {.size = 0};
    assert_int_equal(rs_sim_comparison_check(cmp, 0, &c, &d), RS_ERR_BAD_SETTING);
    assert_non_null(strstr(d.message, "rs_sim_check"));
    ci.size = sizeof ci;
    assert_int_equal(rs_sim_comparison_get_info(cmp, &ci, &d), RS_OK);
    assert_int_equal(ci.steps, 3);
    rs_sim_comparison_free(cmp);
    rs_sim_scenario_free(three);
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
}

static int sizes_in_callback(void *ctx, const rs_sim_compare_step *st)
{
    int *bad = ctx;
    *bad += st->size != sizeof *st || st->nlp.size != sizeof st->nlp ||
            st->shadow.size != sizeof st->shadow || st->lemke.size != sizeof st->lemke;
    return 0;
}

/* Every refusal says why (rs_sim_step refused an input with RS_ERR_BAD_ARG and nothing else), a
 * success empties the detail, and a NULL detail is fine. */
#define REFUSED_WITH(call, code, needle)                                                       \
    do {                                                                                       \
        strcpy(d.message, "stale");                                                           \
        assert_int_equal((call), (code));                                                     \
        assert_true(strlen(d.message) > 0 && strcmp(d.message, "stale") != 0);                \
        assert_non_null(strstr(d.message, (needle)));                                         \
    } while (0)

static void test_refusals_say_why(void **state)
{
    (void)state;
    rs_error_detail d;
    rs_sim_scenario *sc = load(SCEN "sliding_block_forward.ini", NULL, 0);
    rs_sim *sim = NULL;
    assert_int_equal(rs_sim_create(sc, NULL, &sim, NULL), RS_OK);
    const double back = -1.0, nan_push = NAN, huge = 1e13;
    /* the step names the input and what is wrong with it, as rs_sim_check_input */
    REFUSED_WITH(rs_sim_step(sim, &back, NULL, &d), RS_ERR_BAD_ARG,
                 "input: sliding_block_forward needs u >= 0");
    REFUSED_WITH(rs_sim_step(sim, &nan_push, NULL, &d), RS_ERR_NONFINITE, "is not finite");
    REFUSED_WITH(rs_sim_step(sim, &huge, NULL, &d), RS_ERR_BAD_ARG, "is beyond 1e+12");
    assert_int_equal(rs_sim_step(sim, &back, NULL, NULL), RS_ERR_BAD_ARG); /* detail NULL */
    assert_int_equal(rs_sim_step_count(sim), 0);
    REFUSED_WITH(rs_sim_step(NULL, NULL, NULL, &d), RS_ERR_NULL_ARG, "sim");
    strcpy(d.message, "stale");
    assert_int_equal(rs_sim_step(sim, NULL, NULL, &d), RS_OK);
    assert_string_equal(d.message, "");
    /* a run names the row, and the steps taken */
    const double rows[3] = {1.0, 1.0, NAN};
    int done = -1;
    REFUSED_WITH(rs_sim_run(sim, 3, rows, NULL, NULL, 0, &done, NULL, &d), RS_ERR_NONFINITE,
                 "inputs row 2: input: ");
    assert_non_null(strstr(d.message, "no step taken"));
    const double later[3] = {1.0, -1.0, 1.0};
    REFUSED_WITH(rs_sim_run(sim, 3, later, NULL, NULL, 0, &done, NULL, &d), RS_ERR_BAD_ARG,
                 "inputs row 1: input: sliding_block_forward needs u >= 0");
    assert_non_null(strstr(d.message, "(1 step taken)"));
    assert_int_equal(done, 1);
    REFUSED_WITH(rs_sim_run(sim, -1, NULL, NULL, NULL, 0, NULL, NULL, &d), RS_ERR_DIMENSION,
                 "n = -1");
    REFUSED_WITH(rs_sim_run(NULL, 1, NULL, NULL, NULL, 0, NULL, NULL, &d), RS_ERR_NULL_ARG,
                 "sim");
    /* the state's getters and setter */
    double x[8];
    REFUSED_WITH(rs_sim_state(sim, NULL, &d), RS_ERR_NULL_ARG, "state");
    REFUSED_WITH(rs_sim_state(NULL, x, &d), RS_ERR_NULL_ARG, "sim");
    REFUSED_WITH(rs_sim_forces(NULL, x, &d), RS_ERR_NULL_ARG, "sim");
    REFUSED_WITH(rs_sim_set_state(sim, NULL, &d), RS_ERR_NULL_ARG, "state");
    assert_int_equal(rs_sim_state(sim, x, NULL), RS_OK);
    x[0] = NAN;
    REFUSED_WITH(rs_sim_set_state(sim, x, &d), RS_ERR_NONFINITE, "state: ");
    REFUSED_WITH(rs_sim_check_state(NULL, x, &d), RS_ERR_NULL_ARG, "sim");
    REFUSED_WITH(rs_sim_check_input(NULL, x, &d), RS_ERR_NULL_ARG, "sim");
    /* snapshots */
    rs_sim_snapshot *snap = NULL;
    REFUSED_WITH(rs_sim_save(sim, NULL, &d), RS_ERR_NULL_ARG, "snapshot");
    REFUSED_WITH(rs_sim_save(NULL, &snap, &d), RS_ERR_NULL_ARG, "sim");
    REFUSED_WITH(rs_sim_restore(sim, NULL, &d), RS_ERR_NULL_ARG, "snapshot");
    rs_sim_scenario *other = load(SCEN "sliding_block_forward.ini", NULL, 0);
    rs_sim *elsewhere = NULL;
    assert_int_equal(rs_sim_create(other, NULL, &elsewhere, NULL), RS_OK);
    assert_int_equal(rs_sim_save(elsewhere, &snap, &d), RS_OK);
    REFUSED_WITH(rs_sim_restore(sim, snap, &d), RS_ERR_BAD_ARG, "another scenario");
    rs_sim_snapshot_free(snap);
    rs_sim_destroy(elsewhere);
    rs_sim_scenario_free(other);
    /* the scenario's getters */
    rs_sim_scenario_info si = {.size = sizeof si};
    REFUSED_WITH(rs_sim_scenario_get_info(NULL, &si, &d), RS_ERR_NULL_ARG, "scenario");
    REFUSED_WITH(rs_sim_scenario_get_info(sc, NULL, &d), RS_ERR_NULL_ARG, "info");
    REFUSED_WITH(rs_sim_scenario_initial(sc, NULL, &d), RS_ERR_NULL_ARG, "state");
    REFUSED_WITH(rs_sim_scenario_input(sc, -1, x, &d), RS_ERR_DIMENSION, "k = -1");
    REFUSED_WITH(rs_sim_scenario_input(NULL, 0, x, &d), RS_ERR_NULL_ARG, "scenario");
    rs_sim_param p = {.size = sizeof p};
    REFUSED_WITH(rs_sim_scenario_param(sc, 99, &p, &d), RS_ERR_DIMENSION, "parameter 99");
    REFUSED_WITH(rs_sim_scenario_param(sc, 0, NULL, &d), RS_ERR_NULL_ARG, "out");
    rs_sim_scenario *none = (rs_sim_scenario *)&d;
    REFUSED_WITH(rs_sim_scenario_load("x.ini", NULL, 0, NULL, &d), RS_ERR_NULL_ARG, "out");
    REFUSED_WITH(rs_sim_scenario_load_text("x.ini", "", NULL, NULL, 0, NULL, &d),
                 RS_ERR_NULL_ARG, "out");
    REFUSED_WITH(rs_sim_create(sc, NULL, NULL, &d), RS_ERR_NULL_ARG, "out");
    (void)none;
    /* the models */
    const int n = rs_sim_model_count();
    rs_sim_model_info mi = {.size = sizeof mi};
    REFUSED_WITH(rs_sim_model_get_info(n, &mi, &d), RS_ERR_DIMENSION, "model");
    REFUSED_WITH(rs_sim_model_get_info(0, NULL, &d), RS_ERR_NULL_ARG, "info");
    REFUSED_WITH(rs_sim_model_param(n, 0, &p, &d), RS_ERR_DIMENSION, "model");
    REFUSED_WITH(rs_sim_model_param(0, 999, &p, &d), RS_ERR_DIMENSION, "parameter 999");
    REFUSED_WITH(rs_sim_model_param(0, 0, NULL, &d), RS_ERR_NULL_ARG, "out");
    REFUSED_WITH(rs_sim_model_initial(-1, x, &d), RS_ERR_DIMENSION, "model -1");
    REFUSED_WITH(rs_sim_model_initial(0, NULL, &d), RS_ERR_NULL_ARG, "state");
    /* the comparisons */
    const char *sets[] = {"run.steps=3"};
    rs_sim_scenario *three = load(SCEN "point2d_friction.ini", sets, 1);
    rs_sim_comparison *cmp = NULL;
    int bad_sizes = 0;
    assert_int_equal(rs_sim_compare(three, sizes_in_callback, &bad_sizes, &cmp, &d), RS_OK);
    assert_int_equal(bad_sizes, 0); /* the records the library hands out carry their size */
    rs_sim_comparison_free(cmp); /* (the refusal below sets cmp to NULL) */
    REFUSED_WITH(rs_sim_compare(NULL, NULL, NULL, &cmp, &d), RS_ERR_NULL_ARG, "scenario");
    assert_int_equal(rs_sim_compare(three, NULL, NULL, &cmp, &d), RS_OK);
    rs_sim_compare_info ci = {.size = sizeof ci};
    rs_sim_check c = {.size = sizeof c};
    double cols[16];
    REFUSED_WITH(rs_sim_comparison_get_info(NULL, &ci, &d), RS_ERR_NULL_ARG, "comparison");
    REFUSED_WITH(rs_sim_comparison_check(cmp, 999, &c, &d), RS_ERR_DIMENSION, "check 999");
    REFUSED_WITH(rs_sim_comparison_check(cmp, 0, NULL, &d), RS_ERR_NULL_ARG, "out");
    REFUSED_WITH(rs_sim_comparison_final(cmp, (rs_sim_backend)7, cols, &d), RS_ERR_BAD_ARG,
                 "trajectory = 7");
    REFUSED_WITH(rs_sim_comparison_final(cmp, RS_SIM_NLP, NULL, &d), RS_ERR_NULL_ARG,
                 "columns");
    rs_sim_comparison_free(cmp);
    rs_sim_scenario_free(three);
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_info),
        cmocka_unit_test(test_step_to_the_closed_form),
        cmocka_unit_test(test_save_and_restore),
        cmocka_unit_test(test_caller_inputs),
        cmocka_unit_test(test_states_and_inputs_outside_the_domain),
        cmocka_unit_test(test_compare_with_callback),
        cmocka_unit_test(test_from_text_and_bad_input),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_compare_can_be_stopped),
        cmocka_unit_test(test_lifetimes),
        cmocka_unit_test(test_argument_checks),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_struct_sizes_are_checked),
        cmocka_unit_test(test_refusals_say_why),
        cmocka_unit_test(test_contacts_of_the_last_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
