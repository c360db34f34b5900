/*
 * consumer.c: a program outside the relaxsim tree, built against the installed library and its
 * public headers only. It solves a 2x2 LCP and checks its certificate, then drives a simulation
 * and a comparison through the simulation API: a block dropped from 1 m comes to rest on the
 * ground carrying its weight (fn = m g), by both backends, and the comparison's contract passes.
 */
#include <math.h>
#include <stdio.h>

#include <relaxsim/relaxsim.h>

static const char scenario[] = "[model]\nname = falling_block\nm = 2\ng = 9.81\n"
                               "[initial]\nx = 1\nxd = 0\n"
                               "[run]\nsteps = 100\ndt = 0.01\n"
                               "[expect]\nnlp_failed_steps_max = 0\nlemke_failed_steps_max = 0\n"
                               "final_lemke.fn_N = 19.62 +- 1e-12\n";

static int lcp(void)
{
    /* M = [[2, 1], [1, 2]] (column-major), q = (-5, -6): z = (4/3, 7/3). */
    const double M[4] = {2.0, 1.0, 1.0, 2.0}, q[2] = {-5.0, -6.0};
    double z[2], w[2];
    rs_lemke_info info = {.size = sizeof info};
    const rs_error err = rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info, NULL);
    if (err != RS_OK || info.status != RS_LEMKE_SOLVED || !info.cert.passed) {
        fprintf(stderr, "consumer: %s, status %s\n", rs_error_string(err),
                rs_lemke_status_name(info.status));
        return 1;
    }
    printf("consumer: relaxsim %s solved z = (%.6f, %.6f) in %d pivots\n", rs_version(), z[0], z[1],
           info.pivots);
    return 0;
}

static int count_step(void *ctx, const rs_sim_compare_step *step)
{
    (void)step;
    ++*(int *)ctx;
    return 0; /* go on */
}

static int simulate(void)
{
    rs_sim_scenario *sc = NULL;
    rs_error_detail detail;
    rs_error err = rs_sim_scenario_load_text("drop.ini", scenario, NULL, NULL, 0, &sc, &detail);
    if (err != RS_OK) {
        fprintf(stderr, "consumer: %s: %s\n", rs_error_string(err), detail.message);
        return 1;
    }
    rs_sim_scenario_info si = {.size = sizeof si};
    rs_sim_scenario_get_info(sc, &si, NULL);
    if (si.nstate != 2 || si.nforce != 1) { /* the falling block: x, xd; fn */
        fprintf(stderr, "consumer: falling_block has %d state and %d force columns\n", si.nstate,
                si.nforce);
        rs_sim_scenario_free(sc);
        return 1;
    }
    int bad = 0;
    for (int b = 0; b < 2; b++) {
        rs_sim_settings settings;
        rs_sim_settings_default(&settings);
        settings.backend = b ? RS_SIM_LEMKE : RS_SIM_NLP;
        rs_sim *sim = NULL;
        int done = 0;
        double x[2], f[1];
        err = rs_sim_create(sc, &settings, &sim, &detail);
        if (err == RS_OK)
            err = rs_sim_run(sim, 100, NULL, NULL, NULL, 1, &done, NULL, &detail);
        if (err != RS_OK || done != 100 || rs_sim_failed_steps(sim) != 0) {
            fprintf(stderr, "consumer: %s run: %s (%s), %d steps\n", b ? "Lemke" : "NLP",
                    rs_error_string(err), detail.message, done);
            bad = 1;
        } else {
            rs_sim_state(sim, x, NULL);
            rs_sim_forces(sim, f, NULL);
            /* at rest on the ground, carrying m g */
            const int rest = fabs(x[0]) < 1e-9 && fabs(x[1]) < 1e-7 && fabs(f[0] - 19.62) < 1e-8;
            printf("consumer: %s: x = %.3g m, xd = %.3g m/s, fn = %.10g N after 1 s%s\n",
                   b ? "Lemke" : "NLP  ", x[0], x[1], f[0], rest ? "" : "  (NOT AT REST)");
            bad |= !rest;
        }
        rs_sim_destroy(sim);
    }
    int steps = 0;
    rs_sim_comparison *cmp = NULL;
    err = rs_sim_compare(sc, count_step, &steps, &cmp, &detail);
    rs_sim_compare_info info = {.size = sizeof info};
    if (err != RS_OK || (err = rs_sim_comparison_get_info(cmp, &info, &detail)) != RS_OK) {
        fprintf(stderr, "consumer: comparison: %s: %s\n", rs_error_string(err), detail.message);
        bad = 1;
    } else {
        printf("consumer: comparison of %d steps (%d called back): %d agree, contract %s\n",
               info.steps, steps, info.verdicts[RS_SIM_AGREE],
               info.contract_passed ? "passed" : "FAILED");
        bad |= steps != 100 || !info.contract_passed;
    }
    rs_sim_comparison_free(cmp);
    rs_sim_scenario_free(sc);
    return bad;
}

int main(void)
{
    return lcp() | simulate();
}
