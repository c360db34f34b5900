/*
 * controller.c: a feedback controller driving a simulation through relaxsim's library.
 *
 * The uniform disc of bodies_disc_slip_roll.ini (r = 0.1 m, 1 kg, mu = 0.2 against the ground),
 * here starting at rest, is rolled to x = 1 m by a force at its centre computed from its state
 * every step: u = clamp(kp (1 - x) - kd xd, -umax, umax). Rolling, the disc moves as a mass of
 * 3/2 m (its spin takes a third of the push's work), so kp = 40 N/m and kd = 15 N s/m damp it
 * about critically (damping ratio 0.97); |u| <= 4 N stays below 3 mu m g = 5.9 N, the largest
 * push it can take without slipping. Each step is solved by the relaxed NLP (IPOPT; "lemke" as
 * the first argument for Lemke's method).
 *
 * Exit 0 when every step was certified, the disc ends at rest on the target (within 1e-6 m and
 * 1e-6 m/s; measured 1e-9) and it rolled without slipping throughout (|xd + r thetad|, the
 * contact point's speed, below 1e-6 m/s: the NLP's relaxation lets it reach 3e-7 while the push
 * saturates, Lemke 2e-16); 1 otherwise; 2 when the scenario cannot be loaded.
 *
 *   controller [lemke] [SCENARIO]   (default: problems/scenarios/bodies_disc_slip_roll.ini)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <relaxsim/relaxsim.h>

static int column(const rs_sim_scenario *sc, rs_sim_column_kind kind, const char *name)
{
    for (int i = 0; rs_sim_scenario_column(sc, kind, i); i++)
        if (strcmp(rs_sim_scenario_column(sc, kind, i), name) == 0)
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    int lemke = argc > 1 && strcmp(argv[1], "lemke") == 0;
    const char *path = argc > 1 + lemke ? argv[1 + lemke]
                                        : "problems/scenarios/bodies_disc_slip_roll.ini";
    const char *sets[] = {"initial.disc.xd=0", "run.steps=5000"};
    const double target = 1.0, kp = 40.0, kd = 15.0, umax = 4.0, r = 0.1;

    rs_sim_scenario *sc = NULL;
    rs_error_detail why;
    if (rs_sim_scenario_load(path, sets, 2, &sc, &why) != RS_OK) {
        fprintf(stderr, "controller: %s\n", why.message);
        return 2;
    }
    rs_sim_scenario_info info = {.size = sizeof info};
    rs_sim_scenario_get_info(sc, &info, NULL);
    const int ix = column(sc, RS_SIM_STATE, "disc.x_m"), ixd = column(sc, RS_SIM_STATE, "disc.xd_mps");
    const int ithd = column(sc, RS_SIM_STATE, "disc.thetad_radps");
    const int iux = column(sc, RS_SIM_INPUT, "disc.ux_N");
    if (ix < 0 || ixd < 0 || ithd < 0 || iux < 0 || info.nstate > 6 || info.ninput > 3) {
        fprintf(stderr, "controller: %s has no single body named disc\n", path);
        rs_sim_scenario_free(sc);
        return 2;
    }
    rs_sim_settings settings;
    rs_sim_settings_default(&settings);
    settings.backend = lemke ? RS_SIM_LEMKE : RS_SIM_NLP;
    rs_sim *sim = NULL;
    if (rs_sim_create(sc, &settings, &sim, &why) != RS_OK) {
        fprintf(stderr, "controller: %s\n", why.message);
        rs_sim_scenario_free(sc);
        return 2;
    }

    printf("rolling the disc to x = %g m by %s\n\n", target, lemke ? "Lemke" : "the NLP (IPOPT)");
    printf("%6s  %9s  %9s  %7s  %9s\n", "t (s)", "x (m)", "xd (m/s)", "u (N)", "slip (m/s)");
    double x[6] = {0}, u[3] = {0}, worst_slip = 0.0;
    for (int k = 0; k < info.steps; k++) {
        rs_sim_state(sim, x, NULL);
        const double push = kp * (target - x[ix]) - kd * x[ixd];
        u[iux] = fmax(-umax, fmin(umax, push));
        rs_sim_step_info si = {.size = sizeof si};
        if (rs_sim_step(sim, u, &si, &why) != RS_OK) { /* refused: why says which input */
            fprintf(stderr, "controller: step %d: %s\n", k, why.message);
            break;
        }
        rs_sim_state(sim, x, NULL);
        const double slip = x[ixd] + r * x[ithd]; /* the contact point's speed */
        worst_slip = fmax(worst_slip, fabs(slip));
        if ((k + 1) % 500 == 0)
            printf("%6.2f  %9.6f  %9.6f  %7.3f  %9.2e%s\n", rs_sim_time(sim), x[ix], x[ixd],
                   u[iux], slip, si.ok ? "" : "  (step not certified)");
    }
    const int failed = rs_sim_failed_steps(sim);
    const int ok = failed == 0 && fabs(x[ix] - target) < 1e-6 && fabs(x[ixd]) < 1e-6 &&
                   worst_slip < 1e-6;
    printf("\nfinal x = %.6f m, xd = %.2e m/s; largest slip %.2e m/s; failed steps %d: %s\n",
           x[ix], x[ixd], worst_slip, failed, ok ? "ok" : "FAILED");
    rs_sim_destroy(sim);
    rs_sim_scenario_free(sc);
    return ok ? 0 : 1;
}
