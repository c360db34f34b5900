/*
 * sim_api.c: the public simulation API (relaxsim/sim.h), opaque handles over the scenario
 * reader (io), the stepper and the comparison (sim). It adds no physics: a simulation steps the
 * scenario's model with the stepper the comparison uses, and moves on from each answer the way
 * the comparison's trajectories do. (A comparison's independent Lemke trajectory shares its
 * stepper's warm basis with the shadow solves: it can differ from a simulation's in the last
 * bits.)
 *
 * Lifetimes: a scenario is reference counted. A simulation, a snapshot and a comparison each
 * hold a reference to the scenario they were made from, so that rs_sim_scenario_free in any
 * order (or a garbage collector's, in the Python binding) never leaves one of them pointing at
 * freed memory; the scenario goes when its last holder does.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "io/scenario.h"
#include "relaxsim/lcp.h"
#include "relaxsim/lcp_derivative.h"
#include "relaxsim/nlp.h"
#include "relaxsim/sim.h"
#include "models/registry.h"
#include "sim/compare.h"
#include "sim/stepper.h"

struct rs_sim_scenario {
    rs_scenario sc;
    atomic_int refs; /* the caller's, and one per simulation, snapshot and comparison */
};

struct rs_sim {
    rs_sim_scenario *owner; /* a reference held */
    const rs_scenario *sc;
    rs_stepper *stepper;
    rs_sim_backend backend;
    double *x, *f, *u; /* the state, the last step's forces, the step's input */
    rs_step_result res, fallback;
    const rs_step_result *last; /* the result the state came from (res or fallback); NULL before
                                   the first step and after a state was set or restored */
    int k, failed;
};

struct rs_sim_snapshot {
    rs_sim_scenario *owner; /* a reference held: its identity is the scenario's */
    double *x, *f;
    int k, failed;
    rs_stepper_snapshot warm;
};

struct rs_sim_comparison {
    rs_sim_scenario *owner; /* a reference held: the checks' texts are the scenario's */
    rs_compare_result r;
};

static rs_sim_scenario *retain(const rs_sim_scenario *scenario)
{
    rs_sim_scenario *w = (rs_sim_scenario *)scenario; /* the count is not the scenario's value */
    atomic_fetch_add(&w->refs, 1);
    return w;
}

static void release(rs_sim_scenario *w)
{
    if (w && atomic_fetch_sub(&w->refs, 1) == 1) {
        rs_scenario_release(&w->sc);
        free(w);
    }
}

/* NULL entries and negative counts refused: RS_OK, or the error with what is wrong. */
static rs_error check_overrides(const char *const *overrides, int n, rs_error_detail *detail)
{
    if (n < 0)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "noverrides = %d: not a count", n);
    if (n > 0 && !overrides)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%d overrides without their array", n);
    for (int i = 0; i < n; i++)
        if (!overrides[i])
            return rs_detail_set(detail, RS_ERR_NULL_ARG, "override %d is NULL", i);
    return RS_OK;
}

size_t rs_sim_struct_size(const char *name)
{
#define RS_STRUCT(type) {#type, sizeof(type)}
    static const struct {
        const char *name;
        size_t size;
    } known[] = {
        RS_STRUCT(rs_sim_settings),     RS_STRUCT(rs_sim_scenario_info), RS_STRUCT(rs_sim_contact),
        RS_STRUCT(rs_sim_param),        RS_STRUCT(rs_sim_step_info),
        RS_STRUCT(rs_sim_compare_step), RS_STRUCT(rs_sim_compare_info),
        RS_STRUCT(rs_sim_check),        RS_STRUCT(rs_sim_model_info),
        RS_STRUCT(rs_error_detail),     RS_STRUCT(rs_lcp_certificate),
        RS_STRUCT(rs_lemke_settings),   RS_STRUCT(rs_lemke_info),
        RS_STRUCT(rs_nlp_settings),     RS_STRUCT(rs_nlp_info),
        RS_STRUCT(rs_lcp_derivative_settings), RS_STRUCT(rs_lcp_derivative_info),
    };
#undef RS_STRUCT
    for (size_t i = 0; name && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].name, name) == 0)
            return known[i].size;
    return 0;
}

/* ---- scenarios ------------------------------------------------------------------------------ */

static rs_error scenario_wrap(rs_error err, rs_sim_scenario *w, rs_sim_scenario **out)
{
    if (err != RS_OK) {
        rs_scenario_release(&w->sc);
        free(w);
        return err;
    }
    atomic_init(&w->refs, 1);
    *out = w;
    return RS_OK;
}

rs_error rs_sim_scenario_load(const char *path, const char *const *overrides, int noverrides,
                              rs_sim_scenario **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no place for the scenario (out)");
    *out = NULL;
    if (!path)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no scenario path");
    const rs_error bad = check_overrides(overrides, noverrides, detail);
    if (bad != RS_OK)
        return bad;
    rs_sim_scenario *w = calloc(1, sizeof *w);
    if (!w)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory for the scenario");
    return scenario_wrap(rs_scenario_load(path, overrides, noverrides, &w->sc, detail), w, out);
}

rs_error rs_sim_scenario_load_text(const char *name, const char *text, const char *scene_text,
                                   const char *const *overrides, int noverrides,
                                   rs_sim_scenario **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no place for the scenario (out)");
    *out = NULL;
    if (!name || !text)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no scenario name or text");
    const rs_error bad = check_overrides(overrides, noverrides, detail);
    if (bad != RS_OK)
        return bad;
    for (int i = 0; i < noverrides; i++) /* a scenario from text opens no file */
        if (rs_override_sets_scene(overrides[i]))
            return rs_detail_set(detail, RS_ERR_PARSE,
                                 "--set model.scene: a scenario given as text takes its scene "
                                 "as text (scene_text); no file is opened");
    rs_sim_scenario *w = calloc(1, sizeof *w);
    if (!w)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory for the scenario");
    return scenario_wrap(
        rs_scenario_load_text(name, text, scene_text, overrides, noverrides, &w->sc, detail), w,
        out);
}

void rs_sim_scenario_free(rs_sim_scenario *scenario)
{
    release(scenario); /* (the caller's reference: the holders keep it until they go) */
}

rs_error rs_sim_scenario_get_info(const rs_sim_scenario *scenario, rs_sim_scenario_info *info,
                                  rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!scenario || !info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !scenario ? "scenario" : "info");
    const rs_error bad = RS_SIZE_OK(info, rs_sim_scenario_info, "info", detail);
    if (bad != RS_OK)
        return bad;
    const rs_scenario *sc = &scenario->sc;
    const rs_model *m = sc->model;
    *info = (rs_sim_scenario_info){sizeof *info, m->name,    m->variants[sc->variant],
                                   m->nstate,    m->ninput,  m->nforce,
                                   m->nparams,   sc->steps,  sc->dt};
    return RS_OK;
}

const char *rs_sim_scenario_backend(const rs_sim_scenario *scenario)
{
    return !scenario ? NULL : scenario->sc.backend_lemke ? "lemke" : "nlp";
}

/* Column i of a kind of model m; NULL out of range. */
static const char *model_column(const rs_model *m, rs_sim_column_kind kind, int i)
{
    if (!m || i < 0)
        return NULL;
    switch (kind) {
    case RS_SIM_STATE: return i < m->nstate ? m->state_names[i] : NULL;
    case RS_SIM_INPUT: return i < m->ninput ? m->input_names[i] : NULL;
    case RS_SIM_FORCE: return i < m->nforce ? m->force_names[i] : NULL;
    }
    return NULL;
}

const char *rs_sim_scenario_column(const rs_sim_scenario *scenario, rs_sim_column_kind kind,
                                   int i)
{
    return scenario ? model_column(scenario->sc.model, kind, i) : NULL;
}

rs_error rs_sim_scenario_initial(const rs_sim_scenario *scenario, double *state,
                                 rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!scenario || !state)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !scenario ? "scenario" : "state");
    memcpy(state, scenario->sc.initial, sizeof(double) * (size_t)scenario->sc.model->nstate);
    return RS_OK;
}

rs_error rs_sim_scenario_input(const rs_sim_scenario *scenario, int k, double *input,
                               rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!scenario || (!input && scenario->sc.model->ninput > 0))
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !scenario ? "scenario" : "input");
    if (k < 0)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "k = %d: a step index is >= 0", k);
    rs_scenario_input(&scenario->sc, k, input);
    return RS_OK;
}

static void param_of(const rs_param_def *p, double value, rs_sim_param *out)
{
    *out = (rs_sim_param){sizeof *out, p->name, value, p->lo, p->hi, p->doc};
}

rs_error rs_sim_scenario_param(const rs_sim_scenario *scenario, int i, rs_sim_param *out,
                               rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!scenario || !out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !scenario ? "scenario" : "out");
    const rs_error bad = RS_SIZE_OK(out, rs_sim_param, "out", detail);
    if (bad != RS_OK)
        return bad;
    const rs_model *m = scenario->sc.model;
    if (i < 0 || i >= m->nparams)
        return rs_detail_set(detail, RS_ERR_DIMENSION,
                             "parameter %d: %s has %d (0 .. %d)", i, m->name, m->nparams,
                             m->nparams - 1);
    param_of(&m->params[i], scenario->sc.params[i], out);
    return RS_OK;
}

/* ---- simulations ---------------------------------------------------------------------------- */

void rs_sim_settings_default(rs_sim_settings *settings)
{
    if (settings)
        *settings = (rs_sim_settings){.size = sizeof *settings, .backend = RS_SIM_NLP};
}

void rs_sim_destroy(rs_sim *sim)
{
    if (!sim)
        return;
    rs_stepper_destroy(sim->stepper);
    rs_step_result_free(&sim->res);
    rs_step_result_free(&sim->fallback);
    free(sim->x);
    release(sim->owner);
    free(sim);
}

rs_error rs_sim_create(const rs_sim_scenario *scenario, const rs_sim_settings *settings,
                       rs_sim **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no place for the simulation (out)");
    *out = NULL;
    if (!scenario)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no scenario");
    rs_sim_settings s;
    rs_sim_settings_default(&s);
    if (settings) {
        const rs_error bad = RS_SETTINGS_SIZE_OK(settings, rs_sim_settings, "settings", detail);
        if (bad != RS_OK)
            return bad;
        s = *settings;
    }
    else /* the scenario's [run] backend, as `relaxsim run` takes it */
        s.backend = scenario->sc.backend_lemke ? RS_SIM_LEMKE : RS_SIM_NLP;
    if (s.backend != RS_SIM_NLP && s.backend != RS_SIM_LEMKE) {
        return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                             "settings.backend: neither RS_SIM_NLP nor RS_SIM_LEMKE");
    }
    const rs_scenario *sc = &scenario->sc;
    const rs_model *m = sc->model;
    rs_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory for the simulation");
    sim->owner = retain(scenario);
    sim->sc = sc;
    sim->backend = s.backend;
    const size_t nx = (size_t)m->nstate, nf = (size_t)m->nforce, nu = (size_t)m->ninput;
    sim->x = calloc(nx + nf + nu + 1, sizeof(double));
    if (!sim->x || rs_step_result_init(&sim->res, m) != RS_OK ||
        rs_step_result_init(&sim->fallback, m) != RS_OK) {
        rs_sim_destroy(sim);
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory for the simulation's %zu "
                             "columns", nx + nf + nu);
    }
    sim->f = sim->x + nx;
    sim->u = sim->f + nf;
    memcpy(sim->x, sc->initial, sizeof(double) * nx);
    const rs_stepper_config cfg = rs_scenario_stepper_config(sc);
    const rs_error err = rs_stepper_create(&cfg, &sim->stepper);
    if (err != RS_OK) {
        rs_sim_destroy(sim);
        return rs_detail_set(detail, err, "the stepper could not be set up for this scenario's "
                                          "model: %s", rs_error_string(err));
    }
    *out = sim;
    return RS_OK;
}

static void info_of(const rs_step_result *r, int lemke, int k, rs_sim_step_info *info)
{
    *info = (rs_sim_step_info){
        .size = sizeof *info,
        .step = k,
        .ok = r->ok,
        .status = r->status,
        .status_name = lemke ? rs_lemke_status_name((rs_lemke_status)r->status)
                             : rs_nlp_status_name((rs_nlp_status)r->status),
        .path = lemke ? "lemke" : rs_nlp_path_name(r->path),
        .iterations = r->iterations,
        .lcp_size = r->lcp_size,
        .primal = r->primal,
        .complementarity = r->complementarity,
        .time_s = r->time_s,
    };
}

/* The largest |value| of a state or input component, as a scenario file allows (beyond it the
 * step's natural units leave double precision's reach). */
#define RS_SIM_VALUE_MAX 1e12

/* Each of the n values finite (RS_ERR_NONFINITE) and within RS_SIM_VALUE_MAX (RS_ERR_BAD_ARG),
 * the offending one named in detail as "what: name = value". */
static rs_error values_in_range(const char *what, const char *const *names, const double *v,
                                int n, rs_error_detail *detail)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return rs_detail_set(detail, RS_ERR_NONFINITE, "%s: %s = %g is not finite", what,
                                 names[i], v[i]);
        if (!(fabs(v[i]) <= RS_SIM_VALUE_MAX))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: %s = %g is beyond %g (a "
                                 "scenario's range)", what, names[i], v[i], RS_SIM_VALUE_MAX);
    }
    return RS_OK;
}

/* The model's domain for a state a run can reach with an input: its check_reached (overlaps and
 * penetrations up to a step's length), else its check_step; RS_ERR_BAD_ARG and what is wrong in
 * detail, RS_ERR_NOMEM if it could not check. */
static rs_error sim_domain(const rs_sim *sim, const double *state, const double *input,
                           rs_error_detail *detail)
{
    const rs_scenario *sc = sim->sc;
    const rs_model *m = sc->model;
    rs_error (*check)(const rs_step_data *, rs_error_detail *) =
        m->check_reached ? m->check_reached : m->check_step;
    if (!check)
        return RS_OK;
    const rs_step_data d = {sc->params, state, input, sc->dt, sc->variant, &sc->nlp, sc->scene,
                            0, NULL};
    return check(&d, detail);
}

/* sim_domain of state with the scenario's input of the next step (the one a step without a
 * caller's input takes). */
static rs_error domain_with_next_input(const rs_sim *sim, const double *state,
                                       rs_error_detail *detail)
{
    double *u = malloc(sizeof(double) * ((size_t)sim->sc->model->ninput + 1));
    if (!u)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    rs_scenario_input(sim->sc, sim->k, u);
    const rs_error err = sim_domain(sim, state, u, detail);
    free(u);
    return err;
}

rs_error rs_sim_check_state(const rs_sim *sim, const double *state, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || !state)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !sim ? "sim" : "state");
    const rs_model *m = sim->sc->model;
    const rs_error range = values_in_range("state", m->state_names, state, m->nstate, detail);
    if (range != RS_OK)
        return range;
    rs_error_detail why;
    const rs_error err = domain_with_next_input(sim, state, &why);
    return err == RS_OK ? RS_OK : rs_detail_set(detail, err, "state: %s", why.message);
}

rs_error rs_sim_check_input(const rs_sim *sim, const double *input, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || (!input && sim->sc->model->ninput > 0))
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !sim ? "sim" : "input");
    const rs_model *m = sim->sc->model;
    const rs_error range = values_in_range("input", m->input_names, input, m->ninput, detail);
    if (range != RS_OK || !m->check_reads_input)
        return range; /* the model's domain is the state's alone */
    /* The input's own part of the domain: refused only where the current state passes with the
     * scenario's input of this step. A state outside the domain (left by a failed step) is the
     * step's to report, as a failed status, not the input's. */
    rs_error_detail why;
    const rs_error state_err = domain_with_next_input(sim, sim->x, &why);
    if (state_err == RS_ERR_NOMEM)
        return rs_detail_set(detail, state_err, "input: %s", why.message);
    const rs_error err = state_err == RS_OK ? sim_domain(sim, sim->x, input, &why) : RS_OK;
    return err == RS_OK ? RS_OK : rs_detail_set(detail, err, "input: %s", why.message);
}

rs_error rs_sim_step(rs_sim *sim, const double *input, rs_sim_step_info *info,
                     rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "sim: NULL");
    if (info) {
        const rs_error bad = RS_SIZE_OK(info, rs_sim_step_info, "info", detail);
        if (bad != RS_OK)
            return bad; /* no step taken */
    }
    const rs_model *m = sim->sc->model;
    if (input) {
        const rs_error err = rs_sim_check_input(sim, input, detail);
        if (err != RS_OK)
            return err; /* no step taken: detail says why */
        memcpy(sim->u, input, sizeof(double) * (size_t)m->ninput);
    } else {
        rs_scenario_input(sim->sc, sim->k, sim->u);
    }
    const int lemke = sim->backend == RS_SIM_LEMKE;
    assert(sim->stepper && sim->x && sim->k >= 0 && sim->failed <= sim->k);
    const rs_step_result *next = &sim->res;
    int fallback = 0;
    if (lemke) {
        rs_stepper_lemke(sim->stepper, sim->x, sim->u, &sim->res);
    } else {
        rs_stepper_nlp(sim->stepper, sim->x, sim->u, &sim->res);
        const int solve_fallback =
            !sim->res.ok && sim->sc->on_nlp_failure == RS_ON_FAILURE_LEMKE;
        if (solve_fallback) /* (Lemke's answer from the same state: rs_run_next's rule) */
            rs_stepper_lemke(sim->stepper, sim->x, sim->u, &sim->fallback);
        next = rs_run_next(sim->sc->on_nlp_failure, &sim->res,
                           solve_fallback ? &sim->fallback : NULL, &fallback);
    }
    (void)rs_run_advance(m, next, sim->x); /* (a non-finite state: it stays, a failed step) */
    memcpy(sim->f, next->forces, sizeof(double) * (size_t)m->nforce);
    sim->last = next;
    sim->failed += !sim->res.ok;
    if (info) {
        info_of(&sim->res, lemke, sim->k, info);
        info->fallback = fallback;
    }
    sim->k++;
    return RS_OK;
}

rs_error rs_sim_run(rs_sim *sim, int n, const double *inputs, double *states, double *forces,
                    int stop_on_failure, int *done, rs_sim_step_info *info,
                    rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (done)
        *done = 0;
    if (info) {
        const rs_error bad = RS_SIZE_OK(info, rs_sim_step_info, "info", detail);
        if (bad != RS_OK)
            return bad; /* nothing written into it, no step taken */
        /* no step taken (n = 0): a record that says so */
        *info = (rs_sim_step_info){
            .size = sizeof *info, .step = -1, .status_name = "none", .path = "none"};
    }
    if (!sim)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "sim: NULL");
    if (n < 0)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "n = %d: a count of steps is >= 0", n);
    const rs_model *m = sim->sc->model;
    const size_t nx = (size_t)m->nstate, nf = (size_t)m->nforce, nu = (size_t)m->ninput;
    for (int k = 0; inputs && k < n; k++) { /* every row before the first step: nothing taken */
        rs_error_detail why;
        const rs_error range =
            values_in_range("input", m->input_names, inputs + (size_t)k * nu, (int)nu, &why);
        if (range != RS_OK)
            return rs_detail_set(detail, range, "inputs row %d: %s; no step taken", k,
                                 why.message);
    }
    rs_sim_step_info last = {.size = sizeof last};
    for (int k = 0; k < n; k++) {
        rs_error_detail why;
        const rs_error err =
            rs_sim_step(sim, inputs ? inputs + (size_t)k * nu : NULL, &last, &why);
        if (err != RS_OK)
            return rs_detail_set(detail, err, "%s %d: %s (%d step%s taken)",
                                 inputs ? "inputs row" : "step", k, why.message, k,
                                 k == 1 ? "" : "s");
        if (states)
            memcpy(states + (size_t)k * nx, sim->x, sizeof(double) * nx);
        if (forces)
            memcpy(forces + (size_t)k * nf, sim->f, sizeof(double) * nf);
        if (done)
            *done = k + 1;
        if (info)
            *info = last;
        if (stop_on_failure && !last.ok)
            break;
    }
    return RS_OK;
}

rs_error rs_sim_state(const rs_sim *sim, double *state, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || !state)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !sim ? "sim" : "state");
    memcpy(state, sim->x, sizeof(double) * (size_t)sim->sc->model->nstate);
    return RS_OK;
}

rs_error rs_sim_forces(const rs_sim *sim, double *forces, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || (!forces && sim->sc->model->nforce > 0))
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !sim ? "sim" : "forces");
    memcpy(forces, sim->f, sizeof(double) * (size_t)sim->sc->model->nforce);
    return RS_OK;
}

rs_error rs_sim_contacts(const rs_sim *sim, rs_sim_contact *contacts, int cap, int *n,
                         rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || !n || (cap > 0 && !contacts))
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL",
                             !sim ? "sim" : !n ? "n" : "contacts");
    *n = 0;
    const rs_model *m = sim->sc->model;
    if (!m->contact_geometry)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "model %s has no per-contact output: its "
                             "forces are per body (rs_sim_forces); a scene of bodies (the bodies "
                             "model) reports each contact", m->name);
    if (cap < 0)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "cap = %d: expected >= 0", cap);
    const rs_error bad = cap > 0 ? RS_SIZE_OK(&contacts[0], rs_sim_contact, "contacts", detail) : RS_OK;
    if (bad != RS_OK)
        return bad;
    const rs_step_result *r = sim->last;
    const rs_scene *scene = sim->sc->scene;
    *n = r && r->geometry ? r->ncontact : 0;
    for (int i = 0; i < *n && i < cap; i++) {
        const rs_contact_geometry *g = &r->geometry[i];
        contacts[i] = (rs_sim_contact){sizeof(rs_sim_contact),
                                       g->a,
                                       g->b,
                                       rs_scene_body_name(scene, g->a),
                                       rs_scene_body_name(scene, g->b),
                                       {g->point[0], g->point[1]},
                                       {g->normal[0], g->normal[1]},
                                       g->gap,
                                       r->contact[2 * i],
                                       r->contact[2 * i + 1]};
    }
    return RS_OK;
}

rs_error rs_sim_set_state(rs_sim *sim, const double *state, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || !state)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !sim ? "sim" : "state");
    const int n = sim->sc->model->nstate;
    const rs_error err = rs_sim_check_state(sim, state, detail);
    if (err != RS_OK)
        return err; /* the state stays: detail says why */
    memcpy(sim->x, state, sizeof(double) * (size_t)n);
    memset(sim->f, 0, sizeof(double) * (size_t)sim->sc->model->nforce); /* no step from it yet */
    sim->last = NULL;
    rs_stepper_reset(sim->stepper); /* a warm start belongs to the state it came from */
    return RS_OK;
}

int rs_sim_step_count(const rs_sim *sim)
{
    return sim ? sim->k : 0;
}

double rs_sim_time(const rs_sim *sim)
{
    return sim ? sim->k * sim->sc->dt : 0.0;
}

int rs_sim_failed_steps(const rs_sim *sim)
{
    return sim ? sim->failed : 0;
}

void rs_sim_snapshot_free(rs_sim_snapshot *snapshot)
{
    if (!snapshot)
        return;
    rs_stepper_snapshot_free(&snapshot->warm);
    free(snapshot->x);
    release(snapshot->owner);
    free(snapshot);
}

rs_error rs_sim_save(const rs_sim *sim, rs_sim_snapshot **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no place for the snapshot (out)");
    *out = NULL;
    if (!sim)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "sim: NULL");
    const rs_model *m = sim->sc->model;
    rs_sim_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory for the snapshot");
    s->owner = retain(sim->owner);
    s->x = malloc(sizeof(double) * (size_t)(m->nstate + m->nforce + 1));
    if (!s->x || rs_stepper_save(sim->stepper, &s->warm) != RS_OK) {
        rs_sim_snapshot_free(s);
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory for the snapshot's state "
                             "and warm start");
    }
    s->f = s->x + m->nstate;
    memcpy(s->x, sim->x, sizeof(double) * (size_t)m->nstate);
    memcpy(s->f, sim->f, sizeof(double) * (size_t)m->nforce);
    s->k = sim->k;
    s->failed = sim->failed;
    *out = s;
    return RS_OK;
}

rs_error rs_sim_restore(rs_sim *sim, const rs_sim_snapshot *snapshot,
                        rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sim || !snapshot)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL", !sim ? "sim" : "snapshot");
    if (snapshot->owner != sim->owner) /* held by both: the same scenario, never a reused one */
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "the snapshot was saved from a simulation of another scenario "
                             "(restore takes one of the same scenario handle)");
    const rs_model *m = sim->sc->model;
    if (rs_stepper_restore(sim->stepper, &snapshot->warm) != RS_OK)
        rs_stepper_reset(sim->stepper); /* sizes it cannot take: solve on without it */
    memcpy(sim->x, snapshot->x, sizeof(double) * (size_t)m->nstate);
    memcpy(sim->f, snapshot->f, sizeof(double) * (size_t)m->nforce);
    sim->last = NULL; /* (the snapshot keeps no contacts) */
    sim->k = snapshot->k;
    sim->failed = snapshot->failed;
    return RS_OK;
}

/* ---- comparisons --------------------------------------------------------------------------- */

const char *rs_sim_verdict_name(int verdict)
{
    return verdict >= 0 && verdict < RS_VERDICT_COUNT ? rs_verdict_name((rs_verdict)verdict)
                                                       : "unknown";
}

typedef struct compare_sink {
    rs_sim_step_fn fn;
    void *ctx;
    int stop; /* the callback asked to stop */
} compare_sink;

static void compare_step(void *ctx, int k, const rs_compare_step *st)
{
    compare_sink *sink = ctx;
    /* the NLP trajectory's state: on a fallback step ([run] on_nlp_failure = lemke), Lemke's
     * answer from the same state, which the trajectory went on from */
    const rs_step_result *traj = st->fallback ? &st->shadow : &st->nlp;
    rs_sim_compare_step out = {
        .size = sizeof out,
        .step = k,
        .verdict = (rs_sim_verdict)st->verdict,
        .input = st->input,
        .nlp_state = traj->state_next,
        .nlp_forces = traj->forces,
        .shadow_state = st->shadow.state_next,
        .shadow_forces = st->shadow.forces,
        .lemke_state = st->lemke.state_next,
        .lemke_forces = st->lemke.forces,
        .difference = st->diff,
    };
    info_of(&st->nlp, 0, k, &out.nlp);
    out.nlp.fallback = st->fallback;
    info_of(&st->shadow, 1, k, &out.shadow);
    info_of(&st->lemke, 1, k, &out.lemke);
    sink->stop = sink->fn(sink->ctx, &out) != 0;
}

rs_error rs_sim_compare(const rs_sim_scenario *scenario, rs_sim_step_fn on_step, void *ctx,
                        rs_sim_comparison **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no place for the comparison (out)");
    *out = NULL;
    if (!scenario)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "no scenario");
    rs_sim_comparison *c = calloc(1, sizeof *c);
    if (!c)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    compare_sink sink = {on_step, ctx, 0};
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    opt.keep_steps = 0;
    if (on_step) {
        opt.sink = compare_step;
        opt.sink_ctx = &sink;
    }
    /* step by step (rs_compare_run_with's loop), so that the callback can stop the run */
    rs_compare_session *cs = NULL;
    const rs_scenario *sc = &scenario->sc;
    const rs_error err = rs_compare_begin_with(sc, RS_RUN_COMPARE, &opt, &c->r, &cs);
    if (err != RS_OK) {
        free(c);
        return rs_detail_set(detail, err, "the comparison could not be set up for this "
                                          "scenario: %s", rs_error_string(err));
    }
    for (int k = 0; k < sc->steps; k++) {
        rs_compare_input(cs, k);
        rs_compare_advance(cs, k, NULL);
        if (sink.stop) {
            rs_compare_abort(cs); /* (frees the result) */
            free(c);
            return rs_detail_set(detail, RS_ERR_STOPPED,
                                 "the step callback asked to stop after step %d of %d", k,
                                 sc->steps);
        }
    }
    const rs_error end = rs_compare_end(cs); /* (frees the session, also on error) */
    if (end != RS_OK) {
        rs_compare_free(&c->r);
        free(c);
        return rs_detail_set(detail, end, "the comparison's statistics: %s",
                             rs_error_string(end));
    }
    c->owner = retain(scenario);
    *out = c;
    return RS_OK;
}

rs_error rs_sim_comparison_get_info(const rs_sim_comparison *comparison,
                                    rs_sim_compare_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!comparison || !info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL",
                             !comparison ? "comparison" : "info");
    const rs_error bad = RS_SIZE_OK(info, rs_sim_compare_info, "info", detail);
    if (bad != RS_OK)
        return bad;
    const rs_compare_result *r = &comparison->r;
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    info->steps = r->steps;
    info->nlp_failed_steps = r->nlp.failed_steps;
    info->lemke_failed_steps = r->lemke.failed_steps;
    info->shadow_failed_steps = r->shadow_failed_steps;
    info->fallback_steps = r->fallback_steps;
    for (int v = 0; v < RS_SIM_VERDICT_COUNT && v < RS_VERDICT_COUNT; v++)
        info->verdicts[v] = r->verdicts[v];
    info->mode_agreement = r->mode_agreement;
    info->nchecks = r->nchecks;
    info->contract_passed = r->contract_passed;
    info->wall_time_s = r->wall_time_s;
    return RS_OK;
}

rs_error rs_sim_comparison_check(const rs_sim_comparison *comparison, int i, rs_sim_check *out,
                                 rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!comparison || !out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL",
                             !comparison ? "comparison" : "out");
    const rs_error bad = RS_SIZE_OK(out, rs_sim_check, "out", detail);
    if (bad != RS_OK)
        return bad;
    if (i < 0 || i >= comparison->r.nchecks)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "check %d: the comparison has %d", i,
                             comparison->r.nchecks);
    const rs_check_result *c = &comparison->r.checks[i];
    *out = (rs_sim_check){sizeof *out, c->check->text, c->which, c->passed, c->actual};
    return RS_OK;
}

rs_error rs_sim_comparison_final(const rs_sim_comparison *comparison, rs_sim_backend trajectory,
                                 double *columns, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!comparison || !columns)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "%s: NULL",
                             !comparison ? "comparison" : "columns");
    if (trajectory != RS_SIM_NLP && trajectory != RS_SIM_LEMKE)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "trajectory = %d: neither RS_SIM_NLP nor RS_SIM_LEMKE",
                             (int)trajectory);
    const rs_compare_result *r = &comparison->r;
    const rs_trajectory_stats *t = trajectory == RS_SIM_NLP ? &r->nlp : &r->lemke;
    memcpy(columns, t->final, sizeof(double) * (size_t)r->ncol);
    return RS_OK;
}

void rs_sim_comparison_free(rs_sim_comparison *comparison)
{
    if (!comparison)
        return;
    rs_compare_free(&comparison->r);
    release(comparison->owner);
    free(comparison);
}

/* ---- models -------------------------------------------------------------------------------- */

int rs_sim_model_count(void)
{
    return rs_model_count();
}

/* RS_ERR_DIMENSION for a model index out of range, with the count. */
static rs_error no_model(int i, rs_error_detail *detail)
{
    return rs_detail_set(detail, RS_ERR_DIMENSION, "model %d: there are %d (0 .. %d)", i,
                         rs_model_count(), rs_model_count() - 1);
}

rs_error rs_sim_model_get_info(int i, rs_sim_model_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "info: NULL");
    const rs_error bad = RS_SIZE_OK(info, rs_sim_model_info, "info", detail);
    if (bad != RS_OK)
        return bad;
    const rs_model *m = rs_model_at(i);
    if (!m)
        return no_model(i, detail);
    *info = (rs_sim_model_info){
        .size = sizeof *info,
        .name = m->name,
        .summary = m->summary,
        .source = m->source,
        .nparams = m->nparams,
        .nvariants = m->nvariants,
        .needs_scene = m->needs_scene,
        .from_scene = m->instantiate != NULL,
        .variant_key = m->variant_key ? m->variant_key : "variant",
        .nstate = m->nstate,
        .ninput = m->ninput,
        .nforce = m->nforce,
        .lcp_per_step = m->lcp_size != NULL,
        .lcp_n = m->lcp_n,
        .own_nlp = rs_model_own_nlp(m),
    };
    return RS_OK;
}

const char *rs_sim_model_column(int i, rs_sim_column_kind kind, int j)
{
    return model_column(rs_model_at(i), kind, j);
}

rs_error rs_sim_model_initial(int i, double *state, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    const rs_model *m = rs_model_at(i);
    if (!m)
        return no_model(i, detail);
    if (!state)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "state: NULL");
    memcpy(state, m->state_default, sizeof(double) * (size_t)m->nstate);
    return RS_OK;
}

rs_error rs_sim_model_param(int i, int j, rs_sim_param *out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "out: NULL");
    const rs_error bad = RS_SIZE_OK(out, rs_sim_param, "out", detail);
    if (bad != RS_OK)
        return bad;
    const rs_model *m = rs_model_at(i);
    if (!m)
        return no_model(i, detail);
    if (j < 0 || j >= m->nparams)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "parameter %d: %s has %d (0 .. %d)", j,
                             m->name, m->nparams, m->nparams - 1);
    param_of(&m->params[j], m->params[j].value, out);
    return RS_OK;
}

const char *rs_sim_model_variant(int i, int v)
{
    const rs_model *m = rs_model_at(i);
    return m && v >= 0 && v < m->nvariants ? m->variants[v] : NULL;
}
