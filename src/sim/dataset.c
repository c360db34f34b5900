/* dataset.c: a scenario's Lemke trajectory as learning data (see dataset.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "sim/dataset.h"
#include "sim/stepper.h"

void rs_dataset_free(rs_dataset *d)
{
    if (!d)
        return;
    free(d->values);
    memset(d, 0, sizeof *d);
}

const char *rs_dataset_column_name(const rs_scenario *sc, const rs_dataset *d, int c, char *buf,
                                   int len)
{
    const rs_model *m = sc->model;
    const int zc = rs_dataset_z_col(d), nc = rs_dataset_next_col(d);
    if (c < d->nstate)
        snprintf(buf, (size_t)len, "%s", m->state_names[c]);
    else if (c < zc)
        snprintf(buf, (size_t)len, "%s", m->input_names[c - d->nstate]);
    else if (c < zc + d->nlcp)
        snprintf(buf, (size_t)len, "z_%s", m->lcp_z_names[c - zc]);
    else if (c < nc)
        snprintf(buf, (size_t)len, "w_%s", m->lcp_w_names[c - zc - d->nlcp]);
    else
        snprintf(buf, (size_t)len, "next_%s", m->state_names[c - nc]);
    return buf;
}

/* The noise-free run: fills d->clean row by row until the end or the first failed step. */
static rs_error record_clean(const rs_scenario *sc, rs_dataset *d)
{
    const rs_model *m = sc->model;
    rs_stepper_config cfg = rs_scenario_stepper_config(sc);
    rs_stepper *st = NULL;
    rs_step_result r;
    double *x = malloc(sizeof(double) * ((size_t)m->nstate + (size_t)m->ninput + 1));
    rs_error err = x ? rs_step_result_init(&r, m) : RS_ERR_NOMEM;
    if (err == RS_OK && (err = rs_stepper_create(&cfg, &st)) != RS_OK)
        rs_step_result_free(&r);
    if (err != RS_OK) {
        free(x);
        return err;
    }
    double *u = x + m->nstate;
    memcpy(x, sc->initial, sizeof(double) * (size_t)m->nstate);
    const int zc = rs_dataset_z_col(d), nc = rs_dataset_next_col(d);
    for (int k = 0; k < sc->steps; k++) {
        rs_scenario_input(sc, k, u);
        rs_stepper_lemke(st, x, u, &r);
        const double *M, *q, *z, *w;
        if (!r.ok || rs_stepper_step_lcp(st, &M, &q, &z, &w) != d->nlcp) {
            d->failed_step = k;
            d->failed_status = r.status;
            break;
        }
        double *row = d->clean + (size_t)k * (size_t)d->ncol;
        memcpy(row, x, sizeof(double) * (size_t)d->nstate);
        memcpy(row + d->nstate, u, sizeof(double) * (size_t)d->ninput);
        memcpy(row + zc, z, sizeof(double) * (size_t)d->nlcp);
        memcpy(row + zc + d->nlcp, w, sizeof(double) * (size_t)d->nlcp);
        memcpy(row + nc, r.state_next, sizeof(double) * (size_t)d->nstate);
        memcpy(x, r.state_next, sizeof(double) * (size_t)d->nstate);
        d->rows = k + 1;
    }
    rs_stepper_destroy(st);
    rs_step_result_free(&r);
    free(x);
    return RS_OK;
}

rs_error rs_dataset_record(const rs_scenario *sc, double noise, uint64_t noise_seed,
                           rs_dataset *out)
{
    memset(out, 0, sizeof *out);
    const rs_model *m = sc->model;
    if (!m->lcp_z_names || m->lcp_size)
        return RS_ERR_BAD_ARG;
    if (!(noise >= 0.0 && noise <= 1e3))
        return RS_ERR_BAD_SETTING;
    rs_dataset *d = out;
    d->failed_step = -1;
    d->nstate = m->nstate;
    d->ninput = m->ninput;
    d->nlcp = m->lcp_n;
    d->ncol = 2 * m->nstate + m->ninput + 2 * m->lcp_n;
    d->noise = noise;
    d->noise_seed = noise_seed;
    const size_t cells = (size_t)sc->steps * (size_t)d->ncol;
    d->values = malloc(sizeof(double) * (2 * cells + (size_t)d->ncol));
    if (!d->values)
        return RS_ERR_NOMEM;
    d->clean = d->values + cells;
    d->rms = d->clean + cells;
    const rs_error err = record_clean(sc, d);
    if (err != RS_OK) {
        rs_dataset_free(d);
        return err;
    }
    for (int c = 0; c < d->ncol; c++) {
        double ss = 0.0;
        for (int k = 0; k < d->rows; k++)
            ss += d->clean[(size_t)k * d->ncol + c] * d->clean[(size_t)k * d->ncol + c];
        d->rms[c] = d->rows ? sqrt(ss / d->rows) : 0.0;
    }
    rs_rng rng;
    rs_rng_seed(&rng, noise_seed);
    const int in_lo = d->nstate, in_hi = d->nstate + d->ninput; /* the input: no noise */
    for (int k = 0; k < d->rows; k++)
        for (int c = 0; c < d->ncol; c++) {
            const size_t i = (size_t)k * d->ncol + c;
            const int measured = (c < in_lo || c >= in_hi) && noise > 0.0;
            d->values[i] = d->clean[i] + (measured ? noise * d->rms[c] * rs_rng_normal(&rng) : 0.0);
        }
    return RS_OK;
}
