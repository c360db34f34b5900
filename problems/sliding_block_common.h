/*
 * sliding_block_common.h: what the three sliding-block formulations of note 000 section 2 share.
 *
 * A block of mass m on a horizontal surface (normal force m g), pushed by an input force u,
 * with Coulomb friction f, |f| <= mu m g, opposing the next velocity v':
 *     v' = v + dt (u + f) / m,     x' = x + dt v'.
 * f is the friction force acting on the block along +x (signed), in N.
 */
#ifndef RS_PROBLEMS_SLIDING_BLOCK_COMMON_H
#define RS_PROBLEMS_SLIDING_BLOCK_COMMON_H

#include <math.h>

#include "sim/contact_physics.h"
#include "sim/model.h"

enum { SB_M, SB_G, SB_MU, SB_NPARAM };

static const rs_param_def sliding_block_params[SB_NPARAM] = {
    {"m", 1.0, 1e-6, 1e6, "mass, kg", 0.0},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
    {"mu", 0.5, 0.0, 10.0, "Coulomb friction coefficient", 0.0},
};
static const char *const sliding_block_input_names[] = {"u_N"};
static const char *const sliding_block_force_names[] = {"f_N"};
static const char *const sliding_block_variants[] = {"default"};

static inline double sliding_block_force_scale(const double *p)
{
    return fmax(p[SB_M] * p[SB_G], 1e-12);
}

/* The step's natural units (rs_step_scales). Every sliding block's state is x followed by its
 * velocity components (v, or v+ and v-): V is the largest of their sizes, of the push's speed
 * change dt |u| / m and of the speed friction can take away in a step, mu g dt. */
static inline void sliding_block_scales(const rs_step_data *d, int nvelocity, rs_step_scales *sc)
{
    const double *p = d->params, m = p[SB_M], dt = d->dt;
    double speeds[3] = {dt * fabs(d->input[0]) / m, 0.0, 0.0};
    for (int i = 0; i < nvelocity && i < 2; i++)
        speeds[1 + i] = fabs(d->state[1 + i]);
    rs_step_scales_set(sc, speeds, 3, p[SB_MU] * p[SB_G] * dt, dt, m);
}

/* A model's rs_model.step_scales: its state is x and NSTATE - 1 velocity components. */
#define SLIDING_BLOCK_STEP_SCALES                                                                  \
    static void step_scales(const rs_step_data *d, rs_step_scales *sc)                             \
    {                                                                                              \
        sliding_block_scales(d, NSTATE - 1, sc);                                                   \
    }

/* The fields every sliding block shares in its rs_model: parameters, input, friction force, one
 * contact, one variant, the force scale m g, the step's natural units; and, from the model's own
 * file, its state arrays (state_names, state_default, velocity_index) and its LCP functions. Each
 * model names its residuals and modes itself. */
#define SLIDING_BLOCK_MODEL_FIELDS                                                                 \
    .nparams = SB_NPARAM, .params = sliding_block_params, .ninput = 1,                             \
    .input_names = sliding_block_input_names, .nforce = 1,                                         \
    .force_names = sliding_block_force_names, .ncontacts = 1, .nvariants = 1,                      \
    .variants = sliding_block_variants, .force_scale = sliding_block_force_scale,                  \
    .step_scales = step_scales,                                                                    \
    .nstate = NSTATE, .state_names = state_names, .state_default = state_default,                  \
    .velocity_index = velocity_index,                                                              \
    .nvelocity = (int)(sizeof velocity_index / sizeof velocity_index[0]),                          \
    .lcp_build = lcp_build, .lcp_recover = lcp_recover, .lcp_tangent = lcp_tangent,             \
    .lcp_recover_tangent = lcp_recover_tangent

/* v' and x' from the friction force. */
static inline void sliding_block_integrate(const rs_step_data *d, double v, double x, double f,
                                           double *v_next, double *x_next)
{
    *v_next = v + d->dt * (d->input[0] + f) / d->params[SB_M];
    *x_next = x + d->dt * *v_next;
}

/* The tangent of a / m along t, for a quantity a with tangent da. */
static inline double sliding_block_d_over_m(const rs_step_data *d, const rs_step_tangent *t,
                                            double a, double da)
{
    const double m = d->params[SB_M];
    return da / m - a * t->params[SB_M] / (m * m);
}

/* The tangent of mu m g along t. */
static inline double sliding_block_d_mu_mg(const rs_step_data *d, const rs_step_tangent *t)
{
    const double *p = d->params, *dp = t->params;
    return dp[SB_MU] * p[SB_M] * p[SB_G] + p[SB_MU] * dp[SB_M] * p[SB_G] +
           p[SB_MU] * p[SB_M] * dp[SB_G];
}

/* The tangent of sliding_block_integrate along t (v, x, f with tangents dv, dx, df):
 *     dv' = dv + ddt (u + f)/m + dt d((u + f)/m),    dx' = dx + ddt v' + dt dv'. */
static inline void sliding_block_integrate_tangent(const rs_step_data *d,
                                                   const rs_step_tangent *t, double v, double dv,
                                                   double dx, double f, double df,
                                                   double *dv_next, double *dx_next)
{
    const double a = d->input[0] + f, da = t->input[0] + df, m = d->params[SB_M];
    const double v_next = v + d->dt * a / m;
    *dv_next = dv + t->dt * a / m + d->dt * sliding_block_d_over_m(d, t, a, da);
    *dx_next = dx + t->dt * v_next + d->dt * *dv_next;
}

/* Residuals of a step from (x, v) to (x', v') with friction f: integrator and Coulomb's law, in
 * the step's natural units. */
static inline void sliding_block_residuals(const rs_step_data *d, const rs_step_scales *sc,
                                           double x, double v, double x_next, double v_next,
                                           double f, double *primal, double *complementarity)
{
    double v_pred, x_pred;
    sliding_block_integrate(d, v, x, f, &v_pred, &x_pred);
    const double mu_mg = d->params[SB_MU] * d->params[SB_M] * d->params[SB_G];
    *primal = fmax(fabs(v_next - v_pred) / sc->speed,
                   fabs(x_next - x_pred) / rs_length_unit(sc, x_pred));
    *complementarity = 0.0;
    rs_coulomb_residuals(v_next / sc->speed, f / sc->force, mu_mg / sc->force, 1.0, primal,
                         complementarity);
}

/* For the formulations whose state is (x, v), in that order: the residuals and the mode. */
static inline void sliding_block_xv_residuals(const rs_step_data *d, const double *sn,
                                              const double *f, const double *per_contact, double *primal,
                                              double *complementarity)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    sliding_block_scales(d, 1, &sc);
    sliding_block_residuals(d, &sc, d->state[0], d->state[1], sn[0], sn[1], f[0], primal,
                            complementarity);
}

static inline void sliding_block_xv_modes(const rs_step_data *d, const double *sn,
                                          const double *f, const rs_mode_tols *tols,
                                          rs_contact_mode *out)
{
    (void)d;
    (void)f;
    out[0] = rs_sliding_mode(sn[1], tols); /* the block always rests on the surface */
}

#endif
