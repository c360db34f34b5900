/*
 * point3d_friction.c: a point mass in 3-D above the ground z = 0 with contact and Coulomb
 * friction in the ground plane (note 000 section 2.4: the sliding block in the xy plane, whose
 * friction must oppose the next velocity's direction, coupling x and y; note 003's point mass
 * with a second tangential direction).
 *
 * State X = (x, y, z, xd, yd, zd), input (ux, uy, uz) an external force, contact forces
 * (fx, fy, fz); f_t = (fx, fy) and v_t = (xd, yd) the tangential parts. Semi-implicit Euler, as
 * point2d_friction:
 *     v' = v + dt ((u + f) / m - g e_z)                    (D1)
 *     p' = p + dt v'                                       (D2)
 * Contact at position level:       0 <= fz  _|_  z' >= 0                               (C1)
 * Coulomb's cone:                  |f_t| <= mu fz                                      (C2)
 * maximal dissipation, with lambda >= 0 the sliding speed |v_t'|:
 *                                  0 <= lambda  _|_  mu fz - |f_t| >= 0                 (C3)
 *                                  f_t opposes v_t':  mu fz v_t' + lambda f_t = 0       (C4)
 *   Sliding (v_t' != 0, lambda = |v_t'|): f_t = -mu fz v_t'/|v_t'|, Coulomb's law. Sticking
 *   (v_t' = 0): lambda = 0 and any f_t in the cone. In flight (fz = 0, f_t = 0): 0 = 0.
 *
 * NLP (the exact, circular cone), in the step's natural units as point2d_friction (speed V,
 * length L = V dt, force F = m V / dt); dimensionless variables
 *     (xh, yh, zh) = (p' - p)/L, (vx, vy, vz) = v'/V, (px, py, pz) = f/F, s1, s2, lh = lambda/V:
 *     min  P(s1) + P(s2)
 *     g0-g2   xh - vx, yh - vy, zh - vz                              = 0   (D2) / L
 *     g3-g5   v - v_free/V - p  (each component)                     = 0   (D1) / V
 *     g6, g7  mu pz vx + lh px,  mu pz vy + lh py                    = 0   (C4) / (F V)
 *     g8      mu pz - ssqrt(px^2 + py^2)                             >= 0  (C2) / F
 *     g9      z/L + zh                                               >= 0  z' >= 0, / L
 *     g10     s1 - pz (z/L + zh)                                     >= 0  (C1) relaxed
 *     g11     s2 - lh (mu pz - ssqrt(px^2 + py^2))                   >= 0  (C3) relaxed
 *     bounds  pz, s1, s2, lh >= 0
 * with ssqrt(y) = sqrt(y + eps^2) - eps: the cone is circular up to eps, which no LCP can give.
 *
 * LCP (Stewart-Trinkle's polyhedral cone): k friction directions d_i = (cos 2 pi i/k,
 * sin 2 pi i/k) ([model] directions = k, even, 4 .. 64), unknowns z = (fz, beta_1..beta_k, gamma),
 * f_t = sum_i beta_i d_i:
 *     w_n = z'/dt = z/dt + zd + dt (uz/m - g) + (dt/m) fz               _|_ fz       (C1)
 *     w_i = gamma + d_i . v_t' = gamma + d_i . (v_t + dt u_t/m) + (dt/m) sum_j (d_i . d_j) beta_j
 *                                                                       _|_ beta_i
 *     w_g = mu fz - sum_i beta_i                                        _|_ gamma    (C2, C3)
 * Its friction lies in the k-gon mu fz conv{d_i} (inscribed in the circle: its inradius is
 * cos(pi/k) of the circle's) and maximises the dissipation over it: -f_t . v_t' =
 * mu fz max_i d_i . v_t'. So a sliding direction between two d_i is off by up to pi/k, and the
 * friction's size by the factor cos(pi/k) at worst: the polygon's cost, measured by
 * scripts/cone_study.sh. gamma is the sliding speed's polygonal norm max_i d_i . (-v_t').
 *
 * The certificate judges an answer by the cone it solves: the circle for the NLP, the k-gon for
 * Lemke and the LCP's relaxation ([nlp] form = relaxation; rs_step_data.lcp_answer): with the
 * support function h(v) = |v| or max_i d_i . v, friction must lie in the cone (primal) and
 * f_t . v_t' + mu fz h(v_t') = 0 (maximal dissipation, complementarity).
 */
#include <math.h>
#include <string.h>

#include "core/detail.h"
#include "nlp/dense.h"
#include "nlp/smooth.h"
#include "point_friction_nlp.h"
#include "sim/contact_physics.h"
#include "sim/model.h"

enum { P_M, P_G, P_MU, P_DIRECTIONS, NPARAM };
enum { S_X, S_Y, S_Z, S_XD, S_YD, S_ZD, NSTATE };
enum { U_X, U_Y, U_Z };
enum { F_X, F_Y, F_Z };
/* NLP variables and constraints */
enum { V_X, V_Y, V_Z, V_XD, V_YD, V_ZD, V_FX, V_FY, V_FZ, V_S1, V_S2, V_LAM, NV };
enum {
    G_POS_X,
    G_POS_Y,
    G_POS_Z,
    G_VEL_X,
    G_VEL_Y,
    G_VEL_Z,
    G_DIR_X,
    G_DIR_Y,
    G_CONE,
    G_HEIGHT,
    G_NORMAL_SLACK,
    G_FRICTION_SLACK,
    NG
};
#define MAX_DIRECTIONS 64
#define PI 3.14159265358979323846

static const rs_param_def params[NPARAM] = {
    {"m", 10.0, 1e-6, 1e6, "mass, kg", 0.0},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
    {"mu", 0.1, 0.0, 10.0, "Coulomb friction coefficient", 0.0},
    {"directions", 8.0, 4.0, 64.0, "friction directions of the LCP's polyhedral cone (even)",
     2.0},
};
static const char *const state_names[NSTATE] = {"x_m", "y_m", "z_m", "xd_mps", "yd_mps", "zd_mps"};
static const double state_default[NSTATE] = {0.0, 0.0, 1.0, 1.0, 0.5, 0.0};
static const int velocity_index[] = {S_XD, S_YD, S_ZD};
static const char *const input_names[] = {"ux_N", "uy_N", "uz_N"};
static const char *const force_names[] = {"fx_N", "fy_N", "fz_N"};
static const char *const variants[] = {"corrected"};

static double force_scale(const double *p)
{
    return fmax(p[P_M] * p[P_G], 1e-12);
}

static int directions(const rs_step_data *d)
{
    return (int)d->params[P_DIRECTIONS];
}

/* Friction direction i of k: at angle 2 pi i / k (the axes' directions exact: +-x and +-y carry
 * no rounding into the other axis, so motion in a plane stays in it). */
static void direction(int i, int k, double *dir)
{
    const double a = 2.0 * PI * (double)i / (double)k;
    dir[0] = 4 * i == k || 4 * i == 3 * k ? 0.0 : cos(a);
    dir[1] = 2 * i == k || i == 0 ? 0.0 : sin(a);
}

/* The contact-free velocity: (D1) with f = 0. */
static void free_velocity(const rs_step_data *d, double *v)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    for (int i = 0; i < 3; i++)
        v[i] = s[S_XD + i] + dt * u[i] / p[P_M];
    v[2] -= dt * p[P_G];
}

static void step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    const double *s = d->state;
    double vf[3];
    free_velocity(d, vf);
    const double speeds[] = {hypot(s[S_XD], s[S_YD]), fabs(s[S_ZD]), hypot(vf[0], vf[1]),
                             fabs(vf[2])};
    rs_step_scales_set(sc, speeds, 4, d->params[P_G] * d->dt, d->dt, d->params[P_M]);
}

static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    const double k = d->params[P_DIRECTIONS];
    if (k != floor(k) || (int)k % 2 != 0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "directions must be an even whole number, 4 .. 64");
    if (d->state[S_Z] < 0.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "z < 0: the body starts below the ground (start at z >= 0; contact is "
                             "at position level)");
    return RS_OK;
}

/* A state a run reached (or a caller sets): z down to one step's length below the ground, more
 * than a step leaves; deeper is refused. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    return rs_check_reached_height(d->state[S_Z], "z", "ground", &sc, detail);
}

/* The next state from the forces by the integrator (D1), (D2). */
static void integrate(const rs_step_data *d, const double *f, double *sn)
{
    double vf[3];
    free_velocity(d, vf);
    for (int i = 0; i < 3; i++) {
        sn[S_XD + i] = vf[i] + d->dt * f[i] / d->params[P_M];
        sn[S_X + i] = d->state[S_X + i] + d->dt * sn[S_XD + i];
    }
}

/* ---- NLP, in the step's natural units ------------------------------------------------------- */

/* N(px, py) = ssqrt(px^2 + py^2) = S - eps with S = sqrt(px^2 + py^2 + eps^2): its gradient
 * (px, py)/S and Hessian (I - g g') / S. */
typedef struct snorm2 {
    double value, g[2], h[3]; /* h: (xx, xy, yy) */
} snorm2;

static snorm2 norm_t(const double *x, double eps)
{
    const double px = x[V_FX], py = x[V_FY], S = sqrt(px * px + py * py + eps * eps);
    snorm2 n;
    n.value = S - eps;
    n.g[0] = px / S;
    n.g[1] = py / S;
    n.h[0] = (1.0 - n.g[0] * n.g[0]) / S;
    n.h[1] = -n.g[0] * n.g[1] / S;
    n.h[2] = (1.0 - n.g[1] * n.g[1]) / S;
    return n;
}

/* Where derivatives are written: values (dense, column-major) or the sparsity mask. */
typedef struct sink {
    double *v;
    unsigned char *mask;
    int rows;
} sink;

static void put(const sink *k, int i, int j, double value)
{
    if (k->mask)
        k->mask[i + (size_t)j * k->rows] = 1;
    else
        k->v[i + (size_t)j * k->rows] = value;
}

/* Add to the Hessian's lower triangle. */
static void put_h(const sink *k, int a, int b, double value)
{
    if (a < b) {
        const int t = a;
        a = b;
        b = t;
    }
    if (k->mask)
        k->mask[a + (size_t)b * k->rows] = 1;
    else
        k->v[a + (size_t)b * k->rows] += value;
}

/* The integrator's coefficients in scaled variables: V dt / L and F dt / (m V), both 1. */
static void coefficients(const rs_step_data *d, const rs_step_scales *sc, double *c_pos,
                         double *c_vel)
{
    *c_pos = sc->speed * d->dt / sc->length;
    *c_vel = sc->force * d->dt / (d->params[P_M] * sc->speed);
}

/* Where the variables sit: bounds and objective shared with point2d (point_friction_nlp.h). */
static const point_nlp_layout layout = {NV, NG, G_DIR_Y, V_FZ, V_S1, V_S2, V_LAM};

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
    const double mu = d->params[P_MU];
    rs_step_scales sc;
    step_scales(d, &sc);
    double vf[3], c_pos, c_vel;
    free_velocity(d, vf);
    coefficients(d, &sc, &c_pos, &c_vel);
    const snorm2 n = norm_t(x, d->nlp->eps);
    for (int i = 0; i < 3; i++) {
        g[G_POS_X + i] = x[V_X + i] - c_pos * x[V_XD + i];
        g[G_VEL_X + i] = x[V_XD + i] - vf[i] / sc.speed - c_vel * x[V_FX + i];
    }
    g[G_DIR_X] = mu * x[V_FZ] * x[V_XD] + x[V_LAM] * x[V_FX];
    g[G_DIR_Y] = mu * x[V_FZ] * x[V_YD] + x[V_LAM] * x[V_FY];
    const double cone = mu * x[V_FZ] - n.value, height = d->state[S_Z] / sc.length + x[V_Z];
    g[G_CONE] = cone;
    g[G_HEIGHT] = height;
    g[G_NORMAL_SLACK] = x[V_S1] - x[V_FZ] * height;
    g[G_FRICTION_SLACK] = x[V_S2] - x[V_LAM] * cone;
}

static void fill_jac(const rs_step_data *d, const double *x, const sink *k)
{
    const double mu = d->params[P_MU];
    rs_step_scales sc;
    step_scales(d, &sc);
    double c_pos, c_vel;
    coefficients(d, &sc, &c_pos, &c_vel);
    const snorm2 n = norm_t(x, d->nlp->eps);
    const double cone = mu * x[V_FZ] - n.value, height = d->state[S_Z] / sc.length + x[V_Z];
    for (int i = 0; i < 3; i++) {
        put(k, G_POS_X + i, V_X + i, 1.0);
        put(k, G_POS_X + i, V_XD + i, -c_pos);
        put(k, G_VEL_X + i, V_XD + i, 1.0);
        put(k, G_VEL_X + i, V_FX + i, -c_vel);
    }
    for (int i = 0; i < 2; i++) { /* mu pz v_i + lh p_i */
        put(k, G_DIR_X + i, V_FZ, mu * x[V_XD + i]);
        put(k, G_DIR_X + i, V_XD + i, mu * x[V_FZ]);
        put(k, G_DIR_X + i, V_LAM, x[V_FX + i]);
        put(k, G_DIR_X + i, V_FX + i, x[V_LAM]);
        put(k, G_CONE, V_FX + i, -n.g[i]);
        put(k, G_FRICTION_SLACK, V_FX + i, x[V_LAM] * n.g[i]);
    }
    put(k, G_CONE, V_FZ, mu);
    put(k, G_HEIGHT, V_Z, 1.0);
    put(k, G_NORMAL_SLACK, V_S1, 1.0);
    put(k, G_NORMAL_SLACK, V_FZ, -height);
    put(k, G_NORMAL_SLACK, V_Z, -x[V_FZ]);
    put(k, G_FRICTION_SLACK, V_S2, 1.0);
    put(k, G_FRICTION_SLACK, V_LAM, -cone);
    put(k, G_FRICTION_SLACK, V_FZ, -x[V_LAM] * mu);
}

static void fill_hess(const rs_step_data *d, const double *x, double obj_factor,
                      const double *lambda, const sink *k)
{
    const double mu = d->params[P_MU];
    const snorm2 n = norm_t(x, d->nlp->eps);
    put_h(k, V_S1, V_S1, obj_factor * rs_penalty_d2(d->nlp));
    put_h(k, V_S2, V_S2, obj_factor * rs_penalty_d2(d->nlp));
    for (int i = 0; i < 2; i++) { /* mu pz v_i + lh p_i */
        put_h(k, V_FZ, V_XD + i, lambda[G_DIR_X + i] * mu);
        put_h(k, V_LAM, V_FX + i, lambda[G_DIR_X + i]);
    }
    const double l_cone = lambda[G_CONE], l_f = lambda[G_FRICTION_SLACK];
    /* mu pz - N: -N''; s2 - lh (mu pz - N): -mu on (lh, pz), N' on (lh, p), lh N'' */
    const double c = -l_cone + l_f * x[V_LAM];
    put_h(k, V_FX, V_FX, c * n.h[0]);
    put_h(k, V_FY, V_FX, c * n.h[1]);
    put_h(k, V_FY, V_FY, c * n.h[2]);
    put_h(k, V_LAM, V_FZ, -l_f * mu);
    put_h(k, V_LAM, V_FX, l_f * n.g[0]);
    put_h(k, V_LAM, V_FY, l_f * n.g[1]);
    put_h(k, V_FZ, V_Z, -lambda[G_NORMAL_SLACK]); /* s1 - pz (z/L + zh) */
}

static void nlp_jac(void *ctx, const double *x, double *J)
{
    rs_dense_zero(J, NG, NV);
    const sink k = {J, NULL, NG};
    fill_jac(ctx, x, &k);
}

static void nlp_hess(void *ctx, const double *x, double obj_factor, const double *lambda, double *H)
{
    rs_dense_zero(H, NV, NV);
    const sink k = {H, NULL, NV};
    fill_hess(ctx, x, obj_factor, lambda, &k);
}

/* The entries fill_jac and fill_hess write: the sparse structure handed to IPOPT. */
static void sparsity(void *ctx, unsigned char *jac_mask, unsigned char *hess_mask)
{
    const double x[NV] = {0}, lambda[NG] = {0};
    const sink kj = {NULL, jac_mask, NG}, kh = {NULL, hess_mask, NV};
    fill_jac(ctx, x, &kj);
    fill_hess(ctx, x, 1.0, lambda, &kh);
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
    p->sparsity = sparsity;
}

/* Its size does not follow the LCP's (which has k + 2 unknowns). */
static void nlp_size(const rs_step_data *d, int *n, int *m)
{
    (void)d;
    *n = NV;
    *m = NG;
}

/* Generic starts, never a solution of the contact problem: the current state, or the integrator
 * with f = 0; no force, slacks and lambda zero. */
static void nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    const double *s = d->state;
    rs_step_scales sc;
    step_scales(d, &sc);
    double next[NSTATE];
    for (int i = 0; i < NSTATE; i++)
        next[i] = s[i];
    if (which == RS_NLP_START_CONTACT_FREE) {
        const double no_force[3] = {0.0, 0.0, 0.0};
        integrate(d, no_force, next);
    }
    for (int j = 0; j < NV; j++)
        x0[j] = 0.0;
    for (int i = 0; i < 3; i++) {
        x0[V_X + i] = (next[S_X + i] - s[S_X + i]) / sc.length;
        x0[V_XD + i] = next[S_XD + i] / sc.speed;
    }
}

static void nlp_recover(const rs_step_data *d, const double *x, double *sn, double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    step_scales(d, &sc);
    for (int i = 0; i < 3; i++) {
        sn[S_X + i] = d->state[S_X + i] + sc.length * x[V_X + i];
        sn[S_XD + i] = sc.speed * x[V_XD + i];
        forces[F_X + i] = sc.force * x[V_FX + i];
    }
}

/* ---- LCP (Stewart-Trinkle, k directions) ---------------------------------------------------- */

/* k + 2 unknowns; the structure key is k (fixed for a run). */
static int lcp_size(const rs_step_data *d, unsigned long long *structure)
{
    const int k = directions(d);
    if (k < 4 || k > MAX_DIRECTIONS || k % 2 != 0)
        return -1;
    *structure = (unsigned long long)k;
    return k + 2;
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    const int k = directions(d), n = k + 2, G = k + 1;
    const double c = d->dt / d->params[P_M], mu = d->params[P_MU];
    double vf[3];
    free_velocity(d, vf);
    for (int e = 0; e < n * n; e++)
        M[e] = 0.0;
    M[0] = c; /* w_n: (dt/m) fz */
    q[0] = d->state[S_Z] / d->dt + vf[2];
    M[G + 0 * n] = mu; /* w_g: mu fz - sum beta */
    q[G] = 0.0;
    for (int i = 1; i <= k; i++) {
        double di[2], dj[2];
        direction(i - 1, k, di);
        q[i] = di[0] * vf[0] + di[1] * vf[1];
        M[i + (size_t)G * n] = 1.0; /* + gamma */
        M[G + (size_t)i * n] = -1.0;
        for (int j = 1; j <= k; j++) {
            direction(j - 1, k, dj);
            M[i + (size_t)j * n] = c * (di[0] * dj[0] + di[1] * dj[1]);
        }
    }
}

/* z: fz and beta in F, gamma in V; w: the speeds w_n, w_i in V, w_g in F. */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    const int k = directions(d), G = k + 1;
    rs_step_scales sc;
    step_scales(d, &sc);
    for (int i = 0; i <= G; i++) {
        z_unit[i] = sc.force;
        w_unit[i] = sc.speed;
    }
    z_unit[G] = sc.speed;
    w_unit[G] = sc.force;
}

/* f_t = sum_i beta_i d_i. */
static void friction_of(const rs_step_data *d, const double *z, double *ft)
{
    const int k = directions(d);
    ft[0] = ft[1] = 0.0;
    for (int i = 1; i <= k; i++) {
        double di[2];
        direction(i - 1, k, di);
        ft[0] += z[i] * di[0];
        ft[1] += z[i] * di[1];
    }
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    (void)w;
    friction_of(d, z, forces);
    forces[F_Z] = z[0];
    integrate(d, forces, sn);
}

/* The tangent of a / m along t, for a quantity a with tangent da. */
static double d_over_m(const rs_step_data *d, const rs_step_tangent *t, double a, double da)
{
    const double m = d->params[P_M];
    return da / m - a * t->params[P_M] / (m * m);
}

/* The tangent of the free velocity along t. */
static void free_velocity_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dvf)
{
    const double *u = d->input, dt = d->dt;
    for (int i = 0; i < 3; i++)
        dvf[i] = t->state[S_XD + i] + t->dt * u[i] / d->params[P_M] +
                 dt * d_over_m(d, t, u[i], t->input[i]);
    dvf[2] -= t->dt * d->params[P_G] + dt * t->params[P_G];
}

/* Tangents of lcp_build (the directions are fixed: k is a switch, not differentiated). */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    const int k = directions(d), n = k + 2, G = k + 1;
    const double dc = d_over_m(d, t, d->dt, t->dt);
    double dvf[3];
    free_velocity_tangent(d, t, dvf);
    for (int e = 0; e < n * n; e++)
        dM[e] = 0.0;
    dM[0] = dc;
    dq[0] = t->state[S_Z] / d->dt - d->state[S_Z] * t->dt / (d->dt * d->dt) + dvf[2];
    dM[G] = t->params[P_MU];
    dq[G] = 0.0;
    for (int i = 1; i <= k; i++) {
        double di[2], dj[2];
        direction(i - 1, k, di);
        dq[i] = di[0] * dvf[0] + di[1] * dvf[1];
        for (int j = 1; j <= k; j++) {
            direction(j - 1, k, dj);
            dM[i + (size_t)j * n] = dc * (di[0] * dj[0] + di[1] * dj[1]);
        }
    }
}

static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw, double *dsn,
                                double *dforces)
{
    (void)w;
    (void)dw;
    double f[3], sn[NSTATE], dvf[3];
    friction_of(d, z, f);
    f[F_Z] = z[0];
    friction_of(d, dz, dforces);
    dforces[F_Z] = dz[0];
    integrate(d, f, sn);
    free_velocity_tangent(d, t, dvf);
    for (int i = 0; i < 3; i++) { /* v' = v_free + dt f / m,  p' = p + dt v' */
        dsn[S_XD + i] =
            dvf[i] + t->dt * f[i] / d->params[P_M] + d->dt * d_over_m(d, t, f[i], dforces[i]);
        dsn[S_X + i] = t->state[S_X + i] + t->dt * sn[S_XD + i] + d->dt * dsn[S_XD + i];
    }
}

/* ---- certificate and modes ------------------------------------------------------------------ */

/* The support function of the answer's cone at v: |v| (the circle), or max_i d_i . v (the LCP's
 * k-gon), and whether a force lies in the cone of normal force fn. */
static double support(const rs_step_data *d, const double *v)
{
    if (!d->lcp_answer)
        return hypot(v[0], v[1]);
    const int k = directions(d);
    double h = -INFINITY;
    for (int i = 0; i < k; i++) {
        double di[2];
        direction(i, k, di);
        h = fmax(h, di[0] * v[0] + di[1] * v[1]);
    }
    return h;
}

/* How far f_t lies outside the cone mu fn K (K the unit disc or the k-gon), in force units. */
static double cone_violation(const rs_step_data *d, const double *ft, double limit)
{
    if (!d->lcp_answer)
        return fmax(0.0, hypot(ft[0], ft[1]) - limit);
    const int k = directions(d); /* the k-gon's edges: normals at the directions' mid-angles */
    double worst = 0.0;
    for (int i = 0; i < k; i++) {
        const double a = PI * (2.0 * i + 1.0) / k;
        worst = fmax(worst, cos(a) * ft[0] + sin(a) * ft[1] - limit * cos(PI / k));
    }
    return worst;
}

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
    for (int i = 0; i < NSTATE; i++) { /* the integrator (D1), (D2) */
        const double unit = i < S_XD ? rs_length_unit(&sc, pred[i]) : sc.speed;
        p = fmax(p, fabs(sn[i] - pred[i]) / unit);
    }
    const double zh = sn[S_Z] / sc.length, pz = f[F_Z] / sc.force;
    p = fmax(p, fmax(-zh, -pz));                     /* z' >= 0, fz >= 0 */
    c = fmax(c, fmin(fmax(pz, 0.0), fmax(zh, 0.0))); /* fz _|_ z' */
    const double limit = mu * fmax(f[F_Z], 0.0), ft[2] = {f[F_X], f[F_Y]};
    const double vt[2] = {sn[S_XD], sn[S_YD]};
    p = fmax(p, cone_violation(d, ft, limit) / sc.force);
    /* maximal dissipation: f_t . v_t' + mu fz h(v_t') = 0 (>= 0 for f_t in the cone) */
    const double dissipation = ft[0] * vt[0] + ft[1] * vt[1] + limit * support(d, vt);
    c = fmax(c, fabs(dissipation) / (sc.force * sc.speed));
    *primal = p;
    *complementarity = c;
}

/* This step's difference between the exact cone's answer and the LCP's, from the same state. The
 * normal force does not depend on friction (M has no fz-beta terms): both have the LCP's fz, and
 * with R = mu fz, the tangential force that would stop the step's sliding, a = -(m/dt) v_t,free,
 * gives the circle's friction in closed form, proj_disc(a) (a itself when |a| <= R: sticking;
 * R a/|a| otherwise), against the LCP's (its projection onto the k-gon). Its difference, dt/m of
 * it in velocity and dt^2/m in position, is what the polygon explains; nothing normal. The mode
 * pairs it explains: the same modes, or the circle sticking where the polygon (inside it) slides;
 * never the reverse. */
static int shadow_bias(const rs_step_data *d, const double *sn, const double *f,
                       const rs_contact_mode *lcp_modes, const rs_contact_mode *nlp_modes,
                       double *bias)
{
    (void)sn;
    const double m = d->params[P_M], dt = d->dt, R = d->params[P_MU] * fmax(f[F_Z], 0.0);
    double vf[3];
    free_velocity(d, vf);
    const double a[2] = {-m * vf[0] / dt, -m * vf[1] / dt};
    const double size = hypot(a[0], a[1]), scale = size > R ? R / size : 1.0;
    for (int c = 0; c < NSTATE + 3; c++)
        bias[c] = 0.0;
    for (int i = 0; i < 2; i++) {
        const double df = fabs(scale * a[i] - f[F_X + i]);
        bias[NSTATE + F_X + i] = df;
        bias[S_XD + i] = dt * df / m;
        bias[S_X + i] = dt * dt * df / m;
    }
    return nlp_modes[0] == lcp_modes[0] ||
           (nlp_modes[0] == RS_MODE_STICKING && lcp_modes[0] == RS_MODE_SLIDING);
}

static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    (void)d;
    if (!(f[F_Z] > tols->force))
        out[0] = RS_MODE_SEPARATING;
    else
        out[0] = hypot(sn[S_XD], sn[S_YD]) > tols->speed ? RS_MODE_SLIDING : RS_MODE_STICKING;
}

const rs_model rs_model_point3d_friction = {
    .name = "point3d_friction",
    .summary = "3-D point mass on the ground: the exact friction cone (NLP) against k directions "
               "(LCP)",
    .source = "note 000 section 2.4, note 003",
    .nparams = NPARAM,
    .params = params,
    .nstate = NSTATE,
    .state_names = state_names,
    .state_default = state_default,
    .velocity_index = velocity_index,
    .nvelocity = 3,
    .ninput = 3,
    .input_names = input_names,
    .nforce = 3,
    .force_names = force_names,
    .ncontacts = 1,
    .nvariants = 1,
    .variants = variants,
    .force_scale = force_scale,
    .step_scales = step_scales,
    .check_step = check_step,
    .check_reached = check_reached,
    .lcp_n = MAX_DIRECTIONS + 2,
    .lcp_size = lcp_size,
    .lcp_build = lcp_build,
    .lcp_recover = lcp_recover,
    .lcp_units = lcp_units,
    .lcp_tangent = lcp_tangent,
    .lcp_recover_tangent = lcp_recover_tangent,
    .nlp_n = NV,
    .nlp_m = NG,
    .nlp_size = nlp_size,
    .nlp_describe = nlp_describe,
    .nlp_start = nlp_start,
    .nlp_recover = nlp_recover,
    .shadow_bias = shadow_bias,
    .residuals = residuals,
    .modes = modes,
};
