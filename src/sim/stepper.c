/* stepper.c: one step of a model by the NLP or the Lemke backend (see stepper.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/stepper.h"
#include "core/timer.h"
#include "lcp/lcp_internal.h"
#include "nlp/ipopt_solver.h"
#include "nlp/lcp_relaxation.h"

struct rs_stepper {
    rs_stepper_config cfg;
    rs_step_data data;          /* what the model callbacks read; state/input set per step */
    rs_lcp_relaxation relax;    /* used when the model has no NLP of its own */
    rs_nlp_problem problem;
    rs_ipopt_solver *ipopt;
    int nlp_n;
    double *x;                  /* NLP iterate */
    double *x_prev;             /* last certified NLP solution, for the warm start */
    int have_prev;
    double *M, *q, *z, *w;      /* step LCP; the relaxation reads M and q too */
    void *lemke_work;
    size_t lemke_bytes;
    unsigned char lemke_basis[RS_MODEL_MAX_LCP]; /* 1: z_i basic in the last Lemke answer */
    int have_basis;
};

void rs_stepper_destroy(rs_stepper *s)
{
    if (!s)
        return;
    rs_ipopt_destroy(s->ipopt);
    free(s->x);
    free(s->M);
    free(s->lemke_work);
    free(s);
}

rs_error rs_stepper_create(const rs_stepper_config *cfg, rs_stepper **out)
{
    if (!cfg || !out || !cfg->model || !cfg->params)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (!(cfg->dt > 0.0) || !isfinite(cfg->dt))
        return RS_ERR_BAD_SETTING;
    rs_stepper *s = calloc(1, sizeof *s);
    if (!s)
        return RS_ERR_NOMEM;
    s->cfg = *cfg;
    const rs_model *m = cfg->model;
    s->data.params = cfg->params;
    s->data.dt = cfg->dt;
    s->data.variant = cfg->variant;
    s->data.nlp = &s->cfg.nlp;
    const int nl = m->lcp_n;
    s->nlp_n = m->nlp_n > 0 ? m->nlp_n : 2 * nl;
    s->x = malloc(sizeof(double) * 2 * (size_t)s->nlp_n);
    s->M = malloc(sizeof(double) * (size_t)(nl * nl + 3 * nl));
    s->lemke_bytes = rs_lemke_workspace_size(nl);
    s->lemke_work = malloc(s->lemke_bytes);
    if (!s->x || !s->M || !s->lemke_work) {
        rs_stepper_destroy(s);
        return RS_ERR_NOMEM;
    }
    s->x_prev = s->x + s->nlp_n;
    s->q = s->M + nl * nl;
    s->z = s->q + nl;
    s->w = s->z + nl;
    if (m->nlp_n > 0) {
        m->nlp_describe(&s->problem);
        s->problem.ctx = &s->data;
    } else {
        s->relax.n = nl;
        s->relax.M = s->M;
        s->relax.q = s->q;
        s->relax.settings = s->cfg.nlp;
        rs_lcp_relaxation_problem(&s->relax, &s->problem);
    }
    const rs_error err = rs_ipopt_create(&s->problem, &s->cfg.nlp, &s->ipopt);
    if (err != RS_OK) {
        rs_stepper_destroy(s);
        return err;
    }
    *out = s;
    return RS_OK;
}

void rs_stepper_reset(rs_stepper *s)
{
    s->have_prev = 0;
    s->have_basis = 0;
}

/* Residuals and modes: the same for both backends, from the physical outputs. */
static void finish_step(rs_stepper *s, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    m->residuals(&s->data, out->state_next, out->forces, &out->primal, &out->complementarity);
    m->modes(&s->data, out->state_next, out->forces, &s->cfg.mode_tols, out->modes);
}

static void nlp_initial_point(rs_stepper *s, int attempt)
{
    const rs_model *m = s->cfg.model;
    if (m->nlp_n > 0)
        m->nlp_guess(&s->data, attempt, s->x);
    else
        rs_lcp_relaxation_guess(&s->relax, (double)attempt, s->x);
}

static void nlp_recover(rs_stepper *s, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    if (m->nlp_n > 0) {
        m->nlp_recover(&s->data, s->x, out->state_next, out->forces);
        return;
    }
    const int n = m->lcp_n;
    for (int i = 0; i < n; i++)
        s->z[i] = fmax(s->x[i], 0.0);
    rs_lcp_residual(n, s->M, s->q, s->z, s->w);
    m->lcp_recover(&s->data, s->z, s->w, out->state_next, out->forces);
}

void rs_stepper_nlp(rs_stepper *s, const double *state, const double *input, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    memset(out, 0, sizeof *out);
    s->data.state = state;
    s->data.input = input;
    if (m->nlp_n == 0)
        m->lcp_build(&s->data, s->M, s->q);
    const double t0 = rs_wall_seconds();
    const double tol = s->cfg.nlp.cert_tol;
    for (int attempt = 0; attempt <= s->cfg.nlp.retries; attempt++) {
        const int warm = attempt == 0 && s->cfg.nlp.warm_start && s->have_prev;
        if (warm)
            memcpy(s->x, s->x_prev, sizeof(double) * (size_t)s->nlp_n);
        else
            nlp_initial_point(s, attempt);
        int ipopt_status = 0, iters = 0;
        rs_nlp_status st = rs_ipopt_solve(s->ipopt, s->x, warm, &ipopt_status, &iters);
        out->iterations += iters;
        out->attempts = attempt + 1;
        nlp_recover(s, out);
        finish_step(s, out);
        if (rs_nlp_status_ok(st) && !(out->primal <= tol && out->complementarity <= tol))
            st = RS_NLP_NOT_CERTIFIED;
        out->status = st;
        out->ok = rs_nlp_status_ok(st);
        if (out->ok)
            break;
    }
    s->have_prev = out->ok;
    if (out->ok)
        memcpy(s->x_prev, s->x, sizeof(double) * (size_t)s->nlp_n);
    out->time_s = rs_wall_seconds() - t0;
}

void rs_stepper_lemke(rs_stepper *s, const double *state, const double *input, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    memset(out, 0, sizeof *out);
    s->data.state = state;
    s->data.input = input;
    m->lcp_build(&s->data, s->M, s->q);
    rs_lemke_info info;
    const rs_error err =
        s->cfg.lemke_warm && s->have_basis
            ? rs_lemke_solve_warm(m->lcp_n, s->M, s->q, NULL, &s->cfg.lemke, s->lemke_basis,
                                  s->lemke_work, s->lemke_bytes, s->z, s->w, &info)
            : rs_lemke_solve(m->lcp_n, s->M, s->q, NULL, &s->cfg.lemke, s->lemke_work,
                             s->lemke_bytes, s->z, s->w, &info);
    out->attempts = 1;
    if (err != RS_OK) { /* non-finite step data: a breakdown of this step */
        out->status = RS_LEMKE_BREAKDOWN;
        for (int i = 0; i < m->nstate; i++)
            out->state_next[i] = NAN;
        for (int i = 0; i < m->nforce; i++)
            out->forces[i] = NAN;
        out->primal = out->complementarity = NAN;
        return;
    }
    out->status = info.status;
    out->iterations = info.pivots;
    out->warm_started = info.warm_started;
    out->time_s = info.solve_time_s;
    m->lcp_recover(&s->data, s->z, s->w, out->state_next, out->forces);
    finish_step(s, out);
    out->ok = info.status == RS_LEMKE_SOLVED;
    /* The next step's guess: the side of each pair that is positive (w when both are zero). */
    s->have_basis = out->ok;
    for (int i = 0; out->ok && i < m->lcp_n; i++)
        s->lemke_basis[i] = s->z[i] > s->w[i];
}
