/*
 * sweep.c: a parameter sweep through relaxsim's library, a comparison per value.
 *
 * The box of bodies_ramp_slide.ini on a 30 degree ramp, its friction coefficient swept across
 * tan 30 = 0.577: below it the box slides with a = g (sin 30 - mu cos 30), above it it sticks.
 * Each value runs the scenario's comparison (the NLP trajectory, Lemke from each of its states,
 * an independent Lemke trajectory, a verdict per step), counting the verdicts in a callback; its
 * final speeds along the slope are set against the closed form a N dt (semi-implicit Euler).
 *
 * Exit 0 when every step of every run was solved and certified and both trajectories' final
 * speeds are within 1e-6 m/s of the closed form; 1 otherwise; 2 when the scenario cannot be
 * loaded.
 *
 *   sweep [SCENARIO]   (default: problems/scenarios/bodies_ramp_slide.ini)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <relaxsim/relaxsim.h>

typedef struct counts {
    int steps, verdicts[RS_SIM_VERDICT_COUNT];
} counts;

static int count(void *ctx, const rs_sim_compare_step *step)
{
    counts *c = ctx;
    c->steps++;
    c->verdicts[step->verdict]++;
    return 0; /* go on */
}

static int column(const rs_sim_scenario *sc, const char *name)
{
    for (int i = 0; rs_sim_scenario_column(sc, RS_SIM_STATE, i); i++)
        if (strcmp(rs_sim_scenario_column(sc, RS_SIM_STATE, i), name) == 0)
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "problems/scenarios/bodies_ramp_slide.ini";
    const double mus[] = {0.1, 0.3, 0.5, 0.55, 0.6, 0.8};
    const double g = 9.81, s30 = 0.5, c30 = sqrt(3.0) / 2.0;
    int bad = 0;
    printf("%5s  %14s  %14s  %14s  %6s  %s\n", "mu", "closed form", "NLP", "Lemke", "agree",
           "other verdicts");
    for (size_t i = 0; i < sizeof mus / sizeof mus[0]; i++) {
        char set[64];
        snprintf(set, sizeof set, "model.mu=%.17g", mus[i]);
        const char *sets[] = {set, "run.steps=500"};
        rs_sim_scenario *sc = NULL;
        rs_error_detail why;
        if (rs_sim_scenario_load(path, sets, 2, &sc, &why) != RS_OK) {
            fprintf(stderr, "sweep: %s\n", why.message);
            return 2;
        }
        rs_sim_scenario_info info = {.size = sizeof info};
        rs_sim_scenario_get_info(sc, &info, NULL);
        const int ixd = column(sc, "box.xd_mps"), izd = column(sc, "box.zd_mps");
        if (ixd < 0 || izd < 0 || info.nstate + info.nforce > 16) {
            fprintf(stderr, "sweep: %s has no single body named box\n", path);
            rs_sim_scenario_free(sc);
            return 2;
        }
        counts c = {0, {0}};
        rs_sim_comparison *cmp = NULL;
        if (rs_sim_compare(sc, count, &c, &cmp, &why) != RS_OK) {
            fprintf(stderr, "sweep: mu = %g: %s\n", mus[i], why.message);
            rs_sim_scenario_free(sc);
            return 2;
        }
        rs_sim_compare_info ci = {.size = sizeof ci};
        rs_sim_comparison_get_info(cmp, &ci, NULL);
        double nlp[16], lemke[16];
        rs_sim_comparison_final(cmp, RS_SIM_NLP, nlp, NULL);
        rs_sim_comparison_final(cmp, RS_SIM_LEMKE, lemke, NULL);
        /* the speed down the slope: the velocity along (cos 30, -sin 30) */
        const double v_nlp = nlp[ixd] * c30 - nlp[izd] * s30;
        const double v_lemke = lemke[ixd] * c30 - lemke[izd] * s30;
        const double v_exact = fmax(0.0, g * (s30 - mus[i] * c30)) * info.steps * info.dt;
        const int ok = ci.nlp_failed_steps == 0 && ci.lemke_failed_steps == 0 &&
                       c.steps == info.steps && fabs(v_nlp - v_exact) <= 1e-6 &&
                       fabs(v_lemke - v_exact) <= 1e-6;
        printf("%5.2f  %14.9f  %14.9f  %14.9f  %6d ", mus[i], v_exact, v_nlp, v_lemke,
               c.verdicts[RS_SIM_AGREE]);
        for (int v = 1; v < RS_SIM_VERDICT_COUNT; v++)
            if (c.verdicts[v])
                printf(" %s %d", rs_sim_verdict_name(v), c.verdicts[v]);
        printf("%s\n", ok ? "" : "  FAILED");
        bad |= !ok;
        rs_sim_comparison_free(cmp);
        rs_sim_scenario_free(sc);
    }
    printf("\nspeeds along the slope after 0.5 s, m/s; tan 30 = %.4f\n", s30 / c30);
    return bad;
}
