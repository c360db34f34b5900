/*
 * bodies_nlp_pairs.c: the bodies model's default NLP: the step LCP's complementarity pairs
 * (bodies_lcp.c, Stewart-Trinkle) relaxed in the post's way, a pair 0 <= z _|_ w >= 0 becoming
 * s >= z w, s >= 0 with s penalised, posed in the bodies' velocities so that it stays sparse
 * (IPOPT gets triplets: every row touches one or two bodies and one contact). The planar cone is
 * exactly two friction directions here: no norm to smooth.
 *
 * In the step's natural units (bodies.h): body b's velocity (vx, vz) in V and angular velocity w
 * in V / R_b; contact i's forces p_i, beta+_i, beta-_i in F_i = m_i V_i / dt and its sliding
 * speed gamma_i in V_i, V_i the contact's own speed (find_step). Variables, in this order (the
 * bounds follow from the counts):
 *     v_b = (vx, vz, w)                 3 per body, free
 *     z_i = (p, beta+, beta-, gamma)    per contact (p alone without friction), >= 0
 *     s_i                               one slack per pair, >= 0
 * Constraints:
 *     D_b   (D1) per body, = 0, divided by V (as in bodies_nlp_post.c, with f = beta+ - beta-)
 *     w_i   >= 0: the LCP's rows, divided by V_i (the cone row by F_i):
 *               w_n = g_i / L_i + J_n v' / V_i,  w_+ = gamma + J_t v' / V_i,
 *               w_- = gamma - J_t v' / V_i,  w_g = mu p - beta+ - beta-  (L_i = V_i dt)
 *     c_i   >= 0: s_k - z_k w_k for each pair k of the contact
 * Objective: the sum of P(s) over the pairs (the step's slack penalty).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/bodies.h"
#include "dynamics/bodies_nlp_common.h"
#include "nlp/smooth.h"

/* The step's layout: each contact's first variable and first row after the bodies', its pair
 * count (1 or 4), and the scaled free velocities. */
typedef struct layout {
    const rs_step_data *d;
    const bodies_step *s;
    int B, C, n, m;
    const int *at;    /* per contact: its first variable (z, then s) = its first row (w, then c) */
    const int *pairs; /* per contact: 1 (frictionless) or 4 */
    const double *vf; /* 3 B */
} layout;

static int layout_get(const rs_step_data *d, layout *l, bodies_step **tmp)
{
    memset(l, 0, sizeof *l);
    l->d = d;
    l->s = bodies_step_get(d, tmp);
    if (!l->s)
        return 0;
    l->B = l->s->nb;
    l->C = l->s->list.n;
    l->at = l->s->pair_at; /* (found with the contacts: find_step) */
    l->pairs = l->s->pair_count;
    l->vf = l->s->vfree_scaled;
    l->n = l->m = l->s->pairs_n;
    return 1;
}

static void layout_free(layout *l, bodies_step *tmp)
{
    (void)l; /* (its arrays are the step's) */
    bodies_step_release(tmp);
}

/* Contact i's LCP rows w (its pairs' count) at x, with the velocity rows' coefficients of its
 * normal and tangent (cn, ct over cols). */
typedef struct contact_rows {
    int nk, cols[6];
    double cn[6], ct[6];
    double w[4];
} contact_rows;

static void rows_of(const layout *l, int i, const double *x, contact_rows *r)
{
    const rs_contact *c = &l->s->list.c[i];
    double t[2];
    bodies_tangent(c, t);
    r->nk = velocity_row(l->s, c, c->n, r->cols, r->cn);
    velocity_row(l->s, c, t, r->cols, r->ct);
    /* the rows in the contact's own speed V_i (the velocities are in V): a slow contact's slip
     * and approach are judged in its own unit, not the scene's fastest body's */
    const double k = l->s->scales.speed / l->s->vscale[i];
    for (int j = 0; j < r->nk; j++) {
        r->cn[j] *= k;
        r->ct[j] *= k;
    }
    if (!x)
        return;
    const double *z = x + l->at[i];
    r->w[0] = c->gap / (l->s->vscale[i] * l->d->dt) + dot_row(r->cols, r->cn, r->nk, x);
    if (l->pairs[i] == 4) {
        const double tv = dot_row(r->cols, r->ct, r->nk, x);
        r->w[1] = z[3] + tv;
        r->w[2] = z[3] - tv;
        r->w[3] = l->s->mu[i] * z[0] - z[1] - z[2];
    }
}

static void walk_jacobian(const layout *l, const double *x, sink *out)
{
    const rs_contact *cs = l->s->list.c;
    for (int b = 0; b < l->B; b++) /* D_b */
        for (int k = 0; k < 3; k++) {
            put(out, col_v(b, k), col_v(b, k), 1.0);
            for (int i = 0; i < l->C; i++) {
                const rs_contact *c = &cs[i];
                const int side = c->a == b ? 1 : c->b == b ? -1 : 0;
                if (!side)
                    continue;
                double t[2];
                bodies_tangent(c, t);
                put(out, col_v(b, k), l->at[i], force_coef(l->s, l->d->dt, c, side, c->n, k));
                if (l->pairs[i] == 4) {
                    const double ft = force_coef(l->s, l->d->dt, c, side, t, k);
                    put(out, col_v(b, k), l->at[i] + 1, ft);
                    put(out, col_v(b, k), l->at[i] + 2, -ft);
                }
            }
        }
    for (int i = 0; i < l->C; i++) {
        contact_rows r;
        rows_of(l, i, x, &r);
        const int a = l->at[i], np = l->pairs[i], row_c = a + np;
        const double *z = x ? x + a : NULL;
        for (int j = 0; j < r.nk; j++) /* w_n */
            put(out, a, r.cols[j], r.cn[j]);
        if (np == 4) {
            put(out, a + 1, a + 3, 1.0); /* w_+ = gamma + J_t v */
            for (int j = 0; j < r.nk; j++)
                put(out, a + 1, r.cols[j], r.ct[j]);
            put(out, a + 2, a + 3, 1.0); /* w_- = gamma - J_t v */
            for (int j = 0; j < r.nk; j++)
                put(out, a + 2, r.cols[j], -r.ct[j]);
            put(out, a + 3, a, l->s->mu[i]); /* w_g = mu p - beta+ - beta- */
            put(out, a + 3, a + 1, -1.0);
            put(out, a + 3, a + 2, -1.0);
        }
        /* c_k = s_k - z_k w_k */
        put(out, row_c, a + np, 1.0);
        put(out, row_c, a, z ? -r.w[0] : 0.0);
        for (int j = 0; j < r.nk; j++)
            put(out, row_c, r.cols[j], z ? -z[0] * r.cn[j] : 0.0);
        if (np < 4)
            continue;
        for (int k = 1; k <= 2; k++) { /* beta+- (gamma +- J_t v) */
            const double sg = k == 1 ? 1.0 : -1.0;
            put(out, row_c + k, a + np + k, 1.0);
            put(out, row_c + k, a + k, z ? -r.w[k] : 0.0);
            put(out, row_c + k, a + 3, z ? -z[k] : 0.0);
            for (int j = 0; j < r.nk; j++)
                put(out, row_c + k, r.cols[j], z ? -sg * z[k] * r.ct[j] : 0.0);
        }
        put(out, row_c + 3, a + np + 3, 1.0); /* gamma (mu p - beta+ - beta-) */
        put(out, row_c + 3, a + 3, z ? -r.w[3] : 0.0);
        put(out, row_c + 3, a, z ? -z[3] * l->s->mu[i] : 0.0);
        put(out, row_c + 3, a + 1, z ? z[3] : 0.0);
        put(out, row_c + 3, a + 2, z ? z[3] : 0.0);
    }
}

/* The Hessian's lower triangle: the bilinear terms of -y_k z_k w_k (every contact variable comes
 * after the bodies'; within a contact p < beta+ < beta- < gamma < its slacks). */
static void walk_hessian(const layout *l, const double *x, double obj, const double *y,
                         sink *out)
{
    const double pen = rs_penalty_d2(l->d->nlp);
    (void)x;
    for (int i = 0; i < l->C; i++) {
        contact_rows r;
        rows_of(l, i, NULL, &r);
        const int a = l->at[i], np = l->pairs[i];
        const double *yc = y ? y + a + np : NULL;
        for (int j = 0; j < r.nk; j++) /* p and v: -y_n J_n */
            put(out, a, r.cols[j], yc ? -yc[0] * r.cn[j] : 0.0);
        if (np == 4) {
            for (int j = 0; j < r.nk; j++) /* beta+- and v: -+ y J_t */
                put(out, a + 1, r.cols[j], yc ? -yc[1] * r.ct[j] : 0.0);
            for (int j = 0; j < r.nk; j++)
                put(out, a + 2, r.cols[j], yc ? yc[2] * r.ct[j] : 0.0);
            put(out, a + 3, a, yc ? -yc[3] * l->s->mu[i] : 0.0); /* gamma and p */
            put(out, a + 3, a + 1, yc ? -yc[1] + yc[3] : 0.0);   /* gamma and beta+ */
            put(out, a + 3, a + 2, yc ? -yc[2] + yc[3] : 0.0);   /* gamma and beta- */
        }
        for (int k = 0; k < np; k++)
            put(out, a + np + k, a + np + k, obj * pen);
    }
}

static void bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    bodies_step *tmp;
    layout l;
    if (layout_get(ctx, &l, &tmp)) {
        for (int j = 0; j < l.n; j++) {
            x_l[j] = j < 3 * l.B ? -RS_NLP_INF : 0.0;
            x_u[j] = RS_NLP_INF;
        }
        for (int i = 0; i < l.m; i++) {
            g_l[i] = 0.0;
            g_u[i] = i < 3 * l.B ? 0.0 : RS_NLP_INF;
        }
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
            for (int k = 0; k < l.pairs[i]; k++)
                f += rs_penalty(l.d->nlp, x[l.at[i] + l.pairs[i] + k]);
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
            for (int k = 0; k < l.pairs[i]; k++) {
                const int j = l.at[i] + l.pairs[i] + k;
                grad[j] = rs_penalty_d1(l.d->nlp, x[j]);
            }
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
    for (int j = 0; j < 3 * l.B; j++)
        g[j] = x[j] - l.vf[j];
    for (int i = 0; i < l.C; i++) {
        const rs_contact *c = &cs[i];
        double t[2];
        bodies_tangent(c, t);
        const int a = l.at[i], np = l.pairs[i];
        const double f = np == 4 ? x[a + 1] - x[a + 2] : 0.0;
        const int sides[2] = {1, -1}, who[2] = {c->a, c->b};
        for (int j = 0; j < 2; j++) {
            if (who[j] < 0)
                continue;
            for (int k = 0; k < 3; k++)
                g[col_v(who[j], k)] += force_coef(l.s, l.d->dt, c, sides[j], c->n, k) * x[a] +
                                       force_coef(l.s, l.d->dt, c, sides[j], t, k) * f;
        }
        contact_rows r;
        rows_of(&l, i, x, &r);
        for (int k = 0; k < np; k++) {
            g[a + k] = r.w[k];
            g[a + np + k] = x[a + np + k] - x[a + k] * r.w[k];
        }
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

void bodies_pairs_size(const rs_step_data *d, int *n, int *m)
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

void bodies_pairs_layout(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
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
        *key = (unsigned long long)l.B; /* (the bounds follow from B and n) */
    }
    layout_free(&l, tmp);
}

void bodies_pairs_describe(rs_nlp_problem *p)
{
    p->n = p->m = 0; /* per step: bodies_pairs_size */
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
 * (current) or move freely (contact-free); no force, each sliding speed gamma = |J_t v| (its
 * contact-free value, the LCP's auxiliary), slacks 0. */
void bodies_pairs_start(const rs_step_data *d, rs_nlp_start which, double *x0)
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
    for (int i = 0; i < l.C; i++) {
        if (l.pairs[i] < 4)
            continue;
        contact_rows r;
        rows_of(&l, i, NULL, &r);
        x0[l.at[i] + 3] = fabs(dot_row(r.cols, r.ct, r.nk, x0));
    }
    layout_free(&l, tmp);
}

void bodies_pairs_recover(const rs_step_data *d, const double *x, double *sn, double *forces,
                          double *contact)
{
    bodies_step *tmp;
    layout l;
    const int ok = layout_get(d, &l, &tmp);
    for (int i = 0; ok && i < l.C; i++) {
        const double *z = x + l.at[i];
        double *lam = bodies_nlp_contact_forces(l.s) + 2 * i;
        lam[0] = l.s->fscale[i] * z[0];
        lam[1] = l.pairs[i] == 4 ? l.s->fscale[i] * (z[1] - z[2]) : 0.0;
    }
    bodies_nlp_recover(d, ok ? l.s : NULL, x, sn, forces, contact);
    layout_free(&l, tmp);
}
