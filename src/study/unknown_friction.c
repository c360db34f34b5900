/* unknown_friction.c: fitting the sliding block's mu three ways (see unknown_friction.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "core/timer.h"
#include "io/scenario.h"
#include "sim/compare.h"
#include "sim/gradient.h"
#include "study/unknown_friction.h"

#define MAX_ITER 60
#define MU_LO 1e-3
#define MU_HI 10.0
#define MU_CURVE_LO 1e-2

const char *rs_fit_method_name(rs_fit_method m)
{
    static const char *const names[RS_FIT_METHODS] = {"lcp", "nlp", "golden"};
    return (int)m >= 0 && m < RS_FIT_METHODS ? names[m] : "unknown";
}

typedef struct fit_ctx {
    rs_scenario base; /* the loaded scenario (its mu is the truth) */
    rs_scenario work; /* base with a trial mu (scratch of lemke_positions and gauss_newton) */
    int mu_index;     /* of the parameter mu */
    double *observed; /* x_1 .. x_N */
    int steps;
} fit_ctx;

/* x_k of the Lemke trajectory at mu into x (steps); 0 if a step failed. */
static int lemke_positions(fit_ctx *c, double mu, double *x)
{
    c->work.params[c->mu_index] = mu; /* (work: a copy of base with its own values) */
    rs_compare_result r;
    if (rs_compare_run(&c->work, RS_RUN_LEMKE, NULL, NULL, &r) != RS_OK)
        return 0;
    const int ok = r.lemke.failed_steps == 0;
    for (int k = 0; k < c->steps; k++)
        x[k] = r.step[k].lemke.state_next[0];
    rs_compare_free(&r);
    return ok;
}

static double loss(const fit_ctx *c, const double *x)
{
    double l = 0.0;
    for (int k = 0; k < c->steps; k++)
        l += (x[k] - c->observed[k]) * (x[k] - c->observed[k]);
    return l;
}

/* Gauss-Newton on mu with one method's positions and gradients (rs_grad_run, no differences). */
static void gauss_newton(fit_ctx *c, double mu, int nlp, rs_fit_outcome *o)
{
    rs_grad_config cfg;
    rs_grad_config_default(&cfg);
    cfg.skip_fd = 1;
    cfg.nkeys = 1;
    cfg.noutputs = 1;
    rs_grad_parse_key(&c->base, "model.mu", &cfg.keys[0], NULL); /* (mu: checked on loading; */
    rs_grad_parse_output(&c->base, "x", &cfg.outputs[0], NULL);  /* x: column 0 otherwise,
                                                                     as lemke_positions) */
    o->stop = "iteration limit";
    o->path[o->npath++] = mu;
    for (o->iterations = 0; o->iterations < MAX_ITER; o->iterations++) {
        c->work.params[c->mu_index] = mu;
        rs_grad_result r;
        if (rs_grad_run(&c->work, &cfg, NULL, NULL, &r) != RS_OK) {
            o->stop = "gradient run failed";
            break;
        }
        o->trajectories += 2; /* the Lemke and the NLP trajectory */
        const double *x = nlp ? r.nlp_values : r.lcp_values;
        const double *t = nlp ? r.nlp_tangent : r.lcp_tangent;
        double num = 0.0, den = 0.0;
        int finite = 1;
        for (int k = 0; k < c->steps; k++) {
            const double res = x[(size_t)k * r.ncol] - c->observed[k];
            const double J = t[(size_t)k * r.ncol]; /* one key: tangent (k, 0, column 0) */
            finite &= isfinite(res) && isfinite(J);
            num += res * J;
            den += J * J;
        }
        rs_grad_free(&r);
        if (!finite) {
            o->stop = "a step or its derivative failed";
            break;
        }
        if (den == 0.0) {
            o->stop = "zero gradient";
            break;
        }
        const double next = fmin(fmax(mu - num / den, MU_LO), MU_HI);
        const double step = fabs(next - mu);
        mu = next;
        o->path[o->npath++] = mu;
        if (step <= 1e-10 * mu) {
            o->iterations++;
            o->stop = "step below 1e-10 mu";
            break;
        }
    }
    o->mu = mu;
}

/* Golden-section search of L on [MU_LO, MU_HI] until the bracket is below 1e-10 mu. */
static void golden(fit_ctx *c, rs_fit_outcome *o)
{
    const double r = 0.6180339887498949;
    double a = MU_LO, b = MU_HI, x1 = b - r * (b - a), x2 = a + r * (b - a);
    double *x = malloc(sizeof(double) * (size_t)c->steps);
    if (!x) {
        o->stop = "out of memory";
        return;
    }
    int ok = lemke_positions(c, x1, x);
    double f1 = loss(c, x);
    ok &= lemke_positions(c, x2, x);
    double f2 = loss(c, x);
    o->trajectories = 2;
    o->stop = "iteration limit";
    o->path[o->npath++] = (a + b) / 2;
    for (o->iterations = 0; ok && o->iterations < 4 * MAX_ITER; o->iterations++) {
        if (b - a <= 1e-10 * (a + b) / 2) {
            o->stop = "bracket below 1e-10 mu";
            break;
        }
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - r * (b - a);
            ok &= lemke_positions(c, x1, x);
            f1 = loss(c, x);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + r * (b - a);
            ok &= lemke_positions(c, x2, x);
            f2 = loss(c, x);
        }
        o->trajectories++;
        o->path[o->npath++] = (a + b) / 2;
    }
    if (!ok)
        o->stop = "a Lemke step failed";
    o->mu = (a + b) / 2;
    free(x);
}

rs_error rs_fit_run(const char *scenario_path, const char *const *sets, int nsets,
                    const double *starts, int nstarts, const rs_study_progress *progress,
                    rs_fit_result *out, rs_error_detail *detail)
{
    memset(out, 0, sizeof *out);
    rs_detail_clear(detail);
    if (nstarts < 1 || nstarts > RS_FIT_MAX_STARTS)
        return rs_detail_set(detail, RS_ERR_BAD_SETTING, "%d starts: 1 to %d", nstarts,
                             RS_FIT_MAX_STARTS);
    fit_ctx *c = calloc(1, sizeof *c); /* large (two scenarios): on the heap */
    if (!c)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    rs_error err = rs_scenario_load(scenario_path, sets, nsets, &c->base, detail);
    if (err != RS_OK) {
        free(c);
        return err;
    }
    c->mu_index = -1;
    for (int i = 0; i < c->base.model->nparams; i++)
        if (strcmp(c->base.model->params[i].name, "mu") == 0)
            c->mu_index = i;
    c->steps = c->base.steps;
    c->observed = malloc(sizeof(double) * (size_t)c->steps);
    if (c->mu_index < 0 || !c->observed || rs_scenario_copy(&c->work, &c->base) != RS_OK) {
        err = c->mu_index < 0 ? rs_detail_set(detail, RS_ERR_BAD_ARG,
                                              "the scenario's model has no parameter mu")
                              : rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
        free(c->observed);
        rs_scenario_release(&c->work);
        rs_scenario_release(&c->base);
        free(c);
        return err;
    }
    const double t0 = rs_wall_seconds();
    out->mu_true = c->base.params[c->mu_index];
    if (!lemke_positions(c, out->mu_true, c->observed)) {
        rs_detail_set(detail, RS_ERR_BAD_ARG, "the observed trajectory has a failed step");
        free(c->observed);
        rs_scenario_release(&c->work);
        rs_scenario_release(&c->base);
        free(c);
        return RS_ERR_BAD_ARG;
    }
    double *x = malloc(sizeof(double) * (size_t)c->steps);
    const long total = RS_FIT_CURVE + (long)nstarts * RS_FIT_METHODS;
    for (int i = 0; x && i < RS_FIT_CURVE; i++) {
        rs_study_report(progress, i, total);
        out->curve_mu[i] = MU_CURVE_LO * pow(MU_HI / MU_CURVE_LO, i / (RS_FIT_CURVE - 1.0));
        out->curve_loss[i] = lemke_positions(c, out->curve_mu[i], x) ? loss(c, x) : NAN;
    }
    free(x);
    out->nstarts = nstarts;
    for (int s = 0; s < nstarts; s++) {
        out->start[s] = starts[s];
        for (int m = 0; m < RS_FIT_METHODS; m++) {
            rs_study_report(progress, RS_FIT_CURVE + (long)s * RS_FIT_METHODS + m, total);
            rs_fit_outcome *o = &out->out[s][m];
            if (m == RS_FIT_GOLDEN && s > 0)
                *o = out->out[0][m]; /* (the search does not use the start) */
            else if (m == RS_FIT_GOLDEN)
                golden(c, o);
            else
                gauss_newton(c, starts[s], m == RS_FIT_NLP, o);
            o->rel_error = fabs(o->mu - out->mu_true) / out->mu_true;
            o->converged = o->rel_error <= 1e-6;
        }
    }
    rs_study_report(progress, total, total);
    out->time_s = rs_wall_seconds() - t0;
    free(c->observed);
    rs_scenario_release(&c->work);
    rs_scenario_release(&c->base);
    free(c);
    return RS_OK;
}
