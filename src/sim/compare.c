/*
 * compare.c: runs a scenario with one or both backends and compares them step by step
 * (see compare.h), then evaluates the tolerance contract of the scenario's [expect] section.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/compare.h"
#include "core/timer.h"

const char *rs_verdict_name(rs_verdict v)
{
    switch (v) {
    case RS_VERDICT_AGREE: return "agree";
    case RS_VERDICT_RELAXATION_BIAS: return "relaxation_bias";
    case RS_VERDICT_MODE_MISMATCH: return "mode_mismatch";
    case RS_VERDICT_NLP_FAILED: return "nlp_failed";
    case RS_VERDICT_LEMKE_FAILED: return "lemke_failed";
    case RS_VERDICT_APPROXIMATION_BIAS: return "approximation_bias";
    }
    return "unknown";
}

void rs_compare_free(rs_compare_result *r)
{
    if (!r)
        return;
    free(r->step);
    r->step = NULL;
    for (int i = 0; i < r->ncapsules; i++)
        free(r->capsules[i].M);
    free(r->capsules);
    r->capsules = NULL;
    r->ncapsules = 0;
}

/* Column c of a step result: the state components, then the forces. */
static double column(const rs_model *m, const rs_step_result *s, int c)
{
    return c < m->nstate ? s->state_next[c] : s->forces[c - m->nstate];
}

/* 1 if state column c is a velocity. */
static int is_velocity(const rs_model *m, int c)
{
    for (int v = 0; v < m->nvelocity; v++)
        if (m->velocity_index[v] == c)
            return 1;
    return 0;
}

/* The natural unit of column c at the value ref: speed, length (or the rounding of a large
 * position) or force of the step. */
static double column_unit(const rs_model *m, const rs_step_scales *sc, int c, double ref)
{
    if (c >= m->nstate)
        return sc->force;
    return is_velocity(m, c) ? sc->speed : rs_length_unit(sc, ref);
}

/* Same modes and every column within agree_atol (in the step's natural units) + agree_rtol
 * |Lemke|: agree. */
/* Step k's verdict, from the state x before it. A model whose own NLP solves exact physics that
 * its LCP approximates (rs_model.shadow_bias) has this step's difference between the exact
 * answer and the LCP's added to each column's tolerance: within it, and with a mode pair the
 * approximation explains, a difference from the LCP is the approximation's (the polygonal
 * cone's), not a disagreement. */
rs_verdict rs_compare_judge(const rs_scenario *sc, rs_compare_step *st, int ncol, const double *x)
{
    const rs_model *m = sc->model;
    double bias[RS_MAX_COLUMNS] = {0};
    const int own_nlp = m->nlp_n > 0 && !sc->nlp.relax_lcp;
    int explained = 0; /* the approximation explains the mode pair (and bias holds its
                          difference) */
    if (m->shadow_bias && own_nlp && st->shadow.ok && st->nlp.ok) {
        const rs_step_data d = {sc->params, x, st->input, sc->dt, sc->variant, &sc->nlp,
                                sc->scene, 1};
        explained = m->shadow_bias(&d, st->shadow.state_next, st->shadow.forces,
                                   st->shadow.modes, st->nlp.modes, bias);
    }
    int within = 1, within_bias = 1;
    for (int c = 0; c < ncol; c++) {
        const double ref = column(m, &st->shadow, c);
        const double unit = column_unit(m, &st->shadow.scales, c, ref);
        const double tol = sc->agree_atol * unit + sc->agree_rtol * fabs(ref);
        st->diff[c] = fabs(column(m, &st->nlp, c) - ref);
        within &= st->diff[c] <= tol;
        within_bias &= st->diff[c] <= tol + bias[c];
    }
    if (!st->nlp.ok)
        return RS_VERDICT_NLP_FAILED;
    if (!st->shadow.ok)
        return RS_VERDICT_LEMKE_FAILED;
    const int same_modes = memcmp(st->nlp.modes, st->shadow.modes,
                                  sizeof(rs_contact_mode) * (size_t)m->ncontacts) == 0;
    if (same_modes && within)
        return RS_VERDICT_AGREE;
    if (explained && within_bias)
        return RS_VERDICT_APPROXIMATION_BIAS;
    return same_modes ? RS_VERDICT_RELAXATION_BIAS : RS_VERDICT_MODE_MISMATCH;
}

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* max that keeps NaN once seen: a NaN difference must stay visible in the summary. */
static double max_keep_nan(double a, double b)
{
    return (isnan(a) || isnan(b)) ? NAN : fmax(a, b);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted in place); NaN if n = 0. */
static double median(double *v, int n)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Statistics of the trajectory made of the results at offset `which` in every step. */
static rs_error trajectory_stats(const rs_scenario *sc, const rs_compare_result *r,
                                 size_t which, rs_trajectory_stats *out)
{
    const rs_model *m = sc->model;
    const int n = r->steps;
    /* all steps, the IPOPT steps, the IPOPT steps that iterated */
    double *times = malloc(sizeof(double) * 3 * (size_t)n);
    if (!times)
        return RS_ERR_NOMEM;
    double *ipopt_times = times + n, *iterating_times = times + 2 * (size_t)n, ipopt_iters = 0.0;
    int iterating = 0;
    memset(out, 0, sizeof *out);
    out->first_contact_step = -1;
    for (int c = 0; c < r->ncol; c++) {
        out->min[c] = INFINITY;
        out->max[c] = -INFINITY;
    }
    double iters = 0.0, tsum = 0.0;
    int rest_from = n; /* first step index from which the body stays at rest */
    for (int k = 0; k < n; k++) {
        const rs_step_result *s = (const rs_step_result *)((const char *)&r->step[k] + which);
        out->failed_steps += !s->ok;
        out->retried_steps += s->attempts > 1;
        out->warm_started_steps += s->warm_started;
        out->at_start_steps += s->at_start;
        out->stacked_steps += s->stacked;
        out->split_steps += s->split;
        if (s->status >= 0 && s->status < RS_STATUS_SLOTS)
            out->status_counts[s->status]++;
        if (s->path >= 0 && s->path < RS_PATH_COUNT)
            out->path_counts[s->path]++;
        const double step_iters = s->iterations + s->stack_iterations;
        iters += step_iters;
        times[k] = 1e6 * s->time_s;
        tsum += times[k];
        out->us_per_step_max = fmax(out->us_per_step_max, times[k]);
        if (s->path != RS_PATH_NONE && !s->at_start) { /* an NLP step that called IPOPT */
            ipopt_times[out->ipopt_steps++] = times[k];
            ipopt_iters += step_iters;
            if (step_iters > 0.0)
                iterating_times[iterating++] = times[k];
            out->warm_from_contact_free_steps += s->path_attempts[RS_PATH_IPOPT_WARM] > 0 &&
                                                 s->warm_from == RS_PATH_START_CONTACT_FREE;
        }
        for (int c = 0; c < r->ncol; c++) { /* a NaN, once seen, stays: it fails every check */
            const double v = column(m, s, c);
            out->min[c] = isnan(out->min[c]) || isnan(v) ? NAN : fmin(out->min[c], v);
            out->max[c] = isnan(out->max[c]) || isnan(v) ? NAN : fmax(out->max[c], v);
        }
        for (int i = 0; i < m->ncontacts && out->first_contact_step < 0; i++)
            if (s->modes[i] != RS_MODE_SEPARATING)
                out->first_contact_step = k;
    }
    for (int k = n - 1; k >= 0; k--) {
        const rs_step_result *s = (const rs_step_result *)((const char *)&r->step[k] + which);
        int at_rest = 1; /* rest_speed is in units of the step's natural speed */
        for (int v = 0; v < m->nvelocity; v++)
            at_rest &= fabs(s->state_next[m->velocity_index[v]]) <= sc->rest_speed * s->scales.speed;
        if (!at_rest)
            break;
        rest_from = k;
    }
    out->rest_time_s = rest_from < n ? (rest_from + 1) * sc->dt : NAN;
    const rs_step_result *last = (const rs_step_result *)((const char *)&r->step[n - 1] + which);
    for (int c = 0; c < r->ncol; c++)
        out->final[c] = column(m, last, c);
    out->iterations_mean = iters / n;
    out->us_per_step_mean = tsum / n;
    out->us_per_step_median = median(times, n);
    out->us_per_ipopt_step_median = median(ipopt_times, out->ipopt_steps);
    out->ipopt_steps_no_iteration = out->ipopt_steps - iterating;
    out->us_per_iterating_ipopt_step_median = median(iterating_times, iterating);
    out->iterations_per_ipopt_step = out->ipopt_steps ? ipopt_iters / out->ipopt_steps : NAN;
    free(times);
    return RS_OK;
}

static int column_of(const rs_compare_result *r, const char *name)
{
    for (int c = 0; c < r->ncol; c++)
        if (strcmp(r->col_names[c], name) == 0)
            return c;
    return -1;
}

int rs_check_passes(const rs_check *ck, double actual)
{
    switch (ck->kind) {
    case RS_CHECK_AT_MOST: return actual <= ck->a;
    case RS_CHECK_AT_LEAST: return actual >= ck->a;
    case RS_CHECK_NEAR: return fabs(actual - ck->a) <= ck->b;
    case RS_CHECK_RANGE: return actual >= ck->a && actual <= ck->b;
    case RS_CHECK_EQUAL: return actual == ck->a;
    }
    return 0;
}

static void record_check(rs_compare_result *r, const rs_check *ck, const char *which,
                         double actual, int passed)
{
    if (r->nchecks >= RS_SCENARIO_MAX_CHECKS)
        return;
    rs_check_result *cr = &r->checks[r->nchecks++];
    cr->check = ck;
    cr->actual = actual;
    cr->passed = passed;
    snprintf(cr->which, sizeof cr->which, "%s", which);
    r->contract_passed &= cr->passed;
}

static void add_check(rs_compare_result *r, const rs_check *ck, const char *which, double actual)
{
    record_check(r, ck, which, actual, rs_check_passes(ck, actual)); /* NaN never passes */
}

/* final_diff: |nlp - lemke| <= a + b |lemke| (NaN fails). */
static void add_final_diff_check(rs_compare_result *r, const rs_check *ck, double nlp,
                                 double lemke)
{
    const double diff = fabs(nlp - lemke);
    record_check(r, ck, "final", diff, diff <= ck->a + ck->b * fabs(lemke));
}

/* The gates every contract has unless it names its own bound: a failed step fails the run. */
static const rs_check implied_nlp_gate = {
    "nlp_failed_steps_max", "nlp_failed_steps_max = 0 (implied)", RS_CHECK_AT_MOST, 0.0, 0.0, 0};
static const rs_check implied_lemke_gate = {
    "lemke_failed_steps_max", "lemke_failed_steps_max = 0 (implied)", RS_CHECK_AT_MOST, 0.0, 0.0, 0};

static int names_check(const rs_scenario *sc, const char *key)
{
    for (int i = 0; i < sc->ncheck; i++)
        if (strcmp(sc->checks[i].key, key) == 0)
            return 1;
    return 0;
}

/* The [expect] contract. Checks on a trajectory apply to both trajectories that were run. A
 * contract that does not bound the failed steps of a backend it ran gets the implied bound 0. */
static void evaluate_contract(const rs_scenario *sc, rs_compare_result *r)
{
    r->contract_passed = 1;
    const int has_nlp = r->mode != RS_RUN_LEMKE, has_lemke = r->mode != RS_RUN_NLP;
    const int compare = r->mode == RS_RUN_COMPARE;
    if (has_nlp && !names_check(sc, "nlp_failed_steps_max"))
        add_check(r, &implied_nlp_gate, "nlp", r->nlp.failed_steps);
    if (has_lemke && !names_check(sc, "lemke_failed_steps_max"))
        add_check(r, &implied_lemke_gate, "lemke", r->lemke.failed_steps + r->shadow_failed_steps);
    for (int i = 0; i < sc->ncheck; i++) {
        const rs_check *ck = &sc->checks[i];
        const char *key = ck->key, *dot = strchr(key, '.');
        const int col = dot ? column_of(r, dot + 1) : -1;
        if (strncmp(key, "nlp_failed_steps_", 17) == 0) {
            if (has_nlp)
                add_check(r, ck, "nlp", r->nlp.failed_steps);
        } else if (strncmp(key, "lemke_failed_steps_", 19) == 0) {
            if (has_lemke)
                add_check(r, ck, "lemke", r->lemke.failed_steps + r->shadow_failed_steps);
        } else if (strncmp(key, "mode_agreement_", 15) == 0) {
            if (compare)
                add_check(r, ck, "shadow", r->mode_agreement);
        } else if (strcmp(key, "first_contact_step") == 0 || strcmp(key, "rest_time_s") == 0) {
            const int fc = strcmp(key, "first_contact_step") == 0;
            if (has_nlp)
                add_check(r, ck, "nlp", fc ? r->nlp.first_contact_step : r->nlp.rest_time_s);
            if (has_lemke)
                add_check(r, ck, "lemke", fc ? r->lemke.first_contact_step : r->lemke.rest_time_s);
        } else if (strncmp(key, "shadow_max_abs.", 15) == 0) {
            if (compare)
                add_check(r, ck, "shadow", r->shadow_max_abs[col]);
        } else if (strncmp(key, "drift_max_abs.", 14) == 0) {
            if (compare)
                add_check(r, ck, "drift", r->drift_max_abs[col]);
        } else if (strncmp(key, "min_nlp.", 8) == 0 || strncmp(key, "max_nlp.", 8) == 0) {
            if (has_nlp)
                add_check(r, ck, "nlp", key[1] == 'i' ? r->nlp.min[col] : r->nlp.max[col]);
        } else if (strncmp(key, "min_lemke.", 10) == 0 || strncmp(key, "max_lemke.", 10) == 0) {
            if (has_lemke)
                add_check(r, ck, "lemke", key[1] == 'i' ? r->lemke.min[col] : r->lemke.max[col]);
        } else if (strncmp(key, "final_nlp.", 10) == 0) {
            if (has_nlp)
                add_check(r, ck, "nlp", r->nlp.final[col]);
        } else if (strncmp(key, "final_lemke.", 12) == 0) {
            if (has_lemke)
                add_check(r, ck, "lemke", r->lemke.final[col]);
        } else if (strncmp(key, "final_diff.", 11) == 0) {
            /* |NLP - Lemke| at the end of the independent trajectories, judged against
             * atol + rtol |Lemke| as a ratio: actual <= 1 passes, printed as the difference */
            if (compare)
                add_final_diff_check(r, ck, r->nlp.final[col], r->lemke.final[col]);
        }
    }
}

struct rs_compare_session {
    const rs_scenario *sc;
    rs_compare_result *out;
    rs_stepper *stepper;
    double x_nlp[RS_MODEL_MAX_STATE], x_lemke[RS_MODEL_MAX_STATE]; /* the two trajectories */
    int run_nlp, run_lemke, compare;
    rs_stepper_snapshot before; /* the warm start before the step being solved */
    int kept_for_verdict;       /* capsules kept for their verdict (not asked for) */
    int agree_modes;
    double t0;
};

rs_error rs_compare_begin(const rs_scenario *sc, rs_run_mode mode, rs_compare_result *out,
                          rs_compare_session **session)
{
    if (!sc || !out || !session || !sc->model)
        return RS_ERR_NULL_ARG;
    *session = NULL;
    memset(out, 0, sizeof *out);
    const rs_model *m = sc->model;
    rs_compare_session *cs = calloc(1, sizeof *cs);
    out->step = calloc((size_t)sc->steps, sizeof *out->step);
    if (!cs || !out->step) {
        free(cs);
        rs_compare_free(out);
        return RS_ERR_NOMEM;
    }
    cs->t0 = rs_wall_seconds();
    cs->sc = sc;
    cs->out = out;
    out->mode = mode;
    out->steps = sc->steps;
    out->ncol = m->nstate + m->nforce;
    for (int c = 0; c < out->ncol; c++)
        out->col_names[c] = c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
    rs_stepper_config cfg = {m, sc->params, sc->variant, sc->dt, sc->nlp, sc->lemke,
                             sc->lemke_warm, sc->mode_tols, sc->scene};
    const rs_error err = rs_stepper_create(&cfg, &cs->stepper);
    if (err != RS_OK) {
        free(cs);
        rs_compare_free(out);
        return err;
    }
    memcpy(cs->x_nlp, sc->initial, sizeof cs->x_nlp);
    memcpy(cs->x_lemke, sc->initial, sizeof cs->x_lemke);
    cs->run_nlp = mode != RS_RUN_LEMKE;
    cs->run_lemke = mode != RS_RUN_NLP;
    cs->compare = mode == RS_RUN_COMPARE;
    *session = cs;
    return RS_OK;
}

rs_stepper *rs_compare_stepper(rs_compare_session *cs)
{
    return cs->stepper;
}

const double *rs_compare_nlp_state(const rs_compare_session *cs)
{
    return cs->x_nlp;
}

const double *rs_compare_input(rs_compare_session *cs, int k)
{
    double *input = cs->out->step[k].input;
    rs_scenario_input(cs->sc, k, input);
    return input;
}

/* Keep step k's capsule if it qualifies (rs_capsule): its verdict, or asked for. Called right
 * after the shadow solve, while the stepper still holds its LCP. */
static void keep_capsule(rs_compare_session *cs, int k, const double *x_before)
{
    const rs_scenario *sc = cs->sc;
    rs_compare_result *out = cs->out;
    int requested = 0;
    for (int i = 0; i < sc->ncapsule_steps; i++)
        requested |= sc->capsule_steps[i] == k;
    if (!requested && out->step[k].verdict == RS_VERDICT_AGREE)
        return;
    if (!requested && cs->kept_for_verdict == RS_COMPARE_MAX_CAPSULES) {
        out->capsules_omitted++;
        return;
    }
    if (!out->capsules &&
        !(out->capsules = calloc(RS_COMPARE_MAX_CAPSULES + RS_SCENARIO_MAX_CAPSULE_STEPS,
                                 sizeof *out->capsules))) {
        out->capsules_omitted++; /* out of memory: counted as not kept */
        return;
    }
    rs_capsule *c = &out->capsules[out->ncapsules];
    memset(c, 0, sizeof *c);
    c->step = k;
    c->requested = requested;
    memcpy(c->state, x_before, sizeof c->state);
    c->before = cs->before;
    const double *M, *q, *z, *w;
    const int n = rs_stepper_step_lcp(cs->stepper, &M, &q, &z, &w);
    if (n > 0 && (c->M = malloc(sizeof(double) * (size_t)n * (size_t)(n + 1)))) {
        c->lcp_n = n;
        c->q = c->M + (size_t)n * n;
        memcpy(c->M, M, sizeof(double) * (size_t)n * n);
        memcpy(c->q, q, sizeof(double) * (size_t)n);
    }
    out->ncapsules++;
    cs->kept_for_verdict += !requested;
}

void rs_compare_advance(rs_compare_session *cs, int k, const rs_step_result *nlp)
{
    const rs_scenario *sc = cs->sc;
    const rs_model *m = sc->model;
    rs_compare_result *out = cs->out;
    rs_compare_step *st = &out->step[k];
    const size_t state_bytes = sizeof(double) * (size_t)m->nstate;
    double x_before[RS_MODEL_MAX_STATE];
    memcpy(x_before, cs->x_nlp, sizeof x_before);
    if (cs->run_nlp) {
        if (nlp) {
            st->nlp = *nlp;
        } else {
            if (cs->compare)
                rs_stepper_save(cs->stepper, &cs->before);
            rs_stepper_nlp(cs->stepper, cs->x_nlp, st->input, &st->nlp);
        }
        if (cs->compare) {
            rs_stepper_lemke(cs->stepper, cs->x_nlp, st->input, &st->shadow);
            st->verdict = rs_compare_judge(sc, st, out->ncol, x_before);
            if (!nlp)
                keep_capsule(cs, k, x_before);
        }
        const rs_step_result *next = &st->nlp;
        if (!st->nlp.ok && cs->compare && st->shadow.ok &&
            sc->on_nlp_failure == RS_ON_FAILURE_LEMKE) {
            next = &st->shadow; /* explicit, counted fallback */
            st->fallback = 1;
            out->fallback_steps++;
        }
        if (all_finite(next->state_next, m->nstate))
            memcpy(cs->x_nlp, next->state_next, state_bytes);
        /* else: a failed step with no finite state (counted as failed): the trajectory goes
         * on from the last finite state, never from a made-up one */
    }
    if (cs->run_lemke) {
        rs_stepper_lemke(cs->stepper, cs->x_lemke, st->input, &st->lemke);
        if (all_finite(st->lemke.state_next, m->nstate))
            memcpy(cs->x_lemke, st->lemke.state_next, state_bytes);
    }
    if (cs->compare) {
        out->verdicts[st->verdict]++;
        out->shadow_failed_steps += !st->shadow.ok;
        cs->agree_modes += st->nlp.ok && st->shadow.ok && /* a failed step's modes mean nothing */
                           memcmp(st->nlp.modes, st->shadow.modes,
                                  sizeof(rs_contact_mode) * (size_t)m->ncontacts) == 0;
        for (int c = 0; c < out->ncol; c++) {
            const double drift = fabs(column(m, &st->nlp, c) - column(m, &st->lemke, c));
            out->shadow_max_abs[c] = max_keep_nan(out->shadow_max_abs[c], st->diff[c]);
            out->drift_max_abs[c] = max_keep_nan(out->drift_max_abs[c], drift);
        }
    }
}

void rs_compare_abort(rs_compare_session *cs)
{
    rs_stepper_destroy(cs->stepper);
    rs_compare_free(cs->out);
    free(cs);
}

rs_error rs_compare_end(rs_compare_session *cs)
{
    const rs_scenario *sc = cs->sc;
    rs_compare_result *out = cs->out;
    rs_stepper_destroy(cs->stepper);
    out->mode_agreement = cs->compare ? (double)cs->agree_modes / sc->steps : NAN;
    rs_error err = RS_OK;
    if (cs->run_nlp)
        err = trajectory_stats(sc, out, offsetof(rs_compare_step, nlp), &out->nlp);
    if (err == RS_OK && cs->run_lemke)
        err = trajectory_stats(sc, out, offsetof(rs_compare_step, lemke), &out->lemke);
    if (err == RS_OK) {
        evaluate_contract(sc, out);
        out->wall_time_s = rs_wall_seconds() - cs->t0;
    } else {
        rs_compare_free(out);
    }
    free(cs);
    return err;
}

rs_error rs_compare_run(const rs_scenario *sc, rs_run_mode mode, rs_progress_fn progress,
                        void *progress_ctx, rs_compare_result *out)
{
    rs_compare_session *cs;
    const rs_error err = rs_compare_begin(sc, mode, out, &cs);
    if (err != RS_OK)
        return err;
    for (int k = 0; k < sc->steps; k++) {
        rs_compare_input(cs, k);
        rs_compare_advance(cs, k, NULL);
        if (progress && (k % 64 == 63 || k == sc->steps - 1))
            progress(progress_ctx, k + 1, sc->steps);
    }
    return rs_compare_end(cs);
}
