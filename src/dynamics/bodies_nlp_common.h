/*
 * bodies_nlp_common.h (internal): what the bodies model's two NLPs share (bodies_nlp_post.c, the
 * post's form; bodies_nlp_pairs.c, the relaxed Stewart-Trinkle pairs): the scaled velocity rows
 * of a contact and the scaled effect of its forces on a body, a sink that writes triplets, and
 * the recovery of the step from an answer.
 * Both are posed in the step's natural units (bodies.h): body b's velocity in V and angular
 * velocity in V / R_b, its variables (vx, vz, w) first, at columns 3 b .. 3 b + 2.
 */
#ifndef RS_DYNAMICS_BODIES_NLP_COMMON_H
#define RS_DYNAMICS_BODIES_NLP_COMMON_H

#include <math.h>
#include <string.h>

#include "dynamics/bodies.h"

static inline int col_v(int b, int k)
{
    return 3 * b + k;
}

/* The scaled velocity row of direction e at contact c, J_e v' / V: for its bodies (a: +, b: -)
 * the coefficients of (vx, vz, w): s (e_x, e_z, cross(r, e) / R); returns their number (3 or
 * 6), the columns in cols. */
static inline int velocity_row(const bodies_step *st, const rs_contact *c, const double *e,
                               int *cols, double *coef)
{
    int k = 0;
    const int who[2] = {c->a, c->b};
    const double *r[2] = {c->ra, c->rb};
    for (int j = 0; j < 2; j++) {
        if (who[j] < 0)
            continue;
        const double s = j == 0 ? 1.0 : -1.0, R = fmax(st->extent[who[j]], 1e-300);
        cols[k] = col_v(who[j], 0);
        coef[k++] = s * e[0];
        cols[k] = col_v(who[j], 1);
        coef[k++] = s * e[1];
        cols[k] = col_v(who[j], 2);
        coef[k++] = s * bodies_cross(r[j], e) / R;
    }
    return k;
}

static inline double dot_row(const int *cols, const double *coef, int k, const double *x)
{
    double v = 0.0;
    for (int j = 0; j < k; j++)
        v += coef[j] * x[cols[j]];
    return v;
}

/* The scaled coefficient, in body b's row k of (D1) divided by V, of a unit force of contact c
 * along e (in the contact's unit F_i = fscale_i): -s m_i / m_b e_k for k = 0, 1 and
 * -s m_i R_b / I_b cross(r, e) for the angle (0 for a locked rotation), m_i = F_i dt / V (the
 * mass the unit force gives V in a step: the lighter body's, or the load's, times V_i / V);
 * s = +1 on the contact's body a, -1 on its b. */
static inline double force_coef(const bodies_step *st, double dt, const rs_contact *c, int side,
                                const double *e, int k)
{
    const int b = side > 0 ? c->a : c->b;
    const double m_i = st->fscale[c - st->list.c] * dt / st->scales.speed;
    if (k < 2)
        return -(double)side * m_i / st->mass[b] * e[k];
    const double *r = side > 0 ? c->ra : c->rb;
    const double R = st->extent[b], I = st->inertia[b];
    return isfinite(I) ? -(double)side * m_i * R / I * bodies_cross(r, e) : 0.0;
}

/* Where an NLP's recovery writes its answer's contact forces, 2 per contact (p, f, N), for
 * bodies_nlp_recover: the step's scratch after the velocities (bodies_work_size). */
static inline double *bodies_nlp_contact_forces(const bodies_step *st)
{
    return st->work + 6 * (size_t)st->nb;
}

/* The recovery both NLPs share, once the caller has written its answer x's contact forces into
 * bodies_nlp_contact_forces(st): the velocities are the NLP's own (x's, from V and V / R_b),
 * the positions follow from them (D2), the bodies' force totals from the contact forces, which
 * contact (may be NULL) receives. st NULL (the step could not be prepared): every output NaN. */
static inline void bodies_nlp_recover(const rs_step_data *d, const bodies_step *st,
                                      const double *x, double *sn, double *forces,
                                      double *contact)
{
    const int nb = d->scene->nbodies;
    if (!st) {
        for (int i = 0; i < BS_N * nb; i++)
            sn[i] = NAN;
        for (int i = 0; i < BF_N * nb; i++)
            forces[i] = NAN;
        return;
    }
    const int nc = st->list.n;
    double *v = st->work, *vc = v + 3 * nb; /* (the step's scratch: bodies_work_size) */
    const double *lam = bodies_nlp_contact_forces(st);
    const double V = st->scales.speed;
    for (int b = 0; b < nb; b++) {
        v[3 * b] = V * x[col_v(b, 0)];
        v[3 * b + 1] = V * x[col_v(b, 1)];
        v[3 * b + 2] = V * x[col_v(b, 2)] / fmax(st->extent[b], 1e-300);
    }
    if (contact && nc > 0)
        memcpy(contact, lam, sizeof(double) * 2 * (size_t)nc);
    if (nc > 0)
        bodies_velocities(st, d->dt, lam, vc, forces); /* the totals (v' is the NLP's own) */
    else
        memset(forces, 0, sizeof(double) * BF_N * (size_t)nb);
    bodies_integrate(d, v, sn);
}

/* Triplets: one walk writes the structure, the Jacobian's values or the Hessian's. */
typedef struct sink {
    int k;          /* entries so far */
    int *row, *col; /* structure (NULL: not wanted) */
    double *val;    /* values (NULL: not wanted) */
} sink;

static inline void put(sink *s, int row, int col, double v)
{
    if (s->row) {
        s->row[s->k] = row;
        s->col[s->k] = col;
    }
    if (s->val)
        s->val[s->k] = v;
    s->k++;
}

#endif
