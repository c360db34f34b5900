/*
 * disc_polygons_nlp.c: the model's own NLP of a disc_polygons step, in the post's style (note
 * 003): the next state and the contact forces as unknowns, complementarity through slacks, norms
 * and Egan's max smoothed. Chosen with [nlp] form = own (the default); [nlp] form = relaxation
 * solves the relaxation of the step's LCP instead (disc_polygons.c).
 *
 * Posed in the step's natural units (V, L = V dt, F = m V / dt; model.h). Per step, over the
 * active contacts i (disc_polygons_contacts.c) with normal n_i, tangent t_i and line distance
 * d_i(p) at the start:
 *   variables  xh, zh = (p' - p)/L;  vx, vz = v'/V;  per contact: f_i (normal force / F) >= 0,
 *              s_i >= 0 (slack), and with friction ft_i (tangential force / F), lam_i >= 0 (the
 *              sliding speed / V), s2_i >= 0 (slack)
 *   D_i = d_i(p')/L = d_i(p)/L + n_i . (xh, zh)        the contact's distance after the step
 *   g   xh - vx = 0,  zh - vz = 0                              (D2) / L
 *       (vx, vz) - v_free/V - sum_i (f_i n_i + ft_i t_i) = 0   (D1) / V
 *   per group (Egan's OR; a group of one for stewart_trinkle):
 *       G = smax(... smax(smax(D_1, D_2), D_3) ..., D_n) >= 0,
 *       smax(a, b) = (a + b + ssqrt((a - b)^2)) / 2,  ssqrt(y) = sqrt(y + eps^2) - eps:
 *       the inequality max(rho) >= 0 itself, no dummy pair (the note's accurate form needs one
 *       only to fit it into an LCP). smax(a, b) lies in [max(a, b) - eps/2, max(a, b)], so the
 *       nested G is within (n - 1) eps / 2 below the max: the smoothed OR is never looser than
 *       the exact one, and at most (n - 1) eps L / 2 stricter.
 *   per contact, complementarity relaxed:  s_i - f_i R_i >= 0, with R_i = D_i (stewart_trinkle),
 *       G (egan_simple: any edge of a group on its boundary) or 2 G - D_i (egan_accurate and the
 *       note's accurate form: a force only where D_i = G = 0; see disc_polygons.c)
 *   per contact with friction (as point2d_friction's corrected form, along t_i):
 *       mu f_i - ssqrt(ft_i^2) >= 0                       the cone
 *       mu f_i (t_i . v) + lam_i ft_i = 0                 friction opposes sliding
 *       s2_i - lam_i (mu f_i - ssqrt(ft_i^2)) >= 0         the cone's complementarity, relaxed
 *   min  sum_i P(s_i) + P(s2_i)                          P: the slack penalty
 * Derivatives are exact and computed entry by entry (the chain of smoothed maxima carries its
 * gradient and Hessian in (xh, zh)); IPOPT gets their sparse structure (sparsity: the entries
 * the same fill functions write), the KKT test the dense matrices.
 */
#include <math.h>
#include <string.h>

#include "disc_polygons.h"
#include "nlp/dense.h"
#include "nlp/smooth.h"

enum { V_XH, V_ZH, V_VX, V_VZ, V_FIXED };
enum { G_PX, G_PZ, G_VX, G_VZ, G_FIXED };

/* The largest contact set the NLP takes (the step is refused beyond it). */
#define NLP_MAX_CONTACTS 16
#define DP_NLP_MAX (4 + 5 * NLP_MAX_CONTACTS) /* variables (and constraints) of the largest NLP */

/* One step's NLP: the contact set and where everything sits. */
typedef struct step_nlp {
    const rs_step_data *d;
    active_set a;
    rs_step_scales sc;
    int friction;
    int block_x, block_g; /* variables and constraints per contact */
    int n, m;
    double d0[MAX_CONTACTS];   /* d_i(p) / L */
    double vf[2];              /* v_free / V */
} step_nlp;

static int setup(const rs_step_data *d, step_nlp *s)
{
    s->d = d;
    if (!dp_find_active(d, &s->a) || s->a.ncontacts > NLP_MAX_CONTACTS)
        return 0;
    dp_step_scales(d, &s->sc);
    s->friction = dp_has_friction(d);
    s->block_x = s->friction ? 5 : 2;
    s->block_g = s->friction ? 4 : 1;
    s->n = V_FIXED + s->a.ncontacts * s->block_x;
    s->m = G_FIXED + s->a.ngroups + s->a.ncontacts * s->block_g;
    const double pos[2] = {d->state[S_X], d->state[S_Z]};
    for (int i = 0; i < s->a.ncontacts; i++)
        s->d0[i] = dp_line_distance(&s->a.c[i], pos) / s->sc.length;
    dp_free_velocity(d, s->vf);
    s->vf[0] /= s->sc.speed;
    s->vf[1] /= s->sc.speed;
    return 1;
}

/* Columns of contact i's variables, rows of its constraints. */
static int col_f(const step_nlp *s, int i) { return V_FIXED + i * s->block_x; }
static int col_s(const step_nlp *s, int i) { return col_f(s, i) + 1; }
static int col_ft(const step_nlp *s, int i) { return col_f(s, i) + 2; }
static int col_lam(const step_nlp *s, int i) { return col_f(s, i) + 3; }
static int col_s2(const step_nlp *s, int i) { return col_f(s, i) + 4; }
static int row_comp(const step_nlp *s, int i) { return G_FIXED + s->a.ngroups + i * s->block_g; }

/* D_i at x. */
static double distance_after(const step_nlp *s, int i, const double *x)
{
    const contact *c = &s->a.c[i];
    return s->d0[i] + c->n[0] * x[V_XH] + c->n[1] * x[V_ZH];
}

/* The group's smoothed max G with its gradient and Hessian in (xh, zh) (D_i is linear in them):
 * G_1 = D_1; G_k = (G + D + r - eps) / 2 with u = G - D, r = sqrt(u^2 + eps^2):
 *     dG_k = a dG + b n_k,  a = (1 + u/r) / 2, b = (1 - u/r) / 2,
 *     d2G_k = a d2G + eps^2 / (2 r^3) (dG - n_k)(dG - n_k)^T. */
static double group_max(const step_nlp *s, const group_layout *g, const double *x, double *grad,
                        double hess[2][2])
{
    const double eps = s->d->nlp->eps;
    const contact *c0 = &s->a.c[g->first];
    double G = distance_after(s, g->first, x);
    grad[0] = c0->n[0];
    grad[1] = c0->n[1];
    hess[0][0] = hess[0][1] = hess[1][0] = hess[1][1] = 0.0;
    for (int k = 1; k < g->n; k++) {
        const contact *ck = &s->a.c[g->first + k];
        const double D = distance_after(s, g->first + k, x), u = G - D;
        const double r = sqrt(u * u + eps * eps), a = 0.5 * (1.0 + u / r), b = 1.0 - a;
        const double w = eps * eps / (2.0 * r * r * r);
        const double e[2] = {grad[0] - ck->n[0], grad[1] - ck->n[1]};
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++)
                hess[p][q] = a * hess[p][q] + w * e[p] * e[q];
        grad[0] = a * grad[0] + b * ck->n[0];
        grad[1] = a * grad[1] + b * ck->n[1];
        G = 0.5 * (G + D + r - eps);
    }
    return G;
}

/* R_i (the distance the force of contact i is complementary to), with its gradient in (xh, zh)
 * and the factor of the group's Hessian in its Hessian (R's second derivative = c_h d2G). */
static double comp_distance(const step_nlp *s, int i, double G, const double *gG, double *gR,
                            double *c_h, const double *x)
{
    const contact *c = &s->a.c[i];
    if (s->d->variant == FORM_EGAN_ACCURATE || s->d->variant == FORM_EGAN_ACCURATE_NOTE) {
        gR[0] = 2.0 * gG[0] - c->n[0];
        gR[1] = 2.0 * gG[1] - c->n[1];
        *c_h = 2.0;
        return 2.0 * G - distance_after(s, i, x);
    }
    gR[0] = gG[0];
    gR[1] = gG[1];
    *c_h = 1.0; /* stewart_trinkle's groups have one contact: G = D_i */
    return G;
}

/* Where derivatives go: values into a dense matrix, or (mask) the entries that are written,
 * which is the sparse structure (the writes do not depend on x: one code path for both). */
typedef struct sink {
    double *v;
    unsigned char *mask;
    int rows;
} sink;

static void jac_put(sink *k, int i, int j, double v)
{
    if (k->mask)
        k->mask[i + (size_t)j * (size_t)k->rows] = 1;
    else
        rs_jac_set(k->v, k->rows, i, j, v);
}

static void hess_put(sink *k, int a, int b, double v)
{
    if (k->mask)
        k->mask[(a > b ? a : b) + (size_t)(a > b ? b : a) * (size_t)k->rows] = 1;
    else
        rs_hess_add(k->v, k->rows, a, b, v);
}

void dp_nlp_size(const rs_step_data *d, int *n, int *m)
{
    step_nlp s;
    const int ok = setup(d, &s);
    *n = ok ? s.n : -1;
    *m = ok ? s.m : -1;
}

static void bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    step_nlp s;
    setup(ctx, &s);
    for (int j = 0; j < s.n; j++) {
        x_l[j] = -RS_NLP_INF;
        x_u[j] = RS_NLP_INF;
    }
    for (int i = 0; i < s.a.ncontacts; i++) {
        x_l[col_f(&s, i)] = x_l[col_s(&s, i)] = 0.0;
        if (s.friction)
            x_l[col_lam(&s, i)] = x_l[col_s2(&s, i)] = 0.0;
    }
    for (int r = 0; r < s.m; r++) {
        g_l[r] = 0.0;
        g_u[r] = RS_NLP_INF;
    }
    for (int r = 0; r < G_FIXED; r++)
        g_u[r] = 0.0;
    for (int i = 0; s.friction && i < s.a.ncontacts; i++)
        g_u[row_comp(&s, i) + 2] = 0.0; /* the direction of friction: an equality */
}

static double eval_f(void *ctx, const double *x)
{
    step_nlp s;
    setup(ctx, &s);
    double f = 0.0;
    for (int i = 0; i < s.a.ncontacts; i++) {
        f += rs_penalty(s.d->nlp, x[col_s(&s, i)]);
        if (s.friction)
            f += rs_penalty(s.d->nlp, x[col_s2(&s, i)]);
    }
    return f;
}

static void eval_grad_f(void *ctx, const double *x, double *grad)
{
    step_nlp s;
    setup(ctx, &s);
    memset(grad, 0, sizeof(double) * (size_t)s.n);
    for (int i = 0; i < s.a.ncontacts; i++) {
        grad[col_s(&s, i)] = rs_penalty_d1(s.d->nlp, x[col_s(&s, i)]);
        if (s.friction)
            grad[col_s2(&s, i)] = rs_penalty_d1(s.d->nlp, x[col_s2(&s, i)]);
    }
}

/* The cone's value mu f - ssqrt(ft^2). */
static double cone(const step_nlp *s, int i, const double *x)
{
    return s->d->params[P_MU] * x[col_f(s, i)] - rs_snorm(x[col_ft(s, i)], s->d->nlp->eps);
}

static void eval_g(void *ctx, const double *x, double *g)
{
    step_nlp s;
    setup(ctx, &s);
    const double mu = s.d->params[P_MU];
    g[G_PX] = x[V_XH] - x[V_VX];
    g[G_PZ] = x[V_ZH] - x[V_VZ];
    g[G_VX] = x[V_VX] - s.vf[0];
    g[G_VZ] = x[V_VZ] - s.vf[1];
    for (int i = 0; i < s.a.ncontacts; i++) {
        const contact *c = &s.a.c[i];
        const double f = x[col_f(&s, i)], ft = s.friction ? x[col_ft(&s, i)] : 0.0;
        g[G_VX] -= f * c->n[0] + ft * c->t[0];
        g[G_VZ] -= f * c->n[1] + ft * c->t[1];
    }
    for (int k = 0; k < s.a.ngroups; k++) {
        const group_layout *gl = &s.a.g[k];
        double gG[2], hG[2][2];
        const double G = group_max(&s, gl, x, gG, hG);
        g[G_FIXED + k] = G;
        for (int i = gl->first; i < gl->first + gl->n; i++) {
            double gR[2], c_h;
            const double R = comp_distance(&s, i, G, gG, gR, &c_h, x);
            const int r = row_comp(&s, i);
            g[r] = x[col_s(&s, i)] - x[col_f(&s, i)] * R;
            if (!s.friction)
                continue;
            const contact *c = &s.a.c[i];
            const double tv = c->t[0] * x[V_VX] + c->t[1] * x[V_VZ];
            const double cn = cone(&s, i, x);
            g[r + 1] = cn;
            g[r + 2] = mu * x[col_f(&s, i)] * tv + x[col_lam(&s, i)] * x[col_ft(&s, i)];
            g[r + 3] = x[col_s2(&s, i)] - x[col_lam(&s, i)] * cn;
        }
    }
}

static void fill_jac(const step_nlp *sp, const double *x, sink *J)
{
    const step_nlp s = *sp;
    const double mu = s.d->params[P_MU], eps = s.d->nlp->eps;
    jac_put(J, G_PX, V_XH, 1.0);
    jac_put(J, G_PX, V_VX, -1.0);
    jac_put(J, G_PZ, V_ZH, 1.0);
    jac_put(J, G_PZ, V_VZ, -1.0);
    jac_put(J, G_VX, V_VX, 1.0);
    jac_put(J, G_VZ, V_VZ, 1.0);
    for (int i = 0; i < s.a.ncontacts; i++) {
        const contact *c = &s.a.c[i];
        jac_put(J, G_VX, col_f(&s, i), -c->n[0]);
        jac_put(J, G_VZ, col_f(&s, i), -c->n[1]);
        if (s.friction) {
            jac_put(J, G_VX, col_ft(&s, i), -c->t[0]);
            jac_put(J, G_VZ, col_ft(&s, i), -c->t[1]);
        }
    }
    for (int k = 0; k < s.a.ngroups; k++) {
        const group_layout *gl = &s.a.g[k];
        double gG[2], hG[2][2];
        const double G = group_max(&s, gl, x, gG, hG);
        jac_put(J, G_FIXED + k, V_XH, gG[0]);
        jac_put(J, G_FIXED + k, V_ZH, gG[1]);
        for (int i = gl->first; i < gl->first + gl->n; i++) {
            double gR[2], c_h;
            const double R = comp_distance(&s, i, G, gG, gR, &c_h, x);
            const int r = row_comp(&s, i);
            const double f = x[col_f(&s, i)];
            jac_put(J, r, col_s(&s, i), 1.0);
            jac_put(J, r, col_f(&s, i), -R);
            jac_put(J, r, V_XH, -f * gR[0]);
            jac_put(J, r, V_ZH, -f * gR[1]);
            if (!s.friction)
                continue;
            const contact *c = &s.a.c[i];
            const double ft = x[col_ft(&s, i)], lam = x[col_lam(&s, i)];
            const double dn = rs_snorm_d1(ft, eps), cn = cone(&s, i, x);
            const double tv = c->t[0] * x[V_VX] + c->t[1] * x[V_VZ];
            jac_put(J, r + 1, col_f(&s, i), mu); /* the cone */
            jac_put(J, r + 1, col_ft(&s, i), -dn);
            jac_put(J, r + 2, col_f(&s, i), mu * tv); /* the direction */
            jac_put(J, r + 2, V_VX, mu * f * c->t[0]);
            jac_put(J, r + 2, V_VZ, mu * f * c->t[1]);
            jac_put(J, r + 2, col_lam(&s, i), ft);
            jac_put(J, r + 2, col_ft(&s, i), lam);
            jac_put(J, r + 3, col_s2(&s, i), 1.0); /* the cone's slack */
            jac_put(J, r + 3, col_lam(&s, i), -cn);
            jac_put(J, r + 3, col_f(&s, i), -lam * mu);
            jac_put(J, r + 3, col_ft(&s, i), lam * dn);
        }
    }
}

static void eval_jac(void *ctx, const double *x, double *J)
{
    step_nlp s;
    setup(ctx, &s);
    rs_dense_zero(J, s.m, s.n);
    sink k = {J, NULL, s.m};
    fill_jac(&s, x, &k);
}

static void fill_hess(const step_nlp *sp, const double *x, double obj_factor, const double *lambda,
                      sink *H)
{
    const step_nlp s = *sp;
    const double mu = s.d->params[P_MU], eps = s.d->nlp->eps;
    for (int i = 0; i < s.a.ncontacts; i++) {
        hess_put(H, col_s(&s, i), col_s(&s, i), obj_factor * rs_penalty_d2(s.d->nlp));
        if (s.friction)
            hess_put(H, col_s2(&s, i), col_s2(&s, i), obj_factor * rs_penalty_d2(s.d->nlp));
    }
    for (int k = 0; k < s.a.ngroups; k++) {
        const group_layout *gl = &s.a.g[k];
        double gG[2], hG[2][2];
        const double G = group_max(&s, gl, x, gG, hG);
        /* the block of (xh, zh): the group row's and each complementarity row's curvature */
        double hx[2][2];
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++)
                hx[p][q] = lambda[G_FIXED + k] * hG[p][q];
        for (int i = gl->first; i < gl->first + gl->n; i++) {
            double gR[2], c_h;
            comp_distance(&s, i, G, gG, gR, &c_h, x);
            const int r = row_comp(&s, i);
            const double lc = lambda[r], f = x[col_f(&s, i)];
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 2; q++)
                    hx[p][q] -= lc * f * c_h * hG[p][q];
            hess_put(H, col_f(&s, i), V_XH, -lc * gR[0]); /* d2/df dx of -f R */
            hess_put(H, col_f(&s, i), V_ZH, -lc * gR[1]);
            if (!s.friction)
                continue;
            const contact *c = &s.a.c[i];
            const double ft = x[col_ft(&s, i)], lam = x[col_lam(&s, i)];
            const double d1 = rs_snorm_d1(ft, eps), d2 = rs_snorm_d2(ft, eps);
            hess_put(H, col_ft(&s, i), col_ft(&s, i), -lambda[r + 1] * d2); /* cone */
            hess_put(H, col_f(&s, i), V_VX, lambda[r + 2] * mu * c->t[0]); /* direction */
            hess_put(H, col_f(&s, i), V_VZ, lambda[r + 2] * mu * c->t[1]);
            hess_put(H, col_lam(&s, i), col_ft(&s, i), lambda[r + 2]);
            hess_put(H, col_lam(&s, i), col_f(&s, i), -lambda[r + 3] * mu); /* slack */
            hess_put(H, col_lam(&s, i), col_ft(&s, i), lambda[r + 3] * d1);
            hess_put(H, col_ft(&s, i), col_ft(&s, i), lambda[r + 3] * lam * d2);
        }
        hess_put(H, V_XH, V_XH, hx[0][0]);
        hess_put(H, V_ZH, V_ZH, hx[1][1]);
        hess_put(H, V_ZH, V_XH, hx[1][0]);
    }
}

static void eval_hess(void *ctx, const double *x, double obj_factor, const double *lambda,
                      double *H)
{
    step_nlp s;
    setup(ctx, &s);
    rs_dense_zero(H, s.n, s.n);
    sink k = {H, NULL, s.n};
    fill_hess(&s, x, obj_factor, lambda, &k);
}

/* The entries fill_jac and fill_hess write: the sparse structure handed to IPOPT. */
static void sparsity(void *ctx, unsigned char *jac_mask, unsigned char *hess_mask)
{
    step_nlp s;
    setup(ctx, &s);
    double x[DP_NLP_MAX] = {0}, lambda[DP_NLP_MAX] = {0};
    sink kj = {NULL, jac_mask, s.m}, kh = {NULL, hess_mask, s.n};
    fill_jac(&s, x, &kj);
    fill_hess(&s, x, 1.0, lambda, &kh);
}

void dp_nlp_describe(rs_nlp_problem *p, int variant)
{
    memset(p, 0, sizeof *p); /* every field the NLP does not set: none */
    (void)variant; /* the callbacks read the formulation from the step data */
    p->n = 0; /* per step: dp_nlp_size */
    p->m = 0;
    p->natural_units = 1;
    p->bounds = bounds;
    p->eval_f = eval_f;
    p->eval_grad_f = eval_grad_f;
    p->eval_g = eval_g;
    p->eval_jac = eval_jac;
    p->eval_hess = eval_hess;
    p->sparsity = sparsity;
}

/* Generic points, never a solution of the contact problem: the body keeps its position and
 * velocity (current), or moves freely (contact-free, with lam_i = |t_i . v_free| / V, the speed
 * it would slide at); no force, slacks 0. */
void dp_nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    step_nlp s;
    if (!setup(d, &s))
        return;
    memset(x0, 0, sizeof(double) * (size_t)s.n);
    const double *v = which == RS_NLP_START_CONTACT_FREE ? s.vf : NULL;
    const double cur[2] = {d->state[S_XD] / s.sc.speed, d->state[S_ZD] / s.sc.speed};
    x0[V_VX] = v ? v[0] : cur[0];
    x0[V_VZ] = v ? v[1] : cur[1];
    if (v) {
        x0[V_XH] = v[0];
        x0[V_ZH] = v[1];
    }
    for (int i = 0; s.friction && v && i < s.a.ncontacts; i++)
        x0[col_lam(&s, i)] = fabs(s.a.c[i].t[0] * v[0] + s.a.c[i].t[1] * v[1]);
}

void dp_nlp_recover(const rs_step_data *d, const double *x, double *sn, double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    step_nlp s;
    setup(d, &s);
    sn[S_X] = d->state[S_X] + s.sc.length * x[V_XH];
    sn[S_Z] = d->state[S_Z] + s.sc.length * x[V_ZH];
    sn[S_XD] = s.sc.speed * x[V_VX];
    sn[S_ZD] = s.sc.speed * x[V_VZ];
    forces[F_X] = forces[F_Z] = 0.0;
    for (int i = 0; i < s.a.ncontacts; i++) {
        const contact *c = &s.a.c[i];
        const double f = x[col_f(&s, i)], ft = s.friction ? x[col_ft(&s, i)] : 0.0;
        forces[F_X] += s.sc.force * (f * c->n[0] + ft * c->t[0]);
        forces[F_Z] += s.sc.force * (f * c->n[1] + ft * c->t[1]);
    }
}
