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

#include "dynamics/bodies_rows.h"

static inline int col_v(int b, int k)
{
    return 3 * b + k;
}

/* The scaled velocity row of Jacobian row j (bodies_rows.h), J v' / V: for each of its bodies
 * the coefficients of (vx, vz, w): (c_x, c_z, c_theta / R); returns their number (3 or 6), the
 * columns in cols. */
static inline int velocity_row(const bodies_step *st, const bodies_jrow *j, int *cols,
                               double *coef)
{
    int k = 0;
    for (int x = 0; x < 2; x++) {
        const int b = j->body[x];
        if (b < 0)
            continue;
        const double R = fmax(st->extent[b], 1e-300);
        cols[k] = col_v(b, 0);
        coef[k++] = j->c[x][0];
        cols[k] = col_v(b, 1);
        coef[k++] = j->c[x][1];
        cols[k] = col_v(b, 2);
        coef[k++] = j->c[x][2] / R;
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

/* The scaled coefficient, in row k of (D1) divided by V of the body at slot x of Jacobian row
 * r, of a unit force along r in the force unit F (a contact's F_i = fscale_i): -m_F / m_b c_k
 * for k = 0, 1 and -m_F R_b / I_b c_theta for the angle (0 for a locked rotation),
 * m_F = F dt / V (the mass the unit force gives V in a step: a contact's lighter body's, or
 * its load's, times V_i / V). */
static inline double force_coef(const bodies_step *st, double dt, const bodies_jrow *r, int x,
                                int k, double F)
{
    const int b = r->body[x];
    const double m_F = F * dt / st->scales.speed;
    if (k < 2)
        return -m_F / st->mass[b] * r->c[x][k];
    const double R = st->extent[b], I = st->inertia[b];
    return isfinite(I) ? -m_F * R / I * r->c[x][2] : 0.0;
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
