/*
 * compare.c: runs a scenario with one or both backends and compares them step by step
 * (see compare.h), then evaluates the tolerance contract of the scenario's [expect] section.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/compare.h"
#include "sim/step_stats.h"
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

rs_error rs_compare_step_init(rs_compare_step *st, const rs_model *m)
{
    memset(st, 0, sizeof *st);
    st->storage = calloc((size_t)m->ninput + (size_t)m->nstate + (size_t)m->nforce + 1,
                         sizeof(double));
    if (!st->storage || rs_step_result_init(&st->nlp, m) != RS_OK ||
        rs_step_result_init(&st->shadow, m) != RS_OK || rs_step_result_init(&st->lemke, m) != RS_OK) {
        rs_compare_step_free(st);
        return RS_ERR_NOMEM;
    }
    st->input = st->storage;
    st->diff = st->input + m->ninput;
    return RS_OK;
}

void rs_compare_step_free(rs_compare_step *st)
{
    if (!st)
        return;
    rs_step_result_free(&st->nlp);
    rs_step_result_free(&st->shadow);
    rs_step_result_free(&st->lemke);
    free(st->storage);
    memset(st, 0, sizeof *st);
}

void rs_compare_step_clear(rs_compare_step *st, const rs_model *m)
{
    if (st->storage)
        memset(st->storage, 0,
               sizeof(double) * ((size_t)m->ninput + (size_t)m->nstate + (size_t)m->nforce));
    rs_step_result_clear(&st->nlp, m);
    rs_step_result_clear(&st->shadow, m);
    rs_step_result_clear(&st->lemke, m);
    st->verdict = RS_VERDICT_AGREE;
    st->fallback = 0;
}

rs_error rs_compare_step_copy(rs_compare_step *dst, const rs_compare_step *src, const rs_model *m)
{
    memcpy(dst->storage, src->storage,
           sizeof(double) * ((size_t)m->ninput + (size_t)m->nstate + (size_t)m->nforce));
    dst->verdict = src->verdict;
    dst->fallback = src->fallback;
    rs_error err = rs_step_result_copy(&dst->nlp, &src->nlp, m);
    const rs_error e2 = rs_step_result_copy(&dst->shadow, &src->shadow, m);
    const rs_error e3 = rs_step_result_copy(&dst->lemke, &src->lemke, m);
    return err != RS_OK ? err : e2 != RS_OK ? e2 : e3;
}

void rs_capsule_free(rs_capsule *c)
{
    free(c->M);
    free(c->state);
    rs_stepper_snapshot_free(&c->before);
    rs_compare_step_free(&c->record);
}

void rs_compare_free(rs_compare_result *r)
{
    if (!r)
        return;
    for (int k = 0; r->step && k < r->steps; k++)
        rs_compare_step_free(&r->step[k]);
    free(r->step);
    r->step = NULL;
    for (int i = 0; i < r->ncapsules; i++)
        rs_capsule_free(&r->capsules[i]);
    free(r->capsules);
    r->capsules = NULL;
    r->ncapsules = 0;
    free(r->storage);
    r->storage = NULL;
    r->col_names = NULL;
    r->shadow_max_abs = r->drift_max_abs = NULL;
    r->nlp.final = r->nlp.min = r->nlp.max = NULL;
    r->lemke.final = r->lemke.min = r->lemke.max = NULL;
}

#define column rs_step_column

/* 1 if state column c is a velocity. */
static int is_velocity(const rs_model *m, int c)
{
    for (int v = 0; v < m->nvelocity; v++)
        if (m->velocity_index[v] == c)
            return 1;
    return 0;
}

/* The natural unit of column c at the value ref: speed, length (or the rounding of a large
 * position) or force of the step; a model with other units (angles) states them per column
 * (units: its column_units, or NULL). */
static double column_unit(const rs_model *m, const rs_step_scales *sc, int c, double ref,
                          const double *units)
{
    if (units) {
        const double rounding = 8.0 * 2.220446049250313e-16 * fabs(ref);
        return units[c] > rounding ? units[c] : rounding;
    }
    if (c >= m->nstate)
        return sc->force;
    return is_velocity(m, c) ? sc->speed : rs_length_unit(sc, ref);
}

/* Same modes, every column within agree_atol (in the step's natural units) + agree_rtol |Lemke|,
 * and every force within agree_force_rtol of itself (below): agree. */
/* Step k's verdict, from the state x before it. A model whose own NLP solves exact physics that
 * its LCP approximates (rs_model.shadow_bias) has this step's difference between the exact
 * answer and the LCP's added to each column's tolerance: within it, and with a mode pair the
 * approximation explains, a difference from the LCP is the approximation's (the polygonal
 * cone's), not a disagreement. */
rs_verdict rs_compare_judge(const rs_scenario *sc, rs_compare_step *st, int ncol, const double *x)
{
    const rs_model *m = sc->model;
    /* the model's bias and column units for this step: on the heap beside a small default */
    double small[2 * 16], *bias = small, *units = NULL;
    if (2 * ncol > (int)(sizeof small / sizeof small[0]) &&
        !(bias = malloc(sizeof(double) * 2 * (size_t)ncol)))
        return RS_VERDICT_NLP_FAILED; /* out of memory: never agreement */
    memset(bias, 0, sizeof(double) * (size_t)ncol);
    const int own_nlp = rs_model_own_nlp(m) && !sc->nlp.relax_lcp;
    int explained = 0; /* the approximation explains the mode pair (and bias holds its
                          difference) */
    const rs_step_data d = {sc->params, x, st->input, sc->dt, sc->variant, &sc->nlp,
                            sc->scene, 1, NULL};
    if (m->shadow_bias && own_nlp && st->shadow.ok && st->nlp.ok)
        explained = m->shadow_bias(&d, st->shadow.state_next, st->shadow.forces,
                                   st->shadow.modes, st->nlp.modes, bias);
    if (m->column_units) {
        units = bias + ncol;
        m->column_units(&d, &st->shadow.scales, units);
    }
    int within = 1, within_bias = 1;
    for (int c = 0; c < ncol; c++) {
        const double ref = column(m, &st->shadow, c), value = column(m, &st->nlp, c);
        const double unit = column_unit(m, &st->shadow.scales, c, ref, units);
        const double tol = sc->agree_atol * unit + sc->agree_rtol * fabs(ref);
        st->diff[c] = fabs(value - ref);
        within &= st->diff[c] <= tol;
        within_bias &= st->diff[c] <= tol + bias[c];
        if (c >= m->nstate) { /* a force is also judged against itself: one that is small
                                 beside the step's natural force F (a push of 1e-6 N held by
                                 friction) and wrong by all of itself is not agreement; the
                                 floor, a thousandth of the natural-unit tolerance, is the
                                 rounding of a solve in F */
            const double own = sc->agree_force_rtol * fmax(fabs(value), fabs(ref)) +
                               1e-3 * sc->agree_atol * unit;
            within &= st->diff[c] <= own;
            within_bias &= st->diff[c] <= own + bias[c];
        }
    }
    if (bias != small)
        free(bias);
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

/* max that keeps NaN once seen: a NaN difference must stay visible in the summary. */
static double max_keep_nan(double a, double b)
{
    return (isnan(a) || isnan(b)) ? NAN : fmax(a, b);
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
    if (r->nchecks >= RS_COMPARE_MAX_CHECK_RESULTS) { /* never: sized for every check twice and
                                                         the implied gates; a result that has no
                                                         room fails the contract, never passes */
        r->contract_passed = 0;
        r->checks_unrecorded++;
        return;
    }
    rs_check_result *cr = &r->checks[r->nchecks++];
    cr->check = ck;
    cr->actual = actual;
    cr->passed = passed;
    cr->unit = cr->floor = NAN; /* a column's check gets them from check_floor */
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

/* The unit and floor of result cr of check ck on column col (rs_check_result): a final_* check
 * reads its trajectory's last step, every other check the largest unit over the steps; the
 * comparisons of the two answers (shadow, drift, final_diff) are the NLP's accuracy. */
static void check_floor(const rs_scenario *sc, const rs_compare_result *r, const rs_check *ck,
                        int col, rs_check_result *cr)
{
    const int lemke = strcmp(cr->which, "lemke") == 0;
    const rs_trajectory_stats *t = lemke ? &r->lemke : &r->nlp;
    /* (a speed check's window runs to the end: the last step's unit, as a final value's) */
    const int final = strncmp(ck->key, "final_", 6) == 0 || strncmp(ck->key, "max_speed_", 10) == 0;
    cr->unit = final ? t->unit_final[col] : t->unit_max[col];
    if (lemke)
        cr->floor = RS_LEMKE_FLOOR_ULPS * DBL_EPSILON / 2 * fmax(fabs(ck->a), cr->unit);
    else
        cr->floor = sc->nlp.cert_tol * cr->unit;
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

/* Why a run of this mode did not evaluate check key: the command that does. */
static const char *skip_reason(const char *key, int has_nlp, int has_lemke)
{
    if (strncmp(key, "grad_", 5) == 0)
        return "checked by relaxsim grad";
    if (!has_nlp && (strncmp(key, "nlp_", 4) == 0 || strstr(key, "_nlp.")))
        return "needs the NLP trajectory (compare, or run --backend nlp)";
    if (!has_lemke && (strncmp(key, "lemke_", 6) == 0 || strstr(key, "_lemke.")))
        return "needs the Lemke trajectory (compare, or run --backend lemke)";
    return "needs both trajectories (compare)";
}

/* The [expect] contract. Checks on a trajectory apply to both trajectories that were run. A
 * contract that does not bound the failed steps of a backend it ran gets the implied bound 0.
 * A check this mode cannot evaluate (grad_*, or one on a trajectory or comparison it did not run)
 * is listed as skipped, with the command that checks it, and not counted as applied: a contract
 * none of whose checks applied has checked nothing it states (relaxsim check: NONE). */
static void evaluate_contract(const rs_scenario *sc, rs_compare_result *r)
{
    r->contract_passed = 1;
    r->declared_checks = sc->ncheck;
    r->applied_checks = r->nskipped = 0;
    const int has_nlp = r->mode != RS_RUN_LEMKE, has_lemke = r->mode != RS_RUN_NLP;
    const int compare = r->mode == RS_RUN_COMPARE;
    if (has_nlp && !names_check(sc, "nlp_failed_steps_max"))
        add_check(r, &implied_nlp_gate, "nlp", r->nlp.failed_steps);
    if (has_lemke && !names_check(sc, "lemke_failed_steps_max"))
        add_check(r, &implied_lemke_gate, "lemke", r->lemke.failed_steps + r->shadow_failed_steps);
    for (int i = 0; i < sc->ncheck; i++) {
        const rs_check *ck = &sc->checks[i];
        const char *key = ck->key, *dot = strchr(key, '.');
        int col = dot ? column_of(r, dot + 1) : -1;
        const int speed = strncmp(key, "max_speed_", 10) == 0;
        if (speed && rs_speed_columns(sc->model, dot + 1, &col, NULL) != 0)
            col = -1; /* (the scenario checked the body when it was read) */
        const int results_before = r->nchecks + r->checks_unrecorded, recorded_before = r->nchecks;
        const char *reason = NULL; /* why it was not evaluated, when not the mode's */
        if (strncmp(key, "nlp_failed_steps_", 17) == 0) {
            if (has_nlp)
                add_check(r, ck, "nlp", r->nlp.failed_steps);
        } else if (strncmp(key, "lemke_failed_steps_", 19) == 0) {
            /* the count takes in the shadow solves, which only a comparison makes: a bound
             * from below does not apply to a Lemke run alone (its count can only be smaller) */
            const int at_least = strcmp(key + 19, "min") == 0;
            if (has_lemke && (compare || !at_least))
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
        } else if (speed) { /* a body's largest speed from the check's time on: its xd's unit */
            const int lemke = strncmp(key, "max_speed_lemke.", 16) == 0;
            if ((lemke ? has_lemke : has_nlp) && r->speed_seen[i])
                add_check(r, ck, lemke ? "lemke" : "nlp", r->speed_max[i]);
            else if (lemke ? has_lemke : has_nlp)
                reason = "the run ends before the check's window begins";
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
        if (col >= 0)
            for (int j = recorded_before; j < r->nchecks; j++)
                check_floor(sc, r, ck, col, &r->checks[j]);
        if (r->nchecks + r->checks_unrecorded > results_before)
            r->applied_checks++;
        else
            r->skipped[r->nskipped++] =
                (rs_skipped_check){ck, reason ? reason : skip_reason(key, has_nlp, has_lemke)};
    }
}

struct rs_compare_session {
    const rs_scenario *sc;
    rs_compare_result *out;
    rs_compare_options opt;
    /* One stepper per trajectory, each with its own warm start and model cache, so that no
     * state passes between them: the NLP trajectory's (run_nlp), the shadow Lemke solves from
     * its states (compare; in an NLP run under on_nlp_failure = lemke, only the fallbacks of
     * its failed steps) and the independent Lemke trajectory's (run_lemke); NULL when the mode
     * has no such trajectory. */
    rs_stepper *nlp, *shadow, *lemke;
    double *x_nlp, *x_lemke, *x_before; /* the two trajectories; the NLP's before the step */
    int run_nlp, run_lemke, compare;
    rs_stepper_snapshot before; /* the warm starts before the step being solved: the NLP's
                                   point and the shadow solve's basis */
    int before_ok;              /* 0: before could not be saved (out of memory) */
    int kept_for_verdict;       /* capsules kept for their verdict (not asked for) */
    int agree_modes;
    rs_compare_step cur;        /* the step being solved */
    rs_trajectory_acc nlp_acc, lemke_acc;
    double *units;              /* 2 ncol: a step's column units (the model's, then as judged) */
    double t0;
    /* per check of the scenario: for a speed check (max_speed_nlp., max_speed_lemke.), its
     * body's velocity columns and its trajectory (0 the NLP's, 1 Lemke's); -1 otherwise */
    int speed_xd[RS_SCENARIO_MAX_CHECKS], speed_zd[RS_SCENARIO_MAX_CHECKS];
    int speed_of[RS_SCENARIO_MAX_CHECKS];
};

void rs_compare_options_default(rs_compare_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->keep_steps = 1;
}

rs_error rs_compare_begin_with(const rs_scenario *sc, rs_run_mode mode,
                               const rs_compare_options *opt, rs_compare_result *out,
                               rs_compare_session **session)
{
    if (!sc || !out || !session || !sc->model || !opt)
        return RS_ERR_NULL_ARG;
    *session = NULL;
    memset(out, 0, sizeof *out);
    if (opt->keep_steps && sc->steps > RS_RUN_MAX_STEPS)
        return RS_ERR_DIMENSION; /* every step kept: bounded memory */
    const rs_model *m = sc->model;
    const int ncol = m->nstate + m->nforce;
    rs_compare_session *cs = calloc(1, sizeof *cs);
    /* per column: shadow and drift maxima, final/min/max and the units of both trajectories;
     * the names */
    out->storage = calloc((size_t)ncol * (12 * sizeof(double) + sizeof(char *)) + 1, 1);
    if (cs) /* the states (two trajectories, the NLP's before the step) and the units' scratch */
        cs->x_nlp = calloc(3 * (size_t)m->nstate + 2 * (size_t)ncol, sizeof(double));
    if (opt->keep_steps)
        out->step = calloc((size_t)sc->steps, sizeof *out->step);
    if (!cs || !cs->x_nlp || !out->storage || (opt->keep_steps && !out->step) ||
        rs_compare_step_init(&cs->cur, m) != RS_OK) {
        if (cs) {
            rs_compare_step_free(&cs->cur);
            free(cs->x_nlp);
        }
        free(cs);
        rs_compare_free(out);
        return RS_ERR_NOMEM;
    }
    out->model = m;
    double *col = out->storage;
    out->shadow_max_abs = col;
    out->drift_max_abs = col + ncol;
    out->nlp.final = col + 2 * ncol;
    out->nlp.min = col + 3 * ncol;
    out->nlp.max = col + 4 * ncol;
    out->lemke.final = col + 5 * ncol;
    out->lemke.min = col + 6 * ncol;
    out->lemke.max = col + 7 * ncol;
    out->nlp.unit_final = col + 8 * ncol;
    out->nlp.unit_max = col + 9 * ncol;
    out->lemke.unit_final = col + 10 * ncol;
    out->lemke.unit_max = col + 11 * ncol;
    out->col_names = (const char **)(col + 12 * ncol);
    cs->x_lemke = cs->x_nlp + m->nstate;
    cs->x_before = cs->x_lemke + m->nstate;
    cs->units = cs->x_before + m->nstate;
    cs->t0 = rs_wall_seconds();
    cs->sc = sc;
    for (int i = 0; i < sc->ncheck; i++) { /* (the scenario checked each speed check's body) */
        const char *key = sc->checks[i].key;
        const int lemke = strncmp(key, "max_speed_lemke.", 16) == 0;
        cs->speed_of[i] = (lemke || strncmp(key, "max_speed_nlp.", 14) == 0) &&
                                  rs_speed_columns(m, strchr(key, '.') + 1, &cs->speed_xd[i],
                                                   &cs->speed_zd[i]) == 0
                              ? lemke
                              : -1;
    }
    cs->out = out;
    cs->opt = *opt;
    out->mode = mode;
    out->steps = sc->steps;
    out->ncol = m->nstate + m->nforce;
    for (int c = 0; c < out->ncol; c++)
        out->col_names[c] = c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
    cs->run_nlp = mode != RS_RUN_LEMKE;
    cs->run_lemke = mode != RS_RUN_NLP;
    cs->compare = mode == RS_RUN_COMPARE;
    const rs_stepper_config cfg = rs_scenario_stepper_config(sc);
    rs_error err = RS_OK;
    if (cs->run_nlp)
        err = rs_stepper_create(&cfg, &cs->nlp);
    if (err == RS_OK &&
        (cs->compare || (cs->run_nlp && sc->on_nlp_failure == RS_ON_FAILURE_LEMKE)))
        err = rs_stepper_create(&cfg, &cs->shadow);
    if (err == RS_OK && cs->run_lemke)
        err = rs_stepper_create(&cfg, &cs->lemke);
    if (err != RS_OK) {
        rs_stepper_destroy(cs->nlp);
        rs_stepper_destroy(cs->shadow);
        rs_compare_step_free(&cs->cur);
        free(cs->x_nlp);
        free(cs);
        rs_compare_free(out);
        return err;
    }
    memcpy(cs->x_nlp, sc->initial, sizeof(double) * (size_t)m->nstate);
    memcpy(cs->x_lemke, sc->initial, sizeof(double) * (size_t)m->nstate);
    rs_trajectory_acc_init(&cs->nlp_acc, out->ncol, &out->nlp);
    rs_trajectory_acc_init(&cs->lemke_acc, out->ncol, &out->lemke);
    *session = cs;
    return RS_OK;
}

rs_error rs_compare_begin(const rs_scenario *sc, rs_run_mode mode, rs_compare_result *out,
                          rs_compare_session **session)
{
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    return rs_compare_begin_with(sc, mode, &opt, out, session);
}

rs_stepper *rs_compare_stepper(rs_compare_session *cs)
{
    return cs->nlp;
}

const double *rs_compare_nlp_state(const rs_compare_session *cs)
{
    return cs->x_nlp;
}

const double *rs_compare_input(rs_compare_session *cs, int k)
{
    rs_compare_step_clear(&cs->cur, cs->sc->model);
    rs_scenario_input(cs->sc, k, cs->cur.input);
    return cs->cur.input;
}

/* Keep step k's capsule if it qualifies (rs_capsule): its verdict, or asked for. Called right
 * after the shadow solve, while the shadow's stepper still holds its LCP. */
static void keep_capsule(rs_compare_session *cs, int k, const double *x_before)
{
    const rs_scenario *sc = cs->sc;
    rs_compare_result *out = cs->out;
    int requested = 0;
    for (int i = 0; i < sc->ncapsule_steps; i++)
        requested |= sc->capsule_steps[i] == k;
    if (!requested && cs->cur.verdict == RS_VERDICT_AGREE)
        return;
    if (!requested && cs->kept_for_verdict == RS_COMPARE_MAX_CAPSULES) {
        out->capsules_omitted++;
        return;
    }
    if (!cs->before_ok ||
        (!out->capsules &&
         !(out->capsules = calloc(RS_COMPARE_MAX_CAPSULES + RS_SCENARIO_MAX_CAPSULE_STEPS,
                                  sizeof *out->capsules)))) {
        out->capsules_omitted++; /* out of memory: counted as not kept */
        return;
    }
    const rs_model *m = sc->model;
    rs_capsule *c = &out->capsules[out->ncapsules];
    memset(c, 0, sizeof *c);
    c->step = k;
    c->requested = requested;
    c->state = malloc(sizeof(double) * (size_t)m->nstate);
    if (!c->state || rs_stepper_snapshot_copy(&c->before, &cs->before) != RS_OK ||
        rs_compare_step_init(&c->record, m) != RS_OK ||
        rs_compare_step_copy(&c->record, &cs->cur, m) != RS_OK) {
        rs_capsule_free(c); /* out of memory: counted as not kept */
        memset(c, 0, sizeof *c);
        out->capsules_omitted++;
        return;
    }
    memcpy(c->state, x_before, sizeof(double) * (size_t)m->nstate);
    /* the record: the step as judged (its verdict, both answers, the input) */
    const double *M, *q, *z, *w;
    const int n = rs_stepper_step_lcp(cs->shadow, &M, &q, &z, &w);
    if (n > 0 && (c->M = malloc(sizeof(double) * (size_t)n * (size_t)(n + 1)))) {
        c->lcp_n = n;
        c->q = c->M + (size_t)n * n;
        memcpy(c->M, M, sizeof(double) * (size_t)n * n);
        memcpy(c->q, q, sizeof(double) * (size_t)n);
    }
    out->ncapsules++;
    cs->kept_for_verdict += !requested;
}

/* The natural unit of every column in the step s solved from state x (as rs_compare_judge
 * states its tolerances) into t's last-step and largest units. */
static void track_units(const rs_compare_session *cs, const double *x, const double *input,
                        const rs_step_result *s, rs_trajectory_stats *t)
{
    const rs_scenario *sc = cs->sc;
    const rs_model *m = sc->model;
    const int ncol = m->nstate + m->nforce;
    double *model_units = NULL;
    if (m->column_units) {
        const rs_step_data d = {sc->params, x, input, sc->dt, sc->variant, &sc->nlp,
                                sc->scene, 1, NULL};
        model_units = cs->units + ncol;
        m->column_units(&d, &s->scales, model_units);
    }
    for (int c = 0; c < ncol; c++) {
        const double u = column_unit(m, &s->scales, c, column(m, s, c), model_units);
        t->unit_final[c] = u;
        t->unit_max[c] = isnan(t->unit_max[c]) ? u : fmax(t->unit_max[c], u);
    }
}

/* The speed checks (max_speed_nlp., max_speed_lemke.) of trajectory `lemke` (0: the NLP's) after
 * step k, whose state ends at time (k + 1) dt. */
static void track_speeds(const rs_compare_session *cs, int lemke, int k, const double *state,
                         rs_compare_result *out)
{
    const rs_scenario *sc = cs->sc;
    const double t = (k + 1) * sc->dt;
    for (int i = 0; i < sc->ncheck; i++) {
        if (cs->speed_of[i] != lemke || t < sc->checks[i].b * (1.0 - 1e-12))
            continue;
        out->speed_max[i] =
            max_keep_nan(out->speed_max[i], hypot(state[cs->speed_xd[i]], state[cs->speed_zd[i]]));
        out->speed_seen[i] = 1;
    }
}

void rs_compare_advance(rs_compare_session *cs, int k, const rs_step_result *nlp)
{
    const rs_scenario *sc = cs->sc;
    const rs_model *m = sc->model;
    rs_compare_result *out = cs->out;
    rs_compare_step *st = &cs->cur;
    assert(k >= 0 && k < sc->steps); /* a step of the scenario's horizon, in order */
    const size_t state_bytes = sizeof(double) * (size_t)m->nstate;
    double *x_before = cs->x_before;
    memcpy(x_before, cs->x_nlp, state_bytes);
    if (cs->run_nlp) {
        if (nlp) {
            rs_step_result_copy(&st->nlp, nlp, m);
        } else {
            if (cs->compare)
                cs->before_ok = rs_stepper_save(cs->nlp, &cs->before) == RS_OK &&
                                rs_stepper_save_basis(cs->shadow, &cs->before) == RS_OK;
            rs_stepper_nlp(cs->nlp, cs->x_nlp, st->input, &st->nlp);
        }
        if (cs->compare) {
            rs_stepper_lemke(cs->shadow, cs->x_nlp, st->input, &st->shadow);
            st->verdict = rs_compare_judge(sc, st, out->ncol, x_before);
            if (!nlp)
                keep_capsule(cs, k, x_before);
        }
        /* (an NLP run without the shadow solves: Lemke's fallback answer from the same state) */
        const int solve_fallback = !cs->compare && cs->shadow && !st->nlp.ok;
        if (solve_fallback)
            rs_stepper_lemke(cs->shadow, x_before, st->input, &st->shadow);
        const rs_step_result *next =
            rs_run_next(sc->on_nlp_failure, &st->nlp,
                        cs->compare || solve_fallback ? &st->shadow : NULL, &st->fallback);
        out->fallback_steps += st->fallback; /* (explicit and counted) */
        (void)rs_run_advance(m, next, cs->x_nlp);
        rs_trajectory_acc_add(&cs->nlp_acc, m, sc->rest_speed, k, &st->nlp, &out->nlp);
        track_units(cs, x_before, st->input, &st->nlp, &out->nlp);
        track_speeds(cs, 0, k, cs->x_nlp, out);
    }
    if (cs->run_lemke) {
        /* (its own stepper: it starts from its own previous step's basis, never from the shadow
         * solve's at the NLP's state, the same trajectory as a Lemke run alone) */
        rs_stepper_lemke(cs->lemke, cs->x_lemke, st->input, &st->lemke);
        track_units(cs, cs->x_lemke, st->input, &st->lemke, &out->lemke);
        (void)rs_run_advance(m, &st->lemke, cs->x_lemke);
        rs_trajectory_acc_add(&cs->lemke_acc, m, sc->rest_speed, k, &st->lemke, &out->lemke);
        track_speeds(cs, 1, k, cs->x_lemke, out);
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
    if (out->step && (out->step[k].storage || rs_compare_step_init(&out->step[k], m) == RS_OK))
        rs_compare_step_copy(&out->step[k], st, m);
    if (cs->opt.sink)
        cs->opt.sink(cs->opt.sink_ctx, k, st);
    if (cs->opt.progress && (k % 64 == 63 || k == sc->steps - 1))
        cs->opt.progress(cs->opt.progress_ctx, k + 1, sc->steps);
}

static void free_session(rs_compare_session *cs)
{
    rs_stepper_destroy(cs->nlp);
    rs_stepper_destroy(cs->shadow);
    rs_stepper_destroy(cs->lemke);
    rs_stepper_snapshot_free(&cs->before);
    rs_compare_step_free(&cs->cur);
    free(cs->x_nlp);
    free(cs);
}

void rs_compare_abort(rs_compare_session *cs)
{
    rs_compare_free(cs->out);
    free_session(cs);
}

rs_error rs_compare_end(rs_compare_session *cs)
{
    const rs_scenario *sc = cs->sc;
    rs_compare_result *out = cs->out;
    out->mode_agreement = cs->compare ? (double)cs->agree_modes / sc->steps : NAN;
    if (cs->run_nlp)
        rs_trajectory_acc_finish(&cs->nlp_acc, sc->dt, &out->nlp);
    if (cs->run_lemke)
        rs_trajectory_acc_finish(&cs->lemke_acc, sc->dt, &out->lemke);
    evaluate_contract(sc, out);
    out->wall_time_s = rs_wall_seconds() - cs->t0;
    free_session(cs);
    return RS_OK;
}

rs_error rs_compare_run_with(const rs_scenario *sc, rs_run_mode mode,
                             const rs_compare_options *opt, rs_compare_result *out)
{
    rs_compare_session *cs;
    const rs_error err = rs_compare_begin_with(sc, mode, opt, out, &cs);
    if (err != RS_OK)
        return err;
    for (int k = 0; k < sc->steps; k++) {
        rs_compare_input(cs, k);
        rs_compare_advance(cs, k, NULL);
    }
    return rs_compare_end(cs);
}

rs_error rs_compare_run(const rs_scenario *sc, rs_run_mode mode, rs_progress_fn progress,
                        void *progress_ctx, rs_compare_result *out)
{
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    opt.progress = progress;
    opt.progress_ctx = progress_ctx;
    return rs_compare_run_with(sc, mode, &opt, out);
}
