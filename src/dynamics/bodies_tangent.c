/*
 * bodies_tangent.c: the bodies model's step derivatives for `relaxsim grad`: the tangents of the
 * step LCP (M, q) and of the recovery (next state, forces) along a direction in the step's data
 * (parameters: g, mu, the masses; the state; the inputs; dt), the step's contact set held fixed
 * (the same features touch: a change of the set between two runs is a switch, as a change of
 * the LCP's index sets is).
 *
 * By the complex step: every quantity of the step is evaluated once more in complex arithmetic
 * at data + i h t (h = 1e-100), from the poses through the contacts' geometry (each contact's
 * features, as rs_find_contacts found them: geom/contacts.h) to (M, q) and to the recovered
 * state; its imaginary part over h is the directional derivative, exact to rounding (no
 * difference is taken: nothing cancels). Each block evaluates its own rows there
 * (bodies_rows.h: ops->complex_rows; a contact's geometry in bodies_row_contact.c), and (M, q)
 * and the recovery are assembled from them as bodies_lcp.c does in real arithmetic; test_bodies
 * checks that the complex evaluation at h = 0 gives bodies_lcp.c's (M, q), and the tangents
 * against central differences.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/bodies_complex.h"

#define CSTEP 1e-100

/* The complex numbers of cdata's arrays. */
static size_t cdata_size(const rs_step_data *d)
{
    const size_t nb = (size_t)d->scene->nbodies;
    return (size_t)bodies_nparams(d->scene) + 6 * nb + 3 * nb + 6 * nb;
}

/* c's data at d + i h t (t NULL: h = 0), its arrays in block (cdata_size). */
static void cdata_init(cdata *c, const rs_step_data *d, const bodies_step *s,
                       const rs_step_tangent *t, cx *block)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->s = s;
    c->nb = s->nb;
    const int nb = c->nb, np = bodies_nparams(d->scene);
    c->params = block;
    c->state = c->params + np;
    c->input = c->state + 6 * nb;
    c->mass = c->input + 3 * nb;
    c->inertia = c->mass + nb;
    c->inv_inertia = c->inertia + nb;
    c->vfree = c->inv_inertia + nb;
    const double h = t ? CSTEP : 0.0;
    for (int i = 0; i < np; i++)
        c->params[i] = d->params[i] + I * h * (t ? t->params[i] : 0.0);
    for (int i = 0; i < 6 * nb; i++)
        c->state[i] = d->state[i] + I * h * (t ? t->state[i] : 0.0);
    for (int i = 0; i < 3 * nb; i++)
        c->input[i] = d->input[i] + I * h * (t ? t->input[i] : 0.0);
    c->dt = d->dt + I * h * (t ? t->dt : 0.0);
    const cx g = c->params[BP_G];
    for (int b = 0; b < nb; b++) {
        const rs_body *bd = &d->scene->bodies[b];
        const cx m = c->params[BP_MASS0 + b];
        c->mass[b] = m;
        c->inertia[b] = bd->locked ? 0.0 : bd->inertia > 0.0 ? bd->inertia : m * bd->inertia_per_kg;
        c->inv_inertia[b] = bd->locked ? 0.0 : 1.0 / c->inertia[b];
        const cx *x = c->state + BS_N * b, *u = c->input + BU_N * b;
        c->vfree[3 * b] = x[BS_XD] + c->dt * u[BU_X] / m;
        c->vfree[3 * b + 1] = x[BS_ZD] + c->dt * (u[BU_Z] / m - g);
        c->vfree[3 * b + 2] = x[BS_THD] + c->dt * u[BU_TAU] * c->inv_inertia[b];
    }
}

/* dt times the velocity along row f caused by a unit force along row e (bodies_lcp.c's coupling
 * in complex; a locked rotation's inv_inertia 0). */
static cx ccoupling(const cdata *c, const cjrow *e, const cjrow *f)
{
    cx v = 0.0;
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            if (e->body[x] < 0 || e->body[x] != f->body[y])
                continue;
            const int b = e->body[x];
            const cx *ce = e->c[x], *cf = f->c[y];
            v += c->dt * ((ce[0] * cf[0] + ce[1] * cf[1]) / c->mass[b] +
                          ce[2] * cf[2] * c->inv_inertia[b]);
        }
    return v;
}

/* Every block's rows at the complex data (ops->complex_rows). */
static void crows_fill(const cdata *c, crows *rows)
{
    const bodies_step *s = c->s;
    for (int k = 0; k < s->nblocks; k++)
        s->block[k].ops->complex_rows(c, s->block[k].item, &rows[k]);
}

/* (M, q) in complex (n = the step's LCP size) from the blocks' rows: M = dt J W J^T + A,
 * q = J v_free + b, as bodies_lcp_build. */
static void cbuild(const cdata *c, crows *rows, cx *M, cx *q)
{
    const bodies_step *s = c->s;
    const int n = s->nz;
    crows_fill(c, rows);
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        M[k] = 0.0;
    for (int k = 0; k < n; k++)
        q[k] = 0.0;
    for (int j = 0; j < s->nblocks; j++) {
        const bodies_block *bj = &s->block[j];
        for (int rk = 0; rk < bj->count; rk++) {
            if (!rows[j].has[rk])
                continue;
            const int row = bj->first + rk;
            const cjrow *f = &rows[j].j[rk];
            q[row] = cjrow_dot(f, c->vfree) + rows[j].bias[rk];
            for (int i = 0; i < s->nblocks; i++) /* the columns of every force */
                for (int ck = 0; ck < s->block[i].count; ck++)
                    if (rows[i].has[ck])
                        M[row + (size_t)(s->block[i].first + ck) * n] =
                            ccoupling(c, &rows[i].j[ck], f);
        }
        bodies_term a[BODIES_BLOCK_TERMS];
        const int na = bj->ops->couplings(s, bj->item, a);
        for (int k = 0; k < na; k++)
            M[bj->first + a[k].row + (size_t)(bj->first + a[k].col) * n] = rows[j].a[k];
    }
}

/* The recovery in complex: each block's reactions r = R z, the bodies' totals sum_j J_j^T r_j
 * along the reactions' rows, v' and the state. */
static void crecover(const cdata *c, const crows *rows, const cx *z, cx *sn, cx *forces)
{
    const bodies_step *s = c->s;
    const int nb = c->nb;
    for (int k = 0; k < 3 * nb; k++)
        forces[k] = 0.0;
    for (int k = 0; k < s->nblocks; k++) {
        const bodies_block *bk = &s->block[k];
        bodies_term t[BODIES_BLOCK_TERMS];
        const int nt = bk->ops->reaction_terms(s, bk->item, t);
        cx r[BODIES_BLOCK_MAX] = {0.0};
        for (int j = 0; j < nt; j++)
            r[t[j].row] += t[j].value * z[bk->first + t[j].col];
        for (int j = 0; j < bk->ops->nreactions; j++) {
            const cjrow *rr = &rows[k].r[j];
            for (int x = 0; x < 2; x++)
                if (rr->body[x] >= 0)
                    for (int m = 0; m < 3; m++)
                        forces[3 * rr->body[x] + m] += r[j] * rr->c[x][m];
        }
    }
    for (int b = 0; b < nb; b++) {
        const cx *x = c->state + BS_N * b;
        cx *y = sn + BS_N * b;
        y[BS_XD] = c->vfree[3 * b] + c->dt * forces[3 * b] / c->mass[b];
        y[BS_ZD] = c->vfree[3 * b + 1] + c->dt * forces[3 * b + 1] / c->mass[b];
        y[BS_THD] = c->vfree[3 * b + 2] + c->dt * forces[3 * b + 2] * c->inv_inertia[b];
        y[BS_X] = x[BS_X] + c->dt * y[BS_XD];
        y[BS_Z] = x[BS_Z] + c->dt * y[BS_ZD];
        y[BS_TH] = x[BS_TH] + c->dt * y[BS_THD];
    }
}

/* The workspace of one evaluation: the complex data, M and q (with_matrix), the recovery's
 * z, next state and forces (with_recovery), the blocks' rows; in the step's arena
 * (bodies_step_arena: an evaluation allocates only when its step is larger than any before). */
typedef struct cwork {
    cdata c;
    cx *M, *q;
    cx *z, *sn, *forces;
    crows *rows;
} cwork;

static int cwork_init(cwork *w, const rs_step_data *d, bodies_step *s, const rs_step_tangent *t,
                      int with_matrix, int with_recovery)
{
    memset(w, 0, sizeof *w);
    const size_t n = (size_t)s->nz, nb = (size_t)s->nb, nk = (size_t)s->nblocks;
    const size_t ncx = cdata_size(d) + (with_matrix ? n * n + n : 0) +
                       (with_recovery ? n + 6 * nb + 3 * nb : 0);
    cx *a = bodies_step_arena(s, sizeof(cx) * ncx + sizeof(crows) * (nk + 1));
    if (!a)
        return 0;
    cdata_init(&w->c, d, s, t, a);
    a += cdata_size(d);
    if (with_matrix) {
        w->M = a;
        w->q = w->M + n * n;
        a = w->q + n;
    }
    if (with_recovery) {
        w->z = a;
        w->sn = w->z + n;
        w->forces = w->sn + 6 * nb;
        a = w->forces + 3 * nb;
    }
    w->rows = (crows *)(void *)a; /* (crows holds complex numbers: cx's alignment suffices) */
    return 1;
}

void bodies_lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp);
    cwork w;
    const int n = s ? s->nz : 0;
    if (!s || !cwork_init(&w, d, s, t, 1, 0)) {
        for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
            dM[k] = NAN;
        for (int k = 0; k < n; k++)
            dq[k] = NAN;
    } else {
        cbuild(&w.c, w.rows, w.M, w.q);
        for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
            dM[k] = cimag(w.M[k]) / CSTEP;
        for (int k = 0; k < n; k++)
            dq[k] = cimag(w.q[k]) / CSTEP;
    }
    bodies_step_release(tmp);
}

void bodies_lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *wz, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)wz;
    (void)dw;
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    cwork w;
    if (!s || !cwork_init(&w, d, s, t, 0, 1)) {
        for (int k = 0; k < BS_N * nb; k++)
            dsn[k] = NAN;
        for (int k = 0; k < BF_N * nb; k++)
            dforces[k] = NAN;
    } else {
        for (int k = 0; k < s->nz; k++)
            w.z[k] = z[k] + I * CSTEP * dz[k];
        crows_fill(&w.c, w.rows);
        crecover(&w.c, w.rows, w.z, w.sn, w.forces);
        for (int k = 0; k < BS_N * nb; k++)
            dsn[k] = cimag(w.sn[k]) / CSTEP;
        for (int k = 0; k < BF_N * nb; k++)
            dforces[k] = cimag(w.forces[k]) / CSTEP;
    }
    bodies_step_release(tmp);
}

int bodies_complex_build(const rs_step_data *d, double *M, double *q)
{
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp);
    cwork w;
    const int ok = s && cwork_init(&w, d, s, NULL, 1, 0);
    if (ok) {
        const size_t n = (size_t)s->nz;
        cbuild(&w.c, w.rows, w.M, w.q);
        for (size_t k = 0; k < n * n; k++)
            M[k] = creal(w.M[k]);
        for (size_t k = 0; k < n; k++)
            q[k] = creal(w.q[k]);
    }
    bodies_step_release(tmp);
    return ok;
}
