/*
 * falling_block.c: a block of mass m falling onto a static surface (note 000, section 1),
 * with a general mass and time step. x is the height of the block above the surface.
 *
 * Implicit Euler on velocity, then position (note 000, section 1):
 *     xd' = xd + dt ((u + lambda) / m - g)         (D1)
 *     x'  = x + dt xd'                             (D2)
 * Contact: 0 <= lambda  _|_  x' >= 0                (C1)
 *
 * LCP form (the note's): unknown z = x', slack w = lambda. Substituting (D1) into (D2),
 *     lambda = (m/dt^2) x' - (m/dt^2) (x + dt xd + dt^2 (u/m - g)),
 * so M = m/dt^2 and q = -(m/dt^2) (x + dt xd + dt^2 (u/m - g)) (the note has m = 1, u = 0).
 *
 * NLP form, in the step's natural units (rs_step_scales: speed V = max(|xd|, |xd_free|, g dt)
 * with xd_free = xd + dt (u/m - g), length L = V dt, force F = m V / dt); variables the
 * displacement xh = (x' - x)/L (no variable carries the size of the height itself, which is
 * 1e6 L near the top of a throw), vh = xd'/V, ph = lambda/F and the slack s; the height after
 * the step is h = x/L + xh:
 *     min  P(s)
 *     g0  xh - vh                                   = 0   (D2) / L
 *     g1  vh - xd_free/V - ph                       = 0   (D1) / V
 *     g2  x/L + xh                                  >= 0  x' >= 0, / L
 *     g3  s - ph (x/L + xh)                         >= 0  (C1 relaxed) / (F L)
 *     bounds  ph >= 0, s >= 0
 */
#include <math.h>
#include <string.h>

#include "core/detail.h"
#include "nlp/dense.h"
#include "nlp/smooth.h"
#include "sim/model.h"

enum { P_M, P_G, NPARAM };
enum { S_X, S_XD, NSTATE };
enum { V_X, V_XD, V_LAMBDA, V_S, NV };
enum { G_POS, G_VEL, G_HEIGHT, G_SLACK, NG };

static const rs_param_def params[NPARAM] = {
    {"m", 1.0, 1e-6, 1e6, "mass, kg", 0.0},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
};
static const char *const state_names[NSTATE] = {"x_m", "xd_mps"};
static const double state_default[NSTATE] = {1.0, 0.0};
static const int velocity_index[] = {S_XD};
static const char *const input_names[] = {"u_N"};
static const char *const force_names[] = {"fn_N"};
static const char *const variants[] = {"default"};

static double force_scale(const double *p)
{
    return fmax(p[P_M] * p[P_G], 1e-12);
}

/* The contact-free velocity: (D1) with lambda = 0. */
static double free_velocity(const rs_step_data *d)
{
    const double *p = d->params;
    return d->state[S_XD] + d->dt * (d->input[0] / p[P_M] - p[P_G]);
}

static void step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    const double *p = d->params;
    const double speeds[] = {fabs(d->state[S_XD]), fabs(free_velocity(d))};
    rs_step_scales_set(sc, speeds, 2, p[P_G] * d->dt, d->dt, p[P_M]);
}

/* A block that starts inside the surface would be expelled within one step: refused. */
static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    if (d->state[S_X] < 0.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "x < 0: the block starts below the surface (start at x >= 0; contact "
                             "is at position level)");
    return RS_OK;
}

/* A state a run reached (or a caller sets): x down to one step's length below the surface, more
 * than a step leaves; deeper is refused. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    return rs_check_reached_height(d->state[S_X], "x", "surface", &sc, detail);
}

static void integrate(const rs_step_data *d, double lambda, double *sn)
{
    sn[S_XD] = free_velocity(d) + d->dt * lambda / d->params[P_M];
    sn[S_X] = d->state[S_X] + d->dt * sn[S_XD];
}

static void nlp_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    for (int j = 0; j < NV; j++) {
        x_l[j] = j == V_X || j == V_XD ? -RS_NLP_INF : 0.0;
        x_u[j] = RS_NLP_INF;
    }
    for (int i = 0; i < NG; i++) {
        g_l[i] = 0.0;
        g_u[i] = i >= G_HEIGHT ? RS_NLP_INF : 0.0; /* equalities, then inequalities >= 0 */
    }
}

static double nlp_f(void *ctx, const double *x)
{
    const rs_step_data *d = ctx;
    return rs_penalty(d->nlp, x[V_S]);
}

static void nlp_grad_f(void *ctx, const double *x, double *grad)
{
    const rs_step_data *d = ctx;
    for (int j = 0; j < NV; j++)
        grad[j] = 0.0;
    grad[V_S] = rs_penalty_d1(d->nlp, x[V_S]);
}

static void nlp_g(void *ctx, const double *x, double *g)
{
    const rs_step_data *d = ctx;
    rs_step_scales sc;
    step_scales(d, &sc);
    const double height = d->state[S_X] / sc.length + x[V_X];
    g[G_POS] = x[V_X] - x[V_XD];
    g[G_VEL] = x[V_XD] - free_velocity(d) / sc.speed - x[V_LAMBDA];
    g[G_HEIGHT] = height;
    g[G_SLACK] = x[V_S] - x[V_LAMBDA] * height;
}

static void nlp_jac(void *ctx, const double *x, double *J)
{
    const rs_step_data *d = ctx;
    rs_step_scales sc;
    step_scales(d, &sc);
    const double height = d->state[S_X] / sc.length + x[V_X];
    rs_dense_zero(J, NG, NV);
    rs_jac_set(J, NG, G_POS, V_X, 1.0);
    rs_jac_set(J, NG, G_POS, V_XD, -1.0);
    rs_jac_set(J, NG, G_VEL, V_XD, 1.0);
    rs_jac_set(J, NG, G_VEL, V_LAMBDA, -1.0);
    rs_jac_set(J, NG, G_HEIGHT, V_X, 1.0);
    rs_jac_set(J, NG, G_SLACK, V_S, 1.0);
    rs_jac_set(J, NG, G_SLACK, V_LAMBDA, -height);
    rs_jac_set(J, NG, G_SLACK, V_X, -x[V_LAMBDA]);
}

static void nlp_hess(void *ctx, const double *x, double obj_factor, const double *lambda,
                     double *H)
{
    (void)x;
    const rs_step_data *d = ctx;
    rs_dense_zero(H, NV, NV);
    rs_hess_add(H, NV, V_S, V_S, obj_factor * rs_penalty_d2(d->nlp));
    rs_hess_add(H, NV, V_LAMBDA, V_X, -lambda[G_SLACK]); /* s - ph (x/L + xh) */
}

static void nlp_describe(rs_nlp_problem *p, int variant)
{
    memset(p, 0, sizeof *p); /* every field the NLP does not set: none */
    (void)variant;
    p->natural_units = 1;
    p->n = NV;
    p->m = NG;
    p->bounds = nlp_bounds;
    p->eval_f = nlp_f;
    p->eval_grad_f = nlp_grad_f;
    p->eval_g = nlp_g;
    p->eval_jac = nlp_jac;
    p->eval_hess = nlp_hess;
    p->sparsity = NULL; /* dense */
}

/* Generic starts: the current state, or the contact-free integrator (lambda = 0); no force, no
 * slack. */
static void nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    double next[NSTATE] = {d->state[S_X], d->state[S_XD]};
    if (which == RS_NLP_START_CONTACT_FREE)
        integrate(d, 0.0, next);
    x0[V_X] = (next[S_X] - d->state[S_X]) / sc.length;
    x0[V_XD] = next[S_XD] / sc.speed;
    x0[V_LAMBDA] = 0.0;
    x0[V_S] = 0.0;
}

static void nlp_recover(const rs_step_data *d, const double *x, double *sn, double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    step_scales(d, &sc);
    sn[S_X] = d->state[S_X] + sc.length * x[V_X];
    sn[S_XD] = sc.speed * x[V_XD];
    forces[0] = sc.force * x[V_LAMBDA];
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    const double *p = d->params, *s = d->state, dt = d->dt;
    const double k = p[P_M] / (dt * dt);
    M[0] = k;
    q[0] = -k * (s[S_X] + dt * s[S_XD] + dt * dt * (d->input[0] / p[P_M] - p[P_G]));
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    (void)z;
    forces[0] = w[0]; /* the note's slack w is the contact force; x' = z follows from it */
    integrate(d, w[0], sn);
}

/* z = x' (a length), w = lambda (a force): for the relaxation of the LCP ([nlp] form =
 * relaxation, and the NLP gradients of relaxsim grad). */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    z_unit[0] = sc.length;
    w_unit[0] = sc.force;
}

/* Tangents: M = k = m/dt^2, q = -k y with y = x + dt xd + dt^2 (u/m - g). */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    const double *p = d->params, *s = d->state, dt = d->dt, m = p[P_M];
    const double k = m / (dt * dt), a = d->input[0] / m - p[P_G];
    const double da = t->input[0] / m - d->input[0] * t->params[P_M] / (m * m) - t->params[P_G];
    const double y = s[S_X] + dt * s[S_XD] + dt * dt * a;
    const double dy = t->state[S_X] + t->dt * s[S_XD] + dt * t->state[S_XD] +
                      2.0 * dt * t->dt * a + dt * dt * da;
    dM[0] = t->params[P_M] / (dt * dt) - 2.0 * m * t->dt / (dt * dt * dt);
    dq[0] = -dM[0] * y - k * dy;
}

/* Tangent of lcp_recover: lambda = w, xd' = xd + dt ((u + lambda)/m - g), x' = x + dt xd'. */
static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)z;
    (void)dz;
    const double *p = d->params, dt = d->dt, m = p[P_M];
    const double a = (d->input[0] + w[0]) / m - p[P_G];
    const double da = (t->input[0] + dw[0]) / m - (d->input[0] + w[0]) * t->params[P_M] / (m * m) -
                      t->params[P_G];
    const double xd_next = d->state[S_XD] + dt * a;
    dforces[0] = dw[0];
    dsn[S_XD] = t->state[S_XD] + t->dt * a + dt * da;
    dsn[S_X] = t->state[S_X] + t->dt * xd_next + dt * dsn[S_XD];
}

/* In the step's natural units (see point2d_friction.c). */
static void residuals(const rs_step_data *d, const double *sn, const double *f, const double *per_contact, double *primal,
                      double *complementarity)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    step_scales(d, &sc);
    double pred[NSTATE];
    integrate(d, f[0], pred);
    const double xh = sn[S_X] / sc.length, ph = f[0] / sc.force;
    double p = fmax(fabs(sn[S_X] - pred[S_X]) / rs_length_unit(&sc, pred[S_X]),
                    fabs(sn[S_XD] - pred[S_XD]) / sc.speed);
    p = fmax(p, fmax(-xh, -ph));
    *primal = p;
    /* lambda _|_ x': the natural residual min(ph, x'/L), not the product, which would weigh a
     * vanishing force by a height of 1e6 L near the top of a throw */
    *complementarity = fmin(fmax(ph, 0.0), fmax(xh, 0.0));
}

static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    (void)d;
    (void)sn;
    out[0] = f[0] > tols->force ? RS_MODE_CONTACT : RS_MODE_SEPARATING;
}

static const char *const lcp_z_names[1] = {"x_next_m"};
static const char *const lcp_w_names[1] = {"lambda_N"};

const rs_model rs_model_falling_block = {
    .name = "falling_block",
    .summary = "block falling onto a surface, position-level contact",
    .source = "note 000 section 1",
    .nparams = NPARAM,
    .params = params,
    .nstate = NSTATE,
    .state_names = state_names,
    .state_default = state_default,
    .velocity_index = velocity_index,
    .nvelocity = 1,
    .ninput = 1,
    .input_names = input_names,
    .nforce = 1,
    .force_names = force_names,
    .ncontacts = 1,
    .nvariants = 1,
    .variants = variants,
    .force_scale = force_scale,
    .step_scales = step_scales,
    .check_step = check_step,
    .check_reached = check_reached,
    .lcp_n = 1,
    .lcp_build = lcp_build,
    .lcp_recover = lcp_recover,
    .lcp_units = lcp_units,
    .lcp_z_names = lcp_z_names,
    .lcp_w_names = lcp_w_names,
    .lcp_tangent = lcp_tangent,
    .lcp_recover_tangent = lcp_recover_tangent,
    .nlp_n = NV,
    .nlp_m = NG,
    .nlp_describe = nlp_describe,
    .nlp_start = nlp_start,
    .nlp_recover = nlp_recover,
    .residuals = residuals,
    .modes = modes,
};
