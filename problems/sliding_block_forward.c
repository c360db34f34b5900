/*
 * sliding_block_forward.c: a block sliding forwards (note 000, section 2.1), general mass.
 * Valid for v >= 0 and u >= 0, where friction lambda >= 0 acts along -x (f = -lambda).
 *
 *     v' = v + dt (u - lambda) / m
 *     0 <= mu m g - lambda  _|_  v' >= 0    (sliding uses the full friction; stopped: less)
 *
 * LCP: z = v', w = lambda' = mu m g - lambda (the unused friction). From the dynamics,
 *     lambda' = (m/dt) v' - (m/dt) v - u + mu m g,
 * so M = m/dt and q = -(m/dt) v - u + mu m g (the note has m = 1). Remark 1 of the note: with
 * v, u >= 0, lambda >= 0 follows without being imposed.
 *
 * NLP: the relaxation of this LCP (src/nlp/lcp_relaxation.c): z, s >= 0, w >= 0, s >= z w; its
 * only pair is the physical one (velocity against unused friction).
 */
#include "core/detail.h"
#include "sliding_block_common.h"

enum { S_X, S_V, NSTATE };
static const char *const state_names[NSTATE] = {"x_m", "xd_mps"};
static const double state_default[NSTATE] = {0.0, 2.0};
static const int velocity_index[] = {S_V};
SLIDING_BLOCK_STEP_SCALES

static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    if (d->state[S_V] < 0.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "sliding_block_forward needs xd >= 0 (it models forward motion only)");
    if (d->input[0] < 0.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "sliding_block_forward needs u >= 0 (it models forward motion only)");
    return RS_OK;
}

/* A state a run reached (or a caller sets): xd down to -1e-6 of the step's speed V, the NLP's
 * tolerance on its bound (Lemke's xd is >= 0 exactly); the push must still be forward. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    rs_step_scales sc;
    sliding_block_scales(d, 1, &sc);
    if (d->state[S_V] < -1e-6 * sc.speed)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "xd = %.6g m/s: sliding_block_forward needs xd >= 0 (it models "
                             "forward motion only)", d->state[S_V]);
    if (d->input[0] < 0.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "sliding_block_forward needs u >= 0 (it models forward motion only)");
    return RS_OK;
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    const double m = d->params[SB_M], mu_mg = d->params[SB_MU] * m * d->params[SB_G];
    M[0] = m / d->dt;
    q[0] = -(m / d->dt) * d->state[S_V] - d->input[0] + mu_mg;
}

/* z = v' (a speed), w = the unused friction (a force). */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    z_unit[0] = sc.speed;
    w_unit[0] = sc.force;
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    const double mu_mg = d->params[SB_MU] * d->params[SB_M] * d->params[SB_G];
    forces[0] = -(mu_mg - w[0]); /* friction lambda = mu m g - w acts along -x */
    (void)z;                     /* v' = z follows from the force by the integrator */
    sliding_block_integrate(d, d->state[S_V], d->state[S_X], forces[0], &sn[S_V], &sn[S_X]);
}

/* Tangents: M = m/dt, q = -(m/dt) v - u + mu m g;  f = w - mu m g. */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    const double m = d->params[SB_M], dt = d->dt;
    dM[0] = t->params[SB_M] / dt - m * t->dt / (dt * dt);
    dq[0] = -dM[0] * d->state[S_V] - (m / dt) * t->state[S_V] - t->input[0] +
            sliding_block_d_mu_mg(d, t);
}

static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)z;
    (void)dz;
    const double f = -(d->params[SB_MU] * d->params[SB_M] * d->params[SB_G] - w[0]);
    dforces[0] = dw[0] - sliding_block_d_mu_mg(d, t);
    sliding_block_integrate_tangent(d, t, d->state[S_V], t->state[S_V], t->state[S_X], f,
                                    dforces[0], &dsn[S_V], &dsn[S_X]);
}

static const char *const lcp_z_names[1] = {"xd_next_mps"};
static const char *const lcp_w_names[1] = {"slack_friction_N"};

const rs_model rs_model_sliding_block_forward = {
    .name = "sliding_block_forward",
    .summary = "1-D block sliding forwards, LCP in the velocity",
    .source = "note 000 section 2.1",
    .check_step = check_step,
    .check_reached = check_reached,
    .check_reads_input = 1,
    .lcp_n = 1,
    .lcp_units = lcp_units,
    .lcp_z_names = lcp_z_names,
    .lcp_w_names = lcp_w_names,
    .residuals = sliding_block_xv_residuals,
    .modes = sliding_block_xv_modes,
    SLIDING_BLOCK_MODEL_FIELDS,
};
