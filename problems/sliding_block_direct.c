/*
 * sliding_block_direct.c: the bidirectional sliding block, direct 2x2 formulation (note 000,
 * section 2.2), general mass. The velocity is split v = v+ - v-, v+, v- >= 0, and the unused
 * friction in each direction is complementary to the velocity in the other:
 *
 *     0 <= w1 = mu m g - lambda-  _|_  v+' >= 0
 *     0 <= w2 = mu m g - lambda+  _|_  v-' >= 0
 *
 * With the note's dynamics (the v- term drives v+ to zero before it may grow, and back),
 *     v+' = v+ + dt (u - v-/dt - lambda-)/m,   v-' = v- + dt (-u - v+/dt - lambda+)/m,
 * the final matrix form (the note's intermediate lines mix up labels; this form is checked) is
 *     w = (m/dt) I z + q,   z = (v+', v-'),
 *     q = ( (m/dt)(v- - v+) - u + mu m g,  (m/dt)(v+ - v-) + u + mu m g ).
 * M is a multiple of I: a unique solution, and Lemma 2.1 (v+' v-' = 0) holds at every step.
 * Position: x' = x + dt (v+' - v-'). The friction force on the block follows from the velocity
 * change, f = m (v' - v)/dt - u.
 *
 * NLP: the relaxation of this LCP (src/nlp/lcp_relaxation.c).
 */
#include "core/detail.h"
#include "sliding_block_common.h"

enum { S_X, S_VP, S_VM, NSTATE };
static const char *const state_names[NSTATE] = {"x_m", "xdp_mps", "xdm_mps"};
static const double state_default[NSTATE] = {0.0, 2.0, 0.0};
static const int velocity_index[] = {S_VP, S_VM};
SLIDING_BLOCK_STEP_SCALES

static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    const int bad = d->state[S_VP] < 0.0 ? S_VP : d->state[S_VM] < 0.0 ? S_VM : -1;
    if (bad >= 0) /* the offending one named first */
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "%s = %g: sliding_block_direct needs xdp >= 0 and xdm >= 0 (v = xdp - "
                             "xdm)", bad == S_VP ? "xdp" : "xdm", d->state[bad]);
    return RS_OK;
}

/* A state a run reached (or a caller sets): xdp and xdm down to -1e-6 of the step's speed V, the
 * NLP's tolerance on their bounds. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    rs_step_scales sc;
    sliding_block_scales(d, 2, &sc);
    const double lowest = -1e-6 * sc.speed;
    const int bad = d->state[S_VP] < lowest ? S_VP : d->state[S_VM] < lowest ? S_VM : -1;
    if (bad >= 0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "%s = %.6g m/s: sliding_block_direct needs xdp >= 0 and xdm >= 0 (v "
                             "= xdp - xdm)", bad == S_VP ? "xdp" : "xdm", d->state[bad]);
    return RS_OK;
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    const double k = d->params[SB_M] / d->dt;
    const double mu_mg = d->params[SB_MU] * d->params[SB_M] * d->params[SB_G];
    const double dv = k * (d->state[S_VP] - d->state[S_VM]), u = d->input[0];
    M[0] = k;
    M[1] = 0.0;
    M[2] = 0.0;
    M[3] = k;
    q[0] = -dv - u + mu_mg;
    q[1] = dv + u + mu_mg;
}

/* z = (v+', v-') (speeds), w = the unused friction in each direction (forces). */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    z_unit[0] = z_unit[1] = sc.speed;
    w_unit[0] = w_unit[1] = sc.force;
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    (void)w;
    const double v = d->state[S_VP] - d->state[S_VM], v_next = z[0] - z[1];
    sn[S_VP] = z[0];
    sn[S_VM] = z[1];
    sn[S_X] = d->state[S_X] + d->dt * v_next;
    forces[0] = d->params[SB_M] * (v_next - v) / d->dt - d->input[0];
}

/* Tangents: M = k I with k = m/dt, q = (-k (v+ - v-) - u + mu m g, k (v+ - v-) + u + mu m g);
 * x' = x + dt (z0 - z1), f = m (v' - v)/dt - u = k (v' - v) - u. */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    const double m = d->params[SB_M], dt = d->dt, k = m / dt;
    const double dk = t->params[SB_M] / dt - m * t->dt / (dt * dt);
    const double v = d->state[S_VP] - d->state[S_VM], dv = t->state[S_VP] - t->state[S_VM];
    const double ddv = dk * v + k * dv, dmu_mg = sliding_block_d_mu_mg(d, t);
    dM[0] = dM[3] = dk;
    dM[1] = dM[2] = 0.0;
    dq[0] = -ddv - t->input[0] + dmu_mg;
    dq[1] = ddv + t->input[0] + dmu_mg;
}

static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)w;
    (void)dw;
    const double m = d->params[SB_M], dt = d->dt, k = m / dt;
    const double dk = t->params[SB_M] / dt - m * t->dt / (dt * dt);
    const double v = d->state[S_VP] - d->state[S_VM], dv = t->state[S_VP] - t->state[S_VM];
    const double v_next = z[0] - z[1], dv_next = dz[0] - dz[1];
    dsn[S_VP] = dz[0];
    dsn[S_VM] = dz[1];
    dsn[S_X] = t->state[S_X] + t->dt * v_next + dt * dv_next;
    dforces[0] = dk * (v_next - v) + k * (dv_next - dv) - t->input[0];
}

static void residuals(const rs_step_data *d, const double *sn, const double *f, const double *per_contact, double *primal,
                      double *complementarity)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    sliding_block_scales(d, 2, &sc);
    sliding_block_residuals(d, &sc, d->state[S_X], d->state[S_VP] - d->state[S_VM], sn[S_X],
                            sn[S_VP] - sn[S_VM], f[0], primal, complementarity);
    /* v+, v- >= 0, in units of V */
    *primal = fmax(*primal, fmax(-sn[S_VP], -sn[S_VM]) / sc.speed);
}

static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    (void)d;
    (void)f;
    out[0] = rs_sliding_mode(sn[S_VP] - sn[S_VM], tols);
}

static const char *const lcp_z_names[2] = {"xdp_next_mps", "xdm_next_mps"};
static const char *const lcp_w_names[2] = {"slack_friction_minus_N", "slack_friction_plus_N"};

const rs_model rs_model_sliding_block_direct = {
    .name = "sliding_block_direct",
    .summary = "1-D bidirectional sliding block, direct 2x2 LCP (v = v+ - v-)",
    .source = "note 000 section 2.2",
    .check_step = check_step,
    .check_reached = check_reached,
    .lcp_n = 2,
    .lcp_units = lcp_units,
    .lcp_z_names = lcp_z_names,
    .lcp_w_names = lcp_w_names,
    .residuals = residuals,
    .modes = modes,
    SLIDING_BLOCK_MODEL_FIELDS,
};
