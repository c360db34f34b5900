/*
 * bodies_lcp.c: the bodies engine's step LCP (Stewart-Trinkle, the planar cone exactly:
 * dynamics/bodies.h), its units, and the step's outputs recovered from its answer, each
 * assembled from the step's blocks of constraint rows (bodies_rows.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "dynamics/bodies_rows.h"

/* ---- the LCP -------------------------------------------------------------------------------- */

/* dt times the velocity along row f caused by a unit force along row e: over the bodies they
 * share, dt (e_b . f_b / m_b + e_b,theta f_b,theta / I_b) (bodies_rows.h: the signs are in the
 * rows' coefficients). */
static double coupling(const bodies_step *s, double dt, const bodies_jrow *e, const bodies_jrow *f)
{
    double v = 0.0;
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            if (e->body[x] < 0 || e->body[x] != f->body[y])
                continue;
            const int b = e->body[x];
            const double *ce = e->c[x], *cf = f->c[y];
            v += dt * ((ce[0] * cf[0] + ce[1] * cf[1]) / s->mass[b] +
                       ce[2] * cf[2] / s->inertia[b]);
        }
    return v;
}

int bodies_lcp_size(const rs_step_data *d, unsigned long long *structure)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return -1;
    const int n = s->nz;
    *structure = s->key;
    bodies_step_release(tmp);
    return n;
}

void bodies_lcp_build(const rs_step_data *d, double *M, double *q)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    const int n = s->nz;
    const double dt = d->dt;
    memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
    memset(q, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < s->nblocks; j++) { /* rows of block j: M = dt J W J^T + A */
        const bodies_block *bj = &s->block[j];
        for (int rk = 0; rk < bj->count; rk++) {
            const int row = bj->first + rk;
            const bodies_jrow *f = &s->jrow[row];
            if (f->body[0] < 0)
                continue;
            q[row] = bodies_jrow_dot(f, s->vfree) + bj->ops->bias(s, bj->item, rk, dt, 1.0);
            for (int col = 0; col < n; col++) /* the columns of every force */
                if (s->jrow[col].body[0] >= 0)
                    M[row + (size_t)col * n] = coupling(s, dt, &s->jrow[col], f);
        }
        bodies_term a[BODIES_BLOCK_TERMS];
        const int na = bj->ops->couplings(s, bj->item, a);
        for (int k = 0; k < na; k++)
            M[bj->first + a[k].row + (size_t)(bj->first + a[k].col) * n] = a[k].value;
    }
    bodies_step_release(tmp);
}

void bodies_lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    for (int k = 0; k < s->nblocks; k++) {
        const bodies_block *bk = &s->block[k];
        bk->ops->units(s, bk->item, z_unit + bk->first, w_unit + bk->first);
    }
    bodies_step_release(tmp);
}


int bodies_contact_count(const rs_step_data *d)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int n = s ? s->list.n : 0;
    bodies_step_release(tmp);
    return n;
}

void bodies_contact_geometry(const rs_step_data *d, rs_contact_geometry *out)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    for (int i = 0; s && i < s->list.n; i++) {
        const rs_contact *c = &s->list.c[i];
        out[i] = (rs_contact_geometry){c->a, c->b, {c->p[0], c->p[1]}, {c->n[0], c->n[1]}, c->gap};
    }
    bodies_step_release(tmp);
}

void bodies_lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *contact)
{
    (void)w;
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    if (!s) {
        for (int i = 0; i < BS_N * nb; i++)
            sn[i] = NAN;
        for (int i = 0; i < BF_N * nb; i++)
            forces[i] = NAN;
        bodies_step_release(tmp);
        return;
    }
    double *v = s->work, *lam = v + 3 * nb; /* the reactions (the step's scratch) */
    for (int k = 0; k < s->nblocks; k++) {
        const bodies_block *bk = &s->block[k];
        bodies_block_reactions(s, bk, z + bk->first, lam + bk->react_at);
    }
    if (contact)
        memcpy(contact, lam, sizeof(double) * 2 * (size_t)s->list.n);
    bodies_velocities(s, d->dt, lam, v, forces);
    bodies_integrate(d, v, sn);
    bodies_step_release(tmp);
}

/* z at zero contact forces: the forces 0, each block's auxiliaries at the free velocities (a
 * contact's sliding speed gamma_i = |J_t v_free|: never a solution of the contact problem). */
void bodies_lcp_contact_free(const rs_step_data *d, double *z)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    memset(z, 0, sizeof(double) * (size_t)s->nz);
    double jv[BODIES_BLOCK_MAX];
    for (int k = 0; k < s->nblocks; k++) {
        const bodies_block *bk = &s->block[k];
        for (int j = 0; j < bk->count; j++) {
            const bodies_jrow *r = &s->jrow[bk->first + j];
            jv[j] = r->body[0] >= 0 ? bodies_jrow_dot(r, s->vfree) : 0.0;
        }
        bk->ops->start(s, bk->item, jv, z + bk->first);
    }
    bodies_step_release(tmp);
}
