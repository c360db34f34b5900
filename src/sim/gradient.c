/* gradient.c: forward-mode gradients of a run through its Lemke and its NLP trajectory, and the
 * central differences that audit them (see gradient.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "core/timer.h"
#include "nlp/kkt_sensitivity.h"
#include "nlp/lcp_relaxation.h"
#include "relaxsim/lcp_derivative.h"
#include "sim/gradient.h"
#include "sim/stepper.h"

/* The arrays of one trajectory's derivatives: per key its state tangent and step tangent, and
 * the LCP-sized ones for the largest step LCP met (grown as larger ones come: a model whose
 * step sizes follow its contacts). */
typedef struct grad_work {
    int n, nk;                 /* LCP capacity, keys */
    double *lcp;               /* n-sized: M, q, z, C, D, w_unit, dMs, dqs, dzs, dw; per key dM,
                                  dq, dz; dgrad, dg, dx (2n per key) */
    rs_lcp_index_class *cls;   /* n */
    double *state;             /* x, u, T (nk ns), the tangents' params/state/input, dsn, df */
    double *M, *q, *z, *C, *D, *w_unit, *dMs, *dqs, *dzs, *dw, *dM, *dq, *dz, *dgrad, *dg, *dx;
    double *x, *u, *T, *dsn, *df;
    rs_step_tangent t[RS_GRAD_MAX_KEYS];
} grad_work;

static void work_free(grad_work *w)
{
    free(w->lcp);
    free(w->cls);
    free(w->state);
    memset(w, 0, sizeof *w);
}

/* The model-sized arrays for nk keys; the LCP-sized ones come with work_lcp. */
static rs_error work_init(grad_work *w, const rs_model *m, int nk)
{
    memset(w, 0, sizeof *w);
    const size_t ns = (size_t)m->nstate, nin = (size_t)m->ninput, np = (size_t)m->nparams;
    const size_t per_key = ns + np + ns + nin; /* T row, then the tangent's params, state, input */
    w->state = calloc(ns + nin + (size_t)nk * per_key + ns + (size_t)m->nforce + 1,
                      sizeof(double));
    if (!w->state)
        return RS_ERR_NOMEM;
    w->nk = nk;
    w->x = w->state;
    w->u = w->x + ns;
    w->T = w->u + nin;
    double *t = w->T + (size_t)nk * ns;
    for (int j = 0; j < nk; j++) {
        w->t[j].params = t;
        w->t[j].state = t + np;
        w->t[j].input = t + np + ns;
        t += np + ns + nin;
    }
    w->dsn = t;
    w->df = w->dsn + ns;
    return RS_OK;
}

/* The LCP-sized arrays for size n (kept when large enough). */
static rs_error work_lcp(grad_work *w, int n)
{
    if (n <= w->n && w->lcp)
        return RS_OK;
    const size_t nn = (size_t)n, nk = w->nk > 0 ? (size_t)w->nk : 1; /* (one for the classes) */
    double *lcp = malloc(sizeof(double) * (2 * nn * nn + 9 * nn + nk * (nn * nn + 2 * nn) +
                                           3 * nk * 2 * nn + 1));
    rs_lcp_index_class *cls = calloc(nn + 1, sizeof *cls);
    if (!lcp || !cls) {
        free(lcp);
        free(cls);
        return RS_ERR_NOMEM;
    }
    free(w->lcp);
    free(w->cls);
    w->lcp = lcp;
    w->cls = cls;
    w->n = n;
    w->M = lcp;
    w->q = w->M + nn * nn;
    w->z = w->q + nn;
    w->C = w->z + nn;
    w->D = w->C + nn;
    w->w_unit = w->D + nn;
    w->dMs = w->w_unit + nn;
    w->dqs = w->dMs + nn * nn;
    w->dzs = w->dqs + nn;
    w->dw = w->dzs + nn;
    w->dM = w->dw + nn;
    w->dq = w->dM + nk * nn * nn;
    w->dz = w->dq + nk * nn;
    w->dgrad = w->dz + nk * nn;
    w->dg = w->dgrad + nk * 2 * nn;
    w->dx = w->dg + nk * 2 * nn;
    return RS_OK;
}

/* What a trajectory run of the gradient holds: its scratch (w: model-sized for nk keys, and
 * LCP-sized with lcp), a step's result (r) and a stepper of sc (st). run_close frees them,
 * after an error too (whatever was not made is zeroed). */
static rs_error run_open(const rs_scenario *sc, int nk, int lcp, grad_work *w, rs_step_result *r,
                         rs_stepper **st)
{
    const rs_model *m = sc->model;
    rs_stepper_config cfg = rs_scenario_stepper_config(sc);
    cfg.warm_max_iter = 0; /* IPOPT's own path, as unpolished: a warm solve to nlp.max_iter (a
                              cold answer at a loose tol is another point, and its KKT
                              sensitivity another derivative) */
    memset(w, 0, sizeof *w);
    memset(r, 0, sizeof *r);
    *st = NULL;
    rs_error err = work_init(w, m, nk);
    if (err == RS_OK && lcp)
        err = work_lcp(w, m->lcp_n);
    if (err == RS_OK)
        err = rs_step_result_init(r, m);
    if (err == RS_OK)
        err = rs_stepper_create(&cfg, st);
    return err;
}

static void run_close(grad_work *w, rs_step_result *r, rs_stepper *st)
{
    rs_stepper_destroy(st);
    rs_step_result_free(r);
    work_free(w);
}
#define FD_NOISE 1e-13 /* relative rounding of a trajectory's output (gradient.h) */

void rs_grad_config_default(rs_grad_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->fd_rel = 1e-6;
    cfg->rtol = 1e-6;
    cfg->fd_nlp_rel = 1e-4;
}

const char *rs_grad_verdict_name(rs_grad_verdict v)
{
    static const char *const names[RS_GRAD_VERDICT_COUNT] = {"agree", "relaxation_bias",
                                                             "non_smooth", "disagree", "failed"};
    return (int)v >= 0 && v < RS_GRAD_VERDICT_COUNT ? names[v] : "unknown";
}

/* ---- keys and outputs ------------------------------------------------------------------------ */

/* Index of name in names (with or without its unit suffix), -1 if absent. */
static int find_name(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return rs_column_index(names, count, name);
}

static int find_param(const rs_model *m, const char *name)
{
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return i;
    return -1;
}

/* 1 if the first len characters of text are the section's name. */
static int section_is(const char *text, size_t len, const char *name)
{
    return len == strlen(name) && strncmp(text, name, len) == 0;
}

rs_error rs_grad_parse_key(const rs_scenario *sc, const char *text, rs_grad_key *key,
                           rs_error_detail *detail)
{
    const rs_model *m = sc->model;
    const char *dot = strchr(text, '.');
    char name[48];
    snprintf(name, sizeof name, "%s", dot ? dot + 1 : text);
    const size_t section = dot ? (size_t)(dot - text) : 0;
    if (!*name || strlen(dot ? dot + 1 : text) >= 40)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "a key is a name such as mu, model.mu, initial.xd, input.ux or dt");
    /* NAME@P: piece P of a piecewise input */
    char *at = strrchr(name, '@');
    long piece = -1;
    if (at) {
        char *end;
        piece = strtol(at + 1, &end, 10);
        if (end == at + 1 || *end || piece < 0)
            return rs_detail_set(detail, RS_ERR_PARSE, "a piece of a piecewise input is INPUT@P, "
                                 "P its 0-based index into [input] times");
        *at = '\0';
    }
    int found = 0;
    memset(key, 0, sizeof *key);
    const int p = find_param(m, name);
    if (p >= 0 && (!dot || section_is(text, section, "model"))) {
        *key = (rs_grad_key){RS_GRAD_KEY_PARAM, p, -1, ""};
        found++;
    }
    const int s = rs_column_index(m->state_names, m->nstate, name);
    if (s >= 0 && (!dot || section_is(text, section, "initial"))) {
        *key = (rs_grad_key){RS_GRAD_KEY_INITIAL, s, -1, ""};
        found++;
    }
    const int u = m->ninput > 0 ? rs_column_index(m->input_names, m->ninput, name) : -1;
    if (u >= 0 && (!dot || section_is(text, section, "input"))) {
        *key = (rs_grad_key){RS_GRAD_KEY_INPUT, u, (int)piece, ""};
        found++;
    }
    if (strcmp(name, "dt") == 0 && (!dot || section_is(text, section, "run"))) {
        *key = (rs_grad_key){RS_GRAD_KEY_DT, 0, -1, ""};
        found++;
    }
    if (found > 1)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "ambiguous key: name its section (model., initial., input.)");
    if (found == 0)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "not a number of the scenario that can be differentiated (a model "
                             "parameter, an initial state component, a constant input or dt)");
    if (at && key->kind != RS_GRAD_KEY_INPUT)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "only an input has pieces (INPUT@P, a piecewise input)");
    const rs_input_schedule *in = &sc->input;
    if (key->kind == RS_GRAD_KEY_INPUT && (in->kind == RS_INPUT_PIECEWISE) != (piece >= 0))
        return rs_detail_set(detail, RS_ERR_PARSE,
                             piece >= 0 ? "a piece of an input needs [input] type = piecewise%.0s"
                                        : "the input is piecewise: name one piece's value, %s@P "
                                          "(P from 0 to the number of times - 1)",
                             name);
    if (piece >= in->npieces && key->kind == RS_GRAD_KEY_INPUT)
        return rs_detail_set(detail, RS_ERR_PARSE, "the input has %d pieces (0 to %d)",
                             in->npieces, in->npieces - 1);
    if (key->kind == RS_GRAD_KEY_INPUT && piece >= 0 && in->nvalues[key->index] == 0)
        return rs_detail_set(detail, RS_ERR_PARSE, "[input] gives %s no values", name);
    if (key->kind == RS_GRAD_KEY_PARAM && m->params[key->index].multiple_of > 0.0)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "model.%s takes whole values only: no derivative with respect to it",
                             name);
    static const char *const sections[] = {"model", "initial", "input", "run"};
    if (piece >= 0)
        snprintf(key->name, sizeof key->name, "%.7s.%.39s@%d", sections[key->kind], name,
                 (int)piece); /* (piece < npieces) */
    else
        snprintf(key->name, sizeof key->name, "%.7s.%.39s", sections[key->kind], name);
    rs_detail_clear(detail);
    return RS_OK;
}

rs_error rs_grad_parse_output(const rs_scenario *sc, const char *text, rs_grad_output *out,
                              rs_error_detail *detail)
{
    const rs_model *m = sc->model;
    char name[64];
    snprintf(name, sizeof name, "%s", text);
    char *at = strchr(name, '@');
    out->step = sc->steps;
    if (at) {
        *at = '\0';
        char *end;
        const long k = strtol(at + 1, &end, 10);
        if (end == at + 1 || *end || k < 0 || k >= sc->steps)
            return rs_detail_set(detail, RS_ERR_PARSE,
                                 "expected COLUMN@STEP with STEP in 0 .. [run] steps - 1 (the "
                                 "trajectory CSV's step: the value at t = (STEP + 1) dt)");
        out->step = (int)k + 1;
    }
    int c = find_name(m->state_names, m->nstate, name);
    if (c < 0 && m->nforce > 0) {
        const int f = find_name(m->force_names, m->nforce, name);
        c = f >= 0 ? m->nstate + f : -1;
    }
    if (c < 0)
        return rs_detail_set(detail, RS_ERR_PARSE, "not a state or force column of the model");
    out->column = c;
    const char *full = c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
    snprintf(out->name, sizeof out->name, "%.40s@%d", full, out->step - 1);
    rs_detail_clear(detail);
    return RS_OK;
}

double rs_grad_key_value(const rs_scenario *sc, const rs_grad_key *key)
{
    switch (key->kind) {
    case RS_GRAD_KEY_PARAM:
        return sc->params[key->index];
    case RS_GRAD_KEY_INITIAL:
        return sc->initial[key->index];
    case RS_GRAD_KEY_INPUT:
        return key->piece >= 0 ? sc->input.values[key->index][key->piece]
                               : sc->input.constant[key->index];
    case RS_GRAD_KEY_DT:
        return sc->dt;
    }
    return NAN;
}

void rs_grad_key_set(rs_scenario *sc, const rs_grad_key *key, double v)
{
    switch (key->kind) {
    case RS_GRAD_KEY_PARAM:
        sc->params[key->index] = v;
        break;
    case RS_GRAD_KEY_INITIAL:
        sc->initial[key->index] = v;
        break;
    case RS_GRAD_KEY_INPUT:
        if (key->piece >= 0)
            sc->input.values[key->index][key->piece] = v;
        if (key->piece <= 0) /* (the constant is the first piece's value) */
            sc->input.constant[key->index] = v;
        break;
    case RS_GRAD_KEY_DT:
        sc->dt = v;
        break;
    }
}

rs_error rs_grad_check_scenario(const rs_scenario *sc, const rs_grad_config *cfg,
                                rs_error_detail *detail)
{
    const rs_model *m = sc->model;
    if (!m->lcp_tangent)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "the model has no step derivatives "
                                                     "(lcp_tangent, lcp_recover_tangent)");
    if (!m->lcp_units)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "the model's LCP has no units to pose its relaxation in (the NLP "
                             "gradient)");
    if (sc->input.in_weights)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "[input] unit = weight makes the input depend on the parameters: "
                             "state the input in newtons for gradients");
    for (int j = 0; j < cfg->nkeys; j++) {
        if (cfg->keys[j].kind == RS_GRAD_KEY_INPUT && sc->input.kind == RS_INPUT_RANDOM)
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "an input key needs [input] type = "
                                 "constant, or piecewise and a piece (INPUT@P)");
        if (cfg->keys[j].kind == RS_GRAD_KEY_DT && sc->input.kind == RS_INPUT_PIECEWISE)
            return rs_detail_set(detail, RS_ERR_BAD_ARG,
                                 "a dt gradient needs an input that does not change with time (a "
                                 "piecewise input's switches move with dt)");
    }
    rs_detail_clear(detail);
    return RS_OK;
}

/* ---- one trajectory ------------------------------------------------------------------------- */

/* The step data a stepper hands its model (for the tangent callbacks). */
static rs_step_data step_data(const rs_scenario *sc, const double *state, const double *input);

rs_error rs_grad_scenario_valid(const rs_scenario *sc, rs_error_detail *detail)
{
    const rs_model *m = sc->model;
    for (int i = 0; i < m->nparams; i++)
        if (!(sc->params[i] >= m->params[i].lo && sc->params[i] <= m->params[i].hi))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "model.%s = %g is outside its range "
                                 "[%g, %g] (relaxsim models)", m->params[i].name, sc->params[i],
                                 m->params[i].lo, m->params[i].hi);
    if (!(sc->dt >= 1e-12 && sc->dt <= 10.0))
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "dt = %g s is outside [1e-12, 10] s", sc->dt);
    double small[16], *u = m->ninput <= 16 ? small : calloc((size_t)m->ninput, sizeof *u);
    if (!u)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    rs_scenario_input(sc, 0, u);
    const rs_step_data d = step_data(sc, sc->initial, u);
    const rs_error err = m->check_step ? m->check_step(&d, detail) : RS_OK;
    if (u != small)
        free(u);
    if (err == RS_OK)
        rs_detail_clear(detail);
    return err;
}

/* The tangent of step k's data along key j: a unit in the key's own slot (a piece of an input:
 * in the steps that take their input from that piece, piece_now), the state tangent (t's arrays
 * sized for m). */
static void step_tangent(const rs_model *m, const rs_grad_key *key, int piece_now,
                         const double *state_tangent, rs_step_tangent *t)
{
    memset(t->params, 0, sizeof(double) * (size_t)m->nparams);
    memset(t->input, 0, sizeof(double) * (size_t)m->ninput);
    t->dt = 0.0;
    memcpy(t->state, state_tangent, sizeof(double) * (size_t)m->nstate);
    switch (key->kind) {
    case RS_GRAD_KEY_PARAM:
        t->params[key->index] = 1.0;
        break;
    case RS_GRAD_KEY_INPUT:
        t->input[key->index] = key->piece < 0 || key->piece == piece_now ? 1.0 : 0.0;
        break;
    case RS_GRAD_KEY_DT:
        t->dt = 1.0;
        break;
    case RS_GRAD_KEY_INITIAL:
        break; /* enters through the initial state tangent only */
    }
}

/* The step data a stepper hands its model (for the tangent callbacks). */
static rs_step_data step_data(const rs_scenario *sc, const double *state, const double *input)
{
    return (rs_step_data){sc->params, state, input, sc->dt, sc->variant, &sc->nlp, sc->scene, 0,
                          NULL};
}

/* dw = dM z + M dz + dq. */
static void pair_tangent(int n, const double *M, const double *z, const double *dM,
                         const double *dq, const double *dz, double *dw)
{
    for (int i = 0; i < n; i++) {
        double v = dq[i];
        for (int j = 0; j < n; j++)
            v += dM[i + (size_t)j * n] * z[j] + M[i + (size_t)j * n] * dz[j];
        dw[i] = v;
    }
}

/* A step's LCP in the model's natural units (rs_model.lcp_units): Ms = D M C, qs = D q,
 * zs = C^-1 z with C = diag(z_unit), D = diag(1 / w_unit). Its index sets are decided there, to
 * index_tol of a unit (z_floor = w_floor = 1): a speed of 1e-17 m/s where the step moves at 1 m/s
 * is zero, whatever the size of the other components. */
typedef struct unit_lcp {
    int n;
    double *M, *q, *z, *C, *D, *w_unit;
    double *dMs, *dqs, *dzs; /* the derivative's workspace */
} unit_lcp;

static void to_units(const rs_model *m, const rs_step_data *d, int n, const double *M,
                     const double *q, const double *z, unit_lcp *u)
{
    u->n = n;
    m->lcp_units(d, u->C, u->w_unit);
    for (int i = 0; i < n; i++)
        u->D[i] = 1.0 / u->w_unit[i];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            u->M[i + (size_t)j * n] = u->D[i] * M[i + (size_t)j * n] * u->C[j];
    for (int i = 0; i < n; i++) {
        u->q[i] = u->D[i] * q[i];
        u->z[i] = z[i] / u->C[i];
    }
}

/* dz along (dM, dq) (the model's units; NULL: zero) by the LCP derivative in natural units. */
static rs_error unit_derivative(const unit_lcp *u, const double *dM, const double *dq,
                                rs_lcp_index_class *cls, double *dz, rs_lcp_derivative_info *info)
{
    const int n = u->n;
    double *dMs = u->dMs, *dqs = u->dqs, *dzs = u->dzs;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            dMs[i + (size_t)j * n] = dM ? u->D[i] * dM[i + (size_t)j * n] * u->C[j] : 0.0;
    for (int i = 0; i < n; i++)
        dqs[i] = dq ? u->D[i] * dq[i] : 0.0;
    rs_lcp_derivative_settings st;
    rs_lcp_derivative_settings_default(&st);
    st.z_floor = st.w_floor = 1.0;
    const rs_error err =
        rs_lcp_directional_derivative(n, u->M, u->q, u->z, dMs, dqs, &st, cls, dzs, info, NULL);
    for (int i = 0; err == RS_OK && i < n; i++)
        dz[i] = u->C[i] * dzs[i];
    return err;
}

/* A Lemke trajectory. With tangents (out != NULL): the LCP gradients of every column at every
 * step into out. Always: each step's signature, its contact set's key (models with per-step
 * sizes, else 0) and a hash of its index classes; the values into values (steps x ncol); and the
 * first failed step (-1: none) returned. A model with per-step sizes is differentiated with each
 * step's contact set held fixed: a change of the set between two runs is a switch, like a change
 * of index classes. */
typedef struct run_signature {
    unsigned long long *classes; /* steps: FNV-1a of the step's rs_lcp_index_class values (and
                                    its size); a failed step: all ones */
    unsigned long long *keys;    /* steps */
} run_signature;

static int signature_alloc(run_signature *s, int steps)
{
    s->classes = malloc(sizeof(unsigned long long) * (size_t)steps);
    s->keys = malloc(sizeof(unsigned long long) * (size_t)steps);
    return s->classes && s->keys;
}

static unsigned long long classes_hash(const rs_lcp_index_class *cls, int n)
{
    unsigned long long h = 1469598103934665603ull ^ (unsigned long long)n;
    for (int i = 0; i < n; i++) {
        h ^= (unsigned long long)cls[i] + 1;
        h *= 1099511628211ull;
    }
    return h;
}

static void signature_free(run_signature *s)
{
    free(s->classes);
    free(s->keys);
}

typedef struct lcp_run {
    const rs_scenario *sc;
    const rs_grad_config *cfg;
    rs_grad_result *out; /* NULL: values and signatures only */
    run_signature sig;
    double *values;
} lcp_run;

static int run_lcp(const lcp_run *run)
{
    const rs_scenario *sc = run->sc;
    const rs_model *m = sc->model;
    const int ns = m->nstate, ncol = ns + m->nforce;
    rs_grad_result *out = run->out;
    const int nk = out ? out->nkeys : 0;
    rs_stepper *st;
    grad_work w;
    rs_step_result r;
    if (run_open(sc, nk, 1, &w, &r, &st) != RS_OK) { /* (out of memory): every step failed */
        for (size_t e = 0; e < (size_t)sc->steps * ncol; e++)
            run->values[e] = NAN;
        memset(run->sig.classes, 255, sizeof(unsigned long long) * (size_t)sc->steps);
        memset(run->sig.keys, 0, sizeof(unsigned long long) * (size_t)sc->steps);
        for (size_t e = 0; out && e < (size_t)sc->steps * nk * ncol; e++)
            out->lcp_tangent[e] = NAN;
        if (out)
            out->lcp_failed_steps = sc->steps;
        run_close(&w, &r, st);
        return 0;
    }
    double *x = w.x, *u = w.u;
    memcpy(x, sc->initial, sizeof(double) * (size_t)ns);
    for (int j = 0; j < nk; j++)
        if (run->cfg->keys[j].kind == RS_GRAD_KEY_INITIAL)
            w.T[(size_t)j * ns + run->cfg->keys[j].index] = 1.0;
    int failed = -1, tangents_ok = 1;
    for (int k = 0; k < sc->steps; k++) {
        rs_scenario_input(sc, k, u);
        rs_stepper_lemke(st, x, u, &r);
        const double *M = NULL, *q = NULL, *z = NULL, *wv = NULL;
        const int n = r.ok ? rs_stepper_step_lcp(st, &M, &q, &z, &wv) : 0; /* 0: no contact */
        rs_lcp_derivative_info info = {.size = sizeof info};
        const rs_step_data d = step_data(sc, x, u);
        int deriv_ok = r.ok && work_lcp(&w, n) == RS_OK;
        memset(w.cls, 0, sizeof *w.cls * (size_t)(n > 0 ? n : 1));
        unit_lcp ul = {n, w.M, w.q, w.z, w.C, w.D, w.w_unit, w.dMs, w.dqs, w.dzs};
        if (deriv_ok && n > 0) {
            to_units(m, &d, n, M, q, z, &ul);
            deriv_ok = unit_derivative(&ul, NULL, NULL, w.cls, w.dz, &info) == RS_OK &&
                       info.status != RS_LCP_DERIVATIVE_NOT_SOLUTION;
        }
        if (!deriv_ok && failed < 0)
            failed = k;
        run->sig.keys[k] = 0;
        if (m->lcp_size)
            m->lcp_size(&d, &run->sig.keys[k]);
        run->sig.classes[k] = deriv_ok ? classes_hash(w.cls, n) : ~0ull;
        for (int c = 0; c < ncol; c++)
            run->values[(size_t)k * ncol + c] = c < ns ? r.state_next[c] : r.forces[c - ns];
        if (out) {
            rs_grad_step *gs = &out->step[k];
            gs->lcp_status = !r.ok          ? RS_GRAD_STEP_FAILED
                             : !tangents_ok ? RS_GRAD_AFTER_FAILURE
                                            : (int)info.status;
            gs->nfloating = info.nfloating;
            out->floating_steps += info.nfloating > 0;
            /* the tangents, one key at a time (each its own direction: the one-sided EXACT
             * rule needs it) */
            int ok = deriv_ok && tangents_ok;
            for (int j = 0; ok && j < nk; j++) {
                rs_step_tangent *t = &w.t[j];
                step_tangent(m, &run->cfg->keys[j], rs_scenario_input_piece(sc, k),
                             w.T + (size_t)j * ns, t);
                if (n > 0) { /* (no contact: only the integrator moves) */
                    m->lcp_tangent(&d, t, w.dM, w.dq);
                    rs_lcp_derivative_info di = {.size = sizeof di};
                    if (unit_derivative(&ul, w.dM, w.dq, NULL, w.dz, &di) != RS_OK ||
                        di.status == RS_LCP_DERIVATIVE_NOT_SOLUTION ||
                        di.status == RS_LCP_DERIVATIVE_INCONSISTENT) {
                        ok = 0;
                        gs->lcp_status = (int)di.status;
                        break;
                    }
                    if ((int)di.status > gs->lcp_status) /* singular, or the tie-break */
                        gs->lcp_status = (int)di.status;
                    pair_tangent(n, M, z, w.dM, w.dq, w.dz, w.dw);
                }
                m->lcp_recover_tangent(&d, t, z, wv, w.dz, w.dw, w.dsn, w.df);
                double *tan = out->lcp_tangent + ((size_t)k * nk + j) * ncol;
                for (int c = 0; c < ncol; c++)
                    tan[c] = c < ns ? w.dsn[c] : w.df[c - ns];
                memcpy(w.T + (size_t)j * ns, w.dsn, sizeof(double) * (size_t)ns);
            }
            gs->lcp_ok = ok;
            out->lcp_singular_steps += gs->lcp_status == RS_LCP_DERIVATIVE_SINGULAR;
            out->tiebreak_steps += gs->lcp_status == RS_LCP_DERIVATIVE_FLOATING_FAILED;
            if (!ok) {
                out->lcp_failed_steps += gs->lcp_status != RS_GRAD_AFTER_FAILURE;
                tangents_ok = 0; /* no gradient from here on */
                for (size_t e = 0; e < (size_t)nk * ncol; e++)
                    out->lcp_tangent[(size_t)k * nk * ncol + e] = NAN;
            }
        }
        memcpy(x, r.state_next, sizeof(double) * (size_t)ns);
    }
    run_close(&w, &r, st);
    return failed;
}

/* ---- the NLP trajectory --------------------------------------------------------------------- */

/* The KKT sensitivities of one step's relaxation, for the steps' sizes met (models with
 * per-step sizes: one MUMPS instance per size, created on first use). */
typedef struct sens_cache {
    rs_kkt_sensitivity **by_size; /* 0 .. cap */
    int cap;
} sens_cache;

static rs_kkt_sensitivity *sens_for(sens_cache *c, int n, const rs_nlp_problem *p)
{
    if (n > c->cap || !c->by_size) {
        const int cap = n > 2 * c->cap ? n : 2 * c->cap;
        rs_kkt_sensitivity **more = calloc((size_t)cap + 1, sizeof *more);
        if (!more)
            return NULL;
        if (c->by_size)
            memcpy(more, c->by_size, sizeof *more * ((size_t)c->cap + 1));
        free(c->by_size);
        c->by_size = more;
        c->cap = cap;
    }
    if (!c->by_size[n] && rs_kkt_sensitivity_create(p, &c->by_size[n]) != RS_OK)
        c->by_size[n] = NULL;
    return c->by_size[n];
}

static void sens_free(sens_cache *c)
{
    for (int i = 0; c->by_size && i <= c->cap; i++)
        rs_kkt_sensitivity_destroy(c->by_size[i]);
    free(c->by_size);
    c->by_size = NULL;
}

/* One accepted NLP step's tangents, for every key: dz (nk x n, row j at j n) from the KKT
 * sensitivity of the step's relaxation, with the model's (dM, dq) per key. 0 on failure (gs
 * says why). */
static int nlp_step_tangents(rs_stepper *st, sens_cache *cache, const rs_model *m,
                             const rs_step_data *d, const rs_step_tangent *t, int nk, int n,
                             double mu, grad_work *w, rs_grad_step *gs)
{
    double *dM = w->dM, *dq = w->dq, *dz = w->dz;
    const size_t N = (size_t)w->n; /* the per-key stride */
    rs_stepper_relaxed_step rp;
    if (!rs_stepper_relaxed_point(st, &rp))
        return 0;
    rs_kkt_sensitivity *sens = sens_for(cache, n, rp.problem);
    rs_kkt_sensitivity_info si = {RS_KKT_SENS_FAILED, 0, 0.0};
    int ok = sens && rs_kkt_sensitivity_factor(sens, rp.problem, rp.x, rp.mult_g, rp.mult_x_l,
                                               rp.mult_x_u, mu, &si) == RS_KKT_SENS_OK;
    double *dMs = w->dMs, *dqs = w->dqs, *dgrad = w->dgrad, *dg = w->dg, *dx = w->dx;
    for (int j = 0; ok && j < nk; j++) {
        double *dMj = dM + (size_t)j * N * N, *dqj = dq + (size_t)j * N;
        m->lcp_tangent(d, &t[j], dMj, dqj);
        /* in the relaxation's frozen units: Ms = D M C, qs = D q */
        for (int b = 0; b < n; b++) {
            for (int a = 0; a < n; a++)
                dMs[a + (size_t)b * n] = rp.w_inv_unit[a] * dMj[a + (size_t)b * n] * rp.z_unit[b];
            dqs[b] = rp.w_inv_unit[b] * dqj[b];
        }
        rs_lcp_relaxation_param_derivative(rp.relax, dMs, dqs, rp.x, rp.mult_g,
                                           dgrad + (size_t)j * 2 * n, dg + (size_t)j * 2 * n);
    }
    if (ok)
        ok = rs_kkt_sensitivity_solve(sens, nk, dgrad, dg, dx, NULL, &si) == RS_KKT_SENS_OK;
    gs->nlp_status = (int)si.status;
    gs->sens_residual = si.residual;
    const double *M, *q, *z, *wv;
    rs_stepper_step_lcp(st, &M, &q, &z, &wv);
    for (int j = 0; ok && j < nk; j++)
        for (int i = 0; i < n; i++) /* z = C zs, clamped at 0 by the stepper */
            dz[(size_t)j * n + i] = z[i] > 0.0 ? rp.z_unit[i] * dx[(size_t)j * 2 * n + i] : 0.0;
    return ok;
}

/* The NLP trajectory (the relaxation of the LCP) and its gradients by the KKT sensitivity. */
static rs_error run_nlp(const rs_scenario *sc0, const rs_grad_config *cfg, rs_grad_result *out)
{
    rs_scenario sc;
    if (rs_scenario_copy(&sc, sc0) != RS_OK)
        return RS_ERR_NOMEM;
    sc.nlp.relax_lcp = 1; /* the relaxation of the same LCP (gradient.h) */
    sc.nlp.polish = 0;    /* IPOPT's interior answer and its multipliers: what the KKT
                             sensitivity differentiates (a polished point's are exact, mult_g 0,
                             and say nothing of how the interior answer moves) */
    const rs_model *m = sc.model;
    const int ns = m->nstate, ncol = ns + m->nforce, nk = cfg->nkeys;
    rs_stepper *st;
    grad_work w;
    rs_step_result r;
    rs_error err = run_open(&sc, nk, 1, &w, &r, &st);
    if (err != RS_OK) {
        run_close(&w, &r, st);
        rs_scenario_release(&sc);
        return err;
    }
    sens_cache cache = {NULL, 0};
    const double mu = sc.nlp.tol / 11.0; /* a start point's zeros: IPOPT's smallest barrier */
    double *x = w.x, *u = w.u;
    memcpy(x, sc.initial, sizeof(double) * (size_t)ns);
    for (int j = 0; j < nk; j++)
        if (cfg->keys[j].kind == RS_GRAD_KEY_INITIAL)
            w.T[(size_t)j * ns + cfg->keys[j].index] = 1.0;
    int tangents_ok = 1;
    for (int k = 0; k < sc.steps; k++) {
        rs_scenario_input(&sc, k, u);
        rs_stepper_nlp(st, x, u, &r);
        rs_grad_step *gs = &out->step[k];
        gs->nlp_status = !r.ok ? RS_GRAD_STEP_FAILED : RS_GRAD_AFTER_FAILURE;
        for (int c = 0; c < ncol; c++)
            out->nlp_values[(size_t)k * ncol + c] = c < ns ? r.state_next[c] : r.forces[c - ns];
        const double *M = NULL, *q = NULL, *z = NULL, *wv = NULL;
        const int n = r.ok ? rs_stepper_step_lcp(st, &M, &q, &z, &wv) : 0; /* 0: no contact */
        const rs_step_data d = step_data(&sc, x, u);
        for (int j = 0; j < nk; j++)
            step_tangent(m, &cfg->keys[j], rs_scenario_input_piece(&sc, k), w.T + (size_t)j * ns,
                         &w.t[j]);
        int ok = r.ok && tangents_ok && work_lcp(&w, n) == RS_OK;
        if (ok && n > 0) {
            ok = nlp_step_tangents(st, &cache, m, &d, w.t, nk, n, mu, &w, gs);
            out->max_sens_residual = fmax(out->max_sens_residual, gs->sens_residual);
        } else if (ok) {
            gs->nlp_status = RS_KKT_SENS_OK; /* nothing to solve: the contact-free step */
        }
        const size_t N = (size_t)w.n;
        for (int j = 0; ok && j < nk; j++) {
            if (n > 0)
                pair_tangent(n, M, z, w.dM + (size_t)j * N * N, w.dq + (size_t)j * N,
                             w.dz + (size_t)j * n, w.dw);
            m->lcp_recover_tangent(&d, &w.t[j], z, wv, w.dz + (size_t)j * n, w.dw, w.dsn, w.df);
            double *tan = out->nlp_tangent + ((size_t)k * nk + j) * ncol;
            for (int c = 0; c < ncol; c++)
                tan[c] = c < ns ? w.dsn[c] : w.df[c - ns];
            memcpy(w.T + (size_t)j * ns, w.dsn, sizeof(double) * (size_t)ns);
        }
        gs->nlp_ok = ok;
        if (!ok) {
            out->nlp_failed_steps += gs->nlp_status != RS_GRAD_AFTER_FAILURE;
            tangents_ok = 0;
            for (size_t e = 0; e < (size_t)nk * ncol; e++)
                out->nlp_tangent[(size_t)k * nk * ncol + e] = NAN;
        }
        memcpy(x, r.state_next, sizeof(double) * (size_t)ns);
    }
    sens_free(&cache);
    run_close(&w, &r, st);
    rs_scenario_release(&sc);
    return RS_OK;
}

/* The values of an NLP trajectory (the relaxation, as in run_nlp) of sc, steps x ncol. */
static rs_error nlp_values(const rs_scenario *sc0, double *values)
{
    rs_scenario sc;
    if (rs_scenario_copy(&sc, sc0) != RS_OK)
        return RS_ERR_NOMEM;
    sc.nlp.relax_lcp = 1;
    sc.nlp.polish = 0; /* the trajectory run_nlp differentiates */
    const rs_model *m = sc.model;
    const int ns = m->nstate, ncol = ns + m->nforce;
    rs_stepper *st;
    grad_work w;
    rs_step_result r;
    rs_error err = run_open(&sc, 0, 0, &w, &r, &st);
    if (err != RS_OK) {
        run_close(&w, &r, st);
        rs_scenario_release(&sc);
        return err;
    }
    double *x = w.x, *u = w.u;
    memcpy(x, sc.initial, sizeof(double) * (size_t)ns);
    for (int k = 0; k < sc.steps; k++) {
        rs_scenario_input(&sc, k, u);
        rs_stepper_nlp(st, x, u, &r);
        for (int c = 0; c < ncol; c++) /* a failed step: NaN from here on */
            values[(size_t)k * ncol + c] =
                (r.ok && (k == 0 || !isnan(values[(size_t)(k - 1) * ncol])))
                    ? (c < ns ? r.state_next[c] : r.forces[c - ns])
                    : NAN;
        memcpy(x, r.state_next, sizeof(double) * (size_t)ns);
    }
    run_close(&w, &r, st);
    rs_scenario_release(&sc);
    return RS_OK;
}

/* ---- differences and verdicts --------------------------------------------------------------- */

/* First step (0-based) at which run b's contact set or index classes differ from run a's, or -1. */
static int first_switch(const run_signature *a, const run_signature *b, int steps)
{
    for (int k = 0; k < steps; k++)
        if (a->keys[k] != b->keys[k] || a->classes[k] != b->classes[k])
            return k;
    return -1;
}

/* 1 if name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
    const size_t n = strlen(name), k = strlen(suffix);
    return n >= k && strcmp(name + n - k, suffix) == 0;
}

/* |a - b| relative to max(|a|, |b|, floor): the floor (the difference's noise over rtol) makes
 * two values within the noise count as agreeing (0 / 0: 0; a NaN stays NaN). */
static double rel_diff(double a, double b, double floor)
{
    const double s = fmax(fmax(fabs(a), fabs(b)), floor);
    return s > 0.0 ? fabs(a - b) / s : (a == b ? 0.0 : NAN);
}

static int agrees(double a, double b, double rtol, double floor)
{
    return rel_diff(a, b, floor) <= rtol;
}

/* *max = the largest of the measured values so far, a NaN among them kept (an infinite tangent
 * gives a NaN difference: it fails a check, it is not dropped); *count counts them. */
static void max_measured(double *max, int *count, double value)
{
    if (*count == 0 || isnan(value))
        *max = value; /* the first, or a NaN, which stays */
    else if (!isnan(*max))
        *max = fmax(*max, value);
    ++*count;
}

static void judge(rs_grad_entry *e, double rtol, double floor, int have_fd)
{
    if (isnan(e->lcp) || isnan(e->nlp) || (have_fd && isnan(e->fd)))
        e->verdict = RS_GRAD_FAILED;
    else if (!have_fd)
        e->verdict = agrees(e->nlp, e->lcp, rtol, floor) ? RS_GRAD_AGREE : RS_GRAD_RELAXATION_BIAS;
    else if (e->switch_step >= 0)
        e->verdict = RS_GRAD_NON_SMOOTH;
    else if (!agrees(e->lcp, e->fd, rtol, floor))
        e->verdict = RS_GRAD_DISAGREE;
    else if (!agrees(e->nlp, e->fd, rtol, floor))
        e->verdict = RS_GRAD_RELAXATION_BIAS;
    else
        e->verdict = RS_GRAD_AGREE;
}

/* The difference runs of key j: every output's difference and switch step. */
static rs_error differences(const rs_scenario *sc, const rs_grad_config *cfg, int j,
                            const run_signature *nominal, rs_grad_result *out)
{
    const int ncol = out->ncol, steps = sc->steps;
    const double v = rs_grad_key_value(sc, &cfg->keys[j]);
    const double h = v != 0.0 ? cfg->fd_rel * fabs(v) : cfg->fd_rel;
    /* central; a side outside the model's domain (a parameter at the end of its range, r = 0 or
     * mu = 0; a body resting at z = 0; a forward-only block at v = 0) is replaced by the nominal
     * point: a one-sided difference */
    const rs_grad_key *key = &cfg->keys[j];
    rs_scenario moved; /* sc with key j moved, its own values */
    if (rs_scenario_copy(&moved, sc) != RS_OK)
        return RS_ERR_NOMEM;
    double offset[2] = {h, -h};
    for (int side = 0; side < 2; side++) {
        rs_grad_key_set(&moved, key, v + offset[side]);
        if (rs_grad_scenario_valid(&moved, NULL) != RS_OK)
            offset[side] = 0.0;
    }
    const int sided = offset[0] == offset[1] ? 2 : offset[1] == 0.0 ? 1 : offset[0] == 0.0 ? -1 : 0;
    double *values = malloc(sizeof(double) * (size_t)steps * ncol * 2);
    run_signature sig = {NULL, NULL};
    if (!values || !signature_alloc(&sig, steps)) {
        free(values);
        signature_free(&sig);
        rs_scenario_release(&moved);
        return RS_ERR_NOMEM;
    }
    int switched[2], failed[2];
    for (int side = 0; side < 2; side++) {
        rs_grad_key_set(&moved, key, v + offset[side]);
        const lcp_run run = {&moved, cfg, NULL, sig, values + (size_t)side * steps * ncol};
        failed[side] = run_lcp(&run);
        switched[side] = first_switch(nominal, &sig, steps);
    }
    for (int o = 0; o < cfg->noutputs; o++) {
        const rs_grad_output *go = &cfg->outputs[o];
        rs_grad_entry *e = &out->entries[o * out->nkeys + j];
        const size_t at = (size_t)(go->step - 1) * ncol + go->column;
        const double yp = values[at], ym = values[(size_t)steps * ncol + at];
        const int fail_before =
            (failed[0] >= 0 && failed[0] < go->step) || (failed[1] >= 0 && failed[1] < go->step);
        e->fd = fail_before || sided == 2 ? NAN : (yp - ym) / (offset[0] - offset[1]);
        e->fd_step = h;
        e->fd_sided = sided;
        e->switch_step = -1;
        for (int side = 0; side < 2; side++)
            if (switched[side] >= 0 && switched[side] < go->step &&
                (e->switch_step < 0 || switched[side] < e->switch_step))
                e->switch_step = switched[side];
    }
    rs_error err = RS_OK;
    const double hn = v != 0.0 ? cfg->fd_nlp_rel * fabs(v) : cfg->fd_nlp_rel;
    for (int side = 0; cfg->fd_nlp && side < 2 && err == RS_OK; side++) {
        rs_grad_key_set(&moved, &cfg->keys[j], v + (side ? -hn : hn));
        err = nlp_values(&moved, values + (size_t)side * steps * ncol);
    }
    for (int o = 0; o < cfg->noutputs; o++) {
        const rs_grad_output *go = &cfg->outputs[o];
        rs_grad_entry *e = &out->entries[o * out->nkeys + j];
        const size_t at = (size_t)(go->step - 1) * ncol + go->column;
        e->fd_nlp = cfg->fd_nlp && err == RS_OK
                        ? (values[at] - values[(size_t)steps * ncol + at]) / (2.0 * hn)
                        : NAN;
    }
    free(values);
    signature_free(&sig);
    rs_scenario_release(&moved);
    return err;
}

static void evaluate_contract(const rs_scenario *sc, rs_grad_result *r)
{
    static const rs_check implied_failed = {
        "grad_failed_max", "grad_failed_max = 0 (implied)", RS_CHECK_AT_MOST, 0.0, 0.0, 0};
    static const rs_check implied_disagree = {
        "grad_disagree_max", "grad_disagree_max = 0 (implied)", RS_CHECK_AT_MOST, 0.0, 0.0, 0};
    const rs_check *named_failed = NULL, *named_disagree = NULL;
    r->contract_passed = 1;
    for (int i = 0; i < sc->ncheck; i++) {
        const rs_check *ck = &sc->checks[i];
        double actual;
        if (strcmp(ck->key, "grad_failed_max") == 0) {
            named_failed = ck;
            continue;
        } else if (strcmp(ck->key, "grad_disagree_max") == 0) {
            named_disagree = ck;
            continue;
        } else if (strcmp(ck->key, "grad_lcp_fd_max_rel") == 0)
            actual = r->lcp_fd_max_rel;
        else if (strcmp(ck->key, "grad_nlp_fd_max_rel") == 0)
            actual = r->nlp_fd_max_rel;
        else
            continue; /* a check of compare and run */
        rs_check_result *cr = &r->checks[r->nchecks++];
        *cr = (rs_check_result){ck, rs_check_passes(ck, actual), actual, "grad", NAN, NAN};
        r->contract_passed &= cr->passed;
    }
    const rs_check *gates[2] = {named_failed ? named_failed : &implied_failed,
                                named_disagree ? named_disagree : &implied_disagree};
    const double counts[2] = {r->verdicts[RS_GRAD_FAILED], r->verdicts[RS_GRAD_DISAGREE]};
    for (int g = 0; g < 2 && r->nchecks < RS_SCENARIO_MAX_CHECKS; g++) {
        rs_check_result *cr = &r->checks[r->nchecks++];
        *cr = (rs_check_result){gates[g], rs_check_passes(gates[g], counts[g]), counts[g], "grad",
                                NAN, NAN};
        r->contract_passed &= cr->passed;
    }
}

void rs_grad_free(rs_grad_result *r)
{
    if (!r)
        return;
    free(r->lcp_tangent);
    free(r->nlp_tangent);
    free(r->lcp_values);
    free(r->nlp_values);
    free(r->step);
    free(r->col_storage);
    memset(r, 0, sizeof *r);
}

rs_error rs_grad_run(const rs_scenario *sc, const rs_grad_config *cfg, rs_progress_fn progress,
                     void *progress_ctx, rs_grad_result *out)
{
    memset(out, 0, sizeof *out);
    if (rs_grad_check_scenario(sc, cfg, NULL) != RS_OK || cfg->nkeys < 1 || cfg->nkeys > RS_GRAD_MAX_KEYS ||
        cfg->noutputs < 1 || cfg->noutputs > RS_GRAD_MAX_OUTPUTS)
        return RS_ERR_BAD_ARG;
    const rs_model *m = sc->model;
    const int steps = sc->steps, nk = cfg->nkeys, ncol = m->nstate + m->nforce;
    out->steps = steps;
    out->ncol = ncol;
    out->nkeys = nk;
    out->noutputs = cfg->noutputs;
    const char **names = malloc(sizeof *names * (size_t)ncol);
    out->col_storage = names;
    out->col_names = names;
    for (int c = 0; names && c < ncol; c++)
        names[c] = c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
    const size_t nt = (size_t)steps * nk * ncol;
    out->lcp_tangent = malloc(sizeof(double) * nt);
    out->nlp_tangent = malloc(sizeof(double) * nt);
    out->lcp_values = malloc(sizeof(double) * (size_t)steps * ncol);
    out->nlp_values = malloc(sizeof(double) * (size_t)steps * ncol);
    out->step = calloc((size_t)steps, sizeof *out->step);
    run_signature sig = {NULL, NULL};
    if (!names || !out->lcp_tangent || !out->nlp_tangent || !out->lcp_values ||
        !out->nlp_values || !out->step || !signature_alloc(&sig, steps)) {
        signature_free(&sig);
        rs_grad_free(out);
        return RS_ERR_NOMEM;
    }
    const int phases = cfg->skip_fd ? 2 : 2 + nk;
    double t0 = rs_wall_seconds();
    const lcp_run run = {sc, cfg, out, sig, out->lcp_values};
    run_lcp(&run);
    out->lcp_time_s = rs_wall_seconds() - t0;
    if (progress)
        progress(progress_ctx, 1, phases);
    t0 = rs_wall_seconds();
    rs_error err = run_nlp(sc, cfg, out);
    out->nlp_time_s = rs_wall_seconds() - t0;
    if (progress)
        progress(progress_ctx, 2, phases);
    t0 = rs_wall_seconds();
    for (int j = 0; err == RS_OK && j < nk; j++) {
        if (!cfg->skip_fd) {
            err = differences(sc, cfg, j, &sig, out);
            if (progress)
                progress(progress_ctx, 3 + j, phases);
        }
    }
    out->fd_time_s = rs_wall_seconds() - t0;
    signature_free(&sig);
    if (err != RS_OK) {
        rs_grad_free(out);
        return err;
    }
    int measured[2] = {0, 0}; /* the pairs in lcp_fd_max_rel and nlp_fd_max_rel */
    for (int o = 0; o < cfg->noutputs; o++) {
        const rs_grad_output *go = &cfg->outputs[o];
        const size_t at = (size_t)(go->step - 1) * ncol + go->column;
        const double *yl = out->lcp_values;
        /* the column's size over the run up to the output's step; a velocity's also that of
         * the positions over dt: the models integrate at position level, so a velocity carries
         * the positions' rounding divided by dt (a falling block's xd = 0.1 m/s differs by
         * 1e-13 m/s between runs from x = 1 m at dt = 1e-3 s); an angular velocity likewise
         * that of the angles */
        const char *name = out->col_names[go->column];
        const char *position = ends_with(name, "_mps") ? "_m" : ends_with(name, "_radps") ? "_rad"
                                                                                         : NULL;
        double size = 0.0;
        for (int k = 0; k < go->step; k++)
            for (int c = 0; c < ncol; c++)
                if (c == go->column || (position && ends_with(out->col_names[c], position)))
                    size = fmax(size,
                                fabs(yl[(size_t)k * ncol + c]) / (c == go->column ? 1.0 : sc->dt));
        for (int j = 0; j < nk; j++) {
            rs_grad_entry *e = &out->entries[o * nk + j];
            const size_t ti = ((size_t)(go->step - 1) * nk + j) * ncol + go->column;
            e->value = yl[at];
            e->lcp = out->lcp_tangent[ti];
            e->nlp = out->nlp_tangent[ti];
            if (cfg->skip_fd) {
                const double v = rs_grad_key_value(sc, &cfg->keys[j]);
                e->fd = e->fd_nlp = NAN;
                e->fd_step = v != 0.0 ? cfg->fd_rel * fabs(v) : cfg->fd_rel; /* (not run) */
                e->switch_step = -1;
            }
            e->rel_nlp_fdnlp = rel_diff(e->nlp, e->fd_nlp, 0.0);
            /* the floor of the relative differences: the difference's noise (a trajectory's
             * rounding, relative to the column's size over the run, over the step h) over rtol;
             * without differences, the same floor for NLP against LCP */
            const double floor = FD_NOISE * size / e->fd_step / cfg->rtol;
            e->rel_lcp = rel_diff(e->lcp, e->fd, floor);
            e->rel_nlp = rel_diff(e->nlp, e->fd, floor);
            judge(e, cfg->rtol, floor, !cfg->skip_fd);
            out->verdicts[e->verdict]++;
            /* each method against the differences wherever both were computed and the output
             * is smooth: a failed NLP tangent (counted by grad_failed_max) does not take the
             * LCP's pair out of the LCP's measure */
            if (e->verdict != RS_GRAD_NON_SMOOTH && e->switch_step < 0 && !cfg->skip_fd &&
                !isnan(e->fd)) {
                if (!isnan(e->lcp))
                    max_measured(&out->lcp_fd_max_rel, &measured[0], e->rel_lcp);
                if (!isnan(e->nlp))
                    max_measured(&out->nlp_fd_max_rel, &measured[1], e->rel_nlp);
            }
        }
    }
    /* no pair measured (or --no-fd): nothing to bound, and a check that names them cannot pass */
    if (!measured[0])
        out->lcp_fd_max_rel = NAN;
    if (!measured[1])
        out->nlp_fd_max_rel = NAN;
    evaluate_contract(sc, out);
    return RS_OK;
}
