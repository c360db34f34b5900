/*
 * bodies_lcp.c: the bodies engine's step LCP (Stewart-Trinkle, the planar cone exactly:
 * dynamics/bodies.h), its units, and the step's outputs recovered from its answer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "dynamics/bodies.h"

/* ---- the LCP -------------------------------------------------------------------------------- */

/* The direction of unknown k of contact c (0: p along n, 1: beta+ along t, 2: beta- along -t;
 * 3: gamma, no direction) into e; 0 for gamma. */
static int direction(const rs_contact *c, int k, double *e)
{
    double t[2];
    bodies_tangent(c, t);
    if (k == 0) {
        e[0] = c->n[0];
        e[1] = c->n[1];
    } else if (k == 1 || k == 2) {
        const double s = k == 1 ? 1.0 : -1.0;
        e[0] = s * t[0];
        e[1] = s * t[1];
    }
    return k < 3;
}

/* dt times the velocity along f at contact cj caused by a unit force along e at contact ci:
 * sum over the bodies they share of s_i s_j dt (e . f / m + cross(r_i, e) cross(r_j, f) / I). */
static double coupling(const bodies_step *s, double dt, const rs_contact *ci, const double *e,
                       const rs_contact *cj, const double *f)
{
    double v = 0.0;
    const int bi[2] = {ci->a, ci->b}, bj[2] = {cj->a, cj->b};
    const double *ri[2] = {ci->ra, ci->rb}, *rj[2] = {cj->ra, cj->rb};
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            if (bi[x] < 0 || bi[x] != bj[y])
                continue;
            const int b = bi[x];
            const double sign = (x == 0 ? 1.0 : -1.0) * (y == 0 ? 1.0 : -1.0);
            v += sign * dt *
                 ((e[0] * f[0] + e[1] * f[1]) / s->mass[b] +
                  bodies_cross(ri[x], e) * bodies_cross(rj[y], f) / s->inertia[b]);
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
    const int n = s->nz, nc = s->list.n;
    const double dt = d->dt;
    memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
    memset(q, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < nc; j++) { /* rows of contact j */
        const rs_contact *cj = &s->list.c[j];
        const int rows = s->mu[j] > 0.0 ? 3 : 1, r0 = s->first[j];
        for (int rk = 0; rk < rows; rk++) {
            double f[2];
            direction(cj, rk, f);
            const int row = r0 + rk;
            q[row] = bodies_relative_velocity(cj, f, s->vfree) + (rk == 0 ? cj->gap / dt : 0.0);
            for (int i = 0; i < nc; i++) { /* columns of contact i's forces */
                const rs_contact *ci = &s->list.c[i];
                const int cols = s->mu[i] > 0.0 ? 3 : 1;
                for (int ck = 0; ck < cols; ck++) {
                    double e[2];
                    direction(ci, ck, e);
                    M[row + (size_t)(s->first[i] + ck) * n] = coupling(s, dt, ci, e, cj, f);
                }
            }
            if (rk > 0) /* gamma_j + / - J_t v' */
                M[row + (size_t)(r0 + 3) * n] = 1.0;
        }
        if (rows == 3) { /* mu p - beta+ - beta- */
            const int row = r0 + 3;
            M[row + (size_t)r0 * n] = s->mu[j];
            M[row + (size_t)(r0 + 1) * n] = -1.0;
            M[row + (size_t)(r0 + 2) * n] = -1.0;
        }
    }
    bodies_step_release(tmp);
}

void bodies_lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    for (int i = 0; i < s->list.n; i++) {
        const int f = s->first[i];
        z_unit[f] = s->fscale[i];
        w_unit[f] = s->vscale[i];
        if (s->mu[i] > 0.0) {
            z_unit[f + 1] = z_unit[f + 2] = s->fscale[i];
            z_unit[f + 3] = w_unit[f + 1] = w_unit[f + 2] = s->vscale[i];
            w_unit[f + 3] = s->fscale[i];
        }
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
    double *v = s->work, *lam = v + 3 * nb; /* (p, f) per contact (the step's scratch) */
    for (int i = 0; i < s->list.n; i++) {
        const int f = s->first[i];
        lam[2 * i] = z[f];
        lam[2 * i + 1] = s->mu[i] > 0.0 ? z[f + 1] - z[f + 2] : 0.0;
    }
    if (contact)
        memcpy(contact, lam, sizeof(double) * 2 * (size_t)s->list.n);
    bodies_velocities(s, d->dt, lam, v, forces);
    bodies_integrate(d, v, sn);
    bodies_step_release(tmp);
}

/* z at zero contact forces: the forces 0, each sliding speed gamma_i = |J_t v_free| (never a
 * solution of the contact problem). */
void bodies_lcp_contact_free(const rs_step_data *d, double *z)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    memset(z, 0, sizeof(double) * (size_t)s->nz);
    for (int i = 0; i < s->list.n; i++)
        if (s->mu[i] > 0.0) {
            double t[2];
            bodies_tangent(&s->list.c[i], t);
            z[s->first[i] + 3] = fabs(bodies_relative_velocity(&s->list.c[i], t, s->vfree));
        }
    bodies_step_release(tmp);
}
