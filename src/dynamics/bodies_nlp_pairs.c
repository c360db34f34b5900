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

/* The step's layout: the bodies, the variables (= rows), the scaled free velocities; each
 * block's first variable is its pair_at (find_step). */
typedef struct layout {
    const rs_step_data *d;
    const bodies_step *s;
    int B, n, m;
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
    l->vf = l->s->vfree_scaled;
    l->n = l->m = l->s->pairs_n;
    return 1;
}

static void layout_free(layout *l, bodies_step *tmp)
{
    (void)l; /* (its arrays are the step's) */
    bodies_step_release(tmp);
}

/* A block's rows in the NLP's units (bodies_rows.h): w_k = b_k + J_k v' + sum_c A_kc z_c, each
 * divided by its row's unit, with z_c in its unknown's: the velocity coefficients of J_k (nk[k]
 * of them, over cols[k]; none for a row without a Jacobian row), the bias, the couplings (col
 * a[t].col scaled by z_unit / w_unit), and the rows' values at x. */
typedef struct block_rows {
    int count, na;
    int nk[BODIES_BLOCK_MAX], cols[BODIES_BLOCK_MAX][6];
    double coef[BODIES_BLOCK_MAX][6];
    double bias[BODIES_BLOCK_MAX];
    bodies_term a[BODIES_BLOCK_TERMS];
    double w[BODIES_BLOCK_MAX];
} block_rows;

static void rows_of(const layout *l, const bodies_block *bk, const double *x, block_rows *r)
{
    const bodies_step *s = l->s;
    double z_unit[BODIES_BLOCK_MAX], w_unit[BODIES_BLOCK_MAX];
    bk->ops->units(s, bk->item, z_unit, w_unit);
    r->count = bk->count;
    for (int k = 0; k < r->count; k++) {
        const bodies_jrow *j = &s->jrow[bk->first + k];
        r->nk[k] = j->body[0] >= 0 ? velocity_row(s, j, r->cols[k], r->coef[k]) : 0;
        /* the row in its own unit (a contact's speed V_i; the velocities are in V): a slow
         * contact's slip and approach are judged in its own unit, not the scene's fastest
         * body's */
        const double kf = s->scales.speed / w_unit[k];
        for (int t = 0; t < r->nk[k]; t++)
            r->coef[k][t] *= kf;
        r->bias[k] = bk->ops->bias(s, bk->item, k, l->d->dt, w_unit[k]);
    }
    r->na = bk->ops->couplings(s, bk->item, r->a);
    for (int t = 0; t < r->na; t++)
        r->a[t].value *= z_unit[r->a[t].col] / w_unit[r->a[t].row];
    if (!x)
        return;
    const double *z = x + bk->pair_at;
    for (int k = 0; k < r->count; k++)
        r->w[k] = r->nk[k] ? r->bias[k] + dot_row(r->cols[k], r->coef[k], r->nk[k], x)
                           : r->bias[k];
    for (int t = 0; t < r->na; t++)
        r->w[r->a[t].row] += r->a[t].value * z[r->a[t].col];
}

/* The slot (0 or 1) of body b in a block's rows (its first reaction's), -1 when it has none. */
static int body_slot(const layout *l, const bodies_block *bk, int b)
{
    const bodies_jrow *r = &l->s->rrow[bk->react_at];
    return r->body[0] == b ? 0 : r->body[1] == b ? 1 : -1;
}

/* D_b's row k: the effect on body b (slot x) of block bk's reactions, for each of its terms
 * R_jc: the force coefficient of reaction j times R_jc, at the block's unknown c. */
static void put_forces(const layout *l, const bodies_block *bk, int x, int row, int k, sink *out)
{
    const bodies_step *s = l->s;
    bodies_term t[BODIES_BLOCK_TERMS];
    const int nt = bk->ops->reaction_terms(s, bk->item, t);
    const double F = bk->ops->reaction_unit(s, bk->item);
    for (int e = 0; e < nt; e++) {
        const double c = force_coef(s, l->d->dt, &s->rrow[bk->react_at + t[e].row], x, k, F);
        put(out, row, bk->pair_at + t[e].col, c * t[e].value);
    }
}

static void walk_jacobian(const layout *l, const double *x, sink *out)
{
    const bodies_step *s = l->s;
    for (int b = 0; b < l->B; b++) /* D_b */
        for (int k = 0; k < 3; k++) {
            put(out, col_v(b, k), col_v(b, k), 1.0);
            for (int i = 0; i < s->nblocks; i++) {
                const int slot = body_slot(l, &s->block[i], b);
                if (slot >= 0)
                    put_forces(l, &s->block[i], slot, col_v(b, k), k, out);
            }
        }
    for (int i = 0; i < s->nblocks; i++) {
        const bodies_block *bk = &s->block[i];
        block_rows r;
        rows_of(l, bk, x, &r);
        const int a = bk->pair_at, np = bk->count;
        const double *z = x ? x + a : NULL;
        for (int k = 0; k < np; k++) { /* w_k: its couplings, then its velocities */
            for (int t = 0; t < r.na; t++)
                if (r.a[t].row == k)
                    put(out, a + k, a + r.a[t].col, r.a[t].value);
            for (int j = 0; j < r.nk[k]; j++)
                put(out, a + k, r.cols[k][j], r.coef[k][j]);
        }
        for (int k = 0; k < np; k++) { /* c_k = s_k - z_k w_k */
            const int row = a + np + k;
            double dz = z ? -r.w[k] : 0.0; /* d/dz_k: -w_k - z_k A_kk */
            for (int t = 0; t < r.na; t++)
                if (z && r.a[t].row == k && r.a[t].col == k)
                    dz -= z[k] * r.a[t].value;
            put(out, row, row, 1.0);
            put(out, row, a + k, dz);
            for (int t = 0; t < r.na; t++)
                if (r.a[t].row == k && r.a[t].col != k)
                    put(out, row, a + r.a[t].col, z ? -z[k] * r.a[t].value : 0.0);
            for (int j = 0; j < r.nk[k]; j++)
                put(out, row, r.cols[k][j], z ? -z[k] * r.coef[k][j] : 0.0);
        }
    }
}

/* The Hessian's lower triangle: the bilinear terms of -y_k z_k w_k (every block variable comes
 * after the bodies'; within a block its unknowns, then its slacks): z_k with the velocities,
 * -y_k J_k; z_r with z_c (r > c), -y_c A_cr - y_r A_rc over the couplings there are; each slack's
 * penalty. */
static void walk_hessian(const layout *l, const double *x, double obj, const double *y,
                         sink *out)
{
    const double pen = rs_penalty_d2(l->d->nlp);
    (void)x;
    for (int i = 0; i < l->s->nblocks; i++) {
        const bodies_block *bk = &l->s->block[i];
        block_rows r;
        rows_of(l, bk, NULL, &r);
        const int a = bk->pair_at, np = bk->count;
        const double *yc = y ? y + a + np : NULL;
        for (int k = 0; k < np; k++)
            for (int j = 0; j < r.nk[k]; j++)
                put(out, a + k, r.cols[k][j], yc ? -yc[k] * r.coef[k][j] : 0.0);
        for (int hr = 1; hr < np; hr++) /* the pairs (hr, hc), hr > hc, in order */
            for (int hc = 0; hc < hr; hc++) {
                int have = 0;
                double v = 0.0;
                for (int side = 0; side < 2; side++) /* A_{hc,hr} first, then A_{hr,hc} */
                    for (int t = 0; t < r.na; t++) {
                        const int row = side ? hr : hc, col = side ? hc : hr;
                        if (r.a[t].row != row || r.a[t].col != col)
                            continue;
                        const double term = yc ? -yc[row] * r.a[t].value : 0.0;
                        v = have++ ? v + term : term;
                    }
                if (have)
                    put(out, a + hr, a + hc, v);
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
        for (int i = 0; i < l.s->nblocks; i++) {
            const bodies_block *bk = &l.s->block[i];
            for (int k = 0; k < bk->count; k++)
                f += rs_penalty(l.d->nlp, x[bk->pair_at + bk->count + k]);
        }
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
        for (int i = 0; i < l.s->nblocks; i++)
            for (int k = 0; k < l.s->block[i].count; k++) {
                const int j = l.s->block[i].pair_at + l.s->block[i].count + k;
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
    const bodies_step *s = l.s;
    for (int j = 0; j < 3 * l.B; j++)
        g[j] = x[j] - l.vf[j];
    for (int i = 0; i < s->nblocks; i++) {
        const bodies_block *bk = &s->block[i];
        const int a = bk->pair_at, np = bk->count;
        /* D_b: the reactions' effect on the block's bodies, sum_j force_coef_j r_j */
        double r[BODIES_BLOCK_MAX];
        bodies_block_reactions(s, bk, x + a, r);
        const double F = bk->ops->reaction_unit(s, bk->item);
        const bodies_jrow *r0 = &s->rrow[bk->react_at];
        for (int slot = 0; slot < 2; slot++) {
            if (r0->body[slot] < 0)
                continue;
            for (int k = 0; k < 3; k++) {
                double acc = 0.0;
                for (int j = 0; j < bk->ops->nreactions; j++) {
                    const double t =
                        force_coef(s, l.d->dt, &s->rrow[bk->react_at + j], slot, k, F) * r[j];
                    acc = j ? acc + t : t;
                }
                g[col_v(r0->body[slot], k)] += acc;
            }
        }
        block_rows br;
        rows_of(&l, bk, x, &br);
        for (int k = 0; k < np; k++) {
            g[a + k] = br.w[k];
            g[a + np + k] = x[a + np + k] - x[a + k] * br.w[k];
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
    double jv[BODIES_BLOCK_MAX];
    for (int i = 0; i < l.s->nblocks; i++) { /* the blocks' auxiliaries (a contact's gamma) */
        const bodies_block *bk = &l.s->block[i];
        block_rows r;
        rows_of(&l, bk, NULL, &r);
        for (int k = 0; k < bk->count; k++)
            jv[k] = r.nk[k] ? dot_row(r.cols[k], r.coef[k], r.nk[k], x0) : 0.0;
        bk->ops->start(l.s, bk->item, jv, x0 + bk->pair_at);
    }
    layout_free(&l, tmp);
}

void bodies_pairs_recover(const rs_step_data *d, const double *x, double *sn, double *forces,
                          double *contact)
{
    bodies_step *tmp;
    layout l;
    const int ok = layout_get(d, &l, &tmp);
    for (int i = 0; ok && i < l.s->nblocks; i++) { /* the reactions, in N */
        const bodies_block *bk = &l.s->block[i];
        double *lam = bodies_nlp_contact_forces(l.s) + bk->react_at;
        bodies_block_reactions(l.s, bk, x + bk->pair_at, lam);
        const double F = bk->ops->reaction_unit(l.s, bk->item);
        for (int j = 0; j < bk->ops->nreactions; j++)
            lam[j] *= F;
    }
    bodies_nlp_recover(d, ok ? l.s : NULL, x, sn, forces, contact);
    layout_free(&l, tmp);
}
