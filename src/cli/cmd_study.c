/*
 * cmd_study.c: `relaxsim study NAME [options] -o DIR [-q]`: the notes' learning studies,
 * each writing DIR/report.md (what the note claimed and what relaxsim measured, side by side),
 * DIR/summary.json and PNG pictures, and exiting 1 when a stated expectation fails.
 *
 * The studies:
 *   noisy-sticking (note 001 section 3.1.3, src/study/noisy_sticking.h):
 *     relaxsim study noisy-sticking [--samples N] [--seed S] [--sigmas S1,S2,...] -o DIR [-q]
 *     Expectations, on simultaneous 95% intervals (noisy_sticking.h): case A (u = v = 0) sticks
 *     25% of the time, 0.25 inside every sigma's interval; case B (v != 0): no interval above
 *     the note's 0.1% (the report says at how many sigmas the whole interval lies below it).
 *   unknown-friction (note 001 section 3.2, src/study/unknown_friction.h):
 *     relaxsim study unknown-friction [--starts MU1,...] [--scenario FILE] -o DIR [-q]
 *     (FILE default the shipped problems/scenarios/sliding_block_traditional.ini, see
 *     rs_cli_shipped_problem: the observation; its mu is the truth)
 *     Expectation: the LCP gradient's fit converges (1e-6) from the start at twice the truth.
 *   known-friction and decomposed-velocities (note 000 section 3.1 and Remark 4): cmd_study_fit.c.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot_palette.h"
#include "cli/plot_script.h"
#include "cli/study_cli.h"
#include "io/outset.h"
#include "io/output.h"
#include "study/noisy_sticking.h"
#include "study/unknown_friction.h"

const char rs_study_usage[] =
    "relaxsim study noisy-sticking [--samples N] [--seed S] [--sigmas S1,S2,...] -o DIR [-q] | "
    "relaxsim study unknown-friction [--starts MU1,MU2,...] [--scenario FILE] -o DIR [-q] | "
    "relaxsim study known-friction [--noises S1,...] [--train N] [--test N] [--seed S] "
    "[--scenario FILE] -o DIR [-q] | relaxsim study decomposed-velocities [--noises S1,...] "
    "[--train N] [--test N] [--seed S] [--scenario FILE] -o DIR [-q]";

int rs_study_common_option(int argc, char **argv, int *i, const char **dir, int *quiet)
{
    if (strcmp(argv[*i], "-o") == 0)
        return (*dir = rs_cli_output_value(argc, argv, i)) != NULL;
    if (strcmp(argv[*i], "-q") == 0 || strcmp(argv[*i], "--quiet") == 0) {
        *quiet = 1;
        return 1;
    }
    return rs_cli_usage_error("study: unknown option '%s' (usage: %s)", argv[*i], rs_study_usage),
           0;
}

/* The study's outputs, one set (io/outset.h): staged as they are written, put in place by
 * rs_study_commit once the study is done. */
static rs_outset *study_set;
static int study_write_failed; /* a study's output could not be written (RS_ERR_WRITE) */

int rs_study_output_ready(const char *dir)
{
    rs_error_detail detail;
    if (!dir)
        return rs_cli_usage_error("study: -o DIR is required (usage: %s)", rs_study_usage), 0;
    if (rs_outset_begin(dir, "summary.json", &study_set, &detail) != RS_OK)
        return rs_cli_usage_error("-o: %s", detail.message), 0;
    static char kept[1200];
    snprintf(kept, sizeof kept, "nothing written; the previous outputs in %s are unchanged", dir);
    rs_cli_on_interrupt(kept);
    return 1;
}

FILE *rs_study_create(const char *name)
{
    rs_error_detail detail;
    FILE *f = rs_outset_create(study_set, name, &detail);
    if (!f) {
        study_write_failed |= rs_outset_write_failed(study_set);
        rs_cli_usage_error("study: %s", detail.message);
    }
    return f;
}

int rs_study_close(FILE *f, const char *name)
{
    rs_error_detail detail;
    const rs_error err = rs_outset_close(study_set, f, name, &detail);
    study_write_failed |= err == RS_ERR_WRITE;
    if (err != RS_OK)
        return rs_cli_usage_error("study: %s", detail.message), 0;
    return 1;
}

FILE *rs_study_open_report(void)
{
    return rs_study_create("report.md");
}

int rs_study_write_summary(cJSON *o, int passed, double time_s)
{
    cJSON_AddBoolToObject(o, "expectations_met", passed);
    cJSON_AddNumberToObject(o, "time_s", time_s);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    FILE *f = rs_study_create("summary.json");
    if (!f) {
        free(text);
        return 0;
    }
    const rs_error err = rs_write_json_stream(f, text);
    return rs_study_close(f, "summary.json") &&
           (err == RS_OK || (rs_cli_usage_error("study: summary.json: out of memory"), 0));
}

FILE *rs_study_open_script(void)
{
    return rs_plot_open_script(study_set);
}

int rs_study_run_plot(FILE *g, const char *picture)
{
    return rs_plot_run_gnuplot(study_set, g, &picture, 1);
}

int rs_study_commit(const char *const *owned, int nowned)
{
    rs_error_detail detail;
    const rs_error err = rs_outset_commit(study_set, owned, nowned, &detail);
    study_set = NULL;
    study_write_failed |= err == RS_ERR_WRITE;
    if (err != RS_OK)
        return rs_cli_usage_error("study: %s", detail.message), 0;
    return 1;
}

static void study_meter_show(void *ctx, long done, long total)
{
    rs_study_meter *m = ctx;
    rs_cli_meter_show(&m->meter, done, total, m->unit, NULL);
}

rs_study_progress rs_study_meter_start(rs_study_meter *m, const char *label, const char *unit)
{
    rs_cli_meter_start(&m->meter, label);
    m->unit = unit;
    return (rs_study_progress){study_meter_show, m};
}

/* Whether each case meets its expectation at sigma i. */
static int expect_a(const rs_stick_case *c)
{
    return c->lo <= 0.25 && 0.25 <= c->hi;
}

/* Case B against the note's "about 0.1%": the expectation is that B never sticks more often
 * (no interval above it); the note's value is excluded where the whole interval lies below it,
 * and undecided (too few samples to tell) where the interval holds it. */
#define NOTE_B_FRACTION 0.001

static int expect_b(const rs_stick_case *c)
{
    return !(c->lo > NOTE_B_FRACTION);
}

static int b_excludes_note(const rs_stick_case *c)
{
    return c->hi < NOTE_B_FRACTION;
}

static const char *b_mark(const rs_stick_case *c)
{
    return !expect_b(c) ? " (!)" : b_excludes_note(c) ? "" : " (?)";
}

static void write_table(FILE *f, const rs_stick_config *cfg, const rs_stick_result *r)
{
    fprintf(f,
            "| sigma | A: u = v = 0, sticking (interval) | A unsolved | B: v = %g m/s, "
            "sticking (interval) | B: stick_tol / sigma | B: |v'| <= %g m/s | B unsolved |\n",
            cfg->v_b, cfg->near_tol);
    fprintf(f, "|------:|-----------------------------------:|-----------:|"
               "-------------------------------------:|------:|------:|-----------:|\n");
    for (int i = 0; i < r->nsigma; i++)
        fprintf(f,
                "| %g | %.3f%% [%.3f, %.3f]%s | %ld | %.4f%% [%.4f, %.4f]%s | %.3g%% | %.3g%% "
                "| %ld |\n",
                cfg->sigma[i], 100 * r->a[i].fraction, 100 * r->a[i].lo, 100 * r->a[i].hi,
                expect_a(&r->a[i]) ? "" : " (!)", r->a[i].unsolved, 100 * r->b[i].fraction,
                100 * r->b[i].lo, 100 * r->b[i].hi, b_mark(&r->b[i]),
                cfg->sigma[i] > 0.0 ? 100 * fmin(1.0, cfg->stick_tol / cfg->sigma[i]) : 0.0,
                100 * r->b[i].near_fraction, r->b[i].unsolved);
    fprintf(f, "\nIntervals: Wilson, simultaneous 95%% (each at z = %.3g, Bonferroni over the %d "
               "compared fractions). (!) an expectation fails; (?) the interval holds the note's "
               "0.1%%: too few samples to tell.\n",
            r->z, RS_STICK_INTERVALS_PER_SIGMA * r->nsigma);
}

/* The sigmas at which B's interval lies wholly below the note's 0.1%. */
static int b_excluded_count(const rs_stick_result *r)
{
    int k = 0;
    for (int i = 0; i < r->nsigma; i++)
        k += b_excludes_note(&r->b[i]);
    return k;
}

static int write_report(const rs_stick_config *cfg, const rs_stick_result *r,
                        int passed)
{
    FILE *f = rs_study_open_report();
    if (!f)
        return 0;
    fprintf(f,
            "# Noisy LCPs and sticking (note 001, section 3.1.3)\n\n"
            "The traditional 3x3 LCP of the sliding block (m = 1 kg, mu = 0.5, dt = 0.01 s),\n"
            "with independent Gaussian noise of standard deviation sigma added to each of the\n"
            "12 entries of (G, f), solved by Lemke; the next velocity from the true integrator\n"
            "with the learned friction; sticking when |v'| <= %g m/s. %ld samples per sigma\n"
            "and case, seed %llu; fractions of all samples (an LCP Lemke cannot solve gives no\n"
            "step, so no sticking step; those are counted as unsolved).\n\n",
            cfg->stick_tol, cfg->samples, (unsigned long long)cfg->seed);
    double amin = 1.0, amax = 0.0;
    int all_a = 1;
    for (int i = 0; i < r->nsigma; i++) {
        amin = fmin(amin, r->a[i].fraction);
        amax = fmax(amax, r->a[i].fraction);
        all_a &= expect_a(&r->a[i]);
    }
    fprintf(f, "| | the note says | relaxsim measured |\n|---|---|---|\n");
    fprintf(f,
            "| A: u = v = 0 | sticks 25%% of the time whatever sigma, exactly when f1, f2 >= 0 "
            "(z = 0 solves) | %.2f%% to %.2f%% over the sigmas; 0.25 inside every "
            "interval: %s |\n",
            100 * amin, 100 * amax, all_a ? "yes" : "no");
    double bmax = 0.0;
    for (int i = 0; i < r->nsigma; i++)
        bmax = fmax(bmax, r->b[i].fraction);
    fprintf(f,
            "| B: v = %g m/s (the true step sticks by an exact force) | about 0.1%% | at most "
            "%.4f%% over the sigmas; 0.1%% above the whole interval at %d of %d sigmas |\n\n",
            cfg->v_b, 100 * bmax, b_excluded_count(r), r->nsigma);
    write_table(f, cfg, r);
    /* case B in numbers: the measured fractions against the order stick_tol / sigma (a noisy
     * v' spread over about sigma lands within stick_tol of 0 with a chance of that order), and
     * the looser test's fractions */
    double ratio_lo = INFINITY, ratio_hi = 0.0, near_lo = 1.0, near_hi = 0.0;
    char near_note[256] = "";
    size_t len = 0;
    for (int i = 0; i < r->nsigma; i++) {
        const rs_stick_case *b = &r->b[i];
        if (b->stuck > 0 && cfg->sigma[i] > 0.0) {
            const double ratio = b->fraction / (cfg->stick_tol / cfg->sigma[i]);
            ratio_lo = fmin(ratio_lo, ratio);
            ratio_hi = fmax(ratio_hi, ratio);
        }
        near_lo = fmin(near_lo, b->near_fraction);
        near_hi = fmax(near_hi, b->near_fraction);
        /* the note's 0.1% within the looser test's interval? */
        if (b->near_lo <= NOTE_B_FRACTION && NOTE_B_FRACTION <= b->near_hi &&
            len < sizeof near_note - 32)
            len += (size_t)snprintf(near_note + len, sizeof near_note - len, "%s%g",
                                    len ? ", " : "", cfg->sigma[i]);
    }
    const int excluded = b_excluded_count(r);
    char note_text[200];
    if (excluded == r->nsigma)
        snprintf(note_text, sizeof note_text, "The note's 0.1%% is not reproduced with this test: "
                 "it lies above every interval.");
    else if (excluded > 0)
        snprintf(note_text, sizeof note_text, "The note's 0.1%% lies above the interval at %d of "
                 "%d sigmas; at the others these samples are too few to tell.", excluded,
                 r->nsigma);
    else
        snprintf(note_text, sizeof note_text, "These samples are too few to tell case B's "
                 "fraction from the note's 0.1%% at any sigma.");
    char ratio_text[200];
    if (ratio_hi > 0.0 && ratio_hi > 1.05 * ratio_lo)
        snprintf(ratio_text, sizeof ratio_text, "the measured fractions are %.2g to %.2g times "
                 "stick_tol / sigma where any step stuck", ratio_lo, ratio_hi);
    else if (ratio_hi > 0.0)
        snprintf(ratio_text, sizeof ratio_text, "the measured fraction is %.2g times "
                 "stick_tol / sigma where any step stuck, none elsewhere", ratio_hi);
    else
        snprintf(ratio_text, sizeof ratio_text, "no step stuck at any of these sigmas");
    fprintf(f,
            "\nWhy. In case A, f1 = sigma n1 and f2 = sigma n2 are both >= 0 with probability "
            "1/4 for any sigma; Lemke then returns z = 0 at once, and v' = v = 0. Any other "
            "answer moves the block by c (lambda+ - lambda-), which is exactly 0 only by "
            "chance. In case B the block stops only if the learned forces give "
            "lambda- - lambda+ = m v / dt to within the tolerance: the noise spreads v' over "
            "about sigma, so |v'| <= stick_tol has a chance of the order of stick_tol / sigma "
            "(the table); %s. %s A looser test "
            "(|v'| <= %g m/s, the table's last but one column) counts %.3g%% to %.3g%% over "
            "these sigmas: %s%s. The note does not state its test.\n\n",
            ratio_text, note_text, cfg->near_tol, 100 * near_lo, 100 * near_hi,
            near_note[0] ? "the note's 0.1% lies inside its interval at sigma = "
                         : "it matches the note's 0.1% at none of them",
            near_note);
    fprintf(f,
            "Unsolved: the LCPs on which Lemke stopped without a solution (a ray: with noise as "
            "large as G's own entries, G loses the copositivity the true G has; the note's \"the "
            "LCP might not even be solvable\"). In case A they never take from the 25%%: f1, "
            "f2 >= 0 is solved by z = 0 at once.\n\nExpectations: %s.\n\n"
            "![sticking against sigma](sticking.png)\n",
            passed ? "met" : "NOT met (marked (!))");
    return rs_study_close(f, "report.md");
}

static int write_summary(const rs_stick_config *cfg, const rs_stick_result *r,
                         int passed)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "study", "noisy-sticking");
    cJSON_AddNumberToObject(o, "samples", (double)cfg->samples);
    cJSON_AddNumberToObject(o, "seed", (double)cfg->seed);
    cJSON_AddNumberToObject(o, "stick_tol", cfg->stick_tol);
    cJSON_AddNumberToObject(o, "near_tol", cfg->near_tol);
    cJSON_AddNumberToObject(o, "interval_z", r->z);
    cJSON_AddNumberToObject(o, "b_note_excluded_sigmas", b_excluded_count(r));
    cJSON *rows = cJSON_AddArrayToObject(o, "sigmas");
    for (int i = 0; i < r->nsigma; i++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "sigma", cfg->sigma[i]);
        const rs_stick_case *cs[2] = {&r->a[i], &r->b[i]};
        for (int k = 0; k < 2; k++) {
            cJSON *c = cJSON_AddObjectToObject(row, k ? "b" : "a");
            cJSON_AddNumberToObject(c, "fraction", cs[k]->fraction);
            cJSON_AddNumberToObject(c, "lo", cs[k]->lo);
            cJSON_AddNumberToObject(c, "hi", cs[k]->hi);
            cJSON_AddNumberToObject(c, "solved", (double)cs[k]->solved);
            cJSON_AddNumberToObject(c, "unsolved", (double)cs[k]->unsolved);
            cJSON_AddNumberToObject(c, "near_fraction", cs[k]->near_fraction);
            cJSON_AddNumberToObject(c, "near_lo", cs[k]->near_lo);
            cJSON_AddNumberToObject(c, "near_hi", cs[k]->near_hi);
        }
        cJSON_AddItemToArray(rows, row);
    }
    return rs_study_write_summary(o, passed, r->time_s);
}

/* sticking.png: the two cases' fractions against sigma with their intervals, over the note's
 * values as wide grey lines. */
static int plot(const rs_stick_config *cfg, const rs_stick_result *r)
{
    FILE *d = rs_study_create("sticking.dat");
    if (!d)
        return 0;
    fprintf(d, "# sigma a_pct a_lo a_hi b_pct b_lo b_hi\n");
    for (int i = 0; i < r->nsigma; i++)
        fprintf(d, "%g %.6g %.6g %.6g %.6g %.6g %.6g\n", cfg->sigma[i], 100 * r->a[i].fraction,
                100 * r->a[i].lo, 100 * r->a[i].hi, 100 * r->b[i].fraction, 100 * r->b[i].lo,
                100 * r->b[i].hi);
    if (!rs_study_close(d, "sticking.dat"))
        return 0;
    FILE *g = rs_study_open_script();
    if (!g)
        return 0;
    fprintf(g,
            "set datafile separator whitespace\nset output 'sticking.png'\n"
            "set lmargin at screen 0.08\nset rmargin at screen 0.72\n"
            "set multiplot layout 2,1 title 'Noisy LCPs of the sliding block: how often a step "
            "sticks (%ld samples per point, simultaneous 95%% intervals)'\n"
            "set logscale x\nset format x '10^{%%L}'\nset termoption enhanced\n"
            "set xlabel 'noise standard deviation sigma (LCP units)'\n"
            "set ylabel 'sticking steps (%%)'\nset yrange [0:35]\n"
            "plot 25 with lines lw 10 lc rgb '#cccccc' title 'A: the note, 25%%', "
            "'sticking.dat' using 1:2:3:4 with yerrorlines pt 7 lc rgb '%s' title 'A: u = v = 0 "
            "(relaxsim)'\n"
            "set yrange [0:0.5]\n"
            "plot 0.1 with lines lw 10 lc rgb '#cccccc' title 'B: the note, about 0.1%%', "
            "'sticking.dat' using 1:5:6:7 with yerrorlines pt 5 lc rgb '%s' title 'B: v = %g m/s "
            "(relaxsim)'\nunset multiplot\n",
            cfg->samples, rs_plot_palette[0], rs_plot_palette[1], cfg->v_b);
    return rs_study_run_plot(g, "sticking.png");
}

int rs_study_parse_list(const char *option, const char *text, double lo, double hi, double *v,
                        int max)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (n == max)
            return rs_cli_usage_error("%s: at most %d values", option, max), 0;
        if (!rs_cli_parse_double(option, t, lo, hi, &v[n++]))
            return 0;
    }
    return n > 0 ? n : (rs_cli_usage_error("%s: at least one value", option), 0);
}

/* ---- unknown-friction -------------------------------------------------------------------- */

static void fit_table(FILE *f, const rs_fit_result *r)
{
    fprintf(f, "| start mu0 | method | iterations | trajectories | final mu | relative error | "
               "stopped by |\n|---:|---|---:|---:|---:|---:|---|\n");
    for (int s = 0; s < r->nstarts; s++)
        for (int m = 0; m < RS_FIT_METHODS; m++) {
            const rs_fit_outcome *o = &r->out[s][m];
            fprintf(f, "| %g | %s | %d | %d | %.10g | %.2g | %s%s |\n", r->start[s],
                    rs_fit_method_name((rs_fit_method)m), o->iterations, o->trajectories, o->mu,
                    o->rel_error, o->stop, o->converged ? "" : " (not converged)");
        }
}

/* The expectation: the LCP gradient converges from twice the truth (when that start is run). */
static int fit_expectation(const rs_fit_result *r, int *checked)
{
    *checked = 0;
    for (int s = 0; s < r->nstarts; s++)
        if (fabs(r->start[s] - 2 * r->mu_true) <= 1e-12 * r->mu_true) {
            *checked = 1;
            return r->out[s][RS_FIT_LCP].converged;
        }
    return 1;
}

/* The start at twice the truth (the expectation's), else the first. */
static int start_at_twice(const rs_fit_result *r)
{
    for (int s = 0; s < r->nstarts; s++)
        if (fabs(r->start[s] - 2 * r->mu_true) <= 1e-12 * r->mu_true)
            return s;
    return 0;
}

/* DIR/fit_curveN.dat (mu, loss) and DIR/fit_pathN.dat (iteration, then each method's relative
 * error, "-" once it stopped; exact zeros drawn at 1e-17 on the log axis) of one observation. */
static int write_fit_data(int which, const rs_fit_result *r)
{
    char name[64];
    snprintf(name, sizeof name, "fit_curve%d.dat", which);
    FILE *d = rs_study_create(name);
    if (!d)
        return 0;
    fprintf(d, "# mu loss_m2\n");
    for (int i = 0; i < RS_FIT_CURVE; i++)
        if (isnan(r->curve_loss[i])) /* a failed step: not drawn */
            fprintf(d, "%.10g -\n", r->curve_mu[i]);
        else
            fprintf(d, "%.10g %.10g\n", r->curve_mu[i], r->curve_loss[i]);
    if (!rs_study_close(d, name))
        return 0;
    snprintf(name, sizeof name, "fit_path%d.dat", which);
    if (!(d = rs_study_create(name)))
        return 0;
    const int s = start_at_twice(r);
    int n = 0;
    for (int m = 0; m < RS_FIT_METHODS; m++)
        n = r->out[s][m].npath > n ? r->out[s][m].npath : n;
    fprintf(d, "# iteration, relative error of lcp, nlp, golden (start mu0 = %g)\n", r->start[s]);
    for (int k = 0; k < n; k++) {
        fprintf(d, "%d", k);
        for (int m = 0; m < RS_FIT_METHODS; m++) {
            const rs_fit_outcome *o = &r->out[s][m];
            if (k < o->npath)
                fprintf(d, " %.6g", fmax(fabs(o->path[k] - r->mu_true) / r->mu_true, 1e-17));
            else
                fprintf(d, " -");
        }
        fputc('\n', d);
    }
    return rs_study_close(d, name);
}

/* unknown_friction.png: per observation, the loss against mu (with the truth and the start) and
 * each method's relative error against its iterations from that start. */
static int plot_fits(const rs_fit_result *r, const rs_fit_result *rest)
{
    if (!write_fit_data(1, r) || !write_fit_data(2, rest))
        return 0;
    FILE *g = rs_study_open_script();
    if (!g)
        return 0;
    fprintf(g, "set datafile separator whitespace\nset datafile missing '-'\n"
               "set terminal pngcairo enhanced size 1400,1150 font ',11'\n"
               "set output 'unknown_friction.png'\nset key opaque box font ',10'\n"
               "set multiplot layout 2,2 title 'Fitting the sliding block''s mu from an observed "
               "trajectory (note 001 section 3.2)'\n");
    const rs_fit_result *obs[2] = {r, rest};
    const char *what[2] = {"2 m/s, pushed by 1 N: slides, then sticks",
                           "at rest, pushed by 3 N: slides; mu >= 0.306 sticks throughout"};
    for (int i = 0; i < 2; i++) {
        const rs_fit_result *o = obs[i];
        const int s = start_at_twice(o);
        fprintf(g,
                "set title '%s (true mu = %g)'\nset logscale xy\nset format y '10^{%%L}'\n"
                "set key inside top right\nset offsets 0, 0, graph 0.2, 0\n" /* room above the curve */
                "set xlabel 'mu'\nset ylabel 'loss: sum of squared position errors (m^2)'\n"
                "set arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#555555'\n"
                "set arrow 2 from %g, graph 0 to %g, graph 1 nohead dt 3 lw 2 lc rgb '%s'\n"
                "plot 'fit_curve%d.dat' using 1:($2 > 0 ? $2 : 1e-30) with linespoints pt 7 "
                "ps 0.6 lw 2 lc rgb '%s' title 'L(mu), Lemke trajectories', "
                "NaN with lines dt 2 lc rgb '#555555' title 'true mu', "
                "NaN with lines dt 3 lw 2 lc rgb '%s' title 'start mu0 = %g'\n"
                "unset arrow 1\nunset arrow 2\n",
                what[i], o->mu_true, o->mu_true, o->mu_true, o->start[s], o->start[s],
                rs_plot_palette[3], i + 1, rs_plot_palette[0], rs_plot_palette[3], o->start[s]);
        fprintf(g,
                "set title 'from mu0 = %g'\nunset logscale x\nset logscale y\nset key inside top right\nset offsets 0, 0, 0, 0\n"
                "set xlabel 'iteration'\nset ylabel '|mu - mu_{true}| / mu_{true} (exact: 1e-17)'\n"
                "set yrange [1e-18:100]\n"
                "plot 'fit_path%d.dat' using 1:2 with linespoints pt 4 ps 2 lw 2 dt 1 lc rgb '%s' "
                "title 'Gauss-Newton, LCP gradient', "
                "'' using 1:3 with linespoints pt 7 lw 2 dt 2 lc rgb '%s' "
                "title 'Gauss-Newton, relaxed NLP gradient', "
                "'' using 1:4 with lines lw 2 dt 3 lc rgb '%s' title 'golden section'\n"
                "set autoscale y\n",
                o->start[s], i + 1, rs_plot_palette[0], rs_plot_palette[1], rs_plot_palette[2]);
    }
    fprintf(g, "unset multiplot\n");
    return rs_study_run_plot(g, "unknown_friction.png");
}

static int run_unknown_friction(int argc, char **argv)
{
    double starts[RS_FIT_MAX_STARTS] = {0.25, 1.0, 2.0, 5.0};
    int nstarts = 4, quiet = 0;
    char shipped[1100];
    const char *dir = NULL, *scen = rs_cli_shipped_problem(
                                "scenarios/sliding_block_traditional.ini", shipped, sizeof shipped);
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "--starts") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return RS_EXIT_USAGE;
            if (!(nstarts =
                      rs_study_parse_list("--starts", v, 1e-3, 10.0, starts, RS_FIT_MAX_STARTS)))
                return RS_EXIT_USAGE;
        } else if (strcmp(arg, "--scenario") == 0) {
            if (!(scen = rs_cli_option_value(argc, argv, &i)))
                return RS_EXIT_USAGE;
        } else if (!rs_study_common_option(argc, argv, &i, &dir, &quiet)) {
            return RS_EXIT_USAGE;
        }
    }
    if (!rs_study_output_ready(dir))
        return RS_EXIT_USAGE;
    rs_error_detail why = {{0}};
    static rs_fit_result r, rest;
    static const char *const pushed[] = {"initial.xd=0", "input.u=3", "model.mu=0.2"};
    const double rest_starts[] = {0.1, 0.25, 0.4, 1.0};
    rs_study_meter meter;
    rs_study_progress progress =
        rs_study_meter_start(&meter, "study unknown-friction, case 1 of 2", "curve points and fits");
    if (rs_fit_run(scen, NULL, 0, starts, nstarts, &progress, &r, &why) != RS_OK)
        return rs_cli_usage_error("study: %s", why.message);
    progress = rs_study_meter_start(&meter, "study unknown-friction, case 2 of 2",
                                    "curve points and fits");
    if (rs_fit_run(scen, pushed, 3, rest_starts, 4, &progress, &rest, &why) != RS_OK)
        return rs_cli_usage_error("study: %s: the study's second case sets initial.xd = 0, "
                                  "input.u = 3, model.mu = 0.2 (a sliding block pushed from "
                                  "rest): %s",
                                  scen, why.message);
    int checked;
    const int passed = fit_expectation(&r, &checked);
    FILE *f = rs_study_open_report();
    if (!f)
        return RS_EXIT_USAGE;
    fprintf(f,
            "# Fitting an unknown friction coefficient (note 001, section 3.2)\n\n"
            "The observation: the positions of sliding_block_traditional.ini (a 1 kg block at "
            "2 m/s pushed by 1 N, true mu = %g: it slides for 0.52 s, then sticks), 100 steps, "
            "from its Lemke trajectory. The loss: the sum of squared position errors. lcp and "
            "nlp: Gauss-Newton with dx_k/dmu from the LCP's forward mode (index sets) and from "
            "the relaxed NLP's KKT sensitivity (relaxsim grad); golden: golden-section search "
            "on [0.001, 10], no derivatives. Converged: relative error <= 1e-6.\n\n"
            "| | the note says | relaxsim measured |\n|---|---|---|\n"
            "| the LCP's gradient | zero in sticking phases, so a fit can stall | exactly zero "
            "where the model sticks throughout (second table: the fit stops where it "
            "starts); where the block slides first, the stop position moves with mu and the "
            "fit converges in a few iterations |\n"
            "| the relaxed NLP's | not zero there | not zero: tiny in the sticking model, "
            "but Gauss-Newton divides by its square, and the fit converges from every start, "
            "to the relaxation's bias (about 1e-9) |\n\n",
            r.mu_true);
    fit_table(f, &r);
    fprintf(f,
            "\nThe same block at rest pushed by 3 N, true mu = %g: it slides, but from any "
            "mu >= 0.306 (mu m g >= 3 N) the model sticks throughout and its positions do not "
            "move with mu: the LCP's gradient is exactly zero and its fit cannot leave the "
            "start, while the relaxed NLP's gradient (the barrier keeps a tiny sliding "
            "speed, which moves with mu) leads Gauss-Newton to the truth, as the note "
            "expected; the derivative-free search finds it too, in 10 times the "
            "trajectories.\n\n",
            rest.mu_true);
    fit_table(f, &rest);
    fprintf(f,
            "\nExpectation (the LCP gradient's fit converges from twice the truth): %s.\n\n"
            "![loss curves and fits](unknown_friction.png)\n",
            !checked ? "not checked (no start at twice the truth)"
            : passed ? "met"
                     : "NOT met");
    if (!rs_study_close(f, "report.md"))
        return RS_EXIT_USAGE;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "study", "unknown-friction");
    cJSON_AddNumberToObject(o, "mu_true", r.mu_true);
    cJSON *rows = cJSON_AddArrayToObject(o, "fits");
    for (int s = 0; s < r.nstarts; s++)
        for (int m = 0; m < RS_FIT_METHODS; m++) {
            const rs_fit_outcome *fo = &r.out[s][m];
            cJSON *row = cJSON_CreateObject();
            cJSON_AddNumberToObject(row, "start", r.start[s]);
            cJSON_AddStringToObject(row, "method", rs_fit_method_name((rs_fit_method)m));
            cJSON_AddNumberToObject(row, "iterations", fo->iterations);
            cJSON_AddNumberToObject(row, "trajectories", fo->trajectories);
            cJSON_AddNumberToObject(row, "mu", fo->mu);
            cJSON_AddNumberToObject(row, "rel_error", fo->rel_error);
            cJSON_AddBoolToObject(row, "converged", fo->converged);
            cJSON_AddStringToObject(row, "stop", fo->stop);
            cJSON_AddItemToArray(rows, row);
        }
    if (!rs_study_write_summary(o, passed, r.time_s))
        return RS_EXIT_USAGE;
    const int pictured = plot_fits(&r, &rest);
    static const char *const owned[] = {"report.md",      "summary.json",   "plot.gp",
                                        "plot.log",       "fit_curve1.dat", "fit_curve2.dat",
                                        "fit_path1.dat",  "fit_path2.dat",
                                        "unknown_friction.png"};
    if (!rs_study_commit(owned, pictured ? 9 : 4))
        return RS_EXIT_USAGE;
    if (!quiet) {
        printf("  unknown-friction: true mu %g, %.1f s\n\n", r.mu_true, r.time_s);
        fit_table(stdout, &r);
        printf("\n  pushed from rest by 3 N, true mu %g:\n\n", rest.mu_true);
        fit_table(stdout, &rest);
        printf("\n  expectation (lcp converges from 2 mu): %s\n  wrote %s/{report.md, "
               "summary.json%s}\n",
               !checked ? "not checked"
               : passed ? "met"
                        : "NOT met",
               dir, pictured ? ", unknown_friction.png" : "; no picture: gnuplot failed");
    }
    return passed ? RS_EXIT_OK : RS_EXIT_FAILED;
}

static int study_command(int argc, char **argv);

/* A study whose outputs could not be written (a full disk) fails, exit 1; one refused, exit 2. */
int rs_cmd_study(int argc, char **argv)
{
    study_write_failed = 0;
    const int code = study_command(argc, argv);
    return code == RS_EXIT_USAGE && study_write_failed ? RS_EXIT_FAILED : code;
}

static int study_command(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "unknown-friction") == 0)
        return run_unknown_friction(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "known-friction") == 0)
        return rs_study_known_friction(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "decomposed-velocities") == 0)
        return rs_study_decomposed_velocities(argc, argv);
    if (argc >= 2 && argv[1][0] != '-' && strcmp(argv[1], "noisy-sticking") != 0)
        return rs_cli_usage_error("study: unknown study '%s' (expected noisy-sticking, "
                                  "unknown-friction, known-friction, decomposed-velocities)",
                                  argv[1]);
    if (argc < 2 || argv[1][0] == '-')
        return rs_cli_usage_error("study: expected a study name: noisy-sticking, "
                                  "unknown-friction, known-friction, decomposed-velocities "
                                  "(usage: %s)",
                                  rs_study_usage);
    rs_stick_config cfg;
    rs_stick_config_default(&cfg);
    const char *dir = NULL;
    int quiet = 0;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "--samples") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !rs_cli_parse_long("--samples", v, 100, 100000000L, &cfg.samples))
                return RS_EXIT_USAGE;
        } else if (strcmp(arg, "--seed") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !rs_cli_parse_u64("--seed", v, &cfg.seed))
                return RS_EXIT_USAGE;
        } else if (strcmp(arg, "--sigmas") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !(cfg.nsigma =
                      rs_study_parse_list("--sigmas", v, 0.0, 1e6, cfg.sigma, RS_STICK_MAX_SIGMAS)))
                return RS_EXIT_USAGE;
        } else if (!rs_study_common_option(argc, argv, &i, &dir, &quiet)) {
            return RS_EXIT_USAGE;
        }
    }
    if (!rs_study_output_ready(dir))
        return RS_EXIT_USAGE;
    rs_stick_result r;
    rs_study_meter meter;
    cfg.progress = rs_study_meter_start(&meter, "study noisy-sticking", "samples");
    if (rs_stick_run(&cfg, &r) != RS_OK)
        return rs_cli_usage_error("study: settings out of range");
    int passed = 1;
    for (int i = 0; i < r.nsigma; i++)
        passed &= expect_a(&r.a[i]) && expect_b(&r.b[i]);
    if (!write_report(&cfg, &r, passed) || !write_summary(&cfg, &r, passed))
        return RS_EXIT_USAGE;
    const int pictured = plot(&cfg, &r);
    static const char *const owned[] = {"report.md", "summary.json", "plot.gp", "plot.log",
                                        "sticking.dat", "sticking.png"};
    if (!rs_study_commit(owned, pictured ? 6 : 4))
        return RS_EXIT_USAGE;
    if (!quiet) {
        printf("  noisy-sticking: %ld samples per sigma and case, %.1f s\n\n", cfg.samples,
               r.time_s);
        write_table(stdout, &cfg, &r);
        printf("\n  expectations (A: 0.25 inside each interval; B: no interval above 0.1%%): %s\n"
               "  the note's 0.1%% above B's whole interval at %d of %d sigmas\n",
               passed ? "met" : "NOT met", b_excluded_count(&r), r.nsigma);
        printf("  wrote %s/{report.md, summary.json%s}\n", dir,
               pictured ? ", sticking.png" : "; no picture: gnuplot failed");
    }
    return passed ? RS_EXIT_OK : RS_EXIT_FAILED;
}
