/*
 * replay_continuation.c: `relaxsim replay CAPSULE --continuation [-o DIR]`: the relaxation-bias
 * curve of one step. The step's NLP is solved from the capsule's warm start for the relaxations
 * r = 1e-2, 1e-3, ..., 1e-12, with nlp.eps = nlp.tol = r (the smoothing of the norms and IPOPT's
 * tolerance, which bounds the complementarity it leaves), and its distance to Lemke's answer is
 * measured: the largest difference over the state and force columns, each in the step's natural
 * unit (speed V, length V dt, force m V / dt), for every answer IPOPT returned as solved (also
 * those whose residuals the certificate, cert_tol, refuses: a loose relaxation leaves them).
 * Relaxation bias shrinks with r: the slope of log(distance) against log(r), fitted by least
 * squares over the solved points whose distance is above 1e-14 (rounding), is reported, and the
 * step is flagged (exit 1) when it is below 0.5 or fewer than three points can be fitted: then the
 * disagreement is not the relaxation's. A step whose answer agrees with Lemke's (within the
 * comparison's agree_atol) at every relaxation is not flagged: there is nothing to explain. With -o DIR: DIR/continuation.dat and DIR/continuation.png
 * (the curve and the fitted line).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot_palette.h"
#include "cli/plot_script.h"
#include "cli/replay.h"
#include "io/output.h"

#define NRELAX 11

/* The distance of the NLP answer a to Lemke's b in the step's natural units. */
static double distance(const rs_model *m, const rs_step_result *a, const rs_step_result *b)
{
    const rs_step_scales *sc = &b->scales;
    double d = 0.0;
    for (int c = 0; c < m->nstate; c++) {
        int velocity = 0;
        for (int v = 0; v < m->nvelocity; v++)
            velocity |= m->velocity_index[v] == c;
        const double unit = velocity ? sc->speed : rs_length_unit(sc, b->state_next[c]);
        d = fmax(d, fabs(a->state_next[c] - b->state_next[c]) / unit);
    }
    for (int c = 0; c < m->nforce; c++)
        d = fmax(d, fabs(a->forces[c] - b->forces[c]) / sc->force);
    return isfinite(d) ? d : NAN;
}

static int plot(rs_outset *set, const double *r, const double *d, const int *ok,
                const int *certified, int step, double slope, double intercept)
{
    rs_error_detail detail;
    FILE *f = rs_outset_create(set, "continuation.dat", &detail);
    if (!f)
        return fprintf(stderr, "relaxsim: replay: %s\n", detail.message), 0;
    fprintf(f, "# relaxation, distance (natural units), the same for certified answers and for "
               "those the certificate refused (- : none)\n");
    for (int i = 0; i < NRELAX; i++) {
        const int has = ok[i] && d[i] > 0.0;
        fprintf(f, "%.3g ", r[i]);
        fprintf(f, has ? "%.10g " : "- ", d[i]);
        fprintf(f, has && certified[i] ? "%.10g " : "- ", d[i]);
        fprintf(f, has && !certified[i] ? "%.10g\n" : "-\n", d[i]);
    }
    if (rs_outset_close(set, f, "continuation.dat", &detail) != RS_OK)
        return fprintf(stderr, "relaxsim: replay: %s\n", detail.message), 0;
    FILE *g = rs_plot_open_script(set);
    if (!g)
        return 0;
    fprintf(g,
            "set datafile separator whitespace\nset datafile missing '-'\n"
            "set terminal pngcairo enhanced size 1000,650 font ',11'\n"
            "set output 'continuation.png'\nset logscale xy\nset format x '10^{%%L}'\n"
            "set format y '10^{%%L}'\nset key inside top left\n"
            "set title 'Relaxation-bias curve of step %d: the NLP answer''s distance to "
            "Lemke''s against the relaxation'\n"
            "set xlabel 'relaxation r (nlp.eps = nlp.tol = r)'\n"
            "set ylabel 'max |NLP - Lemke| over the columns (step''s natural units)'\n"
            "plot 'continuation.dat' using 1:2 with lines lw 2 lc rgb '%s' notitle, "
            "'' using 1:3 with points pt 7 ps 1.4 lc rgb '%s' title 'distance (certified)', "
            "'' using 1:4 with points pt 6 ps 1.6 lw 2 lc rgb '%s' "
            "title 'distance (IPOPT solved; residuals above cert\\_tol)', "
            "exp(%.17g) * x**%.17g with lines dt 2 lw 2 lc rgb '%s' title 'fitted: slope %.2f'\n",
            step, rs_plot_palette[0], rs_plot_palette[0], rs_plot_palette[0], intercept, slope,
            rs_plot_palette[1], slope);
    static const char *const pictures[] = {"continuation.png"};
    return rs_plot_run_gnuplot(set, g, pictures, 1);
}

int rs_replay_continuation(rs_scenario *sc, const rs_stepper_snapshot *snap, const double *state,
                           const double *input, int step, const char *dir)
{
    const rs_model *m = sc->model;
    rs_outset *set = NULL; /* -o DIR: begun before the work, so that a bad DIR is said at once */
    rs_error_detail detail;
    if (dir && rs_outset_begin(dir, NULL, &set, &detail) != RS_OK)
        return rs_cli_usage_error("-o: %s", detail.message);
    double r[NRELAX], d[NRELAX];
    int ok[NRELAX], certified[NRELAX], iters[NRELAX], same_modes[NRELAX];
    const char *status[NRELAX];
    rs_step_result lemke, a;
    if (rs_step_result_init(&lemke, m) != RS_OK || rs_step_result_init(&a, m) != RS_OK) {
        rs_step_result_free(&lemke);
        rs_outset_abort(set);
        return rs_cli_usage_error("replay: out of memory");
    }
    int have_lemke = 0;
    for (int i = 0; i < NRELAX; i++) {
        r[i] = pow(10.0, -2.0 - i);
        rs_nlp_settings nlp = sc->nlp;
        nlp.eps = nlp.tol = r[i];
        rs_stepper_config cfg = rs_scenario_stepper_config(sc);
        cfg.nlp = nlp; /* this point's eps and tol */
        rs_stepper *st;
        if (rs_stepper_create(&cfg, &st) != RS_OK || rs_stepper_restore(st, snap) != RS_OK) {
            rs_stepper_destroy(st);
            rs_outset_abort(set);
            rs_step_result_free(&lemke);
            rs_step_result_free(&a);
            return rs_cli_usage_error("replay: the step cannot be set up here");
        }
        rs_stepper_nlp(st, state, input, &a);
        if (!have_lemke) {
            rs_stepper_lemke(st, state, input, &lemke);
            have_lemke = 1;
        }
        rs_stepper_destroy(st);
        /* IPOPT's answer counts even when the step's certificate (cert_tol) refuses it: a
         * loose relaxation is expected to leave residuals above cert_tol */
        ok[i] = (a.ok || a.status == RS_NLP_NOT_CERTIFIED) && lemke.ok;
        certified[i] = a.ok;
        iters[i] = a.iterations;
        status[i] = rs_step_status_name(RS_BACKEND_NLP, &a);
        d[i] = ok[i] ? distance(m, &a, &lemke) : NAN;
        same_modes[i] = 1; /* the contact modes, as the comparison's verdict asks */
        for (int c = 0; c < m->ncontacts; c++)
            same_modes[i] &= a.modes[c] == lemke.modes[c];
    }
    /* least squares of log d on log r over the usable points */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int i = 0; i < NRELAX; i++)
        if (ok[i] && d[i] > 1e-14) {
            const double x = log(r[i]), y = log(d[i]);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            n++;
        }
    const char *lemke_status = rs_step_status_name(RS_BACKEND_LEMKE, &lemke);
    rs_step_result_free(&lemke);
    rs_step_result_free(&a);
    const double slope = n >= 2 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : NAN;
    const double intercept = n >= 2 ? (sy - slope * sx) / n : NAN;
    int agrees = 1; /* every solved relaxation within rounding of Lemke's answer */
    int within = 1; /* every one within the comparison's agreement tolerance (agree_atol) */
    for (int i = 0; i < NRELAX; i++) {
        agrees &= ok[i] && !(d[i] > 1e-14);
        within &= ok[i] && same_modes[i] && d[i] <= sc->agree_atol;
    }
    /* a step that agrees at every relaxation has no disagreement to explain, whatever its curve
     * (a body at rest: IPOPT's warm start meets every tol r at once, and the distance stays) */
    const int flagged = !agrees && !within && !(n >= 3 && slope >= 0.5);
    printf("relaxation-bias curve of step %d (%s; Lemke: %s)\n\n", step, m->name, lemke_status);
    printf("  %-12s %-18s %10s %22s\n", "relaxation", "NLP status", "iterations",
           "distance to Lemke");
    for (int i = 0; i < NRELAX; i++)
        printf("  %-12.0e %-18s %10d %22.3e\n", r[i], status[i], iters[i], d[i]);
    printf("\n  fitted slope of log(distance) on log(relaxation): %.3f over %d points\n", slope, n);
    if (agrees)
        printf("  the NLP answer is within rounding (1e-14) of Lemke's at every relaxation: no "
               "bias to explain\n");
    else if (within)
        printf("  the NLP answer agrees with Lemke's at every relaxation (the same contact modes, "
               "within agree_atol = %g in the step's natural units): no disagreement to "
               "explain\n", sc->agree_atol);
    else if (flagged)
        printf("  FLAG: the distance does not shrink with the relaxation (slope below 0.5 or "
               "too few points): this disagreement is not relaxation bias\n");
    else
        printf("  the distance shrinks with the relaxation: relaxation bias\n");
    if (set) {
        static const char *const owned[] = {"continuation.dat", "continuation.png", "plot.gp",
                                            "plot.log"};
        const int drawn = n >= 2 && plot(set, r, d, ok, certified, step, slope, intercept);
        const rs_error werr = rs_outset_commit(set, owned, 4, &detail);
        if (werr != RS_OK)
            return rs_cli_output_error(werr, "-o: %s", detail.message);
        if (n < 2)
            printf("  no picture: fewer than two points to draw\n");
        else if (drawn)
            printf("  wrote %s/{continuation.dat, continuation.png}\n", dir);
        else
            printf("  no picture: gnuplot failed (%s/plot.log)\n", dir);
    }
    return flagged ? RS_EXIT_FAILED : RS_EXIT_OK;
}
