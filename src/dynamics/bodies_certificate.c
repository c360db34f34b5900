/*
 * bodies_certificate.c: the bodies engine's natural units, its physical certificate recomputed
 * from a step's outputs, and the bodies' contact modes (dynamics/bodies.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "dynamics/bodies_rows.h"

void bodies_step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (s)
        *sc = s->scales;
    else
        sc->speed = sc->length = sc->force = NAN;
    bodies_step_release(tmp);
}


/* Each column's natural unit: a body's position in L, its angle in L / R, its velocity in V and
 * angular velocity in V / R, its force in m V / dt and torque in m V R / dt (R: its extent). */
void bodies_column_units(const rs_step_data *d, const rs_step_scales *sc, double *unit)
{
    const int nb = d->scene->nbodies;
    for (int b = 0; b < nb; b++) {
        const double R = fmax(d->scene->bodies[b].extent, 1e-300);
        const double F = d->params[BP_MASS0 + b] * sc->speed / d->dt;
        double *u = unit + BS_N * b;
        u[BS_X] = u[BS_Z] = sc->length;
        u[BS_TH] = sc->length / R;
        u[BS_XD] = u[BS_ZD] = sc->speed;
        u[BS_THD] = sc->speed / R;
        double *f = unit + BS_N * nb + BF_N * b;
        f[BF_X] = f[BF_Z] = F;
        f[BF_TAU] = F * R;
    }
}

/* The generalised velocities after the step, 3 per body, from the next state. */
static void next_velocities(int nb, const double *sn, double *v)
{
    for (int b = 0; b < nb; b++) {
        v[3 * b] = sn[BS_N * b + BS_XD];
        v[3 * b + 1] = sn[BS_N * b + BS_ZD];
        v[3 * b + 2] = sn[BS_N * b + BS_THD];
    }
}

/* The physical certificate (dynamics/bodies.h). */
void bodies_residuals(const rs_step_data *d, const double *sn, const double *f,
                      const double *contact, double *primal, double *complementarity)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    const int nc = s ? s->list.n : 0;
    if (!s || (nc > 0 && !contact)) { /* nothing to certify the step with */
        *primal = *complementarity = NAN;
        bodies_step_release(tmp);
        return;
    }
    double *v = s->work; /* (the step's scratch: bodies_work_size) */
    const rs_step_scales *sc = &s->scales;
    const double V = sc->speed, L = sc->length, dt = d->dt;
    double *vc = v + 3 * nb; /* v' implied by the contact forces */
    next_velocities(nb, sn, v);
    double p = 0.0, c = 0.0;
    bodies_velocities(s, dt, contact, vc, NULL);
    for (int b = 0; b < nb; b++) {
        const double R = fmax(s->extent[b], 1e-300), F = s->mass[b] * V / dt;
        const double *x = d->state + BS_N * b, *y = sn + BS_N * b;
        /* (D2): positions from the velocities, beyond the update's own rounding (at dt = 1e-6
         * s a box at z = 0.3 m rounds to 2.8e-17 m = 2.8e-6 L); (D1): the velocities from the
         * contact forces */
        p = fmax(p, rs_update_excess(y[BS_X], x[BS_X], dt * y[BS_XD], L));
        p = fmax(p, rs_update_excess(y[BS_Z], x[BS_Z], dt * y[BS_ZD], L));
        p = fmax(p, rs_update_excess(y[BS_TH], x[BS_TH], dt * y[BS_THD], L / R));
        p = fmax(p, fmax(fabs(v[3 * b] - vc[3 * b]), fabs(v[3 * b + 1] - vc[3 * b + 1])) / V);
        p = fmax(p, fabs(v[3 * b + 2] - vc[3 * b + 2]) * R / V);
        /* the reported totals are the contacts' */
        const double *fb = f + BF_N * b;
        const double dv[2] = {(v[3 * b] - s->vfree[3 * b]) * s->mass[b] / dt,
                              (v[3 * b + 1] - s->vfree[3 * b + 1]) * s->mass[b] / dt};
        p = fmax(p, fmax(fabs(fb[BF_X] - dv[0]), fabs(fb[BF_Z] - dv[1])) / F);
        if (isfinite(s->inertia[b])) /* (a locked rotation takes any torque: its angle holds) */
            p = fmax(p, fabs(fb[BF_TAU] - (v[3 * b + 2] - s->vfree[3 * b + 2]) * s->inertia[b] /
                                              dt) / (F * R));
    }
    for (int k = 0; k < s->nblocks; k++) { /* each block's own rows */
        const bodies_block *bk = &s->block[k];
        bk->ops->residual(s, bk->item, dt, v, contact + bk->react_at, &p, &c);
    }
    *primal = p;
    *complementarity = c;
    bodies_step_release(tmp);
}

/* One mode per body: separating without contact force; else, among its closed contacts (gap
 * after the step within 1e-6 L), sticking when none slips beyond the speed tolerance, sliding
 * along the tangent of the fastest slip otherwise (+ when the body moves along its t), contact
 * when every one of its contacts is frictionless. */
void bodies_modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    for (int b = 0; b < nb; b++)
        out[b] = RS_MODE_SEPARATING;
    if (!s) {
        bodies_step_release(tmp);
        return;
    }
    /* (the step's scratch: bodies_work_size) */
    double *v = s->work, *fastest = v + 3 * nb;
    int *friction = s->work_int;
    next_velocities(nb, sn, v);
    memset(fastest, 0, sizeof(double) * (size_t)nb);
    memset(friction, 0, sizeof(int) * (size_t)nb);
    for (int b = 0; b < nb; b++) {
        const double *fb = f + BF_N * b;
        const double R = fmax(s->extent[b], 1e-300);
        if (hypot(fb[BF_X], fb[BF_Z]) > tols->force || fabs(fb[BF_TAU]) / R > tols->force)
            out[b] = RS_MODE_CONTACT;
    }
    for (int k = 0; k < s->nblocks; k++) {
        const bodies_block *bk = &s->block[k];
        int who[2], fr = 0;
        double slip = 0.0;
        if (!bk->ops->closed(s, bk->item, d->dt, v, who, &slip, &fr))
            continue;
        for (int j = 0; j < 2; j++) {
            const int b = who[j];
            if (b < 0 || out[b] == RS_MODE_SEPARATING)
                continue;
            friction[b] |= fr;
            const double own = j == 0 ? slip : -slip;
            if (fabs(own) > fabs(fastest[b]))
                fastest[b] = own;
        }
    }
    for (int b = 0; b < nb; b++) {
        if (out[b] == RS_MODE_SEPARATING || !friction[b])
            continue;
        out[b] = !(fabs(fastest[b]) > tols->speed) ? RS_MODE_STICKING
                 : fastest[b] > 0.0                 ? RS_MODE_SLIDING_POS
                                                    : RS_MODE_SLIDING_NEG;
    }
    bodies_step_release(tmp);
}
