/* run_config.c: the input schedule of a run (see run_config.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/run_config.h"
#include "core/rng.h"

void rs_scenario_release(rs_scenario *sc)
{
    if (!sc)
        return;
    free(sc->values_block);
    sc->values_block = NULL;
    sc->params = sc->initial = NULL;
    sc->input.constant = sc->input.lo = sc->input.hi = NULL;
    sc->input.values = NULL;
    sc->input.nvalues = NULL;
    if (sc->borrowed) { /* the original's */
        sc->text = sc->scene_text = NULL;
        sc->scene = NULL;
        sc->model_instance = NULL;
        sc->borrowed = 0;
        return;
    }
    free(sc->text);
    free(sc->scene_text);
    sc->text = sc->scene_text = NULL;
    if (sc->model_instance) {
        if (sc->model == sc->model_instance)
            sc->model = NULL;
        sc->model_instance->release(sc->model_instance);
        sc->model_instance = NULL;
    }
    if (!sc->scene)
        return;
    rs_scene_free(sc->scene);
    free(sc->scene);
    sc->scene = NULL;
}

/* The block: params, initial, constant, lo, hi, values (doubles), then nvalues (ints). */
static size_t values_doubles(const rs_model *m)
{
    return (size_t)m->nparams + (size_t)m->nstate +
           (size_t)m->ninput * (3 + RS_SCENARIO_MAX_PIECES);
}

static void bind_values(rs_scenario *sc)
{
    const rs_model *m = sc->model;
    double *d = sc->values_block;
    sc->params = d;
    sc->initial = sc->params + m->nparams;
    sc->input.constant = sc->initial + m->nstate;
    sc->input.lo = sc->input.constant + m->ninput;
    sc->input.hi = sc->input.lo + m->ninput;
    sc->input.values = (double (*)[RS_SCENARIO_MAX_PIECES])(sc->input.hi + m->ninput);
    sc->input.nvalues = (int *)(d + values_doubles(m));
}

rs_error rs_scenario_alloc_values(rs_scenario *sc)
{
    free(sc->values_block);
    const rs_model *m = sc->model;
    sc->values_block = calloc(1, sizeof(double) * values_doubles(m) +
                                     sizeof(int) * ((size_t)m->ninput + 1));
    if (!sc->values_block)
        return RS_ERR_NOMEM;
    bind_values(sc);
    return RS_OK;
}

rs_error rs_scenario_copy(rs_scenario *dst, const rs_scenario *src)
{
    *dst = *src;
    dst->values_block = NULL;
    dst->borrowed = 1;
    if (!src->values_block)
        return RS_OK;
    const rs_model *m = src->model;
    const size_t bytes = sizeof(double) * values_doubles(m) + sizeof(int) * ((size_t)m->ninput + 1);
    dst->values_block = malloc(bytes);
    if (!dst->values_block) {
        dst->params = dst->initial = NULL;
        return RS_ERR_NOMEM;
    }
    memcpy(dst->values_block, src->values_block, bytes);
    bind_values(dst);
    return RS_OK;
}

int rs_scenario_input_piece(const rs_scenario *sc, int k)
{
    const rs_input_schedule *in = &sc->input;
    if (in->kind != RS_INPUT_PIECEWISE)
        return -1;
    const double t = k * sc->dt;
    int p = 0;
    while (p + 1 < in->npieces && in->times[p + 1] <= t + 1e-9 * sc->dt)
        p++;
    return p;
}

void rs_scenario_input(const rs_scenario *sc, int k, double *u)
{
    const rs_input_schedule *in = &sc->input;
    const int n = sc->model->ninput;
    switch (in->kind) {
    case RS_INPUT_CONSTANT:
        for (int i = 0; i < n; i++)
            u[i] = in->constant[i];
        break;
    case RS_INPUT_PIECEWISE: {
        const int p = rs_scenario_input_piece(sc, k);
        for (int i = 0; i < n; i++)
            u[i] = in->nvalues[i] ? in->values[i][p] : 0.0;
        break;
    }
    case RS_INPUT_RANDOM: {
        /* Random access: the value of hold block b depends only on (seed, b). */
        rs_rng rng;
        const uint64_t block = (uint64_t)(k / in->hold_steps);
        rs_rng_seed(&rng, in->seed ^ (block * 0xD1B54A32D192ED03ULL));
        for (int i = 0; i < n; i++)
            u[i] = rs_rng_range(&rng, in->lo[i], in->hi[i]);
        break;
    }
    }
    if (in->in_weights) {
        const double weight = sc->model->force_scale(sc->params);
        for (int i = 0; i < n; i++)
            u[i] *= weight;
    }
}

rs_stepper_config rs_scenario_stepper_config(const rs_scenario *sc)
{
    return (rs_stepper_config){sc->model, sc->params,     sc->variant,   sc->dt,   sc->nlp,
                               sc->lemke, sc->lemke_warm, sc->mode_tols, sc->scene, 0,
                               RS_STEPPER_WARM_MAX_ITER};
}

const rs_step_result *rs_run_next(rs_failure_policy policy, const rs_step_result *nlp,
                                  const rs_step_result *lemke, int *fallback)
{
    *fallback = !nlp->ok && policy == RS_ON_FAILURE_LEMKE && lemke && lemke->ok;
    return *fallback ? lemke : nlp;
}

int rs_run_advance(const rs_model *m, const rs_step_result *r, double *x)
{
    for (int i = 0; i < m->nstate; i++)
        if (!isfinite(r->state_next[i]))
            return 0;
    memcpy(x, r->state_next, sizeof(double) * (size_t)m->nstate);
    return 1;
}
