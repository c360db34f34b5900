/*
 * bodies_nlp_post.c: the bodies model's NLP in the post's form (variant post): the post's
 * relaxed-complementarity program for any number of bodies and contacts, sparse (IPOPT gets its
 * nonzeros as triplets: every row touches one or two bodies and one contact). The default
 * variant's NLP relaxes the step LCP's pairs instead (bodies_nlp_pairs.c).
 *
 * Posed in the step's natural units (bodies.h): a body's velocity in V, its angular velocity in
 * V / R_b (R_b its extent), contact i's forces in F_i = m_i V_i / dt (find_step; its rows stay
 * in V, unlike the pairs form's, which are in V_i). Variables, in this order
 * (the bounds follow from the counts alone: bodies B, contacts C, with friction K):
 *     v_b = (vx, vz, w)        3 per body, free:   v' = V (vx, vz), omega' = V w / R_b
 *     p_i                      per contact, >= 0:   the normal force, p_i F_i
 *     s1_i                     per contact, >= 0:   the slack of the normal complementarity
 *     f_k, lam_k, s2_k         per contact with friction: the friction force f_k F_i along
 *                              t_i (free), the sliding speed lam_k V (>= 0), the slack of the
 *                              friction complementarity (>= 0)
 * Constraints, in this order (the same ids: body b, contact i, friction contact k of i):
 *     D_b   (D1) per body, = 0, divided by V (a force F_i moves body b's velocity by
 *           dt F_i / m_b = V m_i / m_b, and its angular velocity by V m_i R_b / I_b per R_b):
 *               vx - vfx / V - sum_i s m_i / m_b (p_i n_x + f_i t_x)
 *               vz - vfz / V - sum_i s m_i / m_b (p_i n_z + f_i t_z)
 *               w - wf R_b / V - sum_i s m_i R_b / I_b (p_i cross(r, n) + f_i cross(r, t))
 *           over the contacts of b (s = +1 on a contact's body a, -1 on its b; r its lever arm)
 *     rho_i  >= 0   the gap after the step in L: g_i / L + J_n v' / V
 *     c1_i   >= 0   s1_i - p_i rho_i                                (0 <= p _|_ rho >= 0 relaxed)
 *     cone_k >= 0   mu_i p_i - ssqrt(f_k^2)                         (|f| <= mu p)
 *     dir_k  = 0    mu_i p_i tau_i + lam_k f_k,   tau_i = J_t v' / V  (friction against the
 *                   slip: the post's direction constraint as relaxsim corrects it)
 *     c2_k   >= 0   s2_k - lam_k (mu_i p_i - ssqrt(f_k^2))          (sliding at the cone's edge)
 * Objective: sum P(s1_i) + P(s2_k) (the slack penalty of the step's settings); eps smooths
 * |f| in F_i. With eps and the slacks at 0 this is the step LCP's physics (bodies.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/bodies.h"
#include "dynamics/bodies_nlp_common.h"
#include "nlp/smooth.h"

/* The step's layout: counts, each contact's friction index, the scaled free velocities. */
typedef struct layout {
    const rs_step_data *d;
    const bodies_step *s;
    int B, C, K, n, m;
    const int *fric;    /* per contact: its index among the friction contacts, -1 without */
    const double *vf;   /* 3 B: the free velocities, scaled */
} layout;

/* Contact i's normal and tangent rows: its reactions' (bodies_row_contact.c; block i). */
static const bodies_jrow *row_n(const layout *l, int i)
{
    return &l->s->rrow[l->s->block[i].react_at];
}
static const bodies_jrow *row_t(const layout *l, int i)
{
    return &l->s->rrow[l->s->block[i].react_at + 1];
}

static int col_p(const layout *l, int i) { return 3 * l->B + i; }
static int col_s1(const layout *l, int i) { return 3 * l->B + l->C + i; }
static int col_f(const layout *l, int k) { return 3 * l->B + 2 * l->C + k; }
static int col_lam(const layout *l, int k) { return 3 * l->B + 2 * l->C + l->K + k; }
static int col_s2(const layout *l, int k) { return 3 * l->B + 2 * l->C + 2 * l->K + k; }
static int row_rho(const layout *l, int i) { return 3 * l->B + i; }
static int row_c1(const layout *l, int i) { return 3 * l->B + l->C + i; }
static int row_cone(const layout *l, int k) { return 3 * l->B + 2 * l->C + k; }
static int row_dir(const layout *l, int k) { return 3 * l->B + 2 * l->C + l->K + k; }
static int row_c2(const layout *l, int k) { return 3 * l->B + 2 * l->C + 2 * l->K + k; }

/* The layout of d's step (found with its contacts: find_step; layout_free releases a temporary
 * step), 0 when out of memory. */
static int layout_get(const rs_step_data *d, layout *l, bodies_step **tmp)
{
    memset(l, 0, sizeof *l);
    l->d = d;
    l->s = bodies_step_get(d, tmp);
    if (!l->s)
        return 0;
    l->B = l->s->nb;
    l->C = l->s->list.n;
    l->K = l->s->nfriction;
    l->fric = l->s->friction_index;
    l->vf = l->s->vfree_scaled;
    l->n = l->m = 3 * l->B + 2 * l->C + 3 * l->K;
    return 1;
}

static void layout_free(layout *l, bodies_step *tmp)
{
    (void)l; /* (its arrays are the step's) */
    bodies_step_release(tmp);
}

static void walk_jacobian(const layout *l, const double *x, sink *out)
{
    const rs_contact *cs = l->s->list.c;
    const double eps = l->d->nlp->eps;
    /* D_b: each body's rows, then its contacts' forces in the same row */
    for (int b = 0; b < l->B; b++)
        for (int k = 0; k < 3; k++) {
            put(out, col_v(b, k), col_v(b, k), 1.0); /* (rows and columns coincide here) */
            for (int i = 0; i < l->C; i++) {
                const rs_contact *c = &cs[i];
                const int slot = c->a == b ? 0 : c->b == b ? 1 : -1; /* b's in the rows */
                if (slot < 0)
                    continue;
                const double F = l->s->fscale[i], dt = l->d->dt;
                put(out, col_v(b, k), col_p(l, i),
                    force_coef(l->s, dt, row_n(l, i), slot, k, F));
                if (l->fric[i] >= 0)
                    put(out, col_v(b, k), col_f(l, l->fric[i]),
                        force_coef(l->s, dt, row_t(l, i), slot, k, F));
            }
        }
    int cols[6];
    double cn[6], ct[6];
    for (int i = 0; i < l->C; i++) { /* rho_i and c1_i */
        const rs_contact *c = &cs[i];
        const int nk = velocity_row(l->s, row_n(l, i), cols, cn);
        for (int j = 0; j < nk; j++)
            put(out, row_rho(l, i), cols[j], cn[j]);
        const double rho = x ? c->gap / l->s->scales.length + dot_row(cols, cn, nk, x) : 0.0;
        const double p = x ? x[col_p(l, i)] : 0.0;
        put(out, row_c1(l, i), col_s1(l, i), 1.0);
        put(out, row_c1(l, i), col_p(l, i), -rho);
        for (int j = 0; j < nk; j++)
            put(out, row_c1(l, i), cols[j], -p * cn[j]);
    }
    for (int i = 0; i < l->C; i++) { /* cone_k, dir_k, c2_k */
        const int k = l->fric[i];
        if (k < 0)
            continue;
        const double mu = l->s->mu[i];
        const int nk = velocity_row(l->s, row_t(l, i), cols, ct);
        const double p = x ? x[col_p(l, i)] : 0.0, f = x ? x[col_f(l, k)] : 0.0;
        const double lam = x ? x[col_lam(l, k)] : 0.0;
        const double tau = x ? dot_row(cols, ct, nk, x) : 0.0;
        const double d1 = rs_snorm_d1(f, eps), cone = mu * p - rs_snorm(f, eps);
        put(out, row_cone(l, k), col_p(l, i), mu);
        put(out, row_cone(l, k), col_f(l, k), -d1);
        put(out, row_dir(l, k), col_p(l, i), mu * tau);
        for (int j = 0; j < nk; j++)
            put(out, row_dir(l, k), cols[j], mu * p * ct[j]);
        put(out, row_dir(l, k), col_f(l, k), lam);
        put(out, row_dir(l, k), col_lam(l, k), f);
        put(out, row_c2(l, k), col_s2(l, k), 1.0);
        put(out, row_c2(l, k), col_lam(l, k), -cone);
        put(out, row_c2(l, k), col_p(l, i), -lam * mu);
        put(out, row_c2(l, k), col_f(l, k), lam * d1);
    }
}

/* The Hessian of the Lagrangian's lower triangle (rows >= columns: every variable of a contact
 * comes after the bodies'). */
static void walk_hessian(const layout *l, const double *x, double obj, const double *y,
                         sink *out)
{
    const double eps = l->d->nlp->eps, pen = rs_penalty_d2(l->d->nlp);
    int cols[6];
    double cn[6], ct[6];
    for (int i = 0; i < l->C; i++) {
        const int k = l->fric[i];
        const int nk = velocity_row(l->s, row_n(l, i), cols, cn);
        if (k >= 0)
            velocity_row(l->s, row_t(l, i), cols, ct);
        const double y1 = y ? y[row_c1(l, i)] : 0.0, yd = y && k >= 0 ? y[row_dir(l, k)] : 0.0;
        const double mu = l->s->mu[i];
        for (int j = 0; j < nk; j++) /* d2/dp dv of -y1 p rho + yd mu p tau */
            put(out, col_p(l, i), cols[j], -y1 * cn[j] + (k >= 0 ? yd * mu * ct[j] : 0.0));
        put(out, col_s1(l, i), col_s1(l, i), obj * pen);
        if (k < 0)
            continue;
        const double f = x ? x[col_f(l, k)] : 0.0, lam = x ? x[col_lam(l, k)] : 0.0;
        const double d1 = rs_snorm_d1(f, eps), d2 = rs_snorm_d2(f, eps);
        const double yc = y ? y[row_cone(l, k)] : 0.0, y2 = y ? y[row_c2(l, k)] : 0.0;
        put(out, col_f(l, k), col_f(l, k), -yc * d2 + y2 * lam * d2);
        put(out, col_lam(l, k), col_p(l, i), -y2 * mu);
        put(out, col_lam(l, k), col_f(l, k), yd + y2 * d1);
        put(out, col_s2(l, k), col_s2(l, k), obj * pen);
    }
}

/* ---- the callbacks -------------------------------------------------------------------------- */

static void bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    bodies_step *tmp;
    layout l;
    if (!layout_get(ctx, &l, &tmp)) {
        layout_free(&l, tmp);
        return;
    }
    for (int j = 0; j < l.n; j++) {
        const int free_var = j < 3 * l.B || (j >= col_f(&l, 0) && j < col_lam(&l, 0));
        x_l[j] = free_var ? -RS_NLP_INF : 0.0;
        x_u[j] = RS_NLP_INF;
    }
    for (int i = 0; i < l.m; i++) {
        const int equality = i < 3 * l.B || (i >= row_dir(&l, 0) && i < row_c2(&l, 0));
        g_l[i] = 0.0;
        g_u[i] = equality ? 0.0 : RS_NLP_INF;
    }
    layout_free(&l, tmp);
}

static double eval_f(void *ctx, const double *x)
{
    bodies_step *tmp;
    layout l;
    double f = NAN;
    if (layout_get(ctx, &l, &tmp)) {
        f = 0.0;
        for (int i = 0; i < l.C; i++)
            f += rs_penalty(l.d->nlp, x[col_s1(&l, i)]);
        for (int k = 0; k < l.K; k++)
            f += rs_penalty(l.d->nlp, x[col_s2(&l, k)]);
    }
    layout_free(&l, tmp);
    return f;
}

static void eval_grad_f(void *ctx, const double *x, double *grad)
{
    bodies_step *tmp;
    layout l;
    if (layout_get(ctx, &l, &tmp)) {
        memset(grad, 0, sizeof(double) * (size_t)l.n);
        for (int i = 0; i < l.C; i++)
            grad[col_s1(&l, i)] = rs_penalty_d1(l.d->nlp, x[col_s1(&l, i)]);
        for (int k = 0; k < l.K; k++)
            grad[col_s2(&l, k)] = rs_penalty_d1(l.d->nlp, x[col_s2(&l, k)]);
    }
    layout_free(&l, tmp);
}

static void eval_g(void *ctx, const double *x, double *g)
{
    bodies_step *tmp;
    layout l;
    if (!layout_get(ctx, &l, &tmp)) {
        layout_free(&l, tmp);
        return;
    }
    const rs_contact *cs = l.s->list.c;
    const double eps = l.d->nlp->eps;
    for (int j = 0; j < 3 * l.B; j++) /* D_b: the free velocity, then the forces */
        g[j] = x[j] - l.vf[j];
    int cols[6];
    double cn[6], ct[6];
    for (int i = 0; i < l.C; i++) {
        const rs_contact *c = &cs[i];
        const int who[2] = {c->a, c->b};
        const double F = l.s->fscale[i], dt = l.d->dt;
        for (int j = 0; j < 2; j++) {
            if (who[j] < 0)
                continue;
            for (int k = 0; k < 3; k++) {
                g[col_v(who[j], k)] += force_coef(l.s, dt, row_n(&l, i), j, k, F) * x[col_p(&l, i)];
                if (l.fric[i] >= 0)
                    g[col_v(who[j], k)] +=
                        force_coef(l.s, dt, row_t(&l, i), j, k, F) * x[col_f(&l, l.fric[i])];
            }
        }
        const int nk = velocity_row(l.s, row_n(&l, i), cols, cn);
        const double rho = c->gap / l.s->scales.length + dot_row(cols, cn, nk, x);
        g[row_rho(&l, i)] = rho;
        g[row_c1(&l, i)] = x[col_s1(&l, i)] - x[col_p(&l, i)] * rho;
        const int k = l.fric[i];
        if (k < 0)
            continue;
        velocity_row(l.s, row_t(&l, i), cols, ct);
        const double mu = l.s->mu[i], p = x[col_p(&l, i)], f = x[col_f(&l, k)];
        const double lam = x[col_lam(&l, k)], cone = mu * p - rs_snorm(f, eps);
        g[row_cone(&l, k)] = cone;
        g[row_dir(&l, k)] = mu * p * dot_row(cols, ct, nk, x) + lam * f;
        g[row_c2(&l, k)] = x[col_s2(&l, k)] - lam * cone;
    }
    layout_free(&l, tmp);
}

static void structure(void *ctx, int *jr, int *jc, int *hr, int *hc)
{
    bodies_step *tmp;
    layout l;
    if (layout_get(ctx, &l, &tmp)) {
        sink j = {0, jr, jc, NULL}, h = {0, hr, hc, NULL};
        walk_jacobian(&l, NULL, &j);
        walk_hessian(&l, NULL, 0.0, NULL, &h);
    }
    layout_free(&l, tmp);
}

static void jac_values(void *ctx, const double *x, double *values)
{
    bodies_step *tmp;
    layout l;
    if (layout_get(ctx, &l, &tmp)) {
        sink j = {0, NULL, NULL, values};
        walk_jacobian(&l, x, &j);
    }
    layout_free(&l, tmp);
}

static void hess_values(void *ctx, const double *x, double obj, const double *lambda,
                        double *values)
{
    bodies_step *tmp;
    layout l;
    if (layout_get(ctx, &l, &tmp)) {
        sink h = {0, NULL, NULL, values};
        walk_hessian(&l, x, obj, lambda, &h);
    }
    layout_free(&l, tmp);
}

void bodies_post_size(const rs_step_data *d, int *n, int *m)
{
    bodies_step *tmp;
    layout l;
    *n = *m = -1;
    if (layout_get(d, &l, &tmp)) {
        *n = l.n;
        *m = l.m;
    }
    layout_free(&l, tmp);
}

void bodies_post_layout(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
                       unsigned long long *key)
{
    bodies_step *tmp;
    layout l;
    *nnz_jac = *nnz_hess = 0;
    *key = 0;
    if (layout_get(d, &l, &tmp)) {
        sink j = {0, NULL, NULL, NULL}, h = {0, NULL, NULL, NULL};
        walk_jacobian(&l, NULL, &j);
        walk_hessian(&l, NULL, 0.0, NULL, &h);
        *nnz_jac = j.k;
        *nnz_hess = h.k;
        *key = ((unsigned long long)l.C << 32) | (unsigned long long)l.K;
    }
    layout_free(&l, tmp);
}

void bodies_post_describe(rs_nlp_problem *p, int variant)
{
    (void)variant;
    p->n = p->m = 0; /* per step: bodies_nlp_size */
    p->natural_units = 1;
    p->bounds = bounds;
    p->eval_f = eval_f;
    p->eval_grad_f = eval_grad_f;
    p->eval_g = eval_g;
    p->eval_jac = NULL;
    p->eval_hess = NULL;
    p->sparsity = NULL;
    p->structure = structure;
    p->jac_values = jac_values;
    p->hess_values = hess_values;
}

/* Generic points, never a solution of the contact problem: the bodies keep their velocities
 * (current) or move freely (contact-free, each sliding speed |J_t v_free|); no force, slacks
 * 0. */
void bodies_post_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    bodies_step *tmp;
    layout l;
    if (!layout_get(d, &l, &tmp)) {
        layout_free(&l, tmp);
        return;
    }
    memset(x0, 0, sizeof(double) * (size_t)l.n);
    const double V = l.s->scales.speed;
    for (int b = 0; b < l.B; b++)
        for (int k = 0; k < 3; k++)
            x0[col_v(b, k)] = which == RS_NLP_START_CONTACT_FREE
                                  ? l.vf[3 * b + k]
                                  : d->state[BS_N * b + BS_XD + k] *
                                        (k == 2 ? l.s->extent[b] : 1.0) / V;
    int cols[6];
    double ct[6];
    for (int i = 0; i < l.C; i++) {
        if (l.fric[i] < 0)
            continue;
        const int nk = velocity_row(l.s, row_t(&l, i), cols, ct);
        x0[col_lam(&l, l.fric[i])] = fabs(dot_row(cols, ct, nk, x0));
    }
    layout_free(&l, tmp);
}

void bodies_post_recover(const rs_step_data *d, const double *x, double *sn, double *forces,
                        double *contact)
{
    bodies_step *tmp;
    layout l;
    const int ok = layout_get(d, &l, &tmp);
    for (int i = 0; ok && i < l.C; i++) {
        double *lam = bodies_nlp_contact_forces(l.s) + 2 * i;
        lam[0] = l.s->fscale[i] * x[col_p(&l, i)];
        lam[1] = l.fric[i] >= 0 ? l.s->fscale[i] * x[col_f(&l, l.fric[i])] : 0.0;
    }
    bodies_nlp_recover(d, ok ? l.s : NULL, x, sn, forces, contact);
    layout_free(&l, tmp);
}
