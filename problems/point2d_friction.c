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
 * NLP form, posed in the step's natural units so that IPOPT sees the same well-scaled problem for
 * a 1 g body and a 1 t one (rs_step_scales): speed V = the largest of |xd|, |zd|, the free-flight
 * speeds |xd + dt ux/m|, |zd + dt (uz/m - g)| and g dt; length L = V dt; force F = m V / dt (a
 * force that changes the velocity by V within the step). Dimensionless variables:
 *     xh = (x' - x)/L, zh = (z' - z)/L, vx = xd'/V, vz = zd'/V, px = fx/F, pz = fz/F, s1, s2,
 *     lh = lambda/V
 * Positions enter as displacements, so that no variable carries the size of the position itself
 * (a body 1e7 m up: z/L ~ 1e10, whose rounding alone would exceed tol) and the previous step's
 * solution is close to the next one's; the height after the step is h = z/L + zh.
 * Dividing (D1)-(D4) by L or V (dt f / (m V) = f / F):
 *     min  P(s1) + P(s2)          P: the slack penalty (L1 by default, L2 in the post)
 *     g0  xh - vx                                         = 0   (D3) / L
 *     g1  zh - vz                                         = 0   (D4) / L
 *     g2  vx - xd/V - dt ux/(m V) - px                    = 0   (D1) / V
 *     g3  vz - zd/V - dt (uz/m - g)/V - pz                = 0   (D2) / V
 *     g4  direction (C4), per variant (below), / (F V)    = 0
 *     g5  mu pz - ssqrt(px^2)                             >= 0  (C2) / F
 *     g6  z/L + zh                                        >= 0  z' >= 0, / L
 *     g7  s1 - pz (z/L + zh)                              >= 0  (C1 relaxed) / (F L)
 *     g8  s2 - lh (mu pz - ssqrt(px^2))                   >= 0  (C3 relaxed) / (F V)
 *     bounds  pz >= 0, s1 >= 0, s2 >= 0, lh >= 0
 * eps smooths the norm of the dimensionless force px: ssqrt(fx^2) with eps F in newtons.
 * The post's variant ("blog") is solved as published: in SI units (V = L = F = 1, so the
 * integrator rows carry dt and dt/m), eps in newtons.
 *
 * The direction constraint (C4), and why the default differs from the post:
 *   "blog" (the post, eq. 15):   xd + lambda fx / (ssqrt(fx^2) + eps) = 0, scaled: xd/V + lh N'(px).
 *     Since ssqrt(fx^2) + eps = sqrt(fx^2 + eps^2), this is xd + lambda fx / sqrt(fx^2 + eps^2).
 *     (a) It uses the CURRENT velocity xd, so friction cannot bring the mass to rest within a step
 *         and the stopping logic lags a step behind. (b) In flight fz = 0 forces fx = 0 by (C2),
 *         so the constraint reads xd = 0: every flight step with xd != 0 is infeasible.
 *   "corrected" (default):       mu fz xd' + lambda fx = 0, scaled: mu pz vx + lh px = 0.
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
#include <string.h>

#include "core/detail.h"
#include "nlp/dense.h"
#include "nlp/smooth.h"
#include "point_friction_nlp.h"
#include "sim/contact_physics.h"
#include "sim/model.h"

enum { P_M, P_G, P_MU, NPARAM };
enum { S_X, S_Z, S_XD, S_ZD, NSTATE };
enum { U_X, U_Z };
enum { F_X, F_Z };
/* NLP variables and constraints */
enum { V_X, V_Z, V_XD, V_ZD, V_FX, V_FZ, V_S1, V_S2, V_LAM, NV };
enum { G_POS_X, G_POS_Z, G_VEL_X, G_VEL_Z, G_DIRECTION, G_CONE, G_HEIGHT, G_NORMAL_SLACK,
       G_FRICTION_SLACK, NG };
enum { VARIANT_CORRECTED, VARIANT_BLOG };

static const rs_param_def params[NPARAM] = {
    {"m", 10.0, 1e-6, 1e6, "mass, kg", 0.0},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
    {"mu", 0.1, 0.0, 10.0, "Coulomb friction coefficient", 0.0},
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

/* The contact-free velocities: (D1), (D2) with fx = fz = 0. */
static void free_velocity(const rs_step_data *d, double *xd_free, double *zd_free)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    *xd_free = s[S_XD] + dt * u[U_X] / p[P_M];
    *zd_free = s[S_ZD] + dt * (u[U_Z] / p[P_M] - p[P_G]);
}

/* The step's natural units (every variant is judged in them). */
static void step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    const double *p = d->params, *s = d->state, dt = d->dt;
    double xd_free, zd_free;
    free_velocity(d, &xd_free, &zd_free);
    const double speeds[] = {fabs(s[S_XD]), fabs(s[S_ZD]), fabs(xd_free), fabs(zd_free)};
    rs_step_scales_set(sc, speeds, 4, p[P_G] * dt, dt, p[P_M]);
}

/* The units the NLP is posed in: the step's natural ones; the post's variant is solved as
 * published, in SI units (V = L = F = 1). */
static void nlp_scales(const rs_step_data *d, rs_step_scales *sc)
{
    if (d->variant == VARIANT_BLOG)
        *sc = (rs_step_scales){1.0, 1.0, 1.0};
    else
        step_scales(d, sc);
}

/* The coefficients of (D3)/(D4) and (D1)/(D2) in scaled variables: V dt / L and F dt / (m V),
 * both 1 in the natural units, dt and dt/m in SI units. */
static void integrator_coefficients(const rs_step_data *d, const rs_step_scales *sc,
                                    double *c_pos, double *c_vel)
{
    *c_pos = sc->speed * d->dt / sc->length;
    *c_vel = sc->force * d->dt / (d->params[P_M] * sc->speed);
}

/* Contact is at position level: a body that starts below the ground would be expelled within
 * one step (z = -1 m: at 1000 m/s with dt = 1 ms). Refused rather than treated. */
static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    if (d->state[S_Z] < 0.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "z < 0: the body starts below the ground (start at z >= 0; contact is "
                             "at position level)");
    return RS_OK;
}

/* A state a run reached (or a caller sets, rs_sim_set_state): z down to one step's length below
 * the ground, far more than a step's rounding or the NLP's tolerance leaves (the next step's gap
 * term lifts it); deeper is no state a run reaches. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    return rs_check_reached_height(d->state[S_Z], "z", "ground", &sc, detail);
}

/* The next state from the forces by the integrator (D1)-(D4). */
static void integrate(const rs_step_data *d, const double *forces, double *state_next)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    state_next[S_XD] = s[S_XD] + dt * (u[U_X] + forces[F_X]) / p[P_M];
    state_next[S_ZD] = s[S_ZD] + dt * ((u[U_Z] + forces[F_Z]) / p[P_M] - p[P_G]);
    state_next[S_X] = s[S_X] + dt * state_next[S_XD];
    state_next[S_Z] = s[S_Z] + dt * state_next[S_ZD];
}

/* ---- NLP, in the step's natural units ------------------------------------------------------- */

/* Where the variables sit: bounds and objective shared with point3d (point_friction_nlp.h). */
static const point_nlp_layout layout = {NV, NG, G_DIRECTION, V_FZ, V_S1, V_S2, V_LAM};

static void nlp_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    (void)ctx;
    point_nlp_bounds(&layout, x_l, x_u, g_l, g_u);
}

static double nlp_f(void *ctx, const double *x)
{
    return point_nlp_f(&layout, ctx, x);
}

static void nlp_grad_f(void *ctx, const double *x, double *grad)
{
    point_nlp_grad_f(&layout, ctx, x, grad);
}

static void nlp_g(void *ctx, const double *x, double *g)
{
    const rs_step_data *d = ctx;
    const double *p = d->params, *s = d->state, mu = p[P_MU], eps = d->nlp->eps;
    rs_step_scales sc;
    nlp_scales(d, &sc);
    double xd_free, zd_free;
    free_velocity(d, &xd_free, &zd_free);
    double c_pos, c_vel;
    integrator_coefficients(d, &sc, &c_pos, &c_vel);
    const double cone = mu * x[V_FZ] - rs_snorm(x[V_FX], eps);
    g[G_POS_X] = x[V_X] - c_pos * x[V_XD];
    g[G_POS_Z] = x[V_Z] - c_pos * x[V_ZD];
    g[G_VEL_X] = x[V_XD] - xd_free / sc.speed - c_vel * x[V_FX];
    g[G_VEL_Z] = x[V_ZD] - zd_free / sc.speed - c_vel * x[V_FZ];
    if (d->variant == VARIANT_BLOG) /* xd + lambda fx / (ssqrt(fx^2) + eps) = xd + lambda N'(fx) */
        g[G_DIRECTION] = s[S_XD] / sc.speed + x[V_LAM] * rs_snorm_d1(x[V_FX], eps);
    else
        g[G_DIRECTION] = mu * x[V_FZ] * x[V_XD] + x[V_LAM] * x[V_FX];
    const double height = s[S_Z] / sc.length + x[V_Z];
    g[G_CONE] = cone;
    g[G_HEIGHT] = height;
    g[G_NORMAL_SLACK] = x[V_S1] - x[V_FZ] * height;
    g[G_FRICTION_SLACK] = x[V_S2] - x[V_LAM] * cone;
}

static void nlp_jac(void *ctx, const double *x, double *J)
{
    const rs_step_data *d = ctx;
    const double mu = d->params[P_MU], eps = d->nlp->eps;
    const double n1 = rs_snorm_d1(x[V_FX], eps);
    const double cone = mu * x[V_FZ] - rs_snorm(x[V_FX], eps);
    rs_step_scales sc;
    nlp_scales(d, &sc);
    double c_pos, c_vel;
    integrator_coefficients(d, &sc, &c_pos, &c_vel);
    rs_dense_zero(J, NG, NV);
    rs_jac_set(J, NG, G_POS_X, V_X, 1.0);
    rs_jac_set(J, NG, G_POS_X, V_XD, -c_pos);
    rs_jac_set(J, NG, G_POS_Z, V_Z, 1.0);
    rs_jac_set(J, NG, G_POS_Z, V_ZD, -c_pos);
    rs_jac_set(J, NG, G_VEL_X, V_XD, 1.0);
    rs_jac_set(J, NG, G_VEL_X, V_FX, -c_vel);
    rs_jac_set(J, NG, G_VEL_Z, V_ZD, 1.0);
    rs_jac_set(J, NG, G_VEL_Z, V_FZ, -c_vel);
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
    const double height = d->state[S_Z] / sc.length + x[V_Z];
    rs_jac_set(J, NG, G_HEIGHT, V_Z, 1.0);
    rs_jac_set(J, NG, G_NORMAL_SLACK, V_S1, 1.0);
    rs_jac_set(J, NG, G_NORMAL_SLACK, V_FZ, -height);
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
    if (d->variant == VARIANT_BLOG) { /* lh N'(px) */
        rs_hess_add(H, NV, V_LAM, V_FX, l_dir * n2);
        rs_hess_add(H, NV, V_FX, V_FX, l_dir * x[V_LAM] * snorm_d3(x[V_FX], eps));
    } else { /* mu pz vx + lh px */
        rs_hess_add(H, NV, V_FZ, V_XD, l_dir * mu);
        rs_hess_add(H, NV, V_LAM, V_FX, l_dir);
    }
    rs_hess_add(H, NV, V_FX, V_FX, -l_cone * n2);            /* mu pz - N(px) */
    rs_hess_add(H, NV, V_FZ, V_Z, -l_n);                     /* s1 - pz (z/L + zh) */
    rs_hess_add(H, NV, V_LAM, V_FZ, -l_f * mu);              /* s2 - lh (mu pz - N(px)) */
    rs_hess_add(H, NV, V_LAM, V_FX, l_f * n1);
    rs_hess_add(H, NV, V_FX, V_FX, l_f * x[V_LAM] * n2);
}

static void nlp_describe(rs_nlp_problem *p, int variant)
{
    memset(p, 0, sizeof *p); /* every field the NLP does not set: none */
    p->natural_units = variant != VARIANT_BLOG; /* the post's variant: SI units, as published */
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

/*
 * Generic starting points, never a solution of the contact problem:
 *   RS_NLP_START_CURRENT       the post's guess: X' = X_k, no forces, slacks and lambda zero;
 *   RS_NLP_START_CONTACT_FREE  the integrator (D1)-(D4) with fx = fz = 0 (below the ground when
 *                              the flight would penetrate: IPOPT moves it into the bounds).
 */
static void nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    const double *s = d->state;
    rs_step_scales sc;
    nlp_scales(d, &sc);
    double next[NSTATE] = {s[S_X], s[S_Z], s[S_XD], s[S_ZD]};
    if (which == RS_NLP_START_CONTACT_FREE) {
        const double no_force[2] = {0.0, 0.0};
        integrate(d, no_force, next);
    }
    for (int j = 0; j < NV; j++)
        x0[j] = 0.0;
    x0[V_X] = (next[S_X] - s[S_X]) / sc.length;
    x0[V_Z] = (next[S_Z] - s[S_Z]) / sc.length;
    x0[V_XD] = next[S_XD] / sc.speed;
    x0[V_ZD] = next[S_ZD] / sc.speed;
}

static void nlp_recover(const rs_step_data *d, const double *x, double *state_next, double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    nlp_scales(d, &sc);
    state_next[S_X] = d->state[S_X] + sc.length * x[V_X];
    state_next[S_Z] = d->state[S_Z] + sc.length * x[V_Z];
    state_next[S_XD] = sc.speed * x[V_XD];
    state_next[S_ZD] = sc.speed * x[V_ZD];
    forces[F_X] = sc.force * x[V_FX];
    forces[F_Z] = sc.force * x[V_FZ];
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
                        double *state_next, double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    (void)w;
    forces[F_Z] = z[0];
    forces[F_X] = z[1] - z[2];
    integrate(d, forces, state_next);
}

/* z = (fz, beta+, beta-, gamma): three forces and a speed; w = (z'/dt, gamma + xd', gamma - xd',
 * the unused friction mu fz - beta+ - beta-): three speeds and a force. For the relaxation of the
 * LCP ([nlp] form = relaxation, and the NLP gradients of relaxsim grad). */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    z_unit[0] = z_unit[1] = z_unit[2] = w_unit[3] = sc.force;
    z_unit[3] = w_unit[0] = w_unit[1] = w_unit[2] = sc.speed;
}

/* The tangent of a / m along t, for a quantity a with tangent da. */
static double d_over_m(const rs_step_data *d, const rs_step_tangent *t, double a, double da)
{
    const double m = d->params[P_M];
    return da / m - a * t->params[P_M] / (m * m);
}

/* Tangents of lcp_build: c = dt/m in M, mu in M[3]; q0 = z/dt + zd + dt (uz/m - g),
 * q1 = -q2 = xd + dt ux/m. */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    const double *s = d->state, *u = d->input, *ds = t->state, *du = t->input, dt = d->dt;
    const double dc = d_over_m(d, t, dt, t->dt);
    const double dMcols[16] = {dc, 0.0, 0.0, t->params[P_MU], 0.0, dc, -dc, 0.0,
                               0.0, -dc, dc, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < 16; k++)
        dM[k] = dMcols[k];
    const double az = u[U_Z] / d->params[P_M] - d->params[P_G];
    const double daz = d_over_m(d, t, u[U_Z], du[U_Z]) - t->params[P_G];
    dq[0] = ds[S_Z] / dt - s[S_Z] * t->dt / (dt * dt) + ds[S_ZD] + t->dt * az + dt * daz;
    dq[1] = ds[S_XD] + t->dt * u[U_X] / d->params[P_M] + dt * d_over_m(d, t, u[U_X], du[U_X]);
    dq[2] = -dq[1];
    dq[3] = 0.0;
}

/* Tangent of lcp_recover: dfz = dz0, dfx = dz1 - dz2, then the integrator (D1)-(D4). */
static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)w;
    (void)dw;
    const double *u = d->input, *ds = t->state, *du = t->input, dt = d->dt;
    const double f[2] = {z[1] - z[2], z[0]}, df[2] = {dz[1] - dz[2], dz[0]};
    double sn[NSTATE];
    integrate(d, f, sn);
    dforces[F_X] = df[F_X];
    dforces[F_Z] = df[F_Z];
    const double ax = u[U_X] + f[F_X], az = u[U_Z] + f[F_Z];
    dsn[S_XD] = ds[S_XD] + t->dt * ax / d->params[P_M] +
                dt * d_over_m(d, t, ax, du[U_X] + df[F_X]);
    dsn[S_ZD] = ds[S_ZD] + t->dt * (az / d->params[P_M] - d->params[P_G]) +
                dt * (d_over_m(d, t, az, du[U_Z] + df[F_Z]) - t->params[P_G]);
    dsn[S_X] = ds[S_X] + t->dt * sn[S_XD] + dt * dsn[S_XD];
    dsn[S_Z] = ds[S_Z] + t->dt * sn[S_ZD] + dt * dsn[S_ZD];
}

/* ---- certificate and modes ------------------------------------------------------------------ */

/* In the step's natural units (rs_step_scales), for every variant: a position error in lengths L
 * (beyond the rounding of the position itself), velocities in V, forces in F, products
 * accordingly. */
static void residuals(const rs_step_data *d, const double *sn, const double *f, const double *per_contact, double *primal,
                      double *complementarity)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    const double mu = d->params[P_MU];
    rs_step_scales sc;
    step_scales(d, &sc);
    double pred[NSTATE];
    integrate(d, f, pred);
    double p = 0.0, c = 0.0;
    for (int i = 0; i < NSTATE; i++) { /* the integrator (D1)-(D4) */
        const double unit = i == S_X || i == S_Z ? rs_length_unit(&sc, pred[i]) : sc.speed;
        p = fmax(p, fabs(sn[i] - pred[i]) / unit);
    }
    const double zh = sn[S_Z] / sc.length, pz = f[F_Z] / sc.force;
    p = fmax(p, fmax(-zh, -pz));                  /* z' >= 0, fz >= 0 */
    /* fz _|_ z': the natural residual min(pz, z'/L), not the product, which would weigh a
     * vanishing force by a height of 1e6 L near the top of a throw */
    c = fmax(c, fmin(fmax(pz, 0.0), fmax(zh, 0.0)));
    rs_coulomb_residuals(sn[S_XD] / sc.speed, f[F_X] / sc.force, mu * fmax(pz, 0.0), 1.0, &p, &c);
    *primal = p;
    *complementarity = c;
}

static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    (void)d;
    out[0] = rs_friction_mode(f[F_Z], sn[S_XD], tols);
}

static const char *const lcp_z_names[4] = {"fz_N", "beta_plus_N", "beta_minus_N", "gamma_mps"};
static const char *const lcp_w_names[4] = {"z_next_over_dt_mps", "gamma_plus_xd_next_mps", "gamma_minus_xd_next_mps", "slack_friction_N"};

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
    .step_scales = step_scales,
    .check_step = check_step,
    .check_reached = check_reached,
    .lcp_n = 4,
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
