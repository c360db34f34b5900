/* run_config.c: the input schedule of a run (see run_config.h). */
#include <stdlib.h>

#include "sim/run_config.h"
#include "core/rng.h"

void rs_scenario_release(rs_scenario *sc)
{
    if (!sc)
        return;
    free(sc->text);
    free(sc->scene_text);
    sc->text = sc->scene_text = NULL;
    if (!sc->scene)
        return;
    rs_scene_free(sc->scene);
    free(sc->scene);
    sc->scene = NULL;
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
        const double t = k * sc->dt;
        int p = 0;
        while (p + 1 < in->npieces && in->times[p + 1] <= t + 1e-9 * sc->dt)
            p++;
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
