/* cli_report.c: the progress line and the aligned summary of `run` and `compare`. */
#include <math.h>
#include <stdio.h>

#include "cli/cli_progress.h"
#include "cli/cli_report.h"

void rs_cli_progress(void *ctx, int done, int total)
{
    static rs_cli_meter meter;
    static int last = -1;
    if (done < last || last < 0) /* a new run */
        rs_cli_meter_start(&meter, ctx ? (const char *)ctx : "time steps");
    last = done >= total ? -1 : done;
    rs_cli_meter_show(&meter, done, total, "steps", NULL);
}

/* One row: a label, then the NLP and Lemke cells (either may be absent). */
static void row(FILE *f, const char *label, const char *nlp, const char *lemke)
{
    fprintf(f, "  %-28s %18s %18s\n", label, nlp ? nlp : "", lemke ? lemke : "");
}

/* A figure over a set of steps, or "-" when the set is empty (its figure is NaN). */
static void fmt_figure(char *buf, size_t n, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, fmt, v);
}

static void fmt_time(char *buf, size_t n, double t)
{
    if (isnan(t))
        snprintf(buf, n, "never");
    else
        snprintf(buf, n, "%.4f s", t);
}

void rs_cli_print_summary(FILE *f, const rs_scenario *sc, const rs_compare_result *r)
{
    const rs_model *m = sc->model;
    const int has_nlp = r->mode != RS_RUN_LEMKE, has_lemke = r->mode != RS_RUN_NLP;
    char a[64], b[64], label[64];
    const int relaxed = !rs_model_own_nlp(m) || sc->nlp.relax_lcp; /* which NLP the column is */
    fprintf(f, "%s (%s) from %s: %d steps of %g s; NLP: %s\n\n", m->name, m->variants[sc->variant],
            sc->path, r->steps, sc->dt,
            relaxed ? "the relaxation of the step's LCP" : "the model's own");
    row(f, "", has_nlp ? "NLP (IPOPT)" : NULL, has_lemke ? "Lemke" : NULL);
#define CELLS(fmt, field)                                                                          \
    do {                                                                                           \
        snprintf(a, sizeof a, fmt, r->nlp.field);                                                  \
        snprintf(b, sizeof b, fmt, r->lemke.field);                                                \
    } while (0)
    CELLS("%d", failed_steps);
    row(f, "failed steps", has_nlp ? a : NULL, has_lemke ? b : NULL);
    if (has_nlp && r->nlp.failed_steps > 0) { /* which failures: IPOPT's own, or uncertified */
        for (int st = 0; st < RS_STATUS_SLOTS; st++) {
            if (rs_nlp_status_ok((rs_nlp_status)st) || !r->nlp.status_counts[st])
                continue;
            snprintf(label, sizeof label, "  of which %s", rs_nlp_status_name((rs_nlp_status)st));
            snprintf(a, sizeof a, "%d", r->nlp.status_counts[st]);
            row(f, label, a, NULL);
        }
    }
    if (has_nlp) { /* the NLP solver's own figures: the steps that called IPOPT */
        snprintf(a, sizeof a, "%d", r->nlp.ipopt_steps);
        row(f, "steps solved by IPOPT", a, NULL);
        fmt_figure(a, sizeof a, "%.1f us", r->nlp.us_per_ipopt_step_median);
        row(f, "  time per IPOPT step (median)", a, NULL);
        fmt_figure(a, sizeof a, "%.2f", r->nlp.iterations_per_ipopt_step);
        row(f, "  iterations per IPOPT step", a, NULL);
        snprintf(a, sizeof a, "%d", r->nlp.ipopt_steps_no_iteration);
        row(f, "  accepted at iteration 0", a, NULL);
        fmt_figure(a, sizeof a, "%.1f us", r->nlp.us_per_iterating_ipopt_step_median);
        row(f, "  time, iterating (median)", a, NULL);
        for (int p = 0; p < RS_PATH_COUNT; p++) {
            if (!rs_nlp_path_is_ipopt(p) || !r->nlp.path_counts[p])
                continue;
            snprintf(label, sizeof label, "  by %s", rs_nlp_path_name(p));
            snprintf(a, sizeof a, "%d", r->nlp.path_counts[p]);
            row(f, label, a, NULL);
        }
        if (r->nlp.stacked_steps) {
            snprintf(a, sizeof a, "%d", r->nlp.stacked_steps);
            row(f, "  in a stacked NLP", a, NULL);
        }
    }
    /* NLP: a start point passed the step's KKT test (no IPOPT); Lemke: the previous basis */
    snprintf(a, sizeof a, "%d", r->nlp.at_start_steps);
    snprintf(b, sizeof b, "%d", r->lemke.warm_started_steps);
    row(f, "steps solved by their start", has_nlp ? a : NULL, has_lemke ? b : NULL);
    for (int p = 0; has_nlp && p < RS_PATH_COUNT; p++) {
        if (rs_nlp_path_is_ipopt(p) || !r->nlp.path_counts[p])
            continue;
        snprintf(label, sizeof label, "  by %s", rs_nlp_path_name(p));
        snprintf(a, sizeof a, "%d", r->nlp.path_counts[p]);
        row(f, label, a, NULL);
    }
    CELLS("%.2f", iterations_mean);
    row(f, "iterations / pivots, all steps", has_nlp ? a : NULL, has_lemke ? b : NULL);
    fmt_figure(a, sizeof a, "%.1f us", r->nlp.us_per_step_median);
    fmt_figure(b, sizeof b, "%.1f us", r->lemke.us_per_step_median);
    row(f, "time per step, all (median)", has_nlp ? a : NULL, has_lemke ? b : NULL);
    CELLS("%d", first_contact_step);
    if (r->nlp.first_contact_step < 0)
        snprintf(a, sizeof a, "never");
    if (r->lemke.first_contact_step < 0)
        snprintf(b, sizeof b, "never");
    row(f, "first contact step", has_nlp ? a : NULL, has_lemke ? b : NULL);
    fmt_time(a, sizeof a, r->nlp.rest_time_s);
    fmt_time(b, sizeof b, r->lemke.rest_time_s);
    row(f, "at rest from", has_nlp ? a : NULL, has_lemke ? b : NULL);
    for (int c = 0; c < r->ncol; c++) {
        snprintf(label, sizeof label, "final %s", r->col_names[c]);
        snprintf(a, sizeof a, "%.9g", r->nlp.final[c]);
        snprintf(b, sizeof b, "%.9g", r->lemke.final[c]);
        row(f, label, has_nlp ? a : NULL, has_lemke ? b : NULL);
    }
#undef CELLS
    if (r->mode == RS_RUN_COMPARE) {
        fprintf(f, "\n  %-28s %18s %18s\n", "column", "shadow max|diff|", "drift max|diff|");
        for (int c = 0; c < r->ncol; c++)
            fprintf(f, "  %-28s %18.3e %18.3e\n", r->col_names[c], r->shadow_max_abs[c],
                    r->drift_max_abs[c]);
        fprintf(f, "\n  %-28s %17.2f%%\n", "mode agreement", 100.0 * r->mode_agreement);
        fprintf(f, "  %-28s", "verdicts");
        for (int v = 0; v < RS_VERDICT_COUNT; v++)
            if (r->verdicts[v])
                fprintf(f, " %s %d", rs_verdict_name((rs_verdict)v), r->verdicts[v]);
        fputc('\n', f);
    }
    if (r->fallback_steps) /* (a compare's, or an NLP run's under on_nlp_failure = lemke) */
        fprintf(f, "  %-28s %18d\n", "fallback steps (Lemke)", r->fallback_steps);
    if (r->nchecks == 0) {
        fprintf(f, "\n  contract: none ([expect] is empty)\n");
        return;
    }
    rs_cli_print_checks(f, r->checks, r->nchecks);
    if (r->nskipped > 0)
        fprintf(f, "  not checked by this command (%d of the contract's %d checks):\n", r->nskipped,
                r->declared_checks);
    for (int i = 0; i < r->nskipped; i++)
        fprintf(f, "    %-4s %-46s %s\n", "skip", r->skipped[i].check->text, r->skipped[i].reason);
}

void rs_cli_name_failed_checks(FILE *f, const char *command, const char *scenario,
                               const rs_check_result *checks, int n)
{
    for (int i = 0; i < n; i++)
        if (!checks[i].passed)
            fprintf(f, "relaxsim: %s: %s: FAIL %s%s%s%s, actual %.17g\n", command, scenario,
                    checks[i].check->text, checks[i].which[0] ? " (" : "", checks[i].which,
                    checks[i].which[0] ? ")" : "", checks[i].actual);
}

void rs_cli_print_checks(FILE *f, const rs_check_result *checks, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++)
        failed += !checks[i].passed;
    fprintf(f, "\n  contract: %s (%d of %d checks passed)\n", failed ? "FAILED" : "passed",
            n - failed, n);
    for (int i = 0; i < n; i++) {
        const rs_check_result *c = &checks[i];
        /* a failed check's value in full: 9 digits could print it equal to its bound */
        fprintf(f, "    %-4s %-46s %-7s actual %.*g\n", c->passed ? "ok" : "FAIL", c->check->text,
                c->which, c->passed ? 9 : 17, c->actual);
    }
}
