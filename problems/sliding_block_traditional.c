/*
 * sliding_block_traditional.c: the bidirectional sliding block, traditional 3x3 formulation
 * with the sliding-speed multiplier gamma (note 000, section 2.5), general dt and mass.
 * Friction is split f = lambda+ - lambda-, and v' = v + dt (u + lambda+ - lambda-)/m:
 *
 *     0 <= lambda+  _|_  gamma + v' >= 0        (push +x only while moving -x)
 *     0 <= lambda-  _|_  gamma - v' >= 0        (push -x only while moving +x)
 *     0 <= gamma    _|_  mu m g - lambda+ - lambda- >= 0   (full friction while moving)
 *
 * Substituting v', with c = dt/m:
 *     M = [[c, -c, 1], [-c, c, 1], [-1, -1, 0]],   q = (v + c u, -v - c u, mu m g).
 * The note (dt = m = 1) calls M a P-matrix; it is not (its third principal minor is 0), but
 * z'Mz = c (lambda+ - lambda-)^2 >= 0, so Lemke processes it. The solution need not be unique
 * (sticking leaves lambda+ + lambda- free): compare v' and f, not z.
 *
 * NLP: the relaxation of this LCP (src/nlp/lcp_relaxation.c).
 */
#include "sliding_block_common.h"

enum { S_X, S_V, NSTATE };
static const char *const state_names[NSTATE] = {"x_m", "xd_mps"};
static const double state_default[NSTATE] = {0.0, 2.0};
static const int velocity_index[] = {S_V};
SLIDING_BLOCK_STEP_SCALES

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    const double c = d->dt / d->params[SB_M];
    const double mu_mg = d->params[SB_MU] * d->params[SB_M] * d->params[SB_G];
    const double Mcols[9] = {c, -c, -1.0, /* lambda+ */
                             -c, c, -1.0, /* lambda- */
                             1.0, 1.0, 0.0}; /* gamma */
    for (int k = 0; k < 9; k++)
        M[k] = Mcols[k];
    const double v_free = d->state[S_V] + c * d->input[0];
    q[0] = v_free;
    q[1] = -v_free;
    q[2] = mu_mg;
}

/* z = (lambda+, lambda-, gamma): two forces and a speed; w = (gamma + v', gamma - v', the
 * unused friction): two speeds and a force. */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    z_unit[0] = z_unit[1] = w_unit[2] = sc.force;
    z_unit[2] = w_unit[0] = w_unit[1] = sc.speed;
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    (void)w;
    forces[0] = z[0] - z[1];
    sliding_block_integrate(d, d->state[S_V], d->state[S_X], forces[0], &sn[S_V], &sn[S_X]);
}

/* Tangents: c = dt/m in M (signs as in lcp_build), q = (v + c u, -v - c u, mu m g);
 * f = lambda+ - lambda-. */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    const double m = d->params[SB_M], dt = d->dt;
    const double dc = t->dt / m - dt * t->params[SB_M] / (m * m);
    const double dMcols[9] = {dc, -dc, 0.0, -dc, dc, 0.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < 9; k++)
        dM[k] = dMcols[k];
    const double dv_free = t->state[S_V] + dc * d->input[0] + (dt / m) * t->input[0];
    dq[0] = dv_free;
    dq[1] = -dv_free;
    dq[2] = sliding_block_d_mu_mg(d, t);
}

static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)w;
    (void)dw;
    dforces[0] = dz[0] - dz[1];
    sliding_block_integrate_tangent(d, t, d->state[S_V], t->state[S_V], t->state[S_X],
                                    z[0] - z[1], dforces[0], &dsn[S_V], &dsn[S_X]);
}

static const char *const lcp_z_names[3] = {"lambda_plus_N", "lambda_minus_N", "gamma_mps"};
static const char *const lcp_w_names[3] = {"gamma_plus_xd_next_mps", "gamma_minus_xd_next_mps", "slack_friction_N"};

const rs_model rs_model_sliding_block_traditional = {
    .name = "sliding_block_traditional",
    .summary = "1-D bidirectional sliding block, traditional 3x3 LCP with gamma",
    .source = "note 000 section 2.5",
    .check_step = NULL,
    .lcp_n = 3,
    .lcp_units = lcp_units,
    .lcp_z_names = lcp_z_names,
    .lcp_w_names = lcp_w_names,
    .residuals = sliding_block_xv_residuals,
    .modes = sliding_block_xv_modes,
    SLIDING_BLOCK_MODEL_FIELDS,
};
