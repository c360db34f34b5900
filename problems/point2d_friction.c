/*
 * point2d_friction.c: a point mass in the vertical x-z plane above the ground z = 0, with
 * contact and Coulomb friction (note 003, "Intro to Robot Simulation, Part 3: Friction").
 *
 * State X = (x, z, xd, zd), input (ux, uz) an external force, contact forces (fx, fz).
 *
 * Semi-implicit Euler (the post's integrator: velocities first, positions from the new ones):
 *     xd' = xd + dt (ux + fx) / m                 (D1)
 *     zd' = zd + dt ((uz + fz) / m - g)           (D2)
 *     x'  = x + dt xd'                            (D3)
 *     z'  = z + dt zd'                            (D4)
 * Contact at position level:       0 <= fz  _|_  z' >= 0                         (C1)
 * Coulomb friction:                |fx| <= mu fz                                 (C2)
 * maximal dissipation, with lambda >= 0 the sliding speed |xd'|:
 *                                  0 <= lambda  _|_  mu fz - |fx| >= 0            (C3)
 *                                  friction opposes the next velocity xd'         (C4)
 *
 * NLP form (variables X', fx, fz, s1, s2, lambda; constraints as numbered below):
 *     min  P(s1) + P(s2)          P: the slack penalty (L1 by default, L2 in the post)
 *     g0..g3  (D3), (D4), (D1), (D2) written as  ... = 0
 *     g4      direction (C4), per variant (below)                              = 0
 *     g5      mu fz - ssqrt(fx^2)                                              >= 0   (C2)
 *     g6      s1 - fz z'                                                       >= 0   (C1 relaxed)
 *     g7      s2 - lambda (mu fz - ssqrt(fx^2))                                >= 0   (C3 relaxed)
 *     bounds  z' >= 0, fz >= 0, s1 >= 0, s2 >= 0, lambda >= 0
 *
 * The direction constraint (C4), and why the default differs from the post:
 *   "blog" (the post, eq. 15):   xd + lambda fx / (ssqrt(fx^2) + eps) = 0.
 *     Since ssqrt(fx^2) + eps = sqrt(fx^2 + eps^2), this is xd + lambda fx / sqrt(fx^2 + eps^2).
 *     (a) It uses the CURRENT velocity xd, so friction cannot bring the mass to rest within a step
 *         and the stopping logic lags a step behind. (b) In flight fz = 0 forces fx = 0 by (C2),
 *         so the constraint reads xd = 0: every flight step with xd != 0 is infeasible.
 *   "corrected" (default):       mu fz xd' + lambda fx = 0.
 *     Sliding (xd' != 0, lambda = |xd'|): fx = -mu fz sign(xd'), exactly Coulomb's law (C4).
 *     Sticking (xd' = 0): lambda = 0 by (C3)'s slack and the constraint holds for any fx in the
 *     cone, so the mass can stick. In flight (fz = 0, fx = 0) it reads 0 = 0: feasible. With
 *     fz > 0 it forbids frictionless sliding: fx = 0 would force xd' = 0. No division anywhere.
 *
 * LCP twin (Stewart-Trinkle with friction directions +x and -x, the same integrator and the same
 * position-level contact), unknowns z = (fz, beta+, beta-, gamma), fx = beta+ - beta-:
 *     w_n  = z'/dt = z/dt + zd + dt (uz/m - g) + (dt/m) fz          _|_ fz       (C1)
 *     w_+  = gamma + xd' = gamma + xd + dt ux/m + (dt/m)(beta+ - beta-)  _|_ beta+
 *     w_-  = gamma - xd'                                              _|_ beta-
 *     w_g  = mu fz - beta+ - beta-                                    _|_ gamma     (C2, C3)
 * so M = [[dt/m, 0, 0, 0], [0, dt/m, -dt/m, 1], [0, -dt/m, dt/m, 1], [mu, -1, -1, 0]] and
 * q = (z/dt + zd + dt (uz/m - g), xd + dt ux/m, -(xd + dt ux/m), 0). gamma is the sliding speed,
 * the LCP's lambda.
 */
#include <math.h>

#include "nlp/dense.h"
#include "nlp/smooth.h"
#include "sim/contact_physics.h"
#include "sim/model.h"

enum { P_M, P_G, P_MU, NPARAM };
enum { S_X, S_Z, S_XD, S_ZD, NSTATE };
enum { U_X, U_Z };
enum { F_X, F_Z };
/* NLP variables and constraints */
enum { V_X, V_Z, V_XD, V_ZD, V_FX, V_FZ, V_S1, V_S2, V_LAM, NV };
enum { G_POS_X, G_POS_Z, G_VEL_X, G_VEL_Z, G_DIRECTION, G_CONE, G_NORMAL_SLACK, G_FRICTION_SLACK, NG };
enum { VARIANT_CORRECTED, VARIANT_BLOG };

static const rs_param_def params[NPARAM] = {
    {"m", 10.0, 1e-6, 1e6, "mass, kg"},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2"},
    {"mu", 0.1, 0.0, 10.0, "Coulomb friction coefficient"},
};
static const char *const state_names[NSTATE] = {"x_m", "z_m", "xd_mps", "zd_mps"};
static const double state_default[NSTATE] = {0.0, 1.0, 1.0, 0.0};
static const int velocity_index[] = {S_XD, S_ZD};
static const char *const input_names[] = {"ux_N", "uz_N"};
static const char *const force_names[] = {"fx_N", "fz_N"};
static const char *const variants[] = {"corrected", "blog"};

static double force_scale(const double *p)
{
    return fmax(p[P_M] * p[P_G], 1e-12);
}

/* ---- NLP ------------------------------------------------------------------------------------ */

/* The next state from the forces by the integrator (D1)-(D4). */
static void integrate(const rs_step_data *d, const double *forces, double *state_next)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    state_next[S_XD] = s[S_XD] + dt * (u[U_X] + forces[F_X]) / p[P_M];
    state_next[S_ZD] = s[S_ZD] + dt * ((u[U_Z] + forces[F_Z]) / p[P_M] - p[P_G]);
    state_next[S_X] = s[S_X] + dt * state_next[S_XD];
    state_next[S_Z] = s[S_Z] + dt * state_next[S_ZD];
}


static void nlp_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    for (int j = 0; j < NV; j++) {
        x_l[j] = -RS_NLP_INF;
        x_u[j] = RS_NLP_INF;
    }
    x_l[V_Z] = x_l[V_FZ] = x_l[V_S1] = x_l[V_S2] = x_l[V_LAM] = 0.0;
    for (int i = 0; i < NG; i++) {
        g_l[i] = 0.0;
        g_u[i] = i <= G_DIRECTION ? 0.0 : RS_NLP_INF; /* equalities, then inequalities >= 0 */
    }
}

static double nlp_f(void *ctx, const double *x)
{
    const rs_step_data *d = ctx;
    return rs_penalty(d->nlp, x[V_S1]) + rs_penalty(d->nlp, x[V_S2]);
}

static void nlp_grad_f(void *ctx, const double *x, double *grad)
{
    const rs_step_data *d = ctx;
    for (int j = 0; j < NV; j++)
        grad[j] = 0.0;
    grad[V_S1] = rs_penalty_d1(d->nlp, x[V_S1]);
    grad[V_S2] = rs_penalty_d1(d->nlp, x[V_S2]);
}

static void nlp_g(void *ctx, const double *x, double *g)
{
    const rs_step_data *d = ctx;
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    const double m = p[P_M], mu = p[P_MU], eps = d->nlp->eps;
    const double cone = mu * x[V_FZ] - rs_snorm(x[V_FX], eps);
    g[G_POS_X] = x[V_X] - s[S_X] - dt * x[V_XD];
    g[G_POS_Z] = x[V_Z] - s[S_Z] - dt * x[V_ZD];
    g[G_VEL_X] = x[V_XD] - s[S_XD] - dt * (u[U_X] + x[V_FX]) / m;
    g[G_VEL_Z] = x[V_ZD] - s[S_ZD] - dt * ((u[U_Z] + x[V_FZ]) / m - p[P_G]);
    if (d->variant == VARIANT_BLOG) /* xd + lambda fx / (ssqrt(fx^2) + eps) = xd + lambda N'(fx) */
        g[G_DIRECTION] = s[S_XD] + x[V_LAM] * rs_snorm_d1(x[V_FX], eps);
    else
        g[G_DIRECTION] = mu * x[V_FZ] * x[V_XD] + x[V_LAM] * x[V_FX];
    g[G_CONE] = cone;
    g[G_NORMAL_SLACK] = x[V_S1] - x[V_FZ] * x[V_Z];
    g[G_FRICTION_SLACK] = x[V_S2] - x[V_LAM] * cone;
}

static void nlp_jac(void *ctx, const double *x, double *J)
{
    const rs_step_data *d = ctx;
    const double m = d->params[P_M], mu = d->params[P_MU], dt = d->dt, eps = d->nlp->eps;
    const double n1 = rs_snorm_d1(x[V_FX], eps);
    const double cone = mu * x[V_FZ] - rs_snorm(x[V_FX], eps);
    rs_dense_zero(J, NG, NV);
    rs_jac_set(J, NG, G_POS_X, V_X, 1.0);
    rs_jac_set(J, NG, G_POS_X, V_XD, -dt);
    rs_jac_set(J, NG, G_POS_Z, V_Z, 1.0);
    rs_jac_set(J, NG, G_POS_Z, V_ZD, -dt);
    rs_jac_set(J, NG, G_VEL_X, V_XD, 1.0);
    rs_jac_set(J, NG, G_VEL_X, V_FX, -dt / m);
    rs_jac_set(J, NG, G_VEL_Z, V_ZD, 1.0);
    rs_jac_set(J, NG, G_VEL_Z, V_FZ, -dt / m);
    if (d->variant == VARIANT_BLOG) {
        rs_jac_set(J, NG, G_DIRECTION, V_LAM, n1);
        rs_jac_set(J, NG, G_DIRECTION, V_FX, x[V_LAM] * rs_snorm_d2(x[V_FX], eps));
    } else {
        rs_jac_set(J, NG, G_DIRECTION, V_FZ, mu * x[V_XD]);
        rs_jac_set(J, NG, G_DIRECTION, V_XD, mu * x[V_FZ]);
        rs_jac_set(J, NG, G_DIRECTION, V_LAM, x[V_FX]);
        rs_jac_set(J, NG, G_DIRECTION, V_FX, x[V_LAM]);
    }
    rs_jac_set(J, NG, G_CONE, V_FZ, mu);
    rs_jac_set(J, NG, G_CONE, V_FX, -n1);
    rs_jac_set(J, NG, G_NORMAL_SLACK, V_S1, 1.0);
    rs_jac_set(J, NG, G_NORMAL_SLACK, V_FZ, -x[V_Z]);
    rs_jac_set(J, NG, G_NORMAL_SLACK, V_Z, -x[V_FZ]);
    rs_jac_set(J, NG, G_FRICTION_SLACK, V_S2, 1.0);
    rs_jac_set(J, NG, G_FRICTION_SLACK, V_LAM, -cone);
    rs_jac_set(J, NG, G_FRICTION_SLACK, V_FZ, -x[V_LAM] * mu);
    rs_jac_set(J, NG, G_FRICTION_SLACK, V_FX, x[V_LAM] * n1);
}

/* N(f) = ssqrt(f^2): N' and N'' from smooth.h; N''' = -3 eps^2 f / (f^2 + eps^2)^(5/2). */
static double snorm_d3(double f, double eps)
{
    const double r = f * f + eps * eps;
    return -3.0 * eps * eps * f / (r * r * sqrt(r));
}

static void nlp_hess(void *ctx, const double *x, double obj_factor, const double *lambda,
                     double *H)
{
    const rs_step_data *d = ctx;
    const double mu = d->params[P_MU], eps = d->nlp->eps;
    const double n1 = rs_snorm_d1(x[V_FX], eps), n2 = rs_snorm_d2(x[V_FX], eps);
    rs_dense_zero(H, NV, NV);
    rs_hess_add(H, NV, V_S1, V_S1, obj_factor * rs_penalty_d2(d->nlp));
    rs_hess_add(H, NV, V_S2, V_S2, obj_factor * rs_penalty_d2(d->nlp));
    const double l_dir = lambda[G_DIRECTION], l_cone = lambda[G_CONE];
    const double l_n = lambda[G_NORMAL_SLACK], l_f = lambda[G_FRICTION_SLACK];
    if (d->variant == VARIANT_BLOG) { /* lambda N'(fx) */
        rs_hess_add(H, NV, V_LAM, V_FX, l_dir * n2);
        rs_hess_add(H, NV, V_FX, V_FX, l_dir * x[V_LAM] * snorm_d3(x[V_FX], eps));
    } else { /* mu fz xd' + lambda fx */
        rs_hess_add(H, NV, V_FZ, V_XD, l_dir * mu);
        rs_hess_add(H, NV, V_LAM, V_FX, l_dir);
    }
    rs_hess_add(H, NV, V_FX, V_FX, -l_cone * n2);            /* mu fz - N(fx) */
    rs_hess_add(H, NV, V_FZ, V_Z, -l_n);                     /* s1 - fz z' */
    rs_hess_add(H, NV, V_LAM, V_FZ, -l_f * mu);              /* s2 - lambda (mu fz - N(fx)) */
    rs_hess_add(H, NV, V_LAM, V_FX, l_f * n1);
    rs_hess_add(H, NV, V_FX, V_FX, l_f * x[V_LAM] * n2);
}

static void nlp_describe(rs_nlp_problem *p)
{
    p->n = NV;
    p->m = NG;
    p->bounds = nlp_bounds;
    p->eval_f = nlp_f;
    p->eval_grad_f = nlp_grad_f;
    p->eval_g = nlp_g;
    p->eval_jac = nlp_jac;
    p->eval_hess = nlp_hess;
}

/*
 * Starting points. Attempt 0 is the post's guess: X' = X_k, forces, slacks and lambda zero.
 * Retries are cold starts from elsewhere:
 *   attempt 1, a physical predictor: the free flight, stopped on the ground by the normal force
 *     that (D2), (D4) need for z' = 0 when the flight would penetrate; then Coulomb's law on the
 *     sideways velocity (full friction against it if that cannot stop it, else just enough);
 *   attempt 2 and later: the mass resting on the ground (fz = m g).
 * These are only starting points: the NLP must still converge and pass its certificate.
 */
static void nlp_guess(const rs_step_data *d, int attempt, double *x0)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt, m = p[P_M];
    for (int j = 0; j < NV; j++)
        x0[j] = 0.0;
    x0[V_X] = s[S_X];
    x0[V_Z] = s[S_Z];
    x0[V_XD] = s[S_XD];
    x0[V_ZD] = s[S_ZD];
    if (attempt == 1) {
        const double zd_free = s[S_ZD] + dt * (u[U_Z] / m - p[P_G]);
        const double fz = s[S_Z] + dt * zd_free < 0.0 ? m * (-s[S_Z] / dt - zd_free) / dt : 0.0;
        const double xd_free = s[S_XD] + dt * u[U_X] / m, slip_stop = dt * p[P_MU] * fz / m;
        const double fx = fabs(xd_free) > slip_stop ? -p[P_MU] * fz * (xd_free > 0 ? 1.0 : -1.0)
                                                    : -m * xd_free / dt;
        const double forces[2] = {fx, fz};
        double next[NSTATE];
        integrate(d, forces, next);
        for (int i = 0; i < NSTATE; i++)
            x0[i] = next[i];
        x0[V_Z] = fmax(0.0, x0[V_Z]);
        x0[V_FX] = fx;
        x0[V_FZ] = fz;
        x0[V_LAM] = fabs(next[S_XD]);
    } else if (attempt > 1) {
        x0[V_X] = s[S_X] + dt * s[S_XD];
        x0[V_Z] = fmax(0.0, s[S_Z] + dt * s[S_ZD]);
        x0[V_FZ] = m * p[P_G];
        x0[V_S1] = x0[V_S2] = 1.0;
        x0[V_LAM] = fabs(s[S_XD]);
    }
}

static void nlp_recover(const rs_step_data *d, const double *x, double *state_next, double *forces)
{
    (void)d;
    state_next[S_X] = x[V_X];
    state_next[S_Z] = x[V_Z];
    state_next[S_XD] = x[V_XD];
    state_next[S_ZD] = x[V_ZD];
    forces[F_X] = x[V_FX];
    forces[F_Z] = x[V_FZ];
}

/* ---- LCP ------------------------------------------------------------------------------------ */

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    const double c = dt / p[P_M], mu = p[P_MU];
    /* column-major 4 x 4, unknowns (fz, beta+, beta-, gamma) */
    const double Mcols[16] = {c,   0.0, 0.0, mu,    /* fz */
                              0.0, c,   -c,  -1.0,  /* beta+ */
                              0.0, -c,  c,   -1.0,  /* beta- */
                              0.0, 1.0, 1.0, 0.0};  /* gamma */
    for (int k = 0; k < 16; k++)
        M[k] = Mcols[k];
    const double xd_free = s[S_XD] + dt * u[U_X] / p[P_M];
    q[0] = s[S_Z] / dt + s[S_ZD] + dt * (u[U_Z] / p[P_M] - p[P_G]);
    q[1] = xd_free;
    q[2] = -xd_free;
    q[3] = 0.0;
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w,
                        double *state_next, double *forces)
{
    (void)w;
    forces[F_Z] = z[0];
    forces[F_X] = z[1] - z[2];
    integrate(d, forces, state_next);
}

/* ---- certificate and modes ------------------------------------------------------------------ */

static void residuals(const rs_step_data *d, const double *sn, const double *f, double *primal,
                      double *complementarity)
{
    const double fs = force_scale(d->params), mu = d->params[P_MU];
    double pred[NSTATE];
    integrate(d, f, pred);
    double p = 0.0, c = 0.0;
    for (int i = 0; i < NSTATE; i++) /* the integrator (D1)-(D4), in m and m/s */
        p = fmax(p, fabs(sn[i] - pred[i]));
    p = fmax(p, -sn[S_Z]);              /* z' >= 0, m */
    p = fmax(p, -f[F_Z] / fs);          /* fz >= 0 */
    c = fmax(c, f[F_Z] * fmax(sn[S_Z], 0.0) / fs); /* fz z', m */
    rs_coulomb_residuals(sn[S_XD], f[F_X], mu * fmax(f[F_Z], 0.0), fs, &p, &c);
    *primal = p;
    *complementarity = c;
}

static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    out[0] = rs_friction_mode(f[F_Z], force_scale(d->params), sn[S_XD], tols);
}

const rs_model rs_model_point2d_friction = {
    .name = "point2d_friction",
    .summary = "2-D point mass with ground contact and Coulomb friction",
    .source = "note 003 (Intro to Robot Simulation, Part 3: Friction)",
    .nparams = NPARAM,
    .params = params,
    .nstate = NSTATE,
    .state_names = state_names,
    .state_default = state_default,
    .velocity_index = velocity_index,
    .nvelocity = 2,
    .ninput = 2,
    .input_names = input_names,
    .nforce = 2,
    .force_names = force_names,
    .ncontacts = 1,
    .nvariants = 2,
    .variants = variants,
    .force_scale = force_scale,
    .check_step = NULL,
    .lcp_n = 4,
    .lcp_build = lcp_build,
    .lcp_recover = lcp_recover,
    .nlp_n = NV,
    .nlp_m = NG,
    .nlp_describe = nlp_describe,
    .nlp_guess = nlp_guess,
    .nlp_recover = nlp_recover,
    .residuals = residuals,
    .modes = modes,
};
